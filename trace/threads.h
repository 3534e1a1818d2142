// How many threads reading and analysing a trace may use, and a loop that uses them.
#pragma once

#include <cstddef>
#include <functional>

namespace topolens::trace {

// TOPOLENS_THREADS if set (1 to 256), else the machine's hardware threads (at least 1).
// Throws std::invalid_argument naming the variable for any other value.
unsigned worker_threads();

// Runs work(i, thread) for every i in [0, n) on up to `threads` threads, each taking the
// next index when done with one (thread: 0 .. threads - 1, for per-thread scratch space).
// The first exception thrown (by index) is rethrown once all threads have stopped.
void parallel_for(std::size_t n, unsigned threads,
                  const std::function<void(std::size_t index, unsigned thread)>& work);

} // namespace topolens::trace
