// `topolens analyze TRACE --mpi`: the analysis run across the processes mpirun started, each
// reading and replaying its share of the trace's locations; rank 0 writes the report, the
// same as the analysis in one process writes.
#pragma once

#include "analyzer/engine/engine.h"

#include <string>

namespace topolens::cli {

struct RankedAnalysis {
    std::string trace_path;
    std::string report_path; // empty: the trace's default
    analysis::AnalysisOptions options;
    bool root_causes = true;
    bool quiet = false;
};

// Returns the exit status; every rank returns the same, and only rank 0 prints.
int analyze_on_ranks(RankedAnalysis job);

// `topolens analyze TRACE --ranks N ...`: starts `mpirun -np N topolens analyze TRACE --mpi
// ...` with `forwarded` options and returns its exit status. When the analysis fails with its
// own error, that line is all the user sees (not Open MPI's messages after it); when mpirun
// fails otherwise, Open MPI's messages and a line saying so, with exit status 1.
int start_analysis_on_ranks(int ranks, const std::string& trace_path,
                            const std::vector<std::string>& forwarded);

} // namespace topolens::cli
