// For tests of traces that must be refused: the reader's message, and a check on its text.
#pragma once

#include "trace/reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace topolens::test {

// The message of the TraceError read_trace(path) throws ("" if it throws none).
inline std::string read_error(const std::filesystem::path& path) {
    try {
        trace::read_trace(path.string());
    } catch (const trace::TraceError& e) {
        return e.what();
    }
    return "";
}

} // namespace topolens::test

#define EXPECT_CONTAINS(text, part)                                                                \
    EXPECT_NE(std::string(text).find(part), std::string::npos)                                     \
        << "expected \"" << (part) << "\" in \"" << (text) << "\""
