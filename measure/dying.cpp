#include "dying.h"

#include "archive.h"
#include "death_record.h"
#include "recorder.h"
#include "recorder_state.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace topolens::measure {

namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS,  SIGFPE, SIGILL,
                                 SIGABRT, SIGTERM, SIGINT, SIGQUIT};
constexpr size_t kSignalCount = sizeof kFatalSignals / sizeof kFatalSignals[0];

struct sigaction previous_actions[kSignalCount];
std::atomic<bool> armed{false};
std::atomic<bool> recorded{false}; // the death, or the process's end, has been written
pid_t armed_process = 0;           // a forked child that exits must not write its parent's trace
uint64_t closed_event_count = 0;
bool events_closed = false;

const char* signal_name(int sig) {
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGABRT:
        return "SIGABRT";
    case SIGTERM:
        return "SIGTERM";
    case SIGINT:
        return "SIGINT";
    case SIGQUIT:
        return "SIGQUIT";
    default:
        return "unknown signal";
    }
}

uint64_t global_time(const RecorderState& s, uint64_t local) {
    const int64_t offset = s.clock.empty() ? 0 : s.clock.front().offset;
    return static_cast<uint64_t>(static_cast<int64_t>(local) + offset);
}

DeathRecord make_record(const RecorderState& s, uint64_t events_on_disk, uint64_t last_local) {
    DeathRecord r;
    r.rank = static_cast<uint32_t>(s.rank);
    r.size = static_cast<uint32_t>(s.size);
    r.event_chunk_size = s.archive.event_chunk_size();
    for (const ClockSample& c : s.clock) r.clock.push_back({c.local_time, c.offset, c.deviation});
    ProcessContribution& c = r.contribution;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    c.host = host;
    c.event_count = events_on_disk;
    c.first_time = global_time(s, s.first_time);
    c.last_time = global_time(s, last_local);
    copy_definitions(s, c);
    return r;
}

// Before OTF2 writes a full event buffer: everything in it gets its definitions on disk
// first, so a process killed without warning (SIGKILL) still leaves readable events.
void before_flush() {
    RecorderState& s = state();
    // Not at threaded levels: other threads' flushes come here while the definitions change.
    if (!armed || recorded || !s.events || s.threaded) return;
    write_death_record(s.directory, make_record(s, Archive::recorded_events(s.events), now()));
}

// Signals a program may handle and live on (graceful shutdown, checkpointing).
bool survivable(int sig) {
    return sig == SIGTERM || sig == SIGINT || sig == SIGQUIT;
}

void on_fatal_signal(int sig, siginfo_t* info, void* context) {
    int index = 0;
    while (index < static_cast<int>(kSignalCount) - 1 && kFatalSignals[index] != sig) ++index;
    const struct sigaction& previous = previous_actions[index];
    const bool default_action = !(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_DFL;
    if (!default_action && survivable(sig)) {
        // The program's own handler decides: if it exits, the exit hook records that; if
        // it returns, the run goes on and so does the measurement.
        if (previous.sa_flags & SA_SIGINFO)
            previous.sa_sigaction(sig, info, context);
        else
            previous.sa_handler(sig);
        return;
    }
    // Our own signals are blocked while this runs (sa_mask); a fault inside the flush is
    // then fatal at once (the kernel's default action), which is what re-entry needs.
    record_death(std::string("signal ") + signal_name(sig));
    // The exit status must be the untraced one: the previous handler (Open MPI's, or the
    // default action) gets the signal as soon as this handler returns.
    sigaction(sig, &previous, nullptr);
    raise(sig);
}

void on_exit_without_finalize(int status, void*) {
    if (armed) record_death("exit(" + std::to_string(status) + ") without MPI_Finalize");
}

} // namespace

void arm_death_records() {
    RecorderState& s = state();
    if (s.directory.empty()) return;
    const DeathRecord record = make_record(s, 0, now());
    write_death_record(s.directory, record);
    // Its size tells how much room a trace needs beside its events (the full-disk tests).
    if (s.config.verbose)
        std::fprintf(stderr, "topolens: rank %d: %s holds %zu bytes\n", s.rank,
                     death_record_name(static_cast<uint32_t>(s.rank)).c_str(),
                     serialize(record).size());
    set_before_flush_hook(before_flush);
    struct sigaction action {};
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    for (int sig : kFatalSignals) sigaddset(&action.sa_mask, sig);
    for (size_t i = 0; i < kSignalCount; ++i) {
        sigaction(kFatalSignals[i], nullptr, &previous_actions[i]);
        // An ignored signal (SIGINT in a background job) does not end the process.
        const bool ignored = !(previous_actions[i].sa_flags & SA_SIGINFO) &&
                             previous_actions[i].sa_handler == SIG_IGN;
        if (!ignored) sigaction(kFatalSignals[i], &action, nullptr);
    }
    armed_process = getpid();
    static bool exit_hook = false; // on_exit handlers cannot be removed: registered once
    if (!exit_hook) exit_hook = on_exit(on_exit_without_finalize, nullptr) == 0;
    armed = true;
}

void note_events_closed(uint64_t count) {
    closed_event_count = count;
    events_closed = true;
}

void disarm_death_records() {
    if (!armed.exchange(false)) return;
    recorded = true;
    set_before_flush_hook(nullptr);
    for (size_t i = 0; i < kSignalCount; ++i)
        sigaction(kFatalSignals[i], &previous_actions[i], nullptr);
    const RecorderState& s = state();
    std::error_code ec;
    std::filesystem::remove(s.directory + "/" + death_record_name(static_cast<uint32_t>(s.rank)),
                            ec);
}

void record_abort(int errorcode) {
    RecorderState& s = state();
    if (recording()) {
        // Defined here, not with the other MPI regions: only traces that abort show it.
        RegionDefinition region;
        region.name = "MPI_Abort";
        region.canonical_name = region.name;
        region.source_file = "MPI";
        region.paradigm = OTF2_PARADIGM_MPI;
        const uint32_t id = s.definitions.region(region);
        record(s, [&](OTF2_EvtWriter* w) { return OTF2_EvtWriter_Enter(w, nullptr, now(), id); });
    }
    record_death("MPI_Abort(errorcode " + std::to_string(errorcode) + ")");
}

void record_death(const std::string& cause) {
    if (!armed || getpid() != armed_process || recorded.exchange(true)) return;
    RecorderState& s = state();
    const Timestamp time = now();
    s.active = false; // nothing more is recorded into a closing writer
    uint64_t count = closed_event_count;
    if (s.archive.events_abandoned()) {
        // A write failed before (full disk): the writer is never touched again; its file
        // holds what reached the disk, which the reader of a cut trace reads up to its end.
        count = s.outcome.events;
    } else if (s.events) {
        count = s.archive.close_event_writer();
        s.events = nullptr;
    } else if (!events_closed) {
        count = 0;
    }
    DeathRecord record = make_record(s, count, time);
    record.died = true;
    record.cause = cause;
    // At MPI_THREAD_SERIALIZED/MULTIPLE the other threads' writers are not flushed here
    // (they may be writing at this moment): the cause says so, and info/analyze show it.
    if (s.threaded && s.threads.size() > 1)
        record.cause += " (events of the thread that called MPI_Init only)";
    record.death_time = global_time(s, time);
    write_death_record(s.directory, record);
}

} // namespace topolens::measure
