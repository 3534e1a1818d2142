#include "audit_fixture.h"

#include "patterns/audit/codelet_measurements.h"

#include <string>

namespace topolens::gui::test {

namespace {
const std::map<int64_t, std::string> kCodelets = {
    {0, "isend-irecv"}, {1, "sendrecv-pairwise"}, {2, "put-fence"}};
} // namespace

report::Report audited_report() {
    report::Report report;
    report::Metric time;
    time.unique_name = "time";
    time.display_name = "Time";
    time.description = "wall-clock time";
    const int metric = report.add_metric(time);
    report::Region program;
    program.name = "program";
    const int region = report.add_region(program);
    const int root = report.add_callpath(region, -1);
    report::CartTopology grid;
    grid.name = "grid";
    grid.sizes = {4, 2};
    grid.periodic = {false, false};
    for (int rank = 0; rank < 8; ++rank) {
        report::Location location;
        location.name = "Master thread";
        location.host = "node0";
        location.process = "MPI Rank " + std::to_string(rank);
        location.rank = rank;
        report.add_location(location);
        grid.coords.push_back({static_cast<uint32_t>(rank % 4), static_cast<uint32_t>(rank / 4)});
        report.set_value(metric, root, rank, 1.0 + rank);
    }
    report.topologies.push_back(grid);
    report.attributes["topolens.grid"] = "grid";
    report.attributes["topolens.audit"] = R"json({
  "format": "topolens-audit", "version": 1,
  "parameters": {"b": 3, "nomax": 0.2, "nu": 5},
  "run_seconds": 1.5,
  "diagnostics": [],
  "operations": [{
    "name": "halo3d",
    "verdict": "wrong",
    "reason": "sendrecv-pairwise is faster by every method.",
    "tuner_winner": {"index": 2, "name": "put-fence"},
    "method_winners": {"raw": 1, "heuristic": 1, "iqr": 1, "cluster": 1, "student_t": 1},
    "agreeing_methods": 0,
    "best": 1,
    "penalty_percent": 42.5,
    "search_seconds": 0.4, "search_cost_seconds": 0.1, "search_share": 0.27,
    "production": null,
    "codelets": [
      {"index": 0, "name": "isend-irecv", "processes": 8, "measurements": 4,
       "samples": [0.0020, 0.0021, 0.0022, 0.0090],
       "samples_min": [0.0018, 0.0019, 0.0020, 0.0021],
       "box": {"min": 0.0020, "q1": 0.00205, "median": 0.00215, "q3": 0.0039, "max": 0.0090,
               "whisker_lo": 0.0020, "whisker_hi": 0.0022},
       "box_outliers": [3],
       "estimates": {"raw": 0.0038, "heuristic": 0.0021, "iqr": 0.0021, "cluster": 0.0021, "student_t": 0.0021},
       "ranks": {"raw": 2, "heuristic": 2, "iqr": 2, "cluster": 2, "student_t": 2},
       "outliers": {"heuristic": {"count": 1, "at": [{"location": 3, "rank": 3, "measurement": 3, "start": 0.5, "time": 0.009, "wait": 0.0, "propagated": false}]}},
       "range": [0.0020, 0.0022], "instability": 0.5, "stability": "fair", "winner_set": false,
       "per_process_mean": [0.002, 0.002, 0.002, 0.004, 0.002, 0.002, 0.002, 0.002]},
      {"index": 1, "name": "sendrecv-pairwise", "processes": 8, "measurements": 4,
       "samples": [0.0010, 0.0011, 0.0012, 0.0013],
       "samples_min": [0.0008, 0.0009, 0.0010, 0.0011],
       "box": {"min": 0.0010, "q1": 0.00105, "median": 0.00115, "q3": 0.00125, "max": 0.0013,
               "whisker_lo": 0.0010, "whisker_hi": 0.0013},
       "box_outliers": [],
       "estimates": {"raw": 0.00115, "heuristic": 0.00115, "iqr": 0.00115, "cluster": 0.00115, "student_t": 0.00115},
       "ranks": {"raw": 1, "heuristic": 1, "iqr": 1, "cluster": 1, "student_t": 1},
       "outliers": {},
       "range": [0.0010, 0.0013], "instability": 0.0, "stability": "very stable", "winner_set": true,
       "per_process_mean": [0.0010, 0.0011, 0.0012, 0.0013, 0.0014, null, 0.0016, 0.0017]},
      {"index": 2, "name": "put-fence", "processes": 8, "measurements": 4,
       "samples": [0.0030, 0.0031, 0.0032, 0.0033],
       "samples_min": [0.0028, 0.0029, 0.0030, 0.0031],
       "box": {"min": 0.0030, "q1": 0.00305, "median": 0.00315, "q3": 0.00325, "max": 0.0033,
               "whisker_lo": 0.0030, "whisker_hi": 0.0033},
       "box_outliers": [],
       "estimates": {"raw": 0.00315, "heuristic": 0.00315, "iqr": 0.00315, "cluster": 0.00315, "student_t": 0.00315},
       "ranks": {"raw": 3, "heuristic": 3, "iqr": 3, "cluster": 3, "student_t": 3},
       "outliers": {},
       "range": [0.0030, 0.0033], "instability": 0.0, "stability": "very stable", "winner_set": false,
       "worst_set": true,
       "per_process_mean": [0.003, 0.003, 0.003, 0.003, 0.003, 0.003, 0.003, 0.003]}
    ]
  }]
})json";
    // The tuned run's measurements as far as verification runs are checked against them (the
    // operation and its codelets); two locations measured the samples and samples_min above.
    patterns::CodeletMeasurements tuned;
    tuned.run_seconds = 1.5;
    patterns::OperationMeasurements& op = tuned.operations.emplace_back();
    op.name = "halo3d";
    op.codelets = kCodelets;
    const double samples[3][2][4] = {
        {{0.0020, 0.0021, 0.0022, 0.0090}, {0.0018, 0.0019, 0.0020, 0.0021}},
        {{0.0010, 0.0011, 0.0012, 0.0013}, {0.0008, 0.0009, 0.0010, 0.0011}},
        {{0.0030, 0.0031, 0.0032, 0.0033}, {0.0028, 0.0029, 0.0030, 0.0031}}};
    double start = 0.1;
    for (uint32_t location = 0; location < 2; ++location)
        for (int64_t codelet = 0; codelet < 3; ++codelet)
            for (uint32_t m = 0; m < 4; ++m) {
                const double t = samples[codelet][location][m];
                op.search.push_back({location, codelet, m, start, t, 0.0});
                start += 0.01;
            }
    for (uint32_t location = 0; location < 2; ++location) op.decisions[location] = 2;
    report.attributes[patterns::kMeasurementsAttribute] = patterns::to_text(tuned);
    return report;
}

report::Report audited_report_with_verification() {
    report::Report report = audited_report();
    std::string& json = report.attributes["topolens.audit"];
    const std::string production = "\"production\": null,";
    json.replace(json.find(production), production.size(), production + R"json(
    "verification": {
      "runs": ["v-isend-1.cubex", "v-put.cubex", "v-isend-2.cubex"],
      "best": 2, "worst": 0, "tuner_choice": 2, "tuner_penalty_percent": 0.0,
      "ranking_error": null,
      "codelets": [
        {"index": 0, "name": "isend-irecv", "runs": [0, 2], "times": [0.0041, 0.0043],
         "range": [0.0041, 0.0043], "mean": 0.0042, "overlaps": [], "instability": 0.0,
         "stability": "very stable", "winner_set": false, "worst_set": true},
        {"index": 2, "name": "put-fence", "runs": [1], "times": [0.0031],
         "range": [0.0031, 0.0031], "mean": 0.0031, "overlaps": [], "instability": 0.0,
         "stability": "very stable", "winner_set": true, "worst_set": false}
      ],
      "unverified": [1]
    },)json");
    return report;
}

report::Report verification_run(int64_t codelet, const std::vector<double>& means) {
    report::Report report = audited_report();
    report.attributes.erase("topolens.audit");
    patterns::CodeletMeasurements run;
    run.run_seconds = 1.0;
    patterns::OperationMeasurements& op = run.operations.emplace_back();
    op.name = "halo3d";
    op.codelets = kCodelets;
    for (uint32_t location = 0; location < means.size(); ++location)
        op.production.push_back({location, codelet, 10, 10 * means[location], 0.0});
    report.attributes[patterns::kMeasurementsAttribute] = patterns::to_text(run);
    return report;
}

} // namespace topolens::gui::test
