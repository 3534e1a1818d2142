// The measurement library's side of the ADCL adapter (recording.h): the tuned-operation
// records of user_api.cpp, plus what an adapter needs that the user API leaves out.
#include "recording.h"

#include "recorder.h"
#include "recorder_state.h"
#include "tuned_operations.h"

#include <string>

using namespace topolens::measure;

namespace {

topolens_adcl_mpi_hook adapter_hook = nullptr;

void call_adapter_hook(MpiFn fn) {
    adapter_hook(kMpiFunctions[static_cast<size_t>(fn)].name);
}

TunedOperation* operation(int handle) {
    RecorderState& s = state();
    if (!recording() || handle <= 0 || static_cast<size_t>(handle) > s.tuned.size()) return nullptr;
    if (!on_init_thread("the ADCL adapter's tuned operations")) return nullptr;
    return &s.tuned[static_cast<size_t>(handle - 1)];
}

} // namespace

extern "C" {

int topolens_adcl_operation(const char* name, const char* description) {
    if (!recording() || !name || !*name) return 0;
    if (!on_init_thread("the ADCL adapter's tuned operations")) return 0;
    return define_tuned_operation(name, description ? description : "");
}

int topolens_adcl_codelet(int handle, int index, const char* name, const char* description) {
    TunedOperation* op = operation(handle);
    if (!op || index < 0 || !name || !*name) return -1;
    define_codelet_region(*op, index, name, description ? description : "");
    return 0;
}

int topolens_adcl_begin(int handle) {
    TunedOperation* op = operation(handle);
    if (!op || op->executing) return -1;
    record_enter(state(), op->region, now());
    op->executing = true;
    op->executing_codelet = -1;
    return 0;
}

int topolens_adcl_enter_codelet(int handle, int index) {
    TunedOperation* op = operation(handle);
    if (!op || !op->executing || op->executing_codelet >= 0) return -1;
    auto region = op->codelet_regions.find(index);
    if (region == op->codelet_regions.end()) return -1;
    record_enter(state(), region->second, now());
    op->executing_codelet = index;
    return 0;
}

void topolens_adcl_set_mpi_hook(topolens_adcl_mpi_hook hook) {
    adapter_hook = hook;
    set_mpi_enter_hook(hook ? call_adapter_hook : nullptr);
}

} // extern "C"
