#include "trace/global_defs.h"

#include <algorithm>
#include <tuple>

namespace topolens::trace::detail {
namespace {

RawDefinitions& raw_of(void* user_data) {
    return *static_cast<RawDefinitions*>(user_data);
}

// Runs one callback's work. Nothing may be thrown through OTF2's C code: failures are kept
// in raw.error and stop the reading.
template <class Work> OTF2_CallbackCode guarded(void* u, Work&& work) {
    RawDefinitions& raw = raw_of(u);
    try {
        if (++raw.records > raw.record_limit)
            raw.error = "more definitions than the anchor file declares (" +
                        std::to_string(raw.record_limit) + ")";
        else
            work(raw);
    } catch (const std::exception& e) {
        raw.error = std::string("cannot hold the definitions: ") + e.what();
    }
    return raw.error.empty() ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

template <class Map, class Value>
void define(RawDefinitions& raw, Map& map, typename Map::key_type id, Value&& value,
            const char* kind) {
    if (!map.emplace(id, std::forward<Value>(value)).second)
        raw.error = std::string("defines ") + kind + " " + std::to_string(id) + " twice";
}

OTF2_CallbackCode on_clock(void* u, uint64_t resolution, uint64_t offset, uint64_t length,
                           uint64_t) {
    return guarded(u, [&](RawDefinitions& raw) {
        raw.have_clock = true;
        raw.timer_resolution = resolution;
        raw.global_offset = offset;
        raw.trace_length = length;
    });
}

OTF2_CallbackCode on_string(void* u, OTF2_StringRef self, const char* s) {
    return guarded(u, [&](RawDefinitions& raw) {
        define(raw, raw.strings, self, std::string(s ? s : ""), "string");
    });
}

OTF2_CallbackCode on_node(void* u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                          OTF2_StringRef class_name, OTF2_SystemTreeNodeRef parent) {
    return guarded(u, [&](RawDefinitions& raw) {
        define(raw, raw.nodes, self, RawDefinitions::Node{name, class_name, parent},
               "system tree node");
    });
}

OTF2_CallbackCode on_location_group(void* u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                    OTF2_LocationGroupRef creator) {
    return guarded(u, [&](RawDefinitions& raw) {
        define(raw, raw.location_groups, self,
               RawDefinitions::LocationGroup{name, type, parent, creator}, "location group");
    });
}

OTF2_CallbackCode on_location(void* u, OTF2_LocationRef self, OTF2_StringRef name,
                              OTF2_LocationType type, uint64_t events,
                              OTF2_LocationGroupRef group) {
    return guarded(u, [&](RawDefinitions& raw) {
        define(raw, raw.locations, self, RawDefinitions::Location{name, type, events, group},
               "location");
    });
}

OTF2_CallbackCode on_region(void* u, OTF2_RegionRef self, OTF2_StringRef name,
                            OTF2_StringRef canonical_name, OTF2_StringRef description,
                            OTF2_RegionRole role, OTF2_Paradigm paradigm, OTF2_RegionFlag,
                            OTF2_StringRef source_file, uint32_t begin_line, uint32_t) {
    return guarded(u, [&](RawDefinitions& raw) {
        define(raw, raw.regions, self,
               RawDefinitions::Region{name, canonical_name, description, source_file, role,
                                      paradigm, begin_line},
               "region");
    });
}

OTF2_CallbackCode on_group(void* u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                           OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t count,
                           const uint64_t* members) {
    return guarded(u, [&](RawDefinitions& raw) {
        RawDefinitions::Group g{name, type, paradigm, flags, {}};
        if (members) g.members.assign(members, members + count);
        define(raw, raw.groups, self, std::move(g), "group");
    });
}

OTF2_CallbackCode on_comm(void* u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                          OTF2_CommRef parent, OTF2_CommFlag) {
    return guarded(u, [&](RawDefinitions& raw) {
        define(raw, raw.comms, self, RawDefinitions::Comm{name, group, parent}, "communicator");
    });
}

OTF2_CallbackCode on_parameter(void* u, OTF2_ParameterRef self, OTF2_StringRef name,
                               OTF2_ParameterType type) {
    return guarded(u, [&](RawDefinitions& raw) {
        define(raw, raw.parameters, self, RawDefinitions::Parameter{name, type}, "parameter");
    });
}

OTF2_CallbackCode on_cart_dimension(void* u, OTF2_CartDimensionRef self, OTF2_StringRef name,
                                    uint32_t size, OTF2_CartPeriodicity periodicity) {
    return guarded(u, [&](RawDefinitions& raw) {
        define(raw, raw.cart_dimensions, self,
               RawDefinitions::CartDimension{name, size, periodicity}, "cart dimension");
    });
}

OTF2_CallbackCode on_cart_topology(void* u, OTF2_CartTopologyRef self, OTF2_StringRef name,
                                   OTF2_CommRef comm, uint8_t ndims,
                                   const OTF2_CartDimensionRef* dims) {
    return guarded(u, [&](RawDefinitions& raw) {
        RawDefinitions::CartTopology t{name, comm, {}};
        if (dims) t.dims.assign(dims, dims + ndims);
        define(raw, raw.cart_topologies, self, std::move(t), "cart topology");
    });
}

OTF2_CallbackCode on_cart_coordinate(void* u, OTF2_CartTopologyRef topology, uint32_t rank,
                                     uint8_t ndims, const uint32_t* coords) {
    return guarded(u, [&](RawDefinitions& raw) {
        RawDefinitions::CartCoordinate c{topology, rank, {}};
        if (coords) c.coords.assign(coords, coords + ndims);
        raw.cart_coordinates.push_back(std::move(c));
    });
}

Paradigm paradigm_of(OTF2_Paradigm p) {
    switch (p) {
    case OTF2_PARADIGM_UNKNOWN:
        return Paradigm::Unknown;
    // Score-P's compiler instrumentation marks user functions as COMPILER.
    case OTF2_PARADIGM_USER:
    case OTF2_PARADIGM_COMPILER:
        return Paradigm::User;
    case OTF2_PARADIGM_MPI:
        return Paradigm::Mpi;
    case OTF2_PARADIGM_MEASUREMENT_SYSTEM:
        return Paradigm::Measurement;
    default:
        return Paradigm::Other;
    }
}

// Dense model indices in ascending OTF2 id order (std::map iterates in that order).
template <class Map> void index_in_order(const Map& map, RefIndex& out) {
    uint32_t next = 0;
    for (const auto& entry : map) out.emplace(entry.first, next++);
}

class Resolver {
  public:
    Resolver(const RawDefinitions& raw, RefMaps& maps, const std::string& file)
        : raw_(raw), maps_(maps), file_(file) {}

    Definitions run() {
        if (!raw_.have_clock) fail("no ClockProperties definition");
        if (raw_.timer_resolution == 0) fail("ClockProperties with timer resolution 0");
        defs_.timer_resolution = raw_.timer_resolution;
        defs_.global_offset = raw_.global_offset;
        defs_.trace_length = raw_.trace_length;
        for (const auto& [ref, s] : raw_.strings) {
            maps_.strings.emplace(ref, static_cast<uint32_t>(defs_.strings.size()));
            defs_.strings.push_back(s);
        }
        resolve_locations();
        resolve_regions();
        resolve_communicators();
        resolve_parameters();
        resolve_topologies();
        return std::move(defs_);
    }

  private:
    [[noreturn]] void fail(const std::string& what) const { throw TraceError(file_ + ": " + what); }

    std::string str(OTF2_StringRef ref, const std::string& owner) const {
        if (ref == OTF2_UNDEFINED_STRING) return "";
        auto it = raw_.strings.find(ref);
        if (it == raw_.strings.end())
            fail(owner + " refers to undefined string " + std::to_string(ref));
        return it->second;
    }

    // Walks up from `node` to the enclosing `node`-class system-tree node (Score-P's host
    // level); without one, the group's own parent names the host.
    std::string host_of(OTF2_SystemTreeNodeRef node) const {
        auto first = raw_.nodes.find(node);
        if (first == raw_.nodes.end()) return "";
        auto it = first;
        for (std::size_t steps = 0; it != raw_.nodes.end() && steps <= raw_.nodes.size(); ++steps) {
            if (str(it->second.class_name, "system tree node") == "node")
                return str(it->second.name, "system tree node");
            it = raw_.nodes.find(it->second.parent);
        }
        return str(first->second.name, "system tree node");
    }

    void resolve_locations() {
        // Ranks: PROCESS location groups in id order; other groups (accelerators) share
        // the rank of the process that created them, or follow after all processes.
        std::unordered_map<OTF2_LocationGroupRef, uint32_t> rank_of_group;
        uint32_t next_rank = 0;
        for (const auto& [ref, g] : raw_.location_groups)
            if (g.type == OTF2_LOCATION_GROUP_TYPE_PROCESS) rank_of_group[ref] = next_rank++;
        for (const auto& [ref, g] : raw_.location_groups) {
            if (rank_of_group.count(ref)) continue;
            auto creator = rank_of_group.find(g.creator);
            rank_of_group[ref] = creator != rank_of_group.end() ? creator->second : next_rank++;
        }
        struct Entry {
            uint32_t rank;
            OTF2_LocationRef id;
        };
        std::vector<Entry> order;
        for (const auto& [ref, l] : raw_.locations) {
            auto g = rank_of_group.find(l.group);
            if (g == rank_of_group.end())
                fail("location " + std::to_string(ref) + " belongs to undefined location group " +
                     std::to_string(l.group));
            order.push_back({g->second, ref});
        }
        if (order.empty()) fail("no locations defined");
        std::sort(order.begin(), order.end(), [](const Entry& x, const Entry& y) {
            return std::tie(x.rank, x.id) < std::tie(y.rank, y.id);
        });
        for (const Entry& e : order) {
            const RawDefinitions::Location& raw_loc = raw_.locations.at(e.id);
            const RawDefinitions::LocationGroup& group = raw_.location_groups.at(raw_loc.group);
            Location loc;
            loc.name = str(raw_loc.name, "location " + std::to_string(e.id));
            loc.rank = e.rank;
            loc.host = host_of(group.parent);
            loc.otf2_id = e.id;
            maps_.locations.emplace(e.id, static_cast<uint32_t>(defs_.locations.size()));
            defs_.locations.push_back(std::move(loc));
        }
    }

    void resolve_regions() {
        index_in_order(raw_.regions, maps_.regions);
        for (const auto& [ref, r] : raw_.regions) {
            const std::string owner = "region " + std::to_string(ref);
            Region region;
            region.name = str(r.name, owner);
            region.canonical_name = str(r.canonical_name, owner);
            region.description = str(r.description, owner);
            region.source_file = str(r.source_file, owner);
            region.begin_line = r.begin_line;
            region.paradigm = paradigm_of(r.paradigm);
            region.role = role_of(r.role);
            defs_.regions.push_back(std::move(region));
        }
    }

    uint32_t rank_of_location(uint64_t location, const std::string& owner) const {
        uint32_t index;
        if (!maps_.locations.find(location, index))
            fail(owner + " lists undefined location " + std::to_string(location));
        return defs_.locations[index].rank;
    }

    void resolve_communicators() {
        // COMM_GROUP members index the COMM_LOCATIONS group of the same paradigm.
        std::map<OTF2_Paradigm, const RawDefinitions::Group*> comm_locations;
        for (const auto& [ref, g] : raw_.groups)
            if (g.type == OTF2_GROUP_TYPE_COMM_LOCATIONS) comm_locations.emplace(g.paradigm, &g);
        index_in_order(raw_.comms, maps_.comms);
        for (const auto& [ref, c] : raw_.comms) {
            const std::string owner = "communicator " + std::to_string(ref);
            Communicator comm;
            comm.name = str(c.name, owner);
            auto g = raw_.groups.find(c.group);
            if (g == raw_.groups.end())
                fail(owner + " uses undefined group " + std::to_string(c.group));
            const RawDefinitions::Group& group = g->second;
            const std::string group_owner = "group " + std::to_string(c.group);
            bool global_ranks = false;
            switch (group.type) {
            case OTF2_GROUP_TYPE_COMM_SELF:
                comm.is_self = true;
                break;
            case OTF2_GROUP_TYPE_COMM_LOCATIONS:
            case OTF2_GROUP_TYPE_LOCATIONS:
                for (uint64_t l : group.members)
                    comm.members.push_back(rank_of_location(l, group_owner));
                break;
            case OTF2_GROUP_TYPE_COMM_GROUP: {
                global_ranks = (group.flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS) != 0;
                auto base = comm_locations.find(group.paradigm);
                if (base == comm_locations.end())
                    fail(group_owner + " is a COMM_GROUP without a COMM_LOCATIONS group");
                const std::vector<uint64_t>& all = base->second->members;
                for (uint64_t m : group.members) {
                    if (m >= all.size())
                        fail(group_owner + " lists rank " + std::to_string(m) + " of " +
                             std::to_string(all.size()) + " in COMM_LOCATIONS");
                    comm.members.push_back(rank_of_location(all[m], "COMM_LOCATIONS group"));
                }
                break;
            }
            default:
                fail(owner + " uses " + group_owner + ", which is not a communicator group");
            }
            if (c.parent != OTF2_UNDEFINED_COMM) {
                uint32_t parent;
                if (!maps_.comms.find(c.parent, parent))
                    fail(owner + " has undefined parent " + std::to_string(c.parent));
                comm.parent = parent;
            }
            defs_.communicators.push_back(std::move(comm));
            maps_.world_ranks_in_records.push_back(global_ranks);
        }
    }

    void resolve_parameters() {
        index_in_order(raw_.parameters, maps_.parameters);
        for (const auto& [ref, p] : raw_.parameters) {
            const std::string owner = "parameter " + std::to_string(ref);
            Parameter parameter;
            parameter.name = str(p.name, owner);
            switch (p.type) {
            case OTF2_PARAMETER_TYPE_STRING:
                parameter.type = ParameterType::String;
                break;
            case OTF2_PARAMETER_TYPE_INT64:
                parameter.type = ParameterType::Int;
                break;
            case OTF2_PARAMETER_TYPE_UINT64:
                parameter.type = ParameterType::UnsignedInt;
                break;
            default:
                fail(owner + " has unknown type " + std::to_string(p.type));
            }
            defs_.parameters.push_back(std::move(parameter));
        }
    }

    void resolve_topologies() {
        std::unordered_map<OTF2_CartTopologyRef, uint32_t> index;
        for (const auto& [ref, t] : raw_.cart_topologies) {
            const std::string owner = "cart topology " + std::to_string(ref);
            CartTopology topo;
            topo.name = str(t.name, owner);
            for (OTF2_CartDimensionRef d : t.dims) {
                auto it = raw_.cart_dimensions.find(d);
                if (it == raw_.cart_dimensions.end())
                    fail(owner + " uses undefined cart dimension " + std::to_string(d));
                topo.dims.push_back({str(it->second.name, "cart dimension " + std::to_string(d)),
                                     it->second.size,
                                     it->second.periodicity == OTF2_CART_PERIODIC_TRUE});
            }
            if (t.comm != OTF2_UNDEFINED_COMM) {
                uint32_t comm;
                if (!maps_.comms.find(t.comm, comm))
                    fail(owner + " uses undefined communicator " + std::to_string(t.comm));
                topo.communicator = comm;
                topo.coords_by_rank.resize(defs_.communicators[comm].members.size());
            }
            index.emplace(ref, static_cast<uint32_t>(defs_.topologies.size()));
            defs_.topologies.push_back(std::move(topo));
        }
        std::size_t ranks = 0;
        for (const Location& l : defs_.locations) ranks = std::max<std::size_t>(ranks, l.rank + 1);
        for (const RawDefinitions::CartCoordinate& c : raw_.cart_coordinates) {
            auto t = index.find(c.topology);
            if (t == index.end())
                fail("cart coordinate of rank " + std::to_string(c.rank) +
                     " refers to undefined cart topology " + std::to_string(c.topology));
            CartTopology& topo = defs_.topologies[t->second];
            const std::string owner =
                "cart coordinate of rank " + std::to_string(c.rank) + " in topology " + topo.name;
            if (c.coords.size() != topo.dims.size())
                fail(owner + " has " + std::to_string(c.coords.size()) + " dimensions, not " +
                     std::to_string(topo.dims.size()));
            for (std::size_t d = 0; d < c.coords.size(); ++d)
                if (c.coords[d] >= topo.dims[d].size)
                    fail(owner + " lies outside dimension " + std::to_string(d) + " (size " +
                         std::to_string(topo.dims[d].size) + ")");
            // Without a communicator's size, ranks are still bounded by the processes.
            std::size_t size = topo.coords_by_rank.size();
            if (topo.communicator == kNone)
                size = ranks;
            else if (defs_.communicators[topo.communicator].is_self)
                size = 1;
            if (c.rank >= size)
                fail(owner + " is outside its communicator of size " + std::to_string(size));
            if (c.rank >= topo.coords_by_rank.size()) topo.coords_by_rank.resize(c.rank + 1);
            topo.coords_by_rank[c.rank] = c.coords;
        }
    }

    const RawDefinitions& raw_;
    RefMaps& maps_;
    const std::string& file_;
    Definitions defs_;
};

} // namespace

RegionRole role_of(OTF2_RegionRole r) {
    switch (r) {
    case OTF2_REGION_ROLE_FUNCTION:
        return RegionRole::Function;
    case OTF2_REGION_ROLE_POINT2POINT:
        return RegionRole::PointToPoint;
    case OTF2_REGION_ROLE_COLL_ONE2ALL:
        return RegionRole::CollOneToAll;
    case OTF2_REGION_ROLE_COLL_ALL2ONE:
        return RegionRole::CollAllToOne;
    case OTF2_REGION_ROLE_COLL_ALL2ALL:
        return RegionRole::CollAllToAll;
    case OTF2_REGION_ROLE_BARRIER:
    case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
        return RegionRole::Barrier;
    case OTF2_REGION_ROLE_COLL_OTHER:
        return RegionRole::CollOther;
    case OTF2_REGION_ROLE_ARTIFICIAL:
        return RegionRole::Artificial;
    default:
        return RegionRole::Other;
    }
}

void set_global_definition_callbacks(OTF2_GlobalDefReaderCallbacks* cb) {
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_node);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_location_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetParameterCallback(cb, on_parameter);
    OTF2_GlobalDefReaderCallbacks_SetCartDimensionCallback(cb, on_cart_dimension);
    OTF2_GlobalDefReaderCallbacks_SetCartTopologyCallback(cb, on_cart_topology);
    OTF2_GlobalDefReaderCallbacks_SetCartCoordinateCallback(cb, on_cart_coordinate);
}

Definitions resolve_definitions(const RawDefinitions& raw, RefMaps& maps, const std::string& file) {
    return Resolver(raw, maps, file).run();
}

} // namespace topolens::trace::detail
