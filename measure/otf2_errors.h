// OTF2 reports every error through one process-wide callback, which by default prints an
// "[OTF2] ..." line. The measurement library takes it over: nothing is printed, errors are
// counted and their codes kept, so that each step can tell whether anything it wrote
// failed, also where OTF2 returns success (a file's last buffered bytes are written when it
// is closed, and a failure there is only reported, not returned).
#pragma once

#include <otf2/OTF2_ErrorCodes.h>

#include <cstdint>

namespace topolens::measure::otf2_errors {

// Installs the callback (once per process).
void capture();

// Number of errors OTF2 reported so far.
uint64_t count();

// The first error reported after count() was `mark` (the root cause: OTF2 reports the
// failing system call first, then each layer it passes through), or OTF2_SUCCESS.
OTF2_ErrorCode first_since(uint64_t mark);

} // namespace topolens::measure::otf2_errors
