// The program itself, recorded as Score-P records it (measure/TRACE_FORMAT.md, "The program"):
// when it started, its path and its arguments. The program region spans the run from the
// measurement library's load (before main) to the end of MPI_Finalize.
#pragma once

#include "clock.h"

#include <string>
#include <vector>

namespace topolens::measure {

struct ProgramInfo {
    Timestamp start = 0; // when the measurement library was loaded, before main
    std::string name;    // the executable's path
    std::vector<std::string> arguments;
};

// The path from /proc/self/exe (argv[0] if unreadable), the arguments from /proc/self/cmdline.
ProgramInfo program_info();

} // namespace topolens::measure
