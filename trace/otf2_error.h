// OTF2 reports errors through one process-wide callback that prints to stderr by default.
// While an Otf2ErrorCapture is alive the messages are kept instead, so that a TraceError
// can say what OTF2 found (and stderr stays clean for our own message).
#pragma once

#include <otf2/OTF2_ErrorCodes.h>

#include <string>

namespace topolens::trace::detail {

class Otf2ErrorCapture {
  public:
    Otf2ErrorCapture();
    ~Otf2ErrorCapture();
    Otf2ErrorCapture(const Otf2ErrorCapture&) = delete;
    Otf2ErrorCapture& operator=(const Otf2ErrorCapture&) = delete;

    // The first message OTF2 reported to the calling thread since construction or clear()
    // ("" if none): the first one is the root cause, later ones are callers giving up.
    // Threads that start while the capture is alive report into their own.
    std::string first() const;
    void clear();
};

// "OTF2_ERROR_xxx: description" for a status code.
std::string otf2_status_text(OTF2_ErrorCode code);

} // namespace topolens::trace::detail
