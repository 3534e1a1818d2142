// Printable names of the model's enumerations (for reports, messages and tests).
#pragma once

#include "trace/model.h"

#include <cstddef>
#include <string_view>

namespace topolens::trace {

inline constexpr std::size_t kEventKindCount = static_cast<std::size_t>(EventKind::Other) + 1;

std::string_view event_kind_name(EventKind kind);         // "MpiSend", as the OTF2 record
std::string_view paradigm_name(Paradigm paradigm);        // "MPI", "user", ...
std::string_view region_role_name(RegionRole role);       // "point2point", ...
std::string_view collective_op_name(CollectiveOp op);     // "Allreduce", ...
std::string_view parameter_type_name(ParameterType type); // "string", "int64", "uint64"

} // namespace topolens::trace
