// The measurement library's side of the ADCL adapter (recording.h): the tuned-operation
// records of user_api.cpp, plus what an adapter needs that the user API leaves out.
#include "recording.h"

#include "recorder.h"
#include "recorder_state.h"
#include "trace/tuned_encoding.h"

#include <string>

using namespace topolens::measure;
namespace encoding = topolens::trace;

namespace {

topolens_adcl_mpi_hook adapter_hook = nullptr;

void call_adapter_hook(MpiFn fn) {
    adapter_hook(kMpiFunctions[static_cast<size_t>(fn)].name);
}

TunedOperation* operation(int handle) {
    RecorderState& s = state();
    if (!recording() || handle <= 0 || static_cast<size_t>(handle) > s.tuned.size()) return nullptr;
    return &s.tuned[static_cast<size_t>(handle - 1)];
}

} // namespace

extern "C" {

int topolens_adcl_operation(const char* name, const char* description) {
    if (!recording() || !name || !*name) return 0;
    RecorderState& s = state();
    for (size_t i = 0; i < s.tuned.size(); ++i)
        if (s.tuned[i].name == name) return static_cast<int>(i + 1);
    // As topolens_tuned_op_define, with the adapter's description of the operation.
    TunedOperation op;
    op.name = name;
    RegionDefinition region;
    region.name = name;
    region.canonical_name = encoding::tuned_op_canonical_name(name);
    region.description = description ? description : "";
    op.region = s.definitions.region(region);
    op.codelet_parameter =
        s.definitions.parameter(encoding::codelet_parameter_name(name), OTF2_PARAMETER_TYPE_INT64);
    op.phase_parameter =
        s.definitions.parameter(encoding::phase_parameter_name(name), OTF2_PARAMETER_TYPE_STRING);
    op.decision_parameter =
        s.definitions.parameter(encoding::decision_parameter_name(name), OTF2_PARAMETER_TYPE_INT64);
    s.tuned.push_back(std::move(op));
    return static_cast<int>(s.tuned.size());
}

int topolens_adcl_codelet(int handle, int index, const char* name, const char* description) {
    TunedOperation* op = operation(handle);
    if (!op || index < 0 || !name || !*name) return -1;
    if (op->codelet_regions.count(index)) return 0;
    RegionDefinition region;
    region.name = name;
    region.canonical_name = encoding::codelet_canonical_name(op->name, index, name);
    region.description = description ? description : "";
    op->codelet_regions[index] = state().definitions.region(region);
    return 0;
}

int topolens_adcl_begin(int handle) {
    TunedOperation* op = operation(handle);
    if (!op || op->executing) return -1;
    OTF2_EvtWriter_Enter(state().events, nullptr, now(), op->region);
    op->executing = true;
    op->executing_codelet = -1;
    return 0;
}

int topolens_adcl_enter_codelet(int handle, int index) {
    TunedOperation* op = operation(handle);
    if (!op || !op->executing || op->executing_codelet >= 0) return -1;
    auto region = op->codelet_regions.find(index);
    if (region == op->codelet_regions.end()) return -1;
    OTF2_EvtWriter_Enter(state().events, nullptr, now(), region->second);
    op->executing_codelet = index;
    return 0;
}

void topolens_adcl_set_mpi_hook(topolens_adcl_mpi_hook hook) {
    adapter_hook = hook;
    set_mpi_enter_hook(hook ? call_adapter_hook : nullptr);
}

} // extern "C"
