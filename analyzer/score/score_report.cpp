// score_report: a call-path profile has visits, not records; each visit costs its Enter and
// Leave, and an MPI call the records our measurement writes for it, with typical sizes.
#include "analyzer/score/score.h"
#include "analyzer/score/score_regions.h"

#include "trace/record_size.h"

#include <string_view>

namespace topolens::score {

namespace otf2 = trace::otf2_size;

namespace {

// Sizes of the MPI records when only the call is known: peer, communicator, tag and request
// take two or three bytes compressed, a message length three (up to 64 KiB).
constexpr uint64_t kPointToPoint = 2 + 2 + 2 + 2 + 3 + otf2::kTimestamp; // MpiSend, MpiRecv
constexpr uint64_t kNonblocking = kPointToPoint + 3;                     // MpiIsend, MpiIrecv
constexpr uint64_t kRequestOnly = 1 + 3 + otf2::kTimestamp; // IsendComplete, IrecvRequest
constexpr uint64_t kCollective = (2 + otf2::kTimestamp) +   // CollectiveBegin
                                 (2 + 1 + 2 + 1 + 2 + 2 + otf2::kTimestamp); // CollectiveEnd

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// The bytes of the records an MPI call of this name writes besides its Enter and Leave.
// A nonblocking call's completion record (written in the MPI_Wait or MPI_Test that completes
// it) is counted with the call that started it.
uint64_t mpi_records_per_visit(std::string_view name) {
    if (starts_with(name, "MPI_")) name.remove_prefix(4);
    if (name == "Send" || name == "Ssend" || name == "Bsend" || name == "Rsend" || name == "Recv")
        return kPointToPoint;
    if (name == "Sendrecv" || name == "Sendrecv_replace") return 2 * kPointToPoint;
    if (name == "Isend" || name == "Issend" || name == "Ibsend" || name == "Irsend" ||
        name == "Irecv")
        return kNonblocking + kRequestOnly;
    static constexpr std::string_view collectives[] = {
        "Barrier",   "Bcast",     "Gather",     "Gatherv",        "Scatter",
        "Scatterv",  "Allgather", "Allgatherv", "Alltoall",       "Alltoallv",
        "Alltoallw", "Allreduce", "Reduce",     "Reduce_scatter", "Reduce_scatter_block",
        "Scan",      "Exscan"};
    for (std::string_view c : collectives)
        if (name == c) return kCollective;
    return 0;
}

bool is_mpi(const report::Region& r) {
    return r.paradigm == "mpi" || r.source_file == "MPI";
}

} // namespace

Score score_report(const report::Report& report) {
    const std::optional<int> visits = report.find_metric("visits");
    if (!visits)
        throw report::ReportError("the report has no \"visits\" metric: not a call-path profile");
    const std::optional<int> time = report.find_metric("time");
    const std::vector<uint32_t> rank_of = report.location_ranks();
    uint32_t processes = 0;
    for (uint32_t r : rank_of) processes = std::max(processes, r + 1);

    std::vector<RegionScore> regions(report.regions.size());
    for (RegionScore& r : regions) {
        r.visits.assign(processes, 0);
        r.bytes.assign(processes, 0);
        r.enter_leave.assign(processes, 0);
    }
    // A region is on a path to MPI when an MPI call lies below one of its call paths.
    std::vector<bool> on_path_to_mpi(report.regions.size());
    for (const report::Callpath& cp : report.callpaths) {
        if (cp.region < 0 || !is_mpi(report.regions[cp.region])) continue;
        for (int up = cp.parent; up >= 0; up = report.callpaths[up].parent)
            on_path_to_mpi[report.callpaths[up].region] = true;
    }
    std::vector<uint64_t> location_records(report.locations.size(), 0);
    const std::vector<int> visit_metrics = report.metric_subtree(*visits);
    for (std::size_t cp = 0; cp < report.callpaths.size(); ++cp) {
        const int region = report.callpaths[cp].region;
        if (region < 0) continue;
        RegionScore& s = regions[region];
        const uint64_t enter_leave =
            2 * (otf2::region_record(static_cast<uint32_t>(region)) + otf2::kTimestamp);
        const uint64_t per_visit =
            enter_leave + (is_mpi(report.regions[region])
                               ? mpi_records_per_visit(report.regions[region].name)
                               : 0);
        for (int m : visit_metrics) {
            const std::vector<double>* row = report.row(m, static_cast<int>(cp));
            if (!row) continue;
            for (std::size_t l = 0; l < row->size() && l < rank_of.size(); ++l) {
                const auto n = static_cast<uint64_t>((*row)[l] + 0.5);
                const uint32_t p = rank_of[l];
                s.visits[p] += n;
                s.bytes[p] += n * per_visit;
                s.enter_leave[p] += n * enter_leave;
                location_records[l] += n * per_visit;
            }
        }
    }
    if (time) {
        const std::vector<double> inclusive = report.callpath_totals(*time, true);
        for (std::size_t cp = 0; cp < report.callpaths.size(); ++cp)
            if (report.callpaths[cp].region >= 0)
                regions[report.callpaths[cp].region].time += inclusive[cp];
    }
    Score score;
    score.estimated_from_visits = true;
    score.process_bytes.assign(processes, 0);
    for (std::size_t l = 0; l < location_records.size() && l < rank_of.size(); ++l)
        score.process_bytes[rank_of[l]] += otf2::event_file(location_records[l]);
    for (std::size_t r = 0; r < regions.size(); ++r) {
        const report::Region& def = report.regions[r];
        RegionScore& s = regions[r];
        s.name = def.name;
        if (!def.canonical_name.empty() && def.canonical_name != def.name)
            s.mangled_name = def.canonical_name;
        s.source_file = def.source_file;
        s.type = is_mpi(def)         ? RegionType::Mpi
                 : on_path_to_mpi[r] ? RegionType::Com
                                     : RegionType::Usr;
        s.unfilterable = is_mpi(def) || def.role == "artificial" || def.paradigm == "measurement";
    }
    score.regions = visited_by_bytes(std::move(regions));
    return score;
}

} // namespace topolens::score
