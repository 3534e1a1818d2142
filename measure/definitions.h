// Definitions as one process sees them during the run (local ids, dense from 0), and their
// unification into global OTF2 definitions plus local->global mapping tables at finalize.
#pragma once

#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_GeneralDefinitions.h>
#include <otf2/OTF2_GlobalDefWriter.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace topolens::measure {

struct RegionDefinition {
    std::string name;
    std::string canonical_name;
    std::string description;
    std::string source_file;
    uint32_t begin_line = 0; // 0: unknown
    OTF2_RegionRole role = OTF2_REGION_ROLE_FUNCTION;
    OTF2_Paradigm paradigm = OTF2_PARADIGM_USER;
    std::string key() const; // identity across processes
};

struct ParameterDefinition {
    std::string name;
    OTF2_ParameterType type = OTF2_PARAMETER_TYPE_STRING;
};

// A communicator as its rank 0 describes it. Keys are unique across processes:
// kWorldKey and kSelfKey are fixed, others are (creator world rank + 2) << 32 | counter.
struct CommDefinition {
    uint64_t key = 0;
    uint64_t parent_key = 0;
    std::string how;               // creating MPI function, e.g. "Comm_split"
    std::vector<uint64_t> members; // world ranks in communicator rank order
};
inline constexpr uint64_t kWorldKey = 0;
inline constexpr uint64_t kSelfKey = 1;

// One process's part of a Cartesian topology: every member sends one.
struct TopologyRecord {
    bool user_defined = false; // topolens_cart_create (by name) vs MPI_Cart_create (by comm)
    std::string name;          // user topologies only
    uint64_t comm_key = kWorldKey;
    uint64_t creation = 0; // creation order on this process, keeps topology order stable
    std::vector<int32_t> dims;
    std::vector<int32_t> periods;
    int32_t rank = -1;           // rank in the topology's communicator
    std::vector<int32_t> coords; // empty when never set
    std::string how;             // creating MPI function ("Cart_create", "Cart_sub")
};

class LocalDefinitions {
  public:
    uint32_t string(std::string_view text);
    uint32_t region(const RegionDefinition& region);
    // User regions identified by name only. Programs pass the same string literal again
    // and again, so a small cache keyed by the pointer (checked with strcmp) avoids hashing.
    uint32_t user_region(const char* name);
    uint32_t parameter(std::string_view name, OTF2_ParameterType type);
    // A region of its own, never shared with an equal definition: an instrumented function,
    // known by its address (two static functions of one name stay two until finalize tells
    // their files apart). Its source is set later with set_source.
    uint32_t new_region(const RegionDefinition& region);
    // Where a new_region's code is, learnt late (at finalize).
    void set_source(uint32_t region, std::string file, uint32_t begin_line);

    const std::vector<std::string>& strings() const { return strings_; }
    const std::vector<RegionDefinition>& regions() const { return regions_; }
    const std::vector<ParameterDefinition>& parameters() const { return parameters_; }

  private:
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view text) const {
            return std::hash<std::string_view>{}(text);
        }
    };
    using Index = std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>>;
    struct CachedName {
        const char* pointer = nullptr;
        uint32_t region = 0;
    };
    CachedName name_cache_[64];
    std::vector<std::string> strings_;
    Index string_index_;
    std::vector<RegionDefinition> regions_;
    Index region_index_;
    Index user_region_index_;
    std::vector<ParameterDefinition> parameters_;
    Index parameter_index_;
};

// Everything a process contributes to the global definitions at finalize.
struct ProcessContribution {
    std::string host;
    uint64_t event_count = 0;                  // of the thread that called MPI_Init
    std::vector<uint64_t> thread_event_counts; // threaded levels: threads 1, 2, ...
    uint64_t first_time = 0;                   // global (offset-corrected) timestamps
    uint64_t last_time = 0;
    std::vector<std::string> strings;
    std::vector<RegionDefinition> regions;
    std::vector<ParameterDefinition> parameters;
    std::vector<uint64_t> comm_keys; // local comm id -> key
    std::vector<CommDefinition> owned_comms;
    std::vector<TopologyRecord> topologies;
};

std::vector<char> serialize(const ProcessContribution& contribution);
ProcessContribution deserialize(const char* data, size_t size);

// Local -> global id maps of one process.
struct IdMappings {
    std::vector<uint64_t> strings, regions, parameters, comms;
};

// Unifies all processes' contributions (index = world rank), writes the global definitions
// with `writer`, and returns each process's mappings. Warnings (e.g. a user topology
// declared with different dims) go to `warnings`.
std::vector<IdMappings> write_global_definitions(const std::vector<ProcessContribution>& all,
                                                 OTF2_GlobalDefWriter* writer,
                                                 std::vector<std::string>& warnings);

// The Cartesian topologies of all processes (index = world rank) as the global definitions
// hold them, with each member's coordinates by world rank: what a profile (measure/
// profile_report.h) records beside its values, the same names and grids as the trace's.
struct UnifiedTopology {
    std::string name;
    std::vector<int32_t> dims, periods;
    std::map<uint32_t, std::vector<int32_t>> coords_by_world_rank;
};
std::vector<UnifiedTopology> unified_topologies(const std::vector<ProcessContribution>& all,
                                                std::vector<std::string>& warnings);

} // namespace topolens::measure
