// topolens-complete DIR: completes, in place, the trace of a run that died before
// MPI_Finalize (measure/complete.h). `topolens run`, `info` and `analyze` call it.
#include "complete.h"

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
    if (argc != 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
        std::fprintf(stderr, "usage: topolens-complete TRACE_DIR\n\n"
                             "Completes the trace of a run that died before MPI_Finalize: writes\n"
                             "the definitions from the ranks' records (rank-<r>.defs) beside\n"
                             "their events, and cut.txt, which says how each rank ended.\n");
        return argc == 2 ? 0 : 2;
    }
    try {
        const topolens::measure::Completion done = topolens::measure::complete_trace(argv[1]);
        for (const std::string& w : done.warnings)
            std::fprintf(stderr, "topolens: warning: %s\n", w.c_str());
        std::fprintf(stderr, "topolens: completed the trace of a run cut short in %s (%s)\n",
                     argv[1], done.summary.c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "topolens-complete: %s\n", e.what());
        return 1;
    }
}
