// What each region costs in a trace, as scorep-score tells it: visits, time and the bytes of
// OTF2 event records, per region and per process; what a filter file would save; and a
// filter for tiny, frequent functions. From a trace the records are counted exactly
// (trace/record_size.h); from a CUBE4 call-path profile they are estimated from the visits.
#pragma once

#include "analyzer/report/report.h"
#include "trace/model.h"
#include "trace/region_filter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace topolens::score {

// scorep-score's groups: MPI functions, functions on a call path to MPI (COM), and the
// other user functions and regions (USR).
enum class RegionType { Mpi, Com, Usr };
const char* region_type_name(RegionType type); // "MPI", "COM", "USR"

struct RegionScore {
    std::string name;
    std::string mangled_name; // the canonical name, where it differs
    std::string source_file;
    RegionType type = RegionType::Usr;
    // A filter never removes it: an MPI function, or a region the measurement made up
    // (the program region).
    bool unfilterable = false;
    double time = 0; // seconds: exclusive, every visit's duration less its callees'
    // Per process (MPI rank):
    std::vector<uint64_t> visits;
    std::vector<uint64_t> bytes;       // its records, each with its timestamp
    std::vector<uint64_t> enter_leave; // the part of `bytes` a filter removes

    uint64_t total_visits() const;
    uint64_t max_visits() const;
    uint64_t total_bytes() const;
    uint64_t max_bytes() const;
    double time_per_visit() const; // seconds; 0 without visits
};

struct Score {
    std::vector<RegionScore> regions; // the regions visited, most bytes first
    // Estimated size of each process's event files (records, chunk headers, file ends).
    std::vector<uint64_t> process_bytes;
    bool estimated_from_visits = false; // a profile: no records to count

    uint64_t total_bytes() const;
    uint64_t max_process_bytes() const;
};

// Counts the records of every event of `trace`.
Score score_trace(const trace::Trace& trace);
// Estimates the records from the "visits" metric of a call-path profile (and its "time"
// metric, when there is one). Throws report::ReportError without a "visits" metric.
Score score_report(const report::Report& report);

// The sum of the .evt files of the archive `anchor` names, or 0 when there are none.
uint64_t event_file_bytes(const trace::Trace& trace);

struct FilterEffect {
    std::vector<bool> excluded;          // per region of the score
    std::vector<uint64_t> process_bytes; // each process's estimate with the filter applied
    uint64_t saved_bytes = 0;
    uint64_t total_bytes() const;
    uint64_t max_process_bytes() const;
};

// What `filter` removes: the Enter and Leave records of every region it excludes (never an
// unfilterable one). Records inside an excluded region stay.
FilterEffect apply_filter(const Score& score, const trace::RegionFilter& filter);

// Which functions a filter should remove: USR regions (never MPI, never a function on a path
// to MPI) that cost at least `min_share` of the trace and whose visits last less than
// `max_time_per_visit` seconds on average.
struct SuggestionRule {
    double max_time_per_visit = 10e-6;
    double min_share = 0.01;
    std::string describe() const; // one line, for the filter's comment and the output
};
std::vector<std::size_t> suggest_filter(const Score& score, const SuggestionRule& rule);
// A filter file excluding `regions` (indices into score.regions), in Score-P's syntax.
std::string filter_file_text(const Score& score, const std::vector<std::size_t>& regions,
                             const SuggestionRule& rule);

} // namespace topolens::score
