// mpi_analysis_bench: the analysis shared out to ranks, as `topolens analyze --mpi` runs it.
//
//   mpirun -np N mpi_analysis_bench TRACE [--root-causes] [--threads T] [--report PATH]
//
// Every rank reads and matches its share of TRACE and replays it (every pattern; the
// root-cause analysis only with --root-causes, once it runs across ranks), and with
// --report the ranks write the report to PATH as `topolens analyze --mpi` does; rank 0
// prints the wall time from the first read to the end (between barriers), events per
// second, and each rank's peak resident memory (VmHWM: the whole process, read at the end)
// with the events it held and the bytes of values its report's rows hold, the collective
// data and call tree nodes its matching received and the call paths it kept. One run per
// process: the peak is the run's.
#include "analyzer/engine/engine.h"
#include "analyzer/engine/gathered_report.h"
#include "analyzer/parallel/mpi_exchange.h"
#include "patterns/registry.h"
#include "proc_status.h"
#include "trace/matching.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

namespace tt = topolens::trace;

using topolens::bench::status_kb;

struct RankFigures {
    uint64_t events = 0;
    uint64_t peak_kb = 0;
    uint64_t report_bytes = 0; // the values the rank's report rows hold
    uint32_t first = 0, last = 0;
    uint64_t collective_bytes = 0;        // received in the matching's collective exchange
    uint64_t calltree_nodes_received = 0; // the other ranks' call trees, in the matching
    uint64_t callpaths_kept = 0;          // own locations' call path numbers (callpath_nodes)
};

} // namespace

int main(int argc, char** argv) {
    std::string trace, report;
    bool root_causes = false;
    unsigned threads = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--root-causes")
            root_causes = true;
        else if (a == "--threads" && i + 1 < argc)
            threads = static_cast<unsigned>(std::atoi(argv[++i]));
        else if (a == "--report" && i + 1 < argc)
            report = argv[++i];
        else if (trace.empty() && a[0] != '-')
            trace = a;
        else {
            std::cerr << "usage: mpirun -np N mpi_analysis_bench TRACE [--root-causes] "
                         "[--threads T] [--report PATH]\n";
            return 2;
        }
    }
    if (trace.empty()) {
        std::cerr << "usage: mpirun -np N mpi_analysis_bench TRACE [--root-causes] [--threads T] "
                     "[--report PATH]\n";
        return 2;
    }
    topolens::parallel::MpiSession session;
    topolens::parallel::MpiExchange exchange;
    int status = 0;
    try {
        exchange.all_gather({}); // a barrier: every rank starts together
        const auto start = std::chrono::steady_clock::now();
        const auto [t, m] = tt::read_and_match_share(trace, exchange, threads);
        topolens::analysis::AnalysisOptions options;
        options.threads = threads;
        options.exchange = &exchange;
        const auto result = topolens::analysis::analyze(
            t, m, topolens::patterns::all_patterns(root_causes), options);
        if (!report.empty())
            topolens::analysis::write_cube4_gathered(result.report, exchange, report);
        exchange.all_gather({});
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        RankFigures mine;
        for (uint32_t loc = m.share.first; loc < m.share.last; ++loc)
            mine.events += t.locations[loc].events.size();
        mine.peak_kb = status_kb("VmHWM:");
        const topolens::report::Report& kept = result.report;
        for (int metric = 0; metric < static_cast<int>(kept.metrics.size()); ++metric)
            for (int callpath : kept.callpaths_with_values(metric))
                mine.report_bytes += kept.row(metric, callpath)->size() * sizeof(double);
        mine.collective_bytes = m.collective_bytes_received;
        mine.calltree_nodes_received = m.calltree_nodes_received;
        for (const auto& nodes : m.callpath_nodes) mine.callpaths_kept += nodes.size();
        mine.first = m.share.first;
        mine.last = m.share.last;
        tt::Bytes bytes;
        tt::ByteWriter(bytes).put(mine);
        const std::vector<tt::Bytes> all = exchange.all_gather(std::move(bytes));
        if (exchange.rank() == 0) {
            std::printf("trace %s: %llu events, %u ranks, %u thread(s) each, root causes %s\n",
                        trace.c_str(), static_cast<unsigned long long>(result.events),
                        exchange.size(), threads, root_causes ? "on" : "off");
            std::printf("wall %.3f s, %.2f M events/s\n", seconds, result.events / seconds / 1e6);
            uint64_t max_kb = 0;
            for (unsigned r = 0; r < all.size(); ++r) {
                const auto f = tt::ByteReader(all[r], "figures").get<RankFigures>();
                max_kb = std::max(max_kb, f.peak_kb);
                std::printf("rank %u: locations %u-%u, %llu events, peak RSS %.1f MB, report "
                            "rows %.2f MB, collective data received %.3f MB, call tree nodes "
                            "received %llu, call paths kept %llu\n",
                            r, f.first, f.last - 1, static_cast<unsigned long long>(f.events),
                            f.peak_kb / 1024.0, f.report_bytes / 1048576.0,
                            f.collective_bytes / 1048576.0,
                            static_cast<unsigned long long>(f.calltree_nodes_received),
                            static_cast<unsigned long long>(f.callpaths_kept));
            }
            std::printf("peak RSS per rank: max %.1f MB\n", max_kb / 1024.0);
        }
    } catch (const std::exception& e) {
        if (exchange.rank() == 0) std::cerr << "mpi_analysis_bench: " << e.what() << "\n";
        status = 1;
    }
    return status;
}
