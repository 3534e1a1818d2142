// score_report: a call-path profile has visits, not records; each visit costs its Enter and
// Leave, and an MPI call the records our measurement writes for it, with typical sizes.
#include "analyzer/score/score.h"
#include "analyzer/score/score_regions.h"

#include "trace/record_size.h"

#include <initializer_list>
#include <optional>
#include <string_view>

namespace topolens::score {

namespace otf2 = trace::otf2_size;

namespace {

// Sizes of the MPI records when only the call is known: peer, communicator, tag and request
// take two or three bytes compressed, a message length three (up to 64 KiB) unless the report
// tells the mean message size.
struct RecordSizes {
    uint64_t length = 3;
    uint64_t point_to_point() const { return 2 + 2 + 2 + 2 + length + otf2::kTimestamp; }
    uint64_t nonblocking() const { return point_to_point() + 3; } // MpiIsend, MpiIrecv
    static constexpr uint64_t request_only =
        1 + 3 + otf2::kTimestamp;                                   // IsendComplete, IrecvRequest
    static constexpr uint64_t collective = (2 + otf2::kTimestamp) + // CollectiveBegin
                                           (2 + 1 + 2 + 1 + 2 + 2 + otf2::kTimestamp); // End
};

std::string_view mpi_function(std::string_view name) {
    if (name.substr(0, 4) == "MPI_") name.remove_prefix(4);
    return name;
}

bool is_nonblocking_send(std::string_view f) {
    return f == "Isend" || f == "Issend" || f == "Ibsend" || f == "Irsend";
}

bool is_blocking_receive(std::string_view f) {
    return f == "Recv" || f == "Sendrecv" || f == "Sendrecv_replace";
}

bool is_collective(std::string_view f) {
    static constexpr std::string_view collectives[] = {
        "Barrier",   "Bcast",     "Gather",     "Gatherv",        "Scatter",
        "Scatterv",  "Allgather", "Allgatherv", "Alltoall",       "Alltoallv",
        "Alltoallw", "Allreduce", "Reduce",     "Reduce_scatter", "Reduce_scatter_block",
        "Scan",      "Exscan"};
    for (std::string_view c : collectives)
        if (f == c) return true;
    return false;
}

// The bytes of the records an MPI call writes besides its Enter and Leave, per visit. With
// `counted_messages` the point-to-point records come from the report's message counts
// instead (message_records); without, each send or receive call is taken to carry one
// message, and a nonblocking call's completion record (written in the MPI_Wait or MPI_Test
// that completes it) is counted with the call that started it.
uint64_t mpi_records_per_visit(std::string_view name, const RecordSizes& size,
                               bool counted_messages) {
    const std::string_view f = mpi_function(name);
    if (is_collective(f)) return RecordSizes::collective;
    if (counted_messages) return 0;
    if (f == "Send" || f == "Ssend" || f == "Bsend" || f == "Rsend" || f == "Recv")
        return size.point_to_point();
    if (f == "Sendrecv" || f == "Sendrecv_replace") return 2 * size.point_to_point();
    if (is_nonblocking_send(f) || f == "Irecv")
        return size.nonblocking() + RecordSizes::request_only;
    return 0;
}

// The records of `sends` messages sent and `receives` received by a call of this name (the
// report's message counts at its call path): a receive completed in MPI_Wait or MPI_Test is
// an MpiIrecv there, with the MpiIrecvRequest of the MPI_Irecv that posted it.
uint64_t message_records(std::string_view name, uint64_t sends, uint64_t receives,
                         const RecordSizes& size) {
    const std::string_view f = mpi_function(name);
    const uint64_t send = is_nonblocking_send(f) ? size.nonblocking() + RecordSizes::request_only
                                                 : size.point_to_point();
    const uint64_t receive = is_blocking_receive(f)
                                 ? size.point_to_point()
                                 : size.nonblocking() + RecordSizes::request_only;
    return sends * send + receives * receive;
}

// The sum over `metrics` (each with its sub-metrics) at one call path, per location.
std::vector<double> values(const report::Report& report, const std::vector<int>& metrics, int cp,
                           std::size_t locations) {
    std::vector<double> sum(locations, 0.0);
    for (int metric : metrics)
        for (int m : report.metric_subtree(metric))
            if (const std::vector<double>* row = report.row(m, cp))
                for (std::size_t l = 0; l < row->size() && l < locations; ++l) sum[l] += (*row)[l];
    return sum;
}

std::vector<int> find_metrics(const report::Report& report,
                              std::initializer_list<const char*> names) {
    std::vector<int> found;
    for (const char* name : names)
        if (const std::optional<int> m = report.find_metric(name)) found.push_back(*m);
    return found;
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
    // Message counts (Scalasca's statistics, and ours): point-to-point records exactly.
    const std::vector<int> sends = find_metrics(report, {"comms_send", "syncs_send"});
    const std::vector<int> receives = find_metrics(report, {"comms_recv", "syncs_recv"});
    const bool counted_messages = !sends.empty() && !receives.empty();
    RecordSizes size;
    if (counted_messages) {
        const std::optional<int> bytes_sent = report.find_metric("bytes_sent");
        double messages = 0;
        for (int m : sends) messages += report.total(m);
        if (bytes_sent && messages > 0)
            size.length =
                otf2::compressed(static_cast<uint64_t>(report.total(*bytes_sent) / messages + 0.5));
    }
    const std::size_t locations = report.locations.size();
    std::vector<uint64_t> location_records(locations, 0);
    const std::vector<int> visit_metrics = {*visits};
    for (std::size_t cp = 0; cp < report.callpaths.size(); ++cp) {
        const int region = report.callpaths[cp].region;
        if (region < 0) continue;
        const report::Region& def = report.regions[region];
        RegionScore& s = regions[region];
        const uint64_t enter_leave =
            2 * (otf2::region_record(static_cast<uint32_t>(region)) + otf2::kTimestamp);
        const uint64_t per_visit =
            enter_leave +
            (is_mpi(def) ? mpi_records_per_visit(def.name, size, counted_messages) : 0);
        const int id = static_cast<int>(cp);
        const std::vector<double> n_visits = values(report, visit_metrics, id, locations);
        std::vector<double> n_sends, n_receives;
        if (counted_messages && is_mpi(def)) {
            n_sends = values(report, sends, id, locations);
            n_receives = values(report, receives, id, locations);
        }
        for (std::size_t l = 0; l < locations && l < rank_of.size(); ++l) {
            const auto n = static_cast<uint64_t>(n_visits[l] + 0.5);
            uint64_t bytes = n * per_visit;
            if (!n_sends.empty())
                bytes += message_records(def.name, static_cast<uint64_t>(n_sends[l] + 0.5),
                                         static_cast<uint64_t>(n_receives[l] + 0.5), size);
            const uint32_t p = rank_of[l];
            s.visits[p] += n;
            s.bytes[p] += bytes;
            s.enter_leave[p] += n * enter_leave;
            location_records[l] += bytes;
        }
    }
    if (time) {
        // Each call path's own part (exclusive time), as from a trace.
        const std::vector<double> own = report.callpath_totals(*time, false);
        for (std::size_t cp = 0; cp < report.callpaths.size(); ++cp)
            if (report.callpaths[cp].region >= 0)
                regions[report.callpaths[cp].region].time += own[cp];
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
