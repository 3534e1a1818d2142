// File names in a measurement's directory that more than one part of topolens looks for:
// the measurement writes them, the commands and the GUI find them there.
#pragma once

namespace topolens::trace {

// Profile mode's call-path profile (measure/profile_mode.cpp writes it at MPI_Finalize).
inline constexpr const char* kProfileName = "profile.cubex";

} // namespace topolens::trace
