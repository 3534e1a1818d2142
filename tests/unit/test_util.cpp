#include "test_util.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace topolens::test {
namespace fs = std::filesystem;

namespace {

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace

ScratchDir::ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "topolens-unit-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

CommandResult run_command(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env) {
    ScratchDir io;
    // env takes its -u options before the assignments.
    std::string cmd = "env";
    for (const auto& [name, value] : env)
        if (value.empty()) cmd += " -u " + shell_quote(name);
    for (const auto& [name, value] : env)
        if (!value.empty()) cmd += " " + shell_quote(name + "=" + value);
    for (const std::string& a : argv) cmd += " " + shell_quote(a);
    cmd += " >" + shell_quote((io / "out").string()) + " 2>" + shell_quote((io / "err").string()) +
           " </dev/null";
    const int status = std::system(cmd.c_str());
    CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(io / "out");
    r.err = read_file(io / "err");
    return r;
}

bool contains_words(const std::string& text, const std::string& part) {
    std::string flat;
    for (char ch : text) {
        const char c = ch == '\n' ? ' ' : ch;
        if (c == ' ' && !flat.empty() && flat.back() == ' ') continue;
        flat += c;
    }
    return flat.find(part) != std::string::npos;
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_file(const fs::path& path, const std::string& content) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

} // namespace topolens::test
