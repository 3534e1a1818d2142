// `topolens help metrics [--markdown]`: the metric catalogue (patterns/metric_catalogue.h).
#include "analyzer/cli/commands.h"
#include "patterns/metric_catalogue.h"

#include <iostream>

namespace topolens::cli {

void metrics_usage(std::ostream& out) {
    out << "usage: topolens help metrics [--markdown]\n"
           "\n"
           "Every metric a topolens report can have, below its parent: unique name, unit, the\n"
           "description written into reports and what to do about a large value.\n"
           "\n"
           "  --markdown  the metric table of docs/metrics.md instead\n";
}

int metrics_main(const std::vector<std::string>& args) {
    bool markdown = false;
    for (const std::string& arg : args) {
        if (arg == "--markdown") {
            markdown = true;
        } else if (arg == "-h" || arg == "--help") {
            metrics_usage(std::cout);
            return kExitOk;
        } else {
            print_error("help metrics: unexpected argument '" + arg + "'");
            metrics_usage(std::cerr);
            return kExitUsage;
        }
    }
    std::cout << (markdown ? patterns::metric_table_markdown() : patterns::metric_table_text());
    return kExitOk;
}

} // namespace topolens::cli
