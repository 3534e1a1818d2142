// The shared library of the instrumented test program: its functions are recorded too.
#pragma once

#include <vector>

namespace grid {

// One Jacobi sweep of `values` (ends fixed); returns the largest change.
double smooth(std::vector<double>& values);

} // namespace grid
