// calltree_dump REPORT: the call tree of a topolens report, one line per call path:
//   PATH<TAB>VISITS<TAB>FILE:LINE
// PATH as `topolens values --callpath` takes it ("a/b/c"), VISITS the call path's own
// visits per rank ("5,5,5,5", locations in report order), FILE:LINE where its region is
// (":" for none). Used by check_instrumented.sh to compare call trees exactly.
#include "analyzer/report/cube4.h"
#include "patterns/metric_names.h"

#include <cstdio>
#include <exception>
#include <string>

namespace rp = topolens::report;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: calltree_dump REPORT\n");
        return 2;
    }
    try {
        const rp::Report report = rp::read_cube4(argv[1]);
        const auto visits = report.find_metric(topolens::patterns::metric::kVisits);
        if (!visits) throw std::runtime_error("the report has no visits metric");
        for (std::size_t c = 0; c < report.callpaths.size(); ++c) {
            const int callpath = static_cast<int>(c);
            std::string counts;
            for (std::size_t l = 0; l < report.locations.size(); ++l) {
                if (l > 0) counts += ',';
                counts += std::to_string(
                    static_cast<long long>(report.value(*visits, callpath, static_cast<int>(l))));
            }
            const rp::Region& region = report.regions[report.callpaths[c].region];
            std::printf("%s\t%s\t%s:%s\n", report.callpath_name(callpath).c_str(), counts.c_str(),
                        region.source_file.c_str(),
                        region.begin_line > 0 ? std::to_string(region.begin_line).c_str() : "");
        }
    } catch (const std::exception& error) {
        std::fprintf(stderr, "calltree_dump: %s\n", error.what());
        return 2;
    }
    return 0;
}
