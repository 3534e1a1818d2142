#include "analyzer/cli/analyze_on_ranks.h"

#include "analyzer/cli/commands.h"
#include "analyzer/cli/cut_short.h"
#include "analyzer/cli/mpirun.h"
#include "analyzer/cli/mpirun_messages.h"
#include "analyzer/engine/gathered_report.h"
#include "analyzer/parallel/mpi_exchange.h"
#include "patterns/registry.h"
#include "patterns/trace_report.h"
#include "trace/matching.h"
#include "trace/threads.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>

namespace topolens::cli {

namespace {

// Threads per rank: TOPOLENS_THREADS if set, else the machine's cores shared by the ranks
// that run on it.
unsigned threads_per_rank() {
    if (std::getenv("TOPOLENS_THREADS")) return trace::worker_threads();
    unsigned local = 1;
    if (const char* n = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"))
        local = std::max(1, std::atoi(n));
    return std::max(1u, trace::worker_threads() / local);
}

} // namespace

int analyze_on_ranks(RankedAnalysis job) {
    if (!parallel::started_by_mpirun()) {
        print_error("analyze --mpi: this process was not started by mpirun; run `mpirun -np N "
                    "topolens analyze TRACE --mpi`, or `topolens analyze TRACE --ranks N`");
        return kExitUsage;
    }
    parallel::MpiSession session;
    parallel::MpiExchange exchange;
    const bool first = exchange.rank() == 0;
    std::ostream* progress = first && !job.quiet ? &std::cerr : nullptr;
    try {
        // An error on any rank, even after the analysis (writing the report), stops every
        // rank with it; rank 0 prints it.
        exchange.run_agreed([&] {
            // A run that died is completed once, by rank 0, before any rank reads it.
            std::optional<std::string> error;
            if (first) try {
                    complete_if_cut_short(job.trace_path);
                } catch (const std::exception& e) {
                    error = e.what();
                }
            if (const auto failed = exchange.first_error(error)) throw std::runtime_error(*failed);
            if (progress)
                *progress << "topolens: reading " << job.trace_path << " in " << exchange.size()
                          << " ranks\n";
            job.options.threads = job.options.threads ? job.options.threads : threads_per_rank();
            job.options.progress = progress;
            job.options.exchange = &exchange;
            const auto [trace, matching] =
                trace::read_and_match_share(job.trace_path, exchange, job.options.threads);
            const analysis::AnalysisResult result = analysis::analyze(
                trace, matching, patterns::all_patterns(job.root_causes), job.options);
            if (job.report_path.empty())
                job.report_path = patterns::default_report_path(trace.path);
            analysis::write_cube4_gathered(result.report, exchange, job.report_path);
            if (!first) return;
            patterns::note_warnings(result, std::cerr);
            std::cout << "topolens: report written to " << job.report_path << "\n";
        });
    } catch (const std::exception& e) {
        if (first) print_error(e.what());
        return kExitFailure;
    }
    return kExitOk;
}

int start_analysis_on_ranks(int ranks, const std::string& trace_path,
                            const std::vector<std::string>& forwarded) {
    std::vector<std::string> cmd = mpirun_prefix(ranks);
    cmd.insert(cmd.end(), {own_executable(), "analyze", trace_path, "--mpi"});
    cmd.insert(cmd.end(), forwarded.begin(), forwarded.end());
    std::cout.flush();
    MpirunMessages messages(std::cerr);
    const int status = run_and_wait(cmd, [&](std::string_view text) { messages.take(text); });
    messages.finish();
    // The analysis's own error said it all; Open MPI's messages only repeat that it failed.
    if (status != kExitOk && messages.analysis_reported_error()) return status;
    const bool explained = messages.holds_any();
    messages.release();
    if (status == kExitOk) return status;
    print_error("mpirun ended with exit status " + std::to_string(status) +
                " and no error from the analysis on " + std::to_string(ranks) + " ranks" +
                (explained ? "; Open MPI's message above says why" : ""));
    return kExitFailure;
}

} // namespace topolens::cli
