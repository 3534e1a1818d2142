#include "smooth.h"

#include <cmath>

namespace grid {

namespace {

// Static, in an anonymous namespace: known by the symbol table only (.symtab).
__attribute__((noinline)) double average(double left, double right) {
    return 0.5 * (left + right);
}

} // namespace

__attribute__((noinline)) double smooth(std::vector<double>& values) {
    double change = 0;
    for (int pass = 0; pass < 2; ++pass) {
        const double updated = average(values.front(), values.back());
        change = std::fmax(change, std::fabs(updated - values[values.size() / 2]));
        values[values.size() / 2] = updated;
    }
    return change;
}

} // namespace grid
