#include "analyzer/cli/mpirun.h"

#include "analyzer/cli/commands.h"
#include "analyzer/cli/options.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
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

namespace {

// Starts the command; its stderr goes to `stderr_fd` when that is not -1.
pid_t start(const std::vector<std::string>& cmd, int stderr_fd) {
    std::vector<char*> argv;
    for (const std::string& s : cmd) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (stderr_fd != -1) posix_spawn_file_actions_adddup2(&actions, stderr_fd, STDERR_FILENO);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        throw std::runtime_error(std::string("cannot start mpirun: ") + std::strerror(rc) +
                                 (rc == ENOENT ? " (is Open MPI installed and in PATH?)" : ""));
    return pid;
}

// While mpirun runs, Ctrl-C and termination requests are for it (it stops the job), not for
// us: we wait for it to end.
class SignalsToMpirun {
  public:
    SignalsToMpirun() {
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        sigaction(SIGINT, &ignore, &old_int_);
        sigaction(SIGTERM, &ignore, &old_term_);
    }
    ~SignalsToMpirun() {
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
    }
    SignalsToMpirun(const SignalsToMpirun&) = delete;
    SignalsToMpirun& operator=(const SignalsToMpirun&) = delete;

  private:
    struct sigaction old_int_ {
    }, old_term_{};
};

int exit_status(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return kExitFailure;
}

int wait_for(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return exit_status(status);
}

} // namespace

int run_and_wait(const std::vector<std::string>& cmd) {
    const pid_t pid = start(cmd, -1);
    SignalsToMpirun signals;
    return wait_for(pid);
}

int run_and_wait(const std::vector<std::string>& cmd,
                 const std::function<void(std::string_view)>& stderr_text) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("cannot start mpirun: no pipe for its messages: ") +
                                 std::strerror(errno));
    pid_t pid = 0;
    try {
        pid = start(cmd, fds[1]);
    } catch (...) {
        close(fds[0]);
        close(fds[1]);
        throw;
    }
    close(fds[1]);
    SignalsToMpirun signals;
    // Read until the pipe ends, or until mpirun has ended and nothing more is waiting: a
    // process it left behind may still hold the pipe open.
    bool ended = false;
    int status = 0;
    char buffer[4096];
    for (;;) {
        pollfd readable{fds[0], POLLIN, 0};
        const int ready = poll(&readable, 1, ended ? 0 : 200);
        if (ready < 0 && errno == EINTR) continue;
        if (ready > 0) {
            const ssize_t n = read(fds[0], buffer, sizeof buffer);
            if (n > 0) {
                stderr_text(std::string_view(buffer, static_cast<std::size_t>(n)));
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            break; // the pipe ended
        }
        if (ready < 0 || ended) break;
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done < 0 && errno != EINTR) {
            close(fds[0]);
            return kExitFailure; // mpirun is not our child any more: nothing to wait for
        }
        ended = done == pid;
    }
    close(fds[0]);
    return ended ? exit_status(status) : wait_for(pid);
}

std::string own_executable() {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) throw std::runtime_error("cannot find the topolens executable (/proc/self/exe)");
    return exe.string();
}

} // namespace topolens::cli
