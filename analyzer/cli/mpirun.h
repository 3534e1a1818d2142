// Starting a job under Open MPI's mpirun: `topolens run` (the program to trace) and
// `topolens analyze --ranks N` (the analysis itself, run across processes).
#pragma once

#include <string>
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

// This program's own path, to start it again under mpirun.
std::string own_executable();

} // namespace topolens::cli
