#include "program.h"

#include <fstream>
#include <iterator>
#include <unistd.h>

namespace topolens::measure {

namespace {

// Taken when the library is loaded: preloaded or linked, that is before main.
const Timestamp loaded = now();

} // namespace

ProgramInfo program_info() {
    ProgramInfo program;
    program.start = loaded;
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string cmdline{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::vector<std::string> words;
    for (size_t begin = 0; begin < cmdline.size();) {
        const size_t end = cmdline.find('\0', begin);
        words.push_back(cmdline.substr(begin, end == std::string::npos ? end : end - begin));
        if (end == std::string::npos) break;
        begin = end + 1;
    }
    if (!words.empty()) program.arguments.assign(words.begin() + 1, words.end());
    char path[4096];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length > 0)
        program.name.assign(path, static_cast<size_t>(length));
    else if (!words.empty())
        program.name = words.front();
    if (program.name.empty()) program.name = "program";
    return program;
}

} // namespace topolens::measure
