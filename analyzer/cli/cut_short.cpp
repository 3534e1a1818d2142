#include "analyzer/cli/cut_short.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace topolens::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCompleteProgram = "topolens-complete";

} // namespace

bool needs_completion(const std::string& path) {
    const fs::path dir(path);
    std::error_code ec;
    if (!fs::is_directory(dir, ec) || fs::exists(dir / "traces.otf2", ec)) return false;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("rank-", 0) == 0 && it->path().extension() == ".defs") return true;
    }
    return false;
}

namespace {

// TOPOLENS_COMPLETE, else beside this executable, else from PATH.
std::string complete_program() {
    if (const char* env = std::getenv("TOPOLENS_COMPLETE"); env && *env) return env;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec && fs::is_regular_file(exe.parent_path() / kCompleteProgram, ec))
        return (exe.parent_path() / kCompleteProgram).string();
    return kCompleteProgram;
}

} // namespace

bool run_completion(const std::string& directory) {
    const std::string program = complete_program();
    std::vector<char*> argv = {const_cast<char*>(program.c_str()),
                               const_cast<char*>(directory.c_str()), nullptr};
    pid_t pid = 0;
    if (const int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ); rc != 0)
        throw std::runtime_error("cannot start " + program + ": " + std::strerror(rc));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void complete_if_cut_short(const std::string& path) {
    if (!needs_completion(path)) return;
    if (access(path.c_str(), W_OK | X_OK) != 0)
        throw std::runtime_error(path +
                                 ": the trace of a run that died is not completed yet "
                                 "(per-rank records rank-<r>.defs, no traces.otf2) and "
                                 "the directory is not writable; copy it somewhere "
                                 "writable, or run 'topolens-complete " +
                                 path + "' as its owner");
    if (!run_completion(path))
        throw std::runtime_error(path + ": cannot complete the trace of a run that died");
}

} // namespace topolens::cli
