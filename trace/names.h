// Printable names of the model's enumerations (for reports, messages and tests).
#pragma once

#include "trace/model.h"

#include <cstddef>
#include <string_view>

namespace topolens::trace {

inline constexpr std::size_t kEventKindCount = static_cast<std::size_t>(EventKind::Other) + 1;

std::string_view event_kind_name(EventKind kind);     // "MpiSend", as the OTF2 record
std::string_view collective_op_name(CollectiveOp op); // "Allreduce", ...

} // namespace topolens::trace
