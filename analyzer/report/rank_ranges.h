// "0-3,6,8-9" for a set of MPI ranks: how the command line and the audit's diagnostics name
// groups of processes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace topolens::analysis {

// Input in any order; duplicates ignored.
std::string rank_ranges(std::vector<uint32_t> ranks);

} // namespace topolens::analysis
