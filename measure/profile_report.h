// The profile as a report: every process's call-path trees (measure/profile.h), its region
// definitions and topologies, gathered on rank 0 and turned into one report::Report, which
// the one CUBE4 writer (analyzer/report/cube4.h) writes. No MPI here: unit-tested alone.
//
// The metric tree holds what a profile measures, as the trace analysis has these metrics:
// their rows of patterns/metric_catalogue.cpp, generated into the library at build time
// (patterns/metric_rows_main.cpp): Time > Execution > Computation and MPI with its
// categories, Visits, and the byte and message counts of the MPI calls.
#pragma once

#include "definitions.h"
#include "profile.h"

#include "analyzer/report/report.h"

#include <string>
#include <vector>

namespace topolens::measure {

struct LocationProfile {
    uint32_t thread = 0; // 0: the thread that called MPI_Init
    std::vector<CallNode> nodes;
};

// What one process sends to rank 0 at MPI_Finalize.
struct ProcessProfile {
    ProcessContribution definitions; // host, regions, communicators, topologies
    std::vector<LocationProfile> locations;
};

std::vector<char> serialize_profile(const ProcessProfile& profile);
ProcessProfile deserialize_profile(const char* data, size_t size);

// One metric of a profile, as the report gets it.
struct ProfileMetric {
    const char* unique_name;
    const char* parent; // "" for a root
    const char* display_name;
    const char* unit;
    const char* description;
    const char* url; // "@mirror@docs/metrics.md#metric-time"
};
const std::vector<ProfileMetric>& profile_metrics();

// The metric of the MPI time category a region's time goes to, as the trace analysis divides
// MPI time (analyzer/engine/mpi_calls.cpp; tests/unit/measure_profile_test.cpp checks every
// recorded MPI function against it): "mpi_point2point", ..., "mpi" for other MPI calls,
// nullptr for a region that is not MPI.
const char* mpi_category(const RegionDefinition& region);

// All processes' profiles (index = world rank) as one report; `warnings` gets the
// topologies' problems (as the trace's definitions would).
report::Report profile_report(const std::vector<ProcessProfile>& all,
                              std::vector<std::string>& warnings);

// The attribute that marks a report as a profile (value: "topolens VERSION"). A profile
// has no wait-state metrics: those need the trace.
inline constexpr const char* kProfileAttribute = "topolens.profile";

} // namespace topolens::measure
