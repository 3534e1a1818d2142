// How many threads reading a trace and replaying it may use.
#pragma once

namespace topolens::trace {

// TOPOLENS_THREADS if set (1 to 256), else the machine's hardware threads (at least 1).
// Throws std::invalid_argument naming the variable for any other value.
unsigned worker_threads();

} // namespace topolens::trace
