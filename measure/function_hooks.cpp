// Never compiled with -finstrument-functions: the hooks are marked no_instrument_function
// anyway, and a thread-local guard keeps a hook from recording itself (a signal handler
// that is instrumented, say).
#include "function_hooks.h"

#include "config.h"
#include "function_symbols.h"
#include "recorder.h"
#include "recorder_state.h"

#include "trace/region_filter.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace topolens::measure {

namespace {

enum Phase : int {
    kBeforeInit, // calls are kept in `early` until the trace opens
    kRecording,  // calls are written to the trace
    kOff,        // nothing is recorded (measurement off, or finalized)
};
std::atomic<int> phase = kBeforeInit;

struct HookThread {
    bool main = false; // the thread that loaded the library: the only one recorded
    bool busy = false; // inside a hook
};
// initial-exec: one instruction to reach it, not a __tls_get_addr call per hook.
[[gnu::tls_model("initial-exec")]] thread_local HookThread hook_thread;

[[gnu::constructor]] void mark_main_thread() {
    hook_thread.main = true;
}

// What was decided for one function address, at its first call.
struct Function {
    const void* address = nullptr;
    uint32_t region = 0;
    bool excluded = false;
};

// Open addressing keyed by the function's address: the hot path is a multiply, a mask
// and, nearly always, one comparison.
class FunctionTable {
  public:
    FunctionTable() : slots_(4096), data_(slots_.data()), mask_(slots_.size() - 1) {}
    Function* find(const void* address) const {
        for (size_t i = slot(address);; i = (i + 1) & mask_) {
            if (data_[i].address == address) [[likely]]
                return &data_[i];
            if (!data_[i].address) return nullptr;
        }
    }
    Function& insert(const Function& function) {
        if (2 * (count_ + 1) > slots_.size()) grow();
        ++count_;
        return place(function);
    }

  private:
    size_t slot(const void* address) const {
        const auto key = reinterpret_cast<uintptr_t>(address);
        return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> 40) & mask_;
    }
    Function& place(const Function& function) {
        size_t i = slot(function.address);
        while (data_[i].address) i = (i + 1) & mask_;
        data_[i] = function;
        return data_[i];
    }
    void grow() {
        std::vector<Function> old(slots_.size() * 2);
        old.swap(slots_);
        data_ = slots_.data();
        mask_ = slots_.size() - 1;
        for (const Function& function : old)
            if (function.address) place(function);
    }
    std::vector<Function> slots_;
    Function* data_; // slots_, as the hot path reads it
    size_t mask_;
    size_t count_ = 0;
};

// An open call; `recorded` when its Enter is in the trace (or in `early`), so that its
// Leave is written too.
struct Frame {
    const void* address;
    uint32_t region;
    bool recorded;
};

// A call event made before MPI_Init.
struct EarlyEvent {
    Timestamp time;
    uint32_t region;
    bool enter;
};
// Bounds the memory of calls before MPI_Init; further calls before it are not recorded.
constexpr size_t kMaxEarlyEnters = 1 << 18;

struct Functions {
    FunctionTable table;
    std::vector<Frame> stack;
    std::vector<EarlyEvent> early;
    size_t early_enters = 0;
    bool filter_loaded = false;
    std::optional<trace::RegionFilter> filter;
    std::string filter_problem; // said by rank 0 at MPI_Init
    // Per object: the source file of each function address (filters with file rules).
    std::unordered_map<std::string, std::unordered_map<uintptr_t, std::string>> source_files;
    // Regions of the functions, with their symbols, for their source files at finalize.
    std::vector<std::pair<uint32_t, FunctionSymbol>> defined;
};

// Made at the first hook and never destroyed (hooks may run during exit); constant-initialised,
// so that a hook that runs before this library's static initialisers finds it null.
constinit Functions* all_functions = nullptr;
// The recorder's state from MPI_Init on, without state()'s guard on the hot path.
constinit RecorderState* recorder = nullptr;

[[gnu::noinline]] Functions& make_functions() {
    all_functions = new Functions;
    return *all_functions;
}

inline Functions& functions() {
    if (!all_functions) [[unlikely]]
        return make_functions();
    return *all_functions;
}

void load_filter(Functions& f) {
    f.filter_loaded = true;
    // Hooks of functions run at exit (static destructors) record nothing: the state they
    // need may be gone. Registered after state() and functions() exist, so it runs first.
    state();
    std::atexit([] { phase = kOff; });
    const std::string file = filter_file();
    if (file.empty()) return;
    try {
        f.filter = trace::RegionFilter::load(file);
    } catch (const std::exception& error) {
        f.filter_problem = std::string(error.what()) +
                           " (TOPOLENS_FILTER); no filter applies, every function is recorded";
    }
}

// The source file of a function for the filter's file rules. The files of all functions of
// its object are looked up at once, at its object's first function: one addr2line run.
std::string_view source_file(Functions& f, const FunctionSymbol& symbol) {
    if (symbol.mangled_name.empty()) return {};
    auto object = f.source_files.find(symbol.object);
    if (object == f.source_files.end()) {
        const std::vector<FunctionSymbol> all = functions_of(symbol.object);
        const std::vector<SourceLocation> where = source_locations(all);
        std::unordered_map<uintptr_t, std::string> files;
        for (size_t i = 0; i < all.size(); ++i) files.emplace(all[i].object_address, where[i].file);
        object = f.source_files.emplace(symbol.object, std::move(files)).first;
    }
    const auto file = object->second.find(symbol.object_address);
    return file == object->second.end() ? std::string_view() : std::string_view(file->second);
}

// The first call of a function: its name, whether the filter excludes it, its region.
[[gnu::noinline]] Function& define_function(Functions& f, const void* address) {
    if (!f.filter_loaded) load_filter(f);
    FunctionSymbol symbol = resolve_function(address);
    Function function;
    function.address = address;
    if (f.filter && !f.filter->empty()) {
        std::string_view file;
        // Only file rules need the file (an addr2line run per object): none, no lookup.
        if (f.filter->has_file_rules() &&
            !f.filter->excludes(symbol.name, symbol.mangled_name, file))
            file = source_file(f, symbol);
        function.excluded = f.filter->excludes(symbol.name, symbol.mangled_name, file);
    }
    if (!function.excluded) {
        RegionDefinition region;
        region.name = symbol.name;
        region.canonical_name = symbol.mangled_name.empty() ? symbol.name : symbol.mangled_name;
        region.role = OTF2_REGION_ROLE_FUNCTION;
        region.paradigm = OTF2_PARADIGM_COMPILER;
        RecorderState& s = state();
        std::unique_lock<std::mutex> lock = shared_lock();
        function.region = s.definitions.new_region(region);
        lock = {};
        f.defined.emplace_back(function.region, std::move(symbol));
    }
    return f.table.insert(function);
}

inline void write_event(Functions& f, int now_phase, bool enter, uint32_t region) {
    const Timestamp time = now();
    if (now_phase == kBeforeInit) {
        f.early.push_back({time, region, enter});
        return;
    }
    // Off after a death record closed the writer (a Leave of a call entered before).
    if (!recorder->active.load(std::memory_order_relaxed)) [[unlikely]]
        return;
    // Through record_enter/record_leave: the trace and the profile see the same call.
    if (enter)
        record_enter(*recorder, region, time);
    else
        record_leave(*recorder, region, time);
}

// recording() without its call: the hooks' hot path.
inline bool recording_now(const RecorderState& s) {
    if (!s.threaded) [[likely]]
        return s.active.load(std::memory_order_relaxed) && !s.in_mpi;
    return recording();
}

inline void enter(const void* address, int now_phase) {
    Functions& f = functions();
    const Function* function = f.table.find(address);
    if (!function) [[unlikely]]
        function = &define_function(f, address);
    if (function->excluded) return;
    bool recorded;
    if (now_phase == kBeforeInit) [[unlikely]] {
        recorded = f.early_enters < kMaxEarlyEnters;
        f.early_enters += recorded;
    } else {
        recorded = recording_now(*recorder);
    }
    const uint32_t region = function->region;
    f.stack.push_back({address, region, recorded});
    if (recorded) write_event(f, now_phase, true, region);
}

[[gnu::noinline]] void unwind_to(Functions& f, const void* address, int now_phase) {
    // Calls left without their exit hook (longjmp) end with the first caller that leaves.
    size_t depth = f.stack.size();
    while (depth > 0 && f.stack[depth - 1].address != address) --depth;
    if (depth == 0) return; // entered while nothing was recorded
    while (f.stack.size() >= depth) {
        const Frame frame = f.stack.back();
        f.stack.pop_back();
        if (frame.recorded) write_event(f, now_phase, false, frame.region);
    }
}

inline void leave(const void* address, int now_phase) {
    Functions& f = functions();
    // The innermost open call, nearly always: no lookup needed.
    if (!f.stack.empty() && f.stack.back().address == address) [[likely]] {
        const Frame frame = f.stack.back();
        f.stack.pop_back();
        if (frame.recorded) write_event(f, now_phase, false, frame.region);
        return;
    }
    const Function* function = f.table.find(address);
    if (!function || function->excluded) return;
    unwind_to(f, address, now_phase);
}

} // namespace

void functions_begin_recording(RecorderState& s, Timestamp program_start, Timestamp init_time) {
    Functions& f = functions();
    recorder = &s;
    if (!hook_thread.main) {
        // MPI_Init on another thread than main: the calls kept so far belong to main.
        warn_once("MPI_Init was called on a thread other than the main thread; instrumented "
                  "functions are not recorded");
        phase = kOff;
        return;
    }
    for (const EarlyEvent& event : f.early) {
        const Timestamp time = std::min(std::max(event.time, program_start), init_time);
        if (event.enter)
            record_enter(s, event.region, time);
        else
            record_leave(s, event.region, time);
    }
    if (f.early_enters == kMaxEarlyEnters)
        warn_once("more than " + std::to_string(kMaxEarlyEnters) +
                  " function calls before MPI_Init; later ones before it are not recorded");
    std::vector<EarlyEvent>().swap(f.early);
    phase = kRecording;
}

void functions_after_start(RecorderState& s) {
    Functions& f = functions();
    if (!s.active) {
        phase = kOff;
        std::vector<EarlyEvent>().swap(f.early);
        f.stack.clear();
    }
    if (!f.filter_problem.empty() && s.rank == 0)
        std::fprintf(stderr, "topolens: %s\n", f.filter_problem.c_str());
}

void functions_end_recording(RecorderState& s, Timestamp time) {
    Functions& f = functions();
    if (phase.exchange(kOff) != kRecording) return;
    for (auto frame = f.stack.rbegin(); frame != f.stack.rend(); ++frame)
        if (frame->recorded) record_leave(s, frame->region, time);
    f.stack.clear();
}

void functions_add_sources(RecorderState& s) {
    Functions& f = functions();
    if (f.defined.empty()) return;
    std::vector<FunctionSymbol> symbols;
    for (const auto& defined : f.defined) symbols.push_back(defined.second);
    const std::vector<SourceLocation> where = source_locations(symbols);
    for (size_t i = 0; i < f.defined.size(); ++i)
        s.definitions.set_source(f.defined[i].first, where[i].file, where[i].line);
}

} // namespace topolens::measure

using namespace topolens::measure;

extern "C" {

[[gnu::no_instrument_function, gnu::visibility("default")]] void
__cyg_profile_func_enter(void* function, void*) {
    HookThread& thread = hook_thread;
    if (!thread.main || thread.busy) return;
    const int now_phase = phase.load(std::memory_order_relaxed);
    if (now_phase == kOff) return;
    thread.busy = true;
    enter(function, now_phase);
    thread.busy = false;
}

[[gnu::no_instrument_function, gnu::visibility("default")]] void
__cyg_profile_func_exit(void* function, void*) {
    HookThread& thread = hook_thread;
    if (!thread.main || thread.busy) return;
    const int now_phase = phase.load(std::memory_order_relaxed);
    if (now_phase == kOff) return;
    thread.busy = true;
    leave(function, now_phase);
    thread.busy = false;
}

} // extern "C"
