#include "otf2_errors.h"

#include <cstdarg>
#include <cstddef>
#include <vector>

namespace topolens::measure::otf2_errors {

namespace {

// Errors are rare and end recording: the first few codes are enough.
constexpr size_t kKept = 64;
std::vector<OTF2_ErrorCode> codes;
uint64_t reported = 0;

OTF2_ErrorCode on_error(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code, const char*,
                        va_list) {
    if (codes.size() < kKept) codes.push_back(code);
    ++reported;
    return code;
}

} // namespace

void capture() {
    static const bool installed = [] {
        codes.reserve(kKept);
        OTF2_Error_RegisterCallback(on_error, nullptr);
        return true;
    }();
    (void)installed;
}

uint64_t count() {
    return reported;
}

OTF2_ErrorCode first_since(uint64_t mark) {
    if (reported <= mark) return OTF2_SUCCESS;
    return mark < codes.size() ? codes[mark] : codes.back();
}

} // namespace topolens::measure::otf2_errors
