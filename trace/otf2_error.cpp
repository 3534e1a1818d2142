#include "trace/otf2_error.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace topolens::trace::detail {
namespace {

std::mutex capture_mutex; // OTF2's callback is global: one capture at a time
std::mutex message_mutex; // the threads of one parallel read report into the same capture
std::string first_message;
bool have_message = false;
OTF2_ErrorCallback previous_callback = nullptr;

OTF2_ErrorCode capture(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                       const char* format, va_list args) {
    const std::lock_guard<std::mutex> lock(message_mutex);
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
    const std::lock_guard<std::mutex> lock(message_mutex);
    return have_message ? first_message : "";
}

void Otf2ErrorCapture::clear() {
    const std::lock_guard<std::mutex> lock(message_mutex);
    have_message = false;
    first_message.clear();
}

std::string otf2_status_text(OTF2_ErrorCode code) {
    return std::string(OTF2_Error_GetName(code)) + ": " + OTF2_Error_GetDescription(code);
}

} // namespace topolens::trace::detail
