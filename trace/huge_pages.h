// The model's big arrays (events, frames) are filled once and then walked: backed by
// transparent huge pages they take one page fault per 2 MiB instead of one per 4 KiB,
// which is a large part of building a model of hundreds of megabytes.
#pragma once

#include <cstddef>
#include <vector>

namespace topolens::trace {

// Asks the kernel for huge pages over the 2 MiB-aligned part of [data, data + bytes);
// a hint only (nothing happens where THP is disabled or the range is small).
void advise_huge_pages(const void* data, std::size_t bytes);

// Reserves `n` elements of `v` and advises huge pages for them, before they are touched.
template <class T> void reserve_huge(std::vector<T>& v, std::size_t n) {
    v.reserve(n);
    advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

} // namespace topolens::trace
