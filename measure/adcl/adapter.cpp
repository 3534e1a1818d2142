// The ADCL adapter (libtopolens-adcl.a): link-time wrappers (ld --wrap, see
// topolens-adcl-flags) of ADCL's request and timer calls that record every tuned operation
// of an unchanged ADCL program in the trace contract (measure/TRACE_FORMAT.md, "ADCL").
//
// ADCL chooses the codelet inside the call that runs it, so an execution is opened before
// the real call and its codelet region is entered at the first MPI call ADCL makes once the
// choice is made (the recorder's MPI hook); the decision happens inside the first call after
// the search, whose first MPI call is ADCL's MPI_Allreduce over the timings.
#include "recording.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

extern "C" {
// ADCL's public API (include/ADCL.h), declared here so that the adapter builds without ADCL.
typedef struct ADCL_request_s* ADCL_Request;
typedef struct ADCL_timer_s* ADCL_Timer;
int ADCL_Request_get_curr_function(ADCL_Request req, char** function_name, char*** attrs_names,
                                   int* attrs_num, char*** attrs_values_names,
                                   int** attrs_values_num);
int ADCL_Request_get_winner_stat(ADCL_Request req, double* filtered_avg, double* unfiltered_avg,
                                 double* outliers_num);
int ADCL_Request_get_fsname(ADCL_Request req, char** fsname);
int ADCL_Request_get_state(ADCL_Request req, int* state);

// ADCL's switch for its barriers around timed runs (ADCL_USE_BARRIER in config.adcl, on by
// default); weak, so that an ADCL without it counts as using barriers.
extern int ADCL_use_barrier __attribute__((weak));

int __real_ADCL_Request_start(ADCL_Request req);
int __real_ADCL_Request_init(ADCL_Request req);
int __real_ADCL_Request_wait(ADCL_Request req);
int __real_ADCL_Request_free(ADCL_Request* req);
int __real_ADCL_Timer_create(int nreq, ADCL_Request* reqs, ADCL_Timer* timer);
int __real_ADCL_Timer_free(ADCL_Timer* timer);
int __real_ADCL_Timer_start(ADCL_Timer timer);
int __real_ADCL_Timer_stop(ADCL_Timer timer);
}

namespace {

constexpr int kAdclSuccess = 0;

bool adcl_uses_barrier() {
    return !&ADCL_use_barrier || ADCL_use_barrier != 0;
}

// A tuned operation: one ADCL request, or one timer object with its requests.
struct Operation {
    std::string name;
    int handle = 0; // topolens handle; 0 when nothing is recorded
    bool timer = false;
    std::vector<ADCL_Request> requests;  // a timer's requests, in the order given
    std::map<std::string, int> codelets; // codelet name -> index, in order of first use
    int current = -1;                    // the codelet last switched to
    topolens_tuning_phase phase = TOPOLENS_PHASE_SEARCH;
    bool phase_recorded = false;
    bool decided = false;
};

// An execution not yet ended, innermost last.
struct Execution {
    size_t op = 0;
    ADCL_Request request = nullptr; // of a request's execution
    bool testing_at_begin = false;  // ADCL tested codelets when it began
    bool barrier_seen = false;      // ADCL's barrier before a timed run
    bool winner_call_seen = false;  // an MPI call after the search ended
    bool in_decision = false;       // phase "decision" recorded inside it
    bool codelet_entered = false;
    bool timer_mpi_call = false; // ADCL_Timer_start made an MPI call other than a barrier
};

struct Adapter {
    std::vector<Operation> operations;           // never shrinks: open executions point into it
    std::map<const void*, size_t> of_handle;     // ADCL request or timer -> operation
    std::map<ADCL_Request, ADCL_Timer> timer_of; // requests timed by a timer object
    std::map<ADCL_Timer, std::vector<ADCL_Request>> timer_requests; // in the order given
    std::map<std::string, int> name_uses; // base name -> operations named so far
    std::vector<Execution> open;
    int armed = 0; // wrapped ADCL calls running: MPI calls in them are ADCL's
    bool hook_installed = false;
};

Adapter& adapter() {
    static Adapter instance;
    return instance;
}

bool verbose_rank0() {
    static const bool verbose = [] {
        const char* v = std::getenv("TOPOLENS_ADCL_VERBOSE");
        int rank = 0;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        return v && std::strcmp(v, "1") == 0 && rank == 0;
    }();
    return verbose;
}

// "Neighborhood communication", then "Neighborhood communication #2", ...: the k-th
// operation with the same base name on a process (ADCL programs create their requests in the
// same order on every process).
std::string unique_name(const std::string& base) {
    const int uses = ++adapter().name_uses[base];
    return uses == 1 ? base : base + " #" + std::to_string(uses);
}

std::string fsname(ADCL_Request req) {
    char* name = nullptr;
    if (ADCL_Request_get_fsname(req, &name) != kAdclSuccess || !name) return "ADCL request";
    std::string result = name;
    std::free(name);
    return result;
}

void mpi_call_in_adcl(const char* mpi_function);

size_t define_operation(const void* key, std::string name, std::string description, bool timer) {
    Adapter& a = adapter();
    Operation op;
    op.name = std::move(name);
    op.timer = timer;
    op.handle = topolens_adcl_operation(op.name.c_str(), description.c_str());
    a.operations.push_back(std::move(op));
    a.of_handle[key] = a.operations.size() - 1;
    if (!a.hook_installed && a.operations.back().handle > 0) {
        topolens_adcl_set_mpi_hook(mpi_call_in_adcl);
        a.hook_installed = true;
    }
    return a.operations.size() - 1;
}

// The operation of a request, named at its first execution.
Operation& request_operation(ADCL_Request req) {
    Adapter& a = adapter();
    if (auto found = a.of_handle.find(req); found != a.of_handle.end())
        return a.operations[found->second];
    const std::string set = fsname(req);
    return a.operations[define_operation(req, unique_name(set), "ADCL request, function set " + set,
                                         false)];
}

Operation& timer_operation(ADCL_Timer timer) {
    Adapter& a = adapter();
    if (auto found = a.of_handle.find(timer); found != a.of_handle.end())
        return a.operations[found->second];
    std::string sets;
    const std::vector<ADCL_Request> requests = a.timer_requests[timer];
    for (ADCL_Request req : requests) sets += (sets.empty() ? "" : " + ") + fsname(req);
    const size_t index =
        define_operation(timer, unique_name("timer: " + sets),
                         "timer object: ADCL timer over " + std::to_string(requests.size()) +
                             " request(s), function sets " + sets,
                         true);
    a.operations[index].requests = requests;
    return a.operations[index];
}

void set_phase(Operation& op, topolens_tuning_phase phase) {
    if (op.phase_recorded && op.phase == phase) return;
    topolens_tuned_phase(op.handle, phase);
    op.phase = phase;
    op.phase_recorded = true;
}

// ADCL pads some attribute and value names with blanks.
std::string trimmed(const char* text) {
    std::string s = text;
    const size_t first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// The current function of a request: its name and "attribute=value; ..." for the codelet
// region's description.
void current_function(ADCL_Request req, std::string& name, std::string& attributes) {
    char* function = nullptr;
    char** attr_names = nullptr;
    char** value_names = nullptr;
    int* values = nullptr;
    int count = 0;
    if (ADCL_Request_get_curr_function(req, &function, &attr_names, &count, &value_names,
                                       &values) != kAdclSuccess) {
        name = "unknown";
        return;
    }
    name = function ? function : "unknown";
    for (int i = 0; i < count; ++i) {
        if (!attributes.empty()) attributes += "; ";
        attributes += trimmed(attr_names && attr_names[i] ? attr_names[i] : "?");
        attributes += '=';
        // A value without a name (outside the attribute's list) is given as its number.
        attributes +=
            value_names && value_names[i] ? trimmed(value_names[i]) : std::to_string(values[i]);
    }
    std::free(function);
    for (int i = 0; i < count; ++i) {
        if (attr_names) std::free(attr_names[i]);
        if (value_names) std::free(value_names[i]);
    }
    std::free(attr_names);
    std::free(value_names);
    std::free(values);
}

// Switches to the codelet ADCL runs now (if it changed) and enters its region.
void enter_codelet(Execution& x) {
    Operation& op = adapter().operations[x.op];
    x.codelet_entered = true;
    std::string name, description;
    if (op.timer) {
        // A timer's codelet is the combination of its requests' functions (ADCL's meta
        // function set).
        for (ADCL_Request req : op.requests) {
            std::string function, attributes;
            current_function(req, function, attributes);
            name += (name.empty() ? "" : " + ") + function;
            description += (description.empty() ? "" : " | ") + attributes;
        }
    } else {
        current_function(x.request, name, description);
    }
    auto [entry, added] = op.codelets.emplace(name, static_cast<int>(op.codelets.size()));
    if (added) topolens_adcl_codelet(op.handle, entry->second, name.c_str(), description.c_str());
    if (entry->second != op.current) {
        topolens_codelet_switch(op.handle, entry->second, name.c_str());
        op.current = entry->second;
    }
    topolens_adcl_enter_codelet(op.handle, entry->second);
}

// The recorder's hook: an MPI call ADCL makes inside an execution whose codelet region is not
// entered yet.
void mpi_call_in_adcl(const char* mpi_function) {
    Adapter& a = adapter();
    if (a.armed == 0 || a.open.empty()) return;
    Execution& x = a.open.back();
    if (x.codelet_entered) return;
    const bool barrier = std::strcmp(mpi_function, "MPI_Barrier") == 0;
    Operation& op = a.operations[x.op];
    if (op.timer) {
        // Inside ADCL_Timer_start: the search's own collectives and a barrier while testing,
        // the Allreduce of the decision without a barrier.
        (barrier ? x.barrier_seen : x.timer_mpi_call) = true;
        return;
    }
    int testing = 0;
    ADCL_Request_get_state(x.request, &testing);
    if (testing) {
        // While ADCL tests, its search may communicate before it picks the codelet (the
        // attribute-based search does), and its barrier before the timed run stays directly in
        // the operation, before the codelet region: ADCL's clock (and the analysis's
        // measurement) starts at its end. The codelet begins with the next call.
        if (adcl_uses_barrier() && !x.barrier_seen) {
            x.barrier_seen = barrier;
            return;
        }
    } else if (x.testing_at_begin) {
        // The search ended in this call: ADCL decides first (its MPI_Allreduce of the
        // timings), then runs the winner, once ADCL_Request_get_winner_stat has an answer.
        double filtered = 0, unfiltered = 0, outliers = 0;
        const bool deciding =
            !x.winner_call_seen || (std::strcmp(mpi_function, "MPI_Allreduce") == 0 &&
                                    ADCL_Request_get_winner_stat(x.request, &filtered, &unfiltered,
                                                                 &outliers) != kAdclSuccess);
        x.winner_call_seen = true;
        if (deciding) {
            if (!x.in_decision) set_phase(op, TOPOLENS_PHASE_DECISION);
            x.in_decision = true;
            return;
        }
    }
    enter_codelet(x);
}

void begin_execution(size_t op_index, ADCL_Request req, bool testing) {
    Adapter& a = adapter();
    Operation& op = a.operations[op_index];
    set_phase(op, testing ? TOPOLENS_PHASE_SEARCH : TOPOLENS_PHASE_PRODUCTION);
    topolens_adcl_begin(op.handle);
    Execution x;
    x.op = op_index;
    x.request = req;
    x.testing_at_begin = testing;
    a.open.push_back(x);
}

// After the decision: the decision parameter, then phase production for what follows.
void record_decision(Operation& op, ADCL_Request req) {
    op.decided = true;
    auto winner = op.codelets.begin();
    while (winner != op.codelets.end() && winner->second != op.current) ++winner;
    if (winner == op.codelets.end()) return;
    topolens_tuned_decision(op.handle, op.current, winner->first.c_str());
    set_phase(op, TOPOLENS_PHASE_PRODUCTION);
    if (!verbose_rank0()) return;
    double filtered = 0, unfiltered = 0, outliers = 0;
    if (req && ADCL_Request_get_winner_stat(req, &filtered, &unfiltered, &outliers) == kAdclSuccess)
        std::fprintf(stderr,
                     "topolens-adcl: decision '%s': codelet %d %s; ADCL winner stat: filtered "
                     "avg %.9g unfiltered avg %.9g outliers %.9g\n",
                     op.name.c_str(), op.current, winner->first.c_str(), filtered, unfiltered,
                     outliers);
    else
        std::fprintf(stderr, "topolens-adcl: decision '%s': codelet %d %s\n", op.name.c_str(),
                     op.current, winner->first.c_str());
}

// Ends the innermost open execution of `op_index` (the one a wait or a timer stop closes).
void end_execution(size_t op_index) {
    Adapter& a = adapter();
    for (size_t i = a.open.size(); i-- > 0;) {
        if (a.open[i].op != op_index) continue;
        Execution x = a.open[i];
        a.open.erase(a.open.begin() + static_cast<long>(i));
        Operation& op = a.operations[op_index];
        if (!x.codelet_entered) enter_codelet(x); // ADCL made no MPI call once it had chosen
        topolens_tuned_end(op.handle);
        int testing = 0;
        if (!op.timer && x.testing_at_begin) ADCL_Request_get_state(x.request, &testing);
        const bool decided_now =
            op.timer ? x.in_decision : x.testing_at_begin && !testing && !op.decided;
        if (decided_now) record_decision(op, x.request);
        return;
    }
}

// Whether calls on `req` are recorded as executions of their own: measurement on, and not a
// request timed by a timer object (those run inside the timer's executions).
bool traced_request(ADCL_Request req) {
    return topolens_is_active() && !adapter().timer_of.count(req);
}

int request_begin_call(ADCL_Request req, int (*real)(ADCL_Request)) {
    Adapter& a = adapter();
    const size_t op = static_cast<size_t>(&request_operation(req) - a.operations.data());
    if (a.operations[op].handle <= 0) return real(req);
    // An ADCL_Request_init never waited for (its function completes in init) ends here.
    for (const Execution& x : a.open)
        if (x.op == op) {
            end_execution(op);
            break;
        }
    int testing = 0;
    ADCL_Request_get_state(req, &testing);
    begin_execution(op, req, testing != 0);
    ++a.armed;
    const int result = real(req);
    --a.armed;
    // The execution stays open until ADCL_Request_wait after ADCL_Request_init.
    if (!a.open.empty() && !a.open.back().codelet_entered && a.open.back().op == op)
        enter_codelet(a.open.back());
    return result;
}

} // namespace

extern "C" {

int __wrap_ADCL_Request_start(ADCL_Request req) {
    if (!traced_request(req)) return __real_ADCL_Request_start(req);
    const int result = request_begin_call(req, __real_ADCL_Request_start);
    end_execution(adapter().of_handle[req]);
    return result;
}

int __wrap_ADCL_Request_init(ADCL_Request req) {
    if (!traced_request(req)) return __real_ADCL_Request_init(req);
    return request_begin_call(req, __real_ADCL_Request_init);
}

int __wrap_ADCL_Request_wait(ADCL_Request req) {
    Adapter& a = adapter();
    auto op = a.of_handle.find(req);
    if (!traced_request(req) || op == a.of_handle.end()) return __real_ADCL_Request_wait(req);
    ++a.armed;
    const int result = __real_ADCL_Request_wait(req);
    --a.armed;
    end_execution(op->second);
    return result;
}

int __wrap_ADCL_Request_free(ADCL_Request* req) {
    if (req) { // a later request may get the same address: it is another operation
        adapter().of_handle.erase(*req);
        adapter().timer_of.erase(*req);
    }
    return __real_ADCL_Request_free(req);
}

int __wrap_ADCL_Timer_create(int nreq, ADCL_Request* reqs, ADCL_Timer* timer) {
    const int result = __real_ADCL_Timer_create(nreq, reqs, timer);
    // (ADCL_Timer_add_request and _remove_request are declared by ADCL, never defined.)
    if (result == kAdclSuccess && timer && reqs)
        for (int i = 0; i < nreq; ++i) {
            adapter().timer_of[reqs[i]] = *timer;
            adapter().timer_requests[*timer].push_back(reqs[i]);
        }
    return result;
}

int __wrap_ADCL_Timer_free(ADCL_Timer* timer) {
    if (timer) {
        Adapter& a = adapter();
        a.of_handle.erase(*timer);
        a.timer_requests.erase(*timer);
        for (auto it = a.timer_of.begin(); it != a.timer_of.end();)
            it = it->second == *timer ? a.timer_of.erase(it) : std::next(it);
    }
    return __real_ADCL_Timer_free(timer);
}

// A timer's execution spans ADCL_Timer_start .. ADCL_Timer_stop. ADCL_Timer_start chooses
// the functions of the timer's requests: it makes no MPI call in production, a barrier while
// testing, and its MPI_Allreduce of the timings when it decides.
int __wrap_ADCL_Timer_start(ADCL_Timer timer) {
    Adapter& a = adapter();
    if (!topolens_is_active()) return __real_ADCL_Timer_start(timer);
    const size_t op = static_cast<size_t>(&timer_operation(timer) - a.operations.data());
    if (a.operations[op].handle <= 0) return __real_ADCL_Timer_start(timer);
    begin_execution(op, nullptr, !a.operations[op].decided);
    ++a.armed;
    const int result = __real_ADCL_Timer_start(timer);
    --a.armed;
    Execution& x = a.open.back();
    if (x.timer_mpi_call && !x.barrier_seen && !a.operations[op].decided) {
        set_phase(a.operations[op], TOPOLENS_PHASE_DECISION);
        x.in_decision = true;
    }
    enter_codelet(x);
    return result;
}

int __wrap_ADCL_Timer_stop(ADCL_Timer timer) {
    Adapter& a = adapter();
    auto op = a.of_handle.find(timer);
    if (!topolens_is_active() || op == a.of_handle.end()) return __real_ADCL_Timer_stop(timer);
    ++a.armed;
    const int result = __real_ADCL_Timer_stop(timer);
    --a.armed;
    end_execution(op->second);
    return result;
}

} // extern "C"
