#include "analyzer/cli/mpirun.h"

#include "analyzer/cli/commands.h"
#include "analyzer/cli/options.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace topolens::cli {

int parse_process_count(const std::string& option, const std::string& text) {
    std::size_t used = 0;
    int n = 0;
    try {
        n = std::stoi(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || n <= 0)
        throw UsageError{option + " needs a positive number of processes, not '" + text + "'"};
    return n;
}

std::vector<std::string> mpirun_prefix(int np) {
    std::vector<std::string> cmd = {"mpirun"};
    if (geteuid() == 0) cmd.push_back("--allow-run-as-root");
    cmd.insert(cmd.end(), {"--oversubscribe", "-np", std::to_string(np)});
    return cmd;
}

int run_and_wait(const std::vector<std::string>& cmd) {
    std::vector<char*> argv;
    for (const std::string& s : cmd) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
    if (rc != 0)
        throw std::runtime_error(std::string("cannot start mpirun: ") + std::strerror(rc) +
                                 (rc == ENOENT ? " (is Open MPI installed and in PATH?)" : ""));
    struct sigaction ignore {
    }, old_int{}, old_term{};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGTERM, &ignore, &old_term);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return kExitFailure;
}

std::string own_executable() {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) throw std::runtime_error("cannot find the topolens executable (/proc/self/exe)");
    return exe.string();
}

} // namespace topolens::cli
