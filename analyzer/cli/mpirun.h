// Starting a job under Open MPI's mpirun: `topolens run` (the program to trace) and
// `topolens analyze --ranks N` (the analysis itself, run across processes).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace topolens::cli {

// "mpirun [--allow-run-as-root] --oversubscribe -np N": root needs the first, a machine with
// fewer cores than processes the second.
std::vector<std::string> mpirun_prefix(int np);

// A positive number of processes given with `option`; a UsageError naming it otherwise.
int parse_process_count(const std::string& option, const std::string& text);

// Runs the command and returns its exit status (128 + signal if it was killed). While it
// runs, Ctrl-C and termination requests go to mpirun, which stops the job, not to us.
int run_and_wait(const std::vector<std::string>& cmd);

// The same, with the command's stderr read through a pipe and given to `stderr_text` piece by
// piece as it arrives (not split into lines), until mpirun has ended.
int run_and_wait(const std::vector<std::string>& cmd,
                 const std::function<void(std::string_view)>& stderr_text);

// This program's own path, to start it again under mpirun.
std::string own_executable();

} // namespace topolens::cli
