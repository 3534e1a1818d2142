// The definitions of tuned operations and their codelets (encoding: trace/tuned_encoding.h),
// made once for the user API (user_api.cpp) and the ADCL adapter (adcl/recording.cpp).
#pragma once

#include "recorder_state.h"

#include <cstdint>
#include <string>

namespace topolens::measure {

// The handle (> 0) of the tuned operation `name`: the one defined before under that name, else
// a new one whose region has `description`. Measurement must be on.
int define_tuned_operation(const std::string& name, const std::string& description);

// The region of codelet `index` of `op`: the one defined before, else a new one named `name`
// with `description`.
uint32_t define_codelet_region(TunedOperation& op, int index, const std::string& name,
                               const std::string& description);

} // namespace topolens::measure
