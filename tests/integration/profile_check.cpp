// profile_check: compares a profile (TOPOLENS_MODE=trace,profile) with the trace analysis'
// report of the same run. Every metric of the profile, per call path (by its path of region
// names) and location (by rank and thread), in both: the counts (visits, messages, bytes)
// exactly, times within TOLERANCE seconds (the clock's resolution; default 2e-6) plus 1e-9
// relative. Both must have the same call paths with visits on each location.
//
//   profile_check PROFILE REPORT [--tolerance SEC] [--require METRIC]...
//
// --require: the metric must be non-zero somewhere (a run that moved no bytes cannot
// show that bytes agree). Exit status: 0 equal, 1 a difference (each is printed), 2 bad
// usage or an unreadable report.
#include "analyzer/report/cube4.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rp = topolens::report;

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr
            << "usage: profile_check PROFILE REPORT [--tolerance SEC] [--require METRIC]...\n";
        return 2;
    }
    double tolerance = 2e-6;
    std::vector<std::string> required;
    for (int i = 3; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--tolerance")
            tolerance = std::atof(argv[i + 1]);
        else if (option == "--require")
            required.push_back(argv[i + 1]);
        else {
            std::cerr << "profile_check: unknown option " << option << "\n";
            return 2;
        }
    }
    rp::Report profile, report;
    try {
        profile = rp::read_cube4(argv[1]);
        report = rp::read_cube4(argv[2]);
    } catch (const std::exception& e) {
        std::cerr << "profile_check: " << e.what() << "\n";
        return 2;
    }

    int failures = 0;
    const auto fail = [&](const std::string& message) {
        if (++failures <= 40) std::cout << "DIFFERENT: " << message << "\n";
    };

    // Locations by (rank, thread).
    std::map<std::pair<int, int>, int> report_location;
    for (size_t l = 0; l < report.locations.size(); ++l)
        report_location[{report.locations[l].rank, report.locations[l].thread}] =
            static_cast<int>(l);
    if (profile.locations.size() != report.locations.size())
        fail("locations: profile " + std::to_string(profile.locations.size()) + ", report " +
             std::to_string(report.locations.size()));

    // Call paths by name.
    std::map<std::string, int> report_callpath;
    for (size_t c = 0; c < report.callpaths.size(); ++c)
        report_callpath[report.callpath_name(static_cast<int>(c))] = static_cast<int>(c);

    const int profile_visits = profile.find_metric("visits").value_or(-1);
    const int report_visits = report.find_metric("visits").value_or(-1);
    if (profile_visits < 0 || report_visits < 0) {
        fail("no visits metric");
        return 1;
    }

    size_t compared = 0;
    double worst_time = 0;
    std::map<std::string, double> totals;
    std::set<std::pair<std::string, int>> profile_visited; // (call path, report location)
    for (size_t pm = 0; pm < profile.metrics.size(); ++pm) {
        const rp::Metric& metric = profile.metrics[pm];
        const auto rm = report.find_metric(metric.unique_name);
        if (!rm || report.metrics[*rm].unique_name != metric.unique_name) {
            fail("metric " + metric.unique_name + " is not in the report");
            continue;
        }
        const bool time = metric.unit == "sec";
        for (size_t pc = 0; pc < profile.callpaths.size(); ++pc) {
            const std::string name = profile.callpath_name(static_cast<int>(pc));
            const auto rc = report_callpath.find(name);
            for (size_t pl = 0; pl < profile.locations.size(); ++pl) {
                const auto rl = report_location.find(
                    {profile.locations[pl].rank, profile.locations[pl].thread});
                if (rl == report_location.end()) {
                    if (pm == 0 && pc == 0)
                        fail("location rank " + std::to_string(profile.locations[pl].rank) +
                             " thread " + std::to_string(profile.locations[pl].thread) +
                             " is not in the report");
                    continue;
                }
                const double mine = profile.metric_inclusive(
                    static_cast<int>(pm), static_cast<int>(pc), static_cast<int>(pl));
                totals[metric.unique_name] += std::abs(mine);
                if (static_cast<int>(pm) == profile_visits && mine > 0)
                    profile_visited.insert({name, rl->second});
                const double theirs = rc == report_callpath.end()
                                          ? 0.0
                                          : report.metric_inclusive(*rm, rc->second, rl->second);
                ++compared;
                const double difference = std::abs(mine - theirs);
                const bool equal =
                    time ? difference <= tolerance + 1e-9 * std::abs(theirs) : mine == theirs;
                if (time) worst_time = std::max(worst_time, difference);
                if (!equal) {
                    char line[512];
                    std::snprintf(line, sizeof line,
                                  "%s at %s, rank %d thread %d: profile %.9g, "
                                  "trace %.9g",
                                  metric.unique_name.c_str(), name.c_str(),
                                  profile.locations[pl].rank, profile.locations[pl].thread, mine,
                                  theirs);
                    fail(line);
                }
            }
        }
    }
    // Call paths the trace visited but the profile has not.
    for (size_t rc = 0; rc < report.callpaths.size(); ++rc)
        for (size_t rl = 0; rl < report.locations.size(); ++rl) {
            const std::string name = report.callpath_name(static_cast<int>(rc));
            if (report.value(report_visits, static_cast<int>(rc), static_cast<int>(rl)) > 0 &&
                !profile_visited.count({name, static_cast<int>(rl)}))
                fail("visits of " + name + " on location " + std::to_string(rl) +
                     " are in the trace only");
        }
    for (const std::string& metric : required)
        if (totals[metric] == 0) fail("metric " + metric + " is zero everywhere in the profile");

    std::printf("profile_check: %zu values of %zu metrics, %zu call paths, %zu locations "
                "compared; largest time difference %.3g s; %d differences\n",
                compared, profile.metrics.size(), profile.callpaths.size(),
                profile.locations.size(), worst_time, failures);
    return failures == 0 ? 0 : 1;
}
