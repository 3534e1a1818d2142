#include "config.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace topolens::measure {

namespace {

const char* env(const char* name) {
    const char* value = std::getenv(name);
    return (value && *value) ? value : nullptr;
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// Returns 1 / 0 for recognised boolean words, -1 otherwise.
int parse_bool(const std::string& text) {
    const std::string word = lower(text);
    if (word == "1" || word == "true" || word == "yes" || word == "on") return 1;
    if (word == "0" || word == "false" || word == "no" || word == "off") return 0;
    return -1;
}

} // namespace

bool parse_size(const std::string& text, uint64_t& bytes) {
    size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    if (digits == 0 || digits > 15) return false;
    uint64_t value = std::stoull(text.substr(0, digits));
    std::string unit = lower(text.substr(digits));
    if (unit == "b") unit.clear();
    if (unit.size() == 2 && unit[1] == 'b') unit.pop_back(); // "16MB" -> "16M"
    uint64_t scale = 1;
    if (unit == "k")
        scale = 1ULL << 10;
    else if (unit == "m")
        scale = 1ULL << 20;
    else if (unit == "g")
        scale = 1ULL << 30;
    else if (!unit.empty())
        return false;
    bytes = value * scale;
    return true;
}

Config read_config(std::vector<std::string>& problems) {
    Config config;
    if (const char* text = env("TOPOLENS_ENABLE")) {
        const int value = parse_bool(text);
        if (value < 0) {
            problems.push_back(std::string("TOPOLENS_ENABLE='") + text +
                               "' is not one of 1/0/true/false/yes/no/on/off; "
                               "measurement is off");
            config.enabled = false;
        } else {
            config.enabled = value == 1;
        }
    }
    if (const char* text = env("TOPOLENS_TRACE_DIR")) config.trace_dir = text;
    if (const char* text = env("TOPOLENS_BUFFER_SIZE")) {
        uint64_t bytes = 0;
        if (!parse_size(text, bytes) || bytes < kMinBufferBytes || bytes > kMaxBufferBytes) {
            problems.push_back(std::string("TOPOLENS_BUFFER_SIZE='") + text +
                               "' is not a size between 256K and 64G (e.g. 512K, 16M, 1G); "
                               "using the default 16M");
        } else {
            config.buffer_bytes = bytes;
        }
    }
    if (const char* text = env("TOPOLENS_MODE")) {
        bool trace = false, profile = false, bad = false;
        std::string rest = lower(text);
        for (size_t start = 0; start <= rest.size();) {
            const size_t end = std::min(rest.find(',', start), rest.size());
            const std::string word = rest.substr(start, end - start);
            if (word == "trace")
                trace = true;
            else if (word == "profile")
                profile = true;
            else
                bad = true;
            start = end + 1;
        }
        if (bad)
            problems.push_back(std::string("TOPOLENS_MODE='") + text +
                               "' is not trace, profile or trace,profile; tracing only");
        else {
            config.trace = trace;
            config.profile = profile;
        }
    }
    if (const char* text = env("TOPOLENS_REPORT_PATH_FILE")) config.report_path_file = text;
    if (const char* text = env("TOPOLENS_VERBOSE")) {
        const int value = parse_bool(text);
        if (value < 0)
            problems.push_back(std::string("TOPOLENS_VERBOSE='") + text +
                               "' is not one of 1/0/true/false/yes/no/on/off; ignored");
        else
            config.verbose = value == 1;
    }
    return config;
}

std::string filter_file() {
    const char* text = env("TOPOLENS_FILTER");
    return text ? text : "";
}

} // namespace topolens::measure
