// Reader internals: the global definitions as OTF2 delivers them (OTF2 ids, any order),
// and their translation into the model (dense indices, world ranks, hosts).
#pragma once

#include "trace/model.h"

#include <otf2/otf2.h>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace topolens::trace::detail {

struct RawDefinitions {
    bool have_clock = false;
    uint64_t timer_resolution = 0, global_offset = 0, trace_length = 0;
    std::map<OTF2_StringRef, std::string> strings;
    struct Node {
        OTF2_StringRef name, class_name;
        OTF2_SystemTreeNodeRef parent;
    };
    std::map<OTF2_SystemTreeNodeRef, Node> nodes;
    struct LocationGroup {
        OTF2_StringRef name;
        OTF2_LocationGroupType type;
        OTF2_SystemTreeNodeRef parent;
        OTF2_LocationGroupRef creator;
    };
    std::map<OTF2_LocationGroupRef, LocationGroup> location_groups;
    struct Location {
        OTF2_StringRef name;
        OTF2_LocationType type;
        uint64_t events;
        OTF2_LocationGroupRef group;
    };
    std::map<OTF2_LocationRef, Location> locations;
    struct Region {
        OTF2_StringRef name, canonical_name, description, source_file;
        OTF2_RegionRole role;
        OTF2_Paradigm paradigm;
        uint32_t begin_line;
    };
    std::map<OTF2_RegionRef, Region> regions;
    struct Group {
        OTF2_StringRef name;
        OTF2_GroupType type;
        OTF2_Paradigm paradigm;
        OTF2_GroupFlag flags;
        std::vector<uint64_t> members;
    };
    std::map<OTF2_GroupRef, Group> groups;
    struct Comm {
        OTF2_StringRef name;
        OTF2_GroupRef group;
        OTF2_CommRef parent;
    };
    std::map<OTF2_CommRef, Comm> comms;
    struct Parameter {
        OTF2_StringRef name;
        OTF2_ParameterType type;
    };
    std::map<OTF2_ParameterRef, Parameter> parameters;
    struct CartDimension {
        OTF2_StringRef name;
        uint32_t size;
        OTF2_CartPeriodicity periodicity;
    };
    std::map<OTF2_CartDimensionRef, CartDimension> cart_dimensions;
    struct CartTopology {
        OTF2_StringRef name;
        OTF2_CommRef comm;
        std::vector<OTF2_CartDimensionRef> dims;
    };
    std::map<OTF2_CartTopologyRef, CartTopology> cart_topologies;
    struct CartCoordinate {
        OTF2_CartTopologyRef topology;
        uint32_t rank;
        std::vector<uint32_t> coords;
    };
    std::vector<CartCoordinate> cart_coordinates;

    // Reading stops at the first problem (an id defined twice, more records than the anchor
    // file declares, no memory): damaged files can make OTF2 deliver records endlessly.
    std::string error;
    uint64_t records = 0;
    uint64_t record_limit = UINT64_MAX;
};

// Registers callbacks that fill the RawDefinitions passed as user data.
void set_global_definition_callbacks(OTF2_GlobalDefReaderCallbacks* callbacks);

// OTF2 global id -> model index: a table for the small ids writers normally use (one look-up
// per event record must be cheap), a hash map for any others.
class RefIndex {
  public:
    bool find(uint64_t ref, uint32_t& index) const {
        if (ref < dense_.size()) {
            index = dense_[ref];
            return index != kNone;
        }
        auto it = sparse_.find(ref);
        if (it == sparse_.end()) return false;
        index = it->second;
        return true;
    }
    bool contains(uint64_t ref) const {
        uint32_t index;
        return find(ref, index);
    }
    // Returns false if `ref` was already there.
    bool emplace(uint64_t ref, uint32_t index) {
        if (contains(ref)) return false;
        if (ref < kDenseLimit) {
            if (ref >= dense_.size()) dense_.resize(ref + 1, kNone);
            dense_[ref] = index;
        } else {
            sparse_.emplace(ref, index);
        }
        return true;
    }

  private:
    static constexpr uint64_t kDenseLimit = 1 << 20;
    std::vector<uint32_t> dense_;
    std::unordered_map<uint64_t, uint32_t> sparse_;
};

struct RefMaps {
    RefIndex locations, regions, comms, parameters, strings;
    // Per communicator: its event records carry world ranks instead of communicator ranks
    // (OTF2_GROUP_FLAG_GLOBAL_MEMBERS); the reader translates them.
    std::vector<bool> world_ranks_in_records;
};

// OTF2's region role in the model's words (an implicit barrier is a barrier).
RegionRole role_of(OTF2_RegionRole role);

// Builds the model's definitions: indices dense in ascending OTF2 id order, locations
// sorted by rank (location group order), communicator members as world ranks.
// Throws TraceError, prefixed with `file`, for references to undefined definitions.
Definitions resolve_definitions(const RawDefinitions& raw, RefMaps& maps, const std::string& file);

} // namespace topolens::trace::detail
