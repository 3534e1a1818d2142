// The subcommands of the topolens command line. Each returns the process exit status:
// 0 success, 1 failure (reported as "topolens: error: ..."), 2 bad usage.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace topolens::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct Command {
    const char* name;
    const char* summary;                              // one line for `topolens help`
    int (*run)(const std::vector<std::string>& args); // arguments after the subcommand
    void (*usage)(std::ostream& out);
};

int info_main(const std::vector<std::string>& args);
void info_usage(std::ostream& out);

int run_main(const std::vector<std::string>& args);
void run_usage(std::ostream& out);

int analyze_main(const std::vector<std::string>& args);
void analyze_usage(std::ostream& out);

int summary_main(const std::vector<std::string>& args);
void summary_usage(std::ostream& out);

int values_main(const std::vector<std::string>& args);
void values_usage(std::ostream& out);

int synth_main(const std::vector<std::string>& args);
void synth_usage(std::ostream& out);

int audit_main(const std::vector<std::string>& args);
void audit_usage(std::ostream& out);

int render_main(const std::vector<std::string>& args);
void render_usage(std::ostream& out);

int score_main(const std::vector<std::string>& args);
void score_usage(std::ostream& out);

// `topolens help metrics [--markdown]`: the metric catalogue, for a terminal or as the
// metric table of docs/metrics.md.
int metrics_main(const std::vector<std::string>& args);
void metrics_usage(std::ostream& out);

// "topolens: error: <message>" on stderr.
inline constexpr std::string_view kErrorPrefix = "topolens: error: ";
void print_error(const std::string& message);

} // namespace topolens::cli
