// The model's big arrays (events, frames) are filled right after they are reserved. Asking
// the kernel to map their pages in one call (MADV_POPULATE_WRITE) costs about two thirds of
// taking one page fault per 4 KiB while filling them, and first touches of memory are a
// large part of building a model of hundreds of megabytes.
#pragma once

#include <cstddef>
#include <vector>

namespace topolens::trace {

// Maps the whole pages inside [data, data + bytes); a hint (no effect on kernels before 5.14
// or for small ranges).
void prefault(const void* data, std::size_t bytes);

// Reserves `n` elements of `v` and maps their pages.
template <class T> void reserve_prefaulted(std::vector<T>& v, std::size_t n) {
    v.reserve(n);
    prefault(v.data(), v.capacity() * sizeof(T));
}

} // namespace topolens::trace
