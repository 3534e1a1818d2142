// The measurement library's definitions: what each process sends to rank 0 at finalize,
// and their unification into global OTF2 definitions, read back with our reader.
#include "definitions.h"

#include "test_util.h"
#include "trace/reader.h"

#include <gtest/gtest.h>
#include <otf2/otf2.h>

using namespace topolens::measure;
namespace trace = topolens::trace;

namespace {

RegionDefinition mpi_region(const char* name, OTF2_RegionRole role) {
    RegionDefinition region;
    region.name = name;
    region.canonical_name = name;
    region.source_file = "MPI";
    region.role = role;
    region.paradigm = OTF2_PARADIGM_MPI;
    return region;
}

TopologyRecord cart_record(uint64_t comm_key, int rank, std::vector<int32_t> coords) {
    TopologyRecord record;
    record.comm_key = comm_key;
    record.dims = {2, 1};
    record.periods = {0, 1};
    record.rank = rank;
    record.coords = std::move(coords);
    record.how = "Cart_create";
    return record;
}

TopologyRecord user_record(std::vector<int32_t> dims, int rank, std::vector<int32_t> coords) {
    TopologyRecord record;
    record.user_defined = true;
    record.name = "grid";
    record.dims = std::move(dims);
    record.periods.assign(record.dims.size(), 0);
    record.rank = rank;
    record.coords = std::move(coords);
    record.how = "user";
    return record;
}

// Keys as the library makes them: (creator world rank + 2) << 32 | creation counter.
constexpr uint64_t key(uint64_t creator, uint64_t counter) {
    return (creator + 2) << 32 | counter;
}

// Three processes. Process 1 created a communicator of {1,2} (its child, created later by
// process 2, has a smaller key than some unrelated communicator), ranks 0 and 1 share a
// 2x1 Cartesian communicator, and everyone declares a user topology "grid" (process 2 with
// other dims, which must be refused).
std::vector<ProcessContribution> three_processes() {
    std::vector<ProcessContribution> all(3);
    for (int p = 0; p < 3; ++p) {
        ProcessContribution& c = all[p];
        c.host = p < 2 ? "node-a" : "node-b";
        c.event_count = 2;
        c.first_time = 1000 + p;
        c.last_time = 5000 + p;
        c.regions.push_back(mpi_region("MPI_Send", OTF2_REGION_ROLE_POINT2POINT));
        c.comm_keys = {kWorldKey, kSelfKey};
    }
    // Regions in different local orders: identical ones must unify.
    RegionDefinition solver;
    solver.name = "solver";
    solver.canonical_name = "solver";
    all[1].regions.insert(all[1].regions.begin(), solver);
    all[2].regions.push_back(solver);
    all[0].strings = {"search", "production"};
    all[2].strings = {"production"};
    all[0].parameters = {{"topolens.phase:halo", OTF2_PARAMETER_TYPE_STRING}};

    const uint64_t pair = key(1, 0);  // {1, 2}, made by process 1 from MPI_COMM_WORLD
    const uint64_t child = key(2, 0); // {2}, made by process 2 from `pair`
    const uint64_t cart = key(0, 5);  // {0, 1}, a Cartesian communicator made by process 0
    all[1].owned_comms.push_back({pair, kWorldKey, "Comm_split", {1, 2}});
    all[2].owned_comms.push_back({child, pair, "Comm_dup", {2}});
    all[0].owned_comms.push_back({cart, kWorldKey, "Cart_create", {0, 1}});
    all[0].comm_keys.push_back(cart);
    all[1].comm_keys.push_back(cart);
    all[1].comm_keys.push_back(pair);
    all[2].comm_keys.push_back(pair);
    all[2].comm_keys.push_back(child);

    all[0].topologies.push_back(cart_record(cart, 0, {0, 0}));
    all[1].topologies.push_back(cart_record(cart, 1, {1, 0}));
    all[0].topologies.push_back(user_record({3}, 0, {2}));
    all[1].topologies.push_back(user_record({3}, 1, {0}));
    all[2].topologies.push_back(user_record({4}, 2, {3}));
    return all;
}

OTF2_FlushType always_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
const OTF2_FlushCallbacks kFlush = {always_flush, nullptr};

// Writes the global definitions of `all` plus, per location, Enter/Leave of its first
// local region (translated with the returned mappings), as the library does at finalize.
std::vector<IdMappings> write_archive(const std::vector<ProcessContribution>& all,
                                      const std::filesystem::path& dir,
                                      std::vector<std::string>& warnings) {
    OTF2_Archive* archive = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1 << 20,
                                              4 << 20, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    EXPECT_NE(archive, nullptr);
    OTF2_Archive_SetFlushCallbacks(archive, &kFlush, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(archive);
    OTF2_Archive_OpenEvtFiles(archive);
    std::vector<IdMappings> mappings;
    std::vector<OTF2_EvtWriter*> writers;
    for (size_t p = 0; p < all.size(); ++p)
        writers.push_back(OTF2_Archive_GetEvtWriter(archive, p));
    mappings = write_global_definitions(all, OTF2_Archive_GetGlobalDefWriter(archive), warnings);
    for (size_t p = 0; p < all.size(); ++p) {
        const uint32_t region = static_cast<uint32_t>(mappings[p].regions.at(0));
        OTF2_EvtWriter_Enter(writers[p], nullptr, all[p].first_time, region);
        OTF2_EvtWriter_Leave(writers[p], nullptr, all[p].last_time, region);
        OTF2_Archive_CloseEvtWriter(archive, writers[p]);
    }
    OTF2_Archive_CloseEvtFiles(archive);
    OTF2_Archive_Close(archive);
    return mappings;
}

const trace::Communicator& comm_named(const trace::Trace& t, const std::string& name) {
    for (const auto& comm : t.defs.communicators)
        if (comm.name == name) return comm;
    throw std::runtime_error("no communicator " + name);
}

} // namespace

TEST(MeasureDefinitions, SerializationRoundTrip) {
    const std::vector<ProcessContribution> all = three_processes();
    for (const auto& original : all) {
        const std::vector<char> bytes = serialize(original);
        const ProcessContribution copy = deserialize(bytes.data(), bytes.size());
        EXPECT_EQ(serialize(copy), bytes);
        EXPECT_EQ(copy.host, original.host);
        EXPECT_EQ(copy.comm_keys, original.comm_keys);
        ASSERT_EQ(copy.topologies.size(), original.topologies.size());
        for (size_t i = 0; i < copy.topologies.size(); ++i)
            EXPECT_EQ(copy.topologies[i].coords, original.topologies[i].coords);
    }
}

TEST(MeasureDefinitions, ThreadEventCountsSurviveSerialization) {
    ProcessContribution c = three_processes()[1];
    c.thread_event_counts = {5, 7};
    const std::vector<char> bytes = serialize(c);
    const ProcessContribution copy = deserialize(bytes.data(), bytes.size());
    EXPECT_EQ(copy.thread_event_counts, c.thread_event_counts);
    EXPECT_EQ(copy.event_count, c.event_count);
}

TEST(MeasureDefinitions, TruncatedMessageIsRefused) {
    const std::vector<char> bytes = serialize(three_processes()[1]);
    EXPECT_THROW(deserialize(bytes.data(), bytes.size() - 3), std::runtime_error);
}

TEST(MeasureDefinitions, LocalRegistriesGiveDenseStableIds) {
    LocalDefinitions defs;
    EXPECT_EQ(defs.string("a"), 0u);
    EXPECT_EQ(defs.string("b"), 1u);
    EXPECT_EQ(defs.string("a"), 0u);
    const char* name = "solver";
    const uint32_t solver = defs.user_region(name);
    EXPECT_EQ(defs.user_region(name), solver);
    EXPECT_EQ(defs.user_region(std::string("solver").c_str()), solver); // other pointer
    EXPECT_NE(defs.user_region("io"), solver);
    EXPECT_EQ(defs.parameter("p", OTF2_PARAMETER_TYPE_INT64), 0u);
    EXPECT_EQ(defs.parameter("p", OTF2_PARAMETER_TYPE_STRING), 1u); // other type, other id
}

TEST(MeasureDefinitions, UnifiedDefinitionsReadBackExactly) {
    topolens::test::ScratchDir scratch;
    std::vector<std::string> warnings;
    const std::vector<ProcessContribution> all = three_processes();
    const std::vector<IdMappings> mappings = write_archive(all, scratch / "trace", warnings);

    // Identical regions are one global region whatever their local order.
    EXPECT_EQ(mappings[1].regions[0], mappings[2].regions[1]);      // solver
    EXPECT_EQ(mappings[0].regions[0], mappings[1].regions[1]);      // MPI_Send
    EXPECT_EQ(mappings[0].strings[1], mappings[2].strings[0]);      // "production"
    EXPECT_EQ(mappings[0].comms, (std::vector<uint64_t>{0, 1, 2})); // world, self, cart
    EXPECT_EQ(mappings[2].comms[2], mappings[1].comms[3]);          // the pair

    const trace::Trace t = trace::read_trace((scratch / "trace").string());
    ASSERT_EQ(t.defs.locations.size(), 3u);
    EXPECT_EQ(t.defs.locations[2].host, "node-b");
    EXPECT_EQ(t.defs.global_offset, 1000u);
    EXPECT_EQ(t.defs.trace_length, 4002u);
    EXPECT_EQ(t.defs.timer_resolution, 1000000000u);

    // Communicators: world, self, then derived ones with every parent before its child.
    const auto& pair = comm_named(t, "MPI_Comm_split 1");
    const auto& child = comm_named(t, "MPI_Comm_dup 1");
    const auto& cart = comm_named(t, "MPI_Cart_create 1");
    EXPECT_EQ(pair.members, (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(child.members, (std::vector<uint32_t>{2}));
    EXPECT_EQ(cart.members, (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(t.defs.communicators[child.parent].name, "MPI_Comm_split 1");
    EXPECT_LT(child.parent, static_cast<uint32_t>(&child - t.defs.communicators.data()));
    EXPECT_EQ(t.defs.communicators[pair.parent].name, "MPI_COMM_WORLD");

    // Topologies: the Cartesian communicator's first, then the user's grid with the dims
    // declared first (process 0's); the dissenting process is reported and left out.
    ASSERT_EQ(t.defs.topologies.size(), 2u);
    const auto& mpi = t.defs.topologies[0];
    EXPECT_EQ(mpi.name, "MPI_Cart_create 1");
    ASSERT_EQ(mpi.dims.size(), 2u);
    EXPECT_EQ(mpi.dims[0].size, 2u);
    EXPECT_EQ(mpi.dims[1].size, 1u);
    EXPECT_FALSE(mpi.dims[0].periodic);
    EXPECT_TRUE(mpi.dims[1].periodic);
    EXPECT_EQ(mpi.coords_by_rank[0], (std::vector<uint32_t>{0, 0}));
    EXPECT_EQ(mpi.coords_by_rank[1], (std::vector<uint32_t>{1, 0}));
    const auto& grid = t.defs.topologies[1];
    EXPECT_EQ(grid.name, "grid");
    ASSERT_EQ(grid.dims.size(), 1u);
    EXPECT_EQ(grid.dims[0].size, 3u);
    EXPECT_EQ(grid.coords_by_rank[0], (std::vector<uint32_t>{2}));
    EXPECT_EQ(grid.coords_by_rank[1], (std::vector<uint32_t>{0}));
    EXPECT_TRUE(grid.coords_by_rank.size() < 3 || grid.coords_by_rank[2].empty());
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("process 2 declared 4"), std::string::npos) << warnings[0];

    // Events carry the unified region ids.
    EXPECT_EQ(t.defs.regions[t.locations[1].events[0].region()].name, "solver");
    EXPECT_EQ(t.defs.regions[t.locations[0].events[0].region()].name, "MPI_Send");
}
