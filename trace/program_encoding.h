// The program region as Score-P encodes it in OTF2 (measure/TRACE_FORMAT.md, "The program"),
// spelled once for the measurement library (which writes it), the trace builder and the
// reader. Scalasca's reader (PEARL) finds the region a ProgramBegin record enters by these
// rules and stops when none fits, so they are exact:
//   region role       OTF2_REGION_ROLE_ARTIFICIAL
//   region paradigm   OTF2_PARADIGM_MEASUREMENT_SYSTEM
//   region name       the program name without its directories ("/bin/ssor" -> "ssor")
//   canonical name    the program name, then each argument after one space
// Header-only, no OTF2 and no MPI, so that the measurement library can include it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace topolens::trace {

// The program region's name for ProgramBegin's program name.
inline std::string program_region_name(std::string_view program) {
    const size_t slash = program.rfind('/');
    return std::string(slash == std::string_view::npos ? program : program.substr(slash + 1));
}

// The program region's canonical name for ProgramBegin's program name and arguments.
inline std::string program_canonical_name(std::string_view program,
                                          const std::vector<std::string>& arguments) {
    std::string name(program);
    for (const std::string& argument : arguments) {
        name += ' ';
        name += argument;
    }
    return name;
}

} // namespace topolens::trace
