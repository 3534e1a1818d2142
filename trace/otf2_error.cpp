#include "trace/otf2_error.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace topolens::trace::detail {
namespace {

std::mutex capture_mutex; // OTF2's callback is global: one capture at a time
// Kept per thread: in a parallel read each thread's OTF2 calls report here, and an error
// must carry the cause found by the thread that met it.
thread_local std::string first_message;
thread_local bool have_message = false;
OTF2_ErrorCallback previous_callback = nullptr;

OTF2_ErrorCode capture(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                       const char* format, va_list args) {
    if (!have_message) {
        char text[1024];
        std::vsnprintf(text, sizeof text, format, args);
        first_message = otf2_status_text(code);
        if (text[0] != '\0') first_message += std::string(" (") + text + ")";
        have_message = true;
    }
    return code;
}

} // namespace

Otf2ErrorCapture::Otf2ErrorCapture() {
    capture_mutex.lock();
    have_message = false;
    first_message.clear();
    previous_callback = OTF2_Error_RegisterCallback(capture, nullptr);
}

Otf2ErrorCapture::~Otf2ErrorCapture() {
    OTF2_Error_RegisterCallback(previous_callback, nullptr);
    capture_mutex.unlock();
}

std::string Otf2ErrorCapture::first() const {
    return have_message ? first_message : "";
}

void Otf2ErrorCapture::clear() {
    have_message = false;
    first_message.clear();
}

std::string otf2_status_text(OTF2_ErrorCode code) {
    return std::string(OTF2_Error_GetName(code)) + ": " + OTF2_Error_GetDescription(code);
}

} // namespace topolens::trace::detail
