#include "profile_report.h"

#include "serialize.h"

#include "analyzer/report/report_grid.h"

#include <map>
#include <string_view>

namespace topolens::measure {

// ---------------------------------------------------------------- metrics

// The catalogue's rows of the metrics a profile has (TOPOLENS_PROFILE_METRICS in
// measure/CMakeLists.txt), generated from patterns/metric_catalogue.cpp at build time.
const std::vector<ProfileMetric>& profile_metrics() {
    static const std::vector<ProfileMetric> metrics = {
#include "profile_metrics.inc"
    };
    return metrics;
}

namespace {

// The metric each counter adds to.
constexpr const char* kCounterMetric[kCounters] = {
    "bytes_sent", "bytes_rcvd", "bytes_cout", "bytes_cin",  "comms_send", "comms_recv",
    "syncs_send", "syncs_recv", "comms_cxch", "comms_csrc", "comms_cdst", "syncs_coll",
};

} // namespace

const char* mpi_category(const RegionDefinition& region) {
    if (region.paradigm != OTF2_PARADIGM_MPI && region.source_file != "MPI") return nullptr;
    std::string_view name = region.name;
    if (name.substr(0, 4) == "MPI_") name.remove_prefix(4);
    if (name == "Init" || name == "Init_thread" || name == "Finalize") return "mpi_init_exit";
    if (name == "Barrier") return "mpi_synchronization";
    static constexpr std::string_view kPointToPoint[] = {
        "Send", "Ssend",   "Bsend",   "Rsend",   "Recv", "Sendrecv", "Sendrecv_replace",
        "Wait", "Waitany", "Waitall", "Waitsome"};
    for (std::string_view p2p : kPointToPoint)
        if (name == p2p) return "mpi_point2point";
    if (name.substr(0, 4) == "Test" && name != "Test_cancelled") return "mpi_point2point";
    switch (region.role) {
    case OTF2_REGION_ROLE_POINT2POINT:
        return "mpi_point2point";
    case OTF2_REGION_ROLE_BARRIER:
    case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
        return "mpi_synchronization";
    case OTF2_REGION_ROLE_COLL_ONE2ALL:
    case OTF2_REGION_ROLE_COLL_ALL2ONE:
    case OTF2_REGION_ROLE_COLL_ALL2ALL:
    case OTF2_REGION_ROLE_COLL_OTHER:
        break;
    default:
        return "mpi";
    }
    // Communicator and window creation carry collective roles but move no data.
    if (name.substr(0, 5) == "Comm_" || name.substr(0, 5) == "Cart_" || name.substr(0, 4) == "Win_")
        return "mpi";
    return "mpi_collective";
}

namespace {

const char* paradigm_word(const RegionDefinition& region) {
    if (region.paradigm == OTF2_PARADIGM_MPI || region.source_file == "MPI") return "mpi";
    switch (region.paradigm) {
    case OTF2_PARADIGM_USER:
        return "user";
    case OTF2_PARADIGM_COMPILER:
        return "compiler";
    case OTF2_PARADIGM_MEASUREMENT_SYSTEM:
        return "measurement";
    default:
        return "unknown";
    }
}

const char* role_word(OTF2_RegionRole role) {
    switch (role) {
    case OTF2_REGION_ROLE_FUNCTION:
        return "function";
    case OTF2_REGION_ROLE_POINT2POINT:
        return "point2point";
    case OTF2_REGION_ROLE_COLL_ONE2ALL:
        return "one2all";
    case OTF2_REGION_ROLE_COLL_ALL2ONE:
        return "all2one";
    case OTF2_REGION_ROLE_COLL_ALL2ALL:
        return "all2all";
    case OTF2_REGION_ROLE_BARRIER:
        return "barrier";
    case OTF2_REGION_ROLE_COLL_OTHER:
        return "other collective";
    case OTF2_REGION_ROLE_ARTIFICIAL:
        return "artificial";
    default:
        return "unknown";
    }
}

} // namespace

// ---------------------------------------------------------------- gathering

std::vector<char> serialize_profile(const ProcessProfile& profile) {
    ByteWriter out;
    const std::vector<char> definitions = serialize(profile.definitions);
    out.put_vector(definitions);
    out.put<uint32_t>(static_cast<uint32_t>(profile.locations.size()));
    for (const LocationProfile& location : profile.locations) {
        out.put(location.thread);
        out.put_vector(location.nodes);
    }
    return out.data();
}

ProcessProfile deserialize_profile(const char* data, size_t size) {
    ByteReader in(data, size);
    ProcessProfile profile;
    const std::vector<char> definitions = in.get_vector<char>();
    profile.definitions = deserialize(definitions.data(), definitions.size());
    const auto locations = in.get<uint32_t>();
    for (uint32_t l = 0; l < locations; ++l) {
        LocationProfile location;
        location.thread = in.get<uint32_t>();
        location.nodes = in.get_vector<CallNode>();
        profile.locations.push_back(std::move(location));
    }
    return profile;
}

// ---------------------------------------------------------------- the report

report::Report profile_report(const std::vector<ProcessProfile>& all,
                              std::vector<std::string>& warnings) {
    report::Report r;
    std::map<std::string, int> metric_ids;
    for (const ProfileMetric& m : profile_metrics()) {
        report::Metric metric;
        metric.unique_name = m.unique_name;
        metric.display_name = m.display_name;
        metric.unit = m.unit;
        metric.description = m.description;
        metric.url = m.url;
        metric.parent = *m.parent ? metric_ids.at(m.parent) : -1;
        metric_ids[m.unique_name] = r.add_metric(std::move(metric));
    }
    r.mirrors.push_back(TOPOLENS_DOC_MIRROR);
    const int visits = metric_ids.at("visits");
    int counter_metric[kCounters];
    for (size_t c = 0; c < kCounters; ++c) counter_metric[c] = metric_ids.at(kCounterMetric[c]);

    std::map<std::string, int> region_ids; // by RegionDefinition::key(), across processes
    for (size_t rank = 0; rank < all.size(); ++rank) {
        const ProcessProfile& process = all[rank];
        std::vector<int> regions; // local region id -> report region
        std::vector<int> categories;
        int program = -1; // the program region (measure/program.h): the run's root
        for (const RegionDefinition& def : process.definitions.regions) {
            auto [it, inserted] = region_ids.try_emplace(def.key(), -1);
            if (inserted) {
                report::Region region;
                region.name = def.name;
                region.canonical_name = def.canonical_name;
                region.description = def.description;
                region.source_file = def.source_file;
                region.paradigm = paradigm_word(def);
                region.role = role_word(def.role);
                it->second = r.add_region(std::move(region));
            }
            regions.push_back(it->second);
            if (def.paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM &&
                def.role == OTF2_REGION_ROLE_ARTIFICIAL)
                program = it->second;
            const char* category = mpi_category(def);
            categories.push_back(metric_ids.at(category ? category : "comp"));
        }
        for (const LocationProfile& profile : process.locations) {
            report::Location location;
            location.name =
                profile.thread == 0 ? "Master thread" : "Thread " + std::to_string(profile.thread);
            location.host = process.definitions.host;
            location.process = "MPI Rank " + std::to_string(rank);
            location.rank = static_cast<int>(rank);
            location.thread = static_cast<int>(profile.thread);
            const int loc = r.add_location(std::move(location));
            std::vector<int> callpaths(profile.nodes.size(), -1);
            for (size_t n = 1; n < profile.nodes.size(); ++n) {
                const CallNode& node = profile.nodes[n];
                if (node.region >= regions.size()) continue;
                // As the trace analysis has them: a thread's calls (its location has no
                // program region) hang below the program's call path.
                int parent = callpaths[node.parent];
                if (node.parent == 0)
                    parent = program < 0 || regions[node.region] == program
                                 ? -1
                                 : r.add_callpath(program, -1);
                const int callpath = r.add_callpath(regions[node.region], parent);
                callpaths[n] = callpath;
                const double seconds =
                    static_cast<double>(node.exclusive()) / static_cast<double>(kTicksPerSecond);
                if (seconds > 0) r.add_value(categories[node.region], callpath, loc, seconds);
                if (node.visits > 0)
                    r.add_value(visits, callpath, loc, static_cast<double>(node.visits));
                for (size_t c = 0; c < kCounters; ++c)
                    if (node.counters[c] > 0)
                        r.add_value(counter_metric[c], callpath, loc,
                                    static_cast<double>(node.counters[c]));
            }
        }
    }

    std::vector<ProcessContribution> contributions;
    for (const ProcessProfile& process : all) contributions.push_back(process.definitions);
    const std::vector<uint32_t> ranks = r.location_ranks();
    for (const UnifiedTopology& t : unified_topologies(contributions, warnings)) {
        report::CartTopology topology;
        topology.name = t.name;
        for (size_t d = 0; d < t.dims.size(); ++d) {
            topology.dim_names.push_back(t.name + ", dimension " + std::to_string(d));
            topology.sizes.push_back(static_cast<uint32_t>(t.dims[d]));
            topology.periodic.push_back(d < t.periods.size() && t.periods[d] != 0);
        }
        // The process's first location (its master thread) stands for it, as in the trace.
        topology.coords.resize(r.locations.size());
        for (const auto& [rank, coords] : t.coords_by_world_rank)
            for (size_t loc = 0; loc < r.locations.size(); ++loc)
                if (ranks[loc] == rank && r.locations[loc].thread == 0) {
                    topology.coords[loc].assign(coords.begin(), coords.end());
                    break;
                }
        r.topologies.push_back(std::move(topology));
    }
    // The grid views show the first topology the program recorded; the analysis' choice
    // among inferred and declared grids needs the trace.
    if (!r.topologies.empty()) {
        r.attributes[report::kGridAttribute] = r.topologies.front().name;
        r.attributes[report::kGridSourceAttribute] = "recorded";
        r.attributes[report::kGridExplanationAttribute] =
            "recorded in the run: topology '" + r.topologies.front().name +
            "', the first the program created (a profile)";
    } else {
        r.attributes[report::kGridSourceAttribute] = "none";
    }
    return r;
}

} // namespace topolens::measure
