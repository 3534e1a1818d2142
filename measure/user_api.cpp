// The C user API of include/topolens.h: user regions, Cartesian topologies, autotuners.
// Encoding in the trace: measure/TRACE_FORMAT.md, spelled in trace/tuned_encoding.h.
#include "topolens.h"

#include "recorder.h"
#include "recorder_state.h"
#include "trace/tuned_encoding.h"
#include "tuned_operations.h"

#include <cstring>
#include <string>
#include <string_view>

using namespace topolens::measure;
namespace encoding = topolens::trace;

namespace {

constexpr int kMaxDimensions = 16;

// Recording is possible: measurement on, MPI initialised and not finalised. User calls
// made from inside an MPI call (e.g. a callback) are not recorded.
bool can_record() {
    return recording();
}

// Tuned operations and topologies are process-wide: at threaded levels recorded on the
// thread that called MPI_Init only (others are told once, and ignored).
bool can_record_on_init_thread(const char* function) {
    return recording() && on_init_thread(function);
}

TunedOperation* tuned_operation(int handle) {
    RecorderState& s = state();
    if (handle <= 0 || static_cast<size_t>(handle) > s.tuned.size()) {
        warn_once("unknown tuned operation handle " + std::to_string(handle));
        return nullptr;
    }
    return &s.tuned[static_cast<size_t>(handle - 1)];
}

uint32_t codelet_region(TunedOperation& op, int index, const char* name) {
    return define_codelet_region(
        op, index, name && *name ? name : "codelet " + std::to_string(index),
        "codelet " + std::to_string(index) + " of tuned operation " + op.name);
}

} // namespace

extern "C" {

int topolens_is_active(void) {
    return state().active ? 1 : 0;
}

// ---------------------------------------------------------------- regions

// Single-threaded levels take the shortest path (no lock, the process's own writer).
int topolens_region_enter(const char* name) {
    if (!can_record() || !name) return -1;
    RecorderState& s = state();
    if (!s.threaded) [[likely]] {
        const uint32_t region = s.definitions.user_region(name);
        s.user_region_stack.push_back(region);
        record_enter(s, region, now());
        return 0;
    }
    std::unique_lock<std::mutex> lock(s.mutex);
    const uint32_t region = s.definitions.user_region(name);
    lock.unlock();
    thread_location().user_region_stack.push_back(region);
    record_enter(s, region, now());
    return 0;
}

int topolens_region_leave(const char* name) {
    if (!can_record() || !name) return -1;
    RecorderState& s = state();
    uint32_t region;
    std::vector<uint32_t>* stack = &s.user_region_stack;
    if (!s.threaded) [[likely]] {
        region = s.definitions.user_region(name);
    } else {
        std::unique_lock<std::mutex> lock(s.mutex);
        region = s.definitions.user_region(name);
        lock.unlock();
        stack = &thread_location().user_region_stack;
    }
    if (stack->empty() || stack->back() != region) {
        // Leaving anything but the innermost open region would unbalance the trace.
        warn_once(std::string("topolens_region_leave(\"") + name +
                  "\") does not match the innermost open region; ignored");
        return -1;
    }
    stack->pop_back();
    record_leave(s, region, now());
    return 0;
}

// ---------------------------------------------------------------- Cartesian topologies

int topolens_cart_create(const char* name, int ndims, const int dims[], const int periods[]) {
    if (!can_record_on_init_thread("topolens_cart_create")) return 0;
    if (ndims < 1 || ndims > kMaxDimensions || !dims) {
        warn_once("topolens_cart_create: ndims must be 1.." + std::to_string(kMaxDimensions) +
                  " with a dims array; topology not recorded");
        return 0;
    }
    TopologyRecord record;
    record.user_defined = true;
    record.name = name && *name ? name : "grid";
    for (int d = 0; d < ndims; ++d) {
        if (dims[d] < 1) {
            warn_once("topolens_cart_create(\"" + record.name + "\"): dimension " +
                      std::to_string(d) + " has size " + std::to_string(dims[d]) +
                      "; topology not recorded");
            return 0;
        }
        record.dims.push_back(dims[d]);
        record.periods.push_back(periods && periods[d] ? 1 : 0);
    }
    RecorderState& s = state();
    std::unique_lock<std::mutex> lock = shared_lock(); // MPI_Cart_create of other threads
    record.comm_key = kWorldKey;
    record.rank = s.rank;
    record.creation = s.topologies.size();
    record.how = "user";
    for (size_t i = 0; i < s.topologies.size(); ++i)
        if (s.topologies[i].user_defined && s.topologies[i].name == record.name) {
            if (s.topologies[i].dims != record.dims || s.topologies[i].periods != record.periods)
                warn_once("topolens_cart_create(\"" + record.name +
                          "\") called again with other dims or periods; keeping the first");
            return static_cast<int>(i + 1);
        }
    s.topologies.push_back(std::move(record));
    return static_cast<int>(s.topologies.size());
}

int topolens_cart_coords(int topology, const int coords[]) {
    if (!can_record_on_init_thread("topolens_cart_coords") || !coords) return -1;
    RecorderState& s = state();
    std::unique_lock<std::mutex> lock = shared_lock();
    if (topology <= 0 || static_cast<size_t>(topology) > s.topologies.size() ||
        !s.topologies[static_cast<size_t>(topology - 1)].user_defined) {
        warn_once("topolens_cart_coords: " + std::to_string(topology) +
                  " is not a handle from topolens_cart_create");
        return -1;
    }
    TopologyRecord& record = s.topologies[static_cast<size_t>(topology - 1)];
    std::vector<int32_t> given;
    for (size_t d = 0; d < record.dims.size(); ++d) {
        if (coords[d] < 0 || coords[d] >= record.dims[d]) {
            warn_once("topolens_cart_coords(\"" + record.name + "\"): coordinate " +
                      std::to_string(coords[d]) + " of dimension " + std::to_string(d) +
                      " is outside 0.." + std::to_string(record.dims[d] - 1) + "; ignored");
            return -1;
        }
        given.push_back(coords[d]);
    }
    record.coords = std::move(given);
    return 0;
}

// ---------------------------------------------------------------- autotuners

int topolens_tuned_op_define(const char* name) {
    if (!can_record_on_init_thread("topolens_tuned_op_define") || !name || !*name) return 0;
    return define_tuned_operation(name, std::string("tuned operation ") + name);
}

int topolens_codelet_switch(int handle, int index, const char* name) {
    if (!can_record_on_init_thread("topolens_codelet_switch")) return -1;
    TunedOperation* op = tuned_operation(handle);
    if (!op || index < 0) return -1;
    codelet_region(*op, index, name);
    op->current_codelet = index;
    record([&](OTF2_EvtWriter* w) {
        return OTF2_EvtWriter_ParameterInt(w, nullptr, now(), op->codelet_parameter, index);
    });
    return 0;
}

int topolens_tuned_phase(int handle, topolens_tuning_phase phase) {
    if (!can_record_on_init_thread("topolens_tuned_phase")) return -1;
    TunedOperation* op = tuned_operation(handle);
    if (!op) return -1;
    std::string_view word;
    switch (phase) {
    case TOPOLENS_PHASE_SEARCH:
        word = encoding::tuning_phase_name(encoding::TuningPhase::Search);
        break;
    case TOPOLENS_PHASE_DECISION:
        word = encoding::tuning_phase_name(encoding::TuningPhase::Decision);
        break;
    case TOPOLENS_PHASE_PRODUCTION:
        word = encoding::tuning_phase_name(encoding::TuningPhase::Production);
        break;
    }
    if (word.empty()) {
        warn_once("topolens_tuned_phase: unknown phase " + std::to_string(static_cast<int>(phase)));
        return -1;
    }
    RecorderState& s = state();
    std::unique_lock<std::mutex> lock = shared_lock();
    const uint32_t text = s.definitions.string(word);
    lock = {};
    record(s, [&](OTF2_EvtWriter* w) {
        return OTF2_EvtWriter_ParameterString(w, nullptr, now(), op->phase_parameter, text);
    });
    return 0;
}

int topolens_tuned_decision(int handle, int index, const char* name) {
    if (!can_record_on_init_thread("topolens_tuned_decision")) return -1;
    TunedOperation* op = tuned_operation(handle);
    if (!op || index < 0) return -1;
    codelet_region(*op, index, name);
    record([&](OTF2_EvtWriter* w) {
        return OTF2_EvtWriter_ParameterInt(w, nullptr, now(), op->decision_parameter, index);
    });
    return 0;
}

int topolens_tuned_begin(int handle) {
    if (!can_record_on_init_thread("topolens_tuned_begin")) return -1;
    TunedOperation* op = tuned_operation(handle);
    if (!op) return -1;
    if (op->executing) {
        warn_once("topolens_tuned_begin(\"" + op->name + "\") while an execution is open; ignored");
        return -1;
    }
    const Timestamp time = now();
    RecorderState& s = state();
    record_enter(s, op->region, time);
    op->executing = true;
    op->executing_codelet = op->current_codelet;
    if (op->executing_codelet >= 0)
        record_enter(s, op->codelet_regions[op->executing_codelet], time);
    return 0;
}

int topolens_tuned_end(int handle) {
    if (!can_record_on_init_thread("topolens_tuned_end")) return -1;
    TunedOperation* op = tuned_operation(handle);
    if (!op) return -1;
    if (!op->executing) {
        warn_once("topolens_tuned_end(\"" + op->name + "\") without topolens_tuned_begin; ignored");
        return -1;
    }
    const Timestamp time = now();
    RecorderState& s = state();
    if (op->executing_codelet >= 0)
        record_leave(s, op->codelet_regions[op->executing_codelet], time);
    record_leave(s, op->region, time);
    op->executing = false;
    return 0;
}

} // extern "C"
