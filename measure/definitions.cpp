#include "definitions.h"

#include "serialize.h"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <map>
#include <set>

namespace topolens::measure {

// ---------------------------------------------------------------- local registries

std::string RegionDefinition::key() const {
    std::string key = name;
    for (const std::string* part : {&canonical_name, &description, &source_file}) {
        key += '\x1f';
        key += *part;
    }
    key += '\x1f' + std::to_string(begin_line) + '\x1f' + std::to_string(role) + '\x1f' +
           std::to_string(paradigm);
    return key;
}

uint32_t LocalDefinitions::string(std::string_view text) {
    if (auto found = string_index_.find(text); found != string_index_.end()) return found->second;
    const auto id = static_cast<uint32_t>(strings_.size());
    strings_.emplace_back(text);
    string_index_.emplace(std::string(text), id);
    return id;
}

uint32_t LocalDefinitions::region(const RegionDefinition& region) {
    std::string key = region.key();
    if (auto found = region_index_.find(key); found != region_index_.end()) return found->second;
    const auto id = static_cast<uint32_t>(regions_.size());
    regions_.push_back(region);
    region_index_.emplace(std::move(key), id);
    return id;
}

uint32_t LocalDefinitions::new_region(const RegionDefinition& region) {
    regions_.push_back(region);
    return static_cast<uint32_t>(regions_.size() - 1);
}

void LocalDefinitions::set_source(uint32_t region, std::string file, uint32_t begin_line) {
    regions_[region].source_file = std::move(file);
    regions_[region].begin_line = begin_line;
}

uint32_t LocalDefinitions::user_region(const char* name) {
    CachedName& cached = name_cache_[(reinterpret_cast<uintptr_t>(name) >> 4) % 64];
    if (cached.pointer == name && std::strcmp(regions_[cached.region].name.c_str(), name) == 0)
        return cached.region;
    uint32_t id = 0;
    if (auto found = user_region_index_.find(std::string_view(name));
        found != user_region_index_.end()) {
        id = found->second;
    } else {
        RegionDefinition region;
        region.name = name;
        region.canonical_name = region.name;
        id = this->region(region);
        user_region_index_.emplace(std::string(name), id);
    }
    cached = {name, id};
    return id;
}

uint32_t LocalDefinitions::parameter(std::string_view name, OTF2_ParameterType type) {
    std::string key = std::string(name) + '\x1f' + std::to_string(type);
    if (auto found = parameter_index_.find(key); found != parameter_index_.end())
        return found->second;
    const auto id = static_cast<uint32_t>(parameters_.size());
    parameters_.push_back({std::string(name), type});
    parameter_index_.emplace(std::move(key), id);
    return id;
}

// ---------------------------------------------------------------- (de)serialisation

namespace {

void put_ints(ByteWriter& out, const std::vector<int32_t>& values) {
    out.put_vector(values);
}

} // namespace

std::vector<char> serialize(const ProcessContribution& c) {
    ByteWriter out;
    out.put_string(c.host);
    out.put(c.event_count);
    out.put_vector(c.thread_event_counts);
    out.put(c.first_time);
    out.put(c.last_time);
    out.put<uint32_t>(static_cast<uint32_t>(c.strings.size()));
    for (const auto& text : c.strings) out.put_string(text);
    out.put<uint32_t>(static_cast<uint32_t>(c.regions.size()));
    for (const auto& r : c.regions) {
        out.put_string(r.name);
        out.put_string(r.canonical_name);
        out.put_string(r.description);
        out.put_string(r.source_file);
        out.put<uint32_t>(r.begin_line);
        out.put<uint32_t>(r.role);
        out.put<uint32_t>(r.paradigm);
    }
    out.put<uint32_t>(static_cast<uint32_t>(c.parameters.size()));
    for (const auto& p : c.parameters) {
        out.put_string(p.name);
        out.put<uint32_t>(p.type);
    }
    out.put_vector(c.comm_keys);
    out.put<uint32_t>(static_cast<uint32_t>(c.owned_comms.size()));
    for (const auto& comm : c.owned_comms) {
        out.put(comm.key);
        out.put(comm.parent_key);
        out.put_string(comm.how);
        out.put_vector(comm.members);
    }
    out.put<uint32_t>(static_cast<uint32_t>(c.topologies.size()));
    for (const auto& t : c.topologies) {
        out.put<uint8_t>(t.user_defined ? 1 : 0);
        out.put_string(t.name);
        out.put(t.comm_key);
        out.put(t.creation);
        put_ints(out, t.dims);
        put_ints(out, t.periods);
        out.put(t.rank);
        put_ints(out, t.coords);
        out.put_string(t.how);
    }
    return out.data();
}

ProcessContribution deserialize(const char* data, size_t size) {
    ByteReader in(data, size);
    ProcessContribution c;
    c.host = in.get_string();
    c.event_count = in.get<uint64_t>();
    c.thread_event_counts = in.get_vector<uint64_t>();
    c.first_time = in.get<uint64_t>();
    c.last_time = in.get<uint64_t>();
    for (uint32_t n = in.get<uint32_t>(); n > 0; --n) c.strings.push_back(in.get_string());
    for (uint32_t n = in.get<uint32_t>(); n > 0; --n) {
        RegionDefinition r;
        r.name = in.get_string();
        r.canonical_name = in.get_string();
        r.description = in.get_string();
        r.source_file = in.get_string();
        r.begin_line = in.get<uint32_t>();
        r.role = static_cast<OTF2_RegionRole>(in.get<uint32_t>());
        r.paradigm = static_cast<OTF2_Paradigm>(in.get<uint32_t>());
        c.regions.push_back(std::move(r));
    }
    for (uint32_t n = in.get<uint32_t>(); n > 0; --n) {
        ParameterDefinition p;
        p.name = in.get_string();
        p.type = static_cast<OTF2_ParameterType>(in.get<uint32_t>());
        c.parameters.push_back(std::move(p));
    }
    c.comm_keys = in.get_vector<uint64_t>();
    for (uint32_t n = in.get<uint32_t>(); n > 0; --n) {
        CommDefinition comm;
        comm.key = in.get<uint64_t>();
        comm.parent_key = in.get<uint64_t>();
        comm.how = in.get_string();
        comm.members = in.get_vector<uint64_t>();
        c.owned_comms.push_back(std::move(comm));
    }
    for (uint32_t n = in.get<uint32_t>(); n > 0; --n) {
        TopologyRecord t;
        t.user_defined = in.get<uint8_t>() != 0;
        t.name = in.get_string();
        t.comm_key = in.get<uint64_t>();
        t.creation = in.get<uint64_t>();
        t.dims = in.get_vector<int32_t>();
        t.periods = in.get_vector<int32_t>();
        t.rank = in.get<int32_t>();
        t.coords = in.get_vector<int32_t>();
        t.how = in.get_string();
        c.topologies.push_back(std::move(t));
    }
    if (!in.done()) throw std::runtime_error("definition message has trailing bytes");
    return c;
}

// ---------------------------------------------------------------- unification

namespace {

// Global string table: interned first, written before every other definition.
class GlobalStrings {
  public:
    uint32_t operator()(const std::string& text) {
        auto [it, inserted] = index_.emplace(text, static_cast<uint32_t>(order_.size()));
        if (inserted) order_.push_back(&it->first);
        return it->second;
    }
    void write(OTF2_GlobalDefWriter* writer) const {
        for (uint32_t id = 0; id < order_.size(); ++id)
            OTF2_GlobalDefWriter_WriteString(writer, id, order_[id]->c_str());
    }

  private:
    std::map<std::string, uint32_t> index_;
    std::vector<const std::string*> order_;
};

struct GlobalComm {
    CommDefinition def;
    uint32_t id = 0;
    std::string name;
};

// Orders communicators so that every parent gets a smaller id than its children.
std::vector<GlobalComm> order_communicators(const std::vector<ProcessContribution>& all) {
    std::map<uint64_t, CommDefinition> pending;
    for (const auto& process : all)
        for (const auto& comm : process.owned_comms) pending.emplace(comm.key, comm);

    std::vector<GlobalComm> ordered;
    std::map<uint64_t, uint32_t> assigned{{kWorldKey, 0}, {kSelfKey, 1}};
    std::map<std::string, int> per_function;
    auto assign = [&](const CommDefinition& def) {
        GlobalComm comm{def, static_cast<uint32_t>(assigned.size()), {}};
        comm.name = "MPI_" + def.how + " " + std::to_string(++per_function[def.how]);
        assigned.emplace(def.key, comm.id);
        ordered.push_back(std::move(comm));
    };
    while (!pending.empty()) {
        bool progress = false;
        for (auto it = pending.begin(); it != pending.end();) {
            if (assigned.count(it->second.parent_key)) {
                assign(it->second);
                it = pending.erase(it);
                progress = true;
            } else {
                ++it;
            }
        }
        if (!progress) { // parent never described (e.g. an intercommunicator): keep going
            assign(pending.begin()->second);
            pending.erase(pending.begin());
        }
    }
    return ordered;
}

struct MergedTopology {
    std::string name;
    uint32_t comm = 0;
    std::vector<int32_t> dims, periods;
    std::map<int32_t, std::vector<int32_t>> coords_by_rank;
};

std::string dims_text(const std::vector<int32_t>& dims) {
    std::string text;
    for (size_t i = 0; i < dims.size(); ++i) text += (i ? "x" : "") + std::to_string(dims[i]);
    return text;
}

std::vector<MergedTopology> merge_topologies(const std::vector<ProcessContribution>& all,
                                             const std::map<uint64_t, uint32_t>& comm_ids,
                                             const std::vector<GlobalComm>& comms,
                                             std::vector<std::string>& warnings) {
    // Identity: user topologies by name, MPI ones by communicator.
    std::map<std::string, MergedTopology> merged;
    std::map<std::string, std::pair<int, uint64_t>> order; // kind, sort key
    for (size_t process = 0; process < all.size(); ++process) {
        for (const auto& record : all[process].topologies) {
            const std::string id =
                record.user_defined ? "u:" + record.name : "c:" + std::to_string(record.comm_key);
            auto comm = comm_ids.find(record.comm_key);
            if (comm == comm_ids.end()) continue;
            auto [it, inserted] = merged.try_emplace(id);
            MergedTopology& topology = it->second;
            if (inserted) {
                topology.name = record.name;
                topology.comm = comm->second;
                topology.dims = record.dims;
                topology.periods = record.periods;
                order[id] = {record.user_defined ? 1 : 0,
                             record.user_defined ? record.creation : comm->second};
            } else if (topology.dims != record.dims || topology.periods != record.periods) {
                warnings.push_back("topology '" + record.name + "': process " +
                                   std::to_string(process) + " declared " + dims_text(record.dims) +
                                   ", others " + dims_text(topology.dims) + "; keeping the first");
                continue;
            }
            if (record.coords.empty()) continue;
            bool inside = record.coords.size() == topology.dims.size();
            for (size_t d = 0; inside && d < record.coords.size(); ++d)
                inside = record.coords[d] >= 0 && record.coords[d] < topology.dims[d];
            if (!inside) {
                warnings.push_back("topology '" + record.name + "': coordinates of process " +
                                   std::to_string(process) + " lie outside " +
                                   dims_text(topology.dims) + "; dropped");
                continue;
            }
            topology.coords_by_rank[record.rank] = record.coords;
        }
    }
    // Name MPI topologies by their creating function and order.
    std::vector<std::pair<std::pair<int, uint64_t>, std::string>> sorted;
    for (const auto& [id, key] : order) sorted.push_back({key, id});
    std::sort(sorted.begin(), sorted.end());
    std::vector<MergedTopology> result;
    std::map<std::string, int> per_function;
    for (const auto& [key, id] : sorted) {
        MergedTopology topology = merged[id];
        if (key.first == 0 && topology.comm >= 2) {
            const GlobalComm& comm = comms.at(topology.comm - 2); // derived ids start at 2
            topology.name =
                "MPI_" + comm.def.how + " " + std::to_string(++per_function[comm.def.how]);
        }
        result.push_back(std::move(topology));
    }
    return result;
}

std::string thread_name(size_t thread) {
    return "Thread " + std::to_string(thread);
}

uint64_t realtime_of(uint64_t monotonic_ns) {
    timespec mono, real;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_REALTIME, &real);
    const int64_t mono_now = mono.tv_sec * 1000000000LL + mono.tv_nsec;
    const int64_t real_now = real.tv_sec * 1000000000LL + real.tv_nsec;
    return static_cast<uint64_t>(real_now - (mono_now - static_cast<int64_t>(monotonic_ns)));
}

} // namespace

std::vector<IdMappings> write_global_definitions(const std::vector<ProcessContribution>& all,
                                                 OTF2_GlobalDefWriter* writer,
                                                 std::vector<std::string>& warnings) {
    GlobalStrings strings;
    std::vector<IdMappings> mappings(all.size());

    // Regions and parameters: identical definitions on different processes are one.
    std::map<std::string, uint32_t> region_ids;
    std::vector<const RegionDefinition*> regions;
    std::map<std::string, uint32_t> parameter_ids;
    std::vector<const ParameterDefinition*> parameters;
    for (size_t p = 0; p < all.size(); ++p) {
        for (const auto& text : all[p].strings) mappings[p].strings.push_back(strings(text));
        for (const auto& region : all[p].regions) {
            auto [it, inserted] =
                region_ids.emplace(region.key(), static_cast<uint32_t>(regions.size()));
            if (inserted) regions.push_back(&region);
            mappings[p].regions.push_back(it->second);
        }
        for (const auto& parameter : all[p].parameters) {
            auto [it, inserted] =
                parameter_ids.emplace(parameter.name + '\x1f' + std::to_string(parameter.type),
                                      static_cast<uint32_t>(parameters.size()));
            if (inserted) parameters.push_back(&parameter);
            mappings[p].parameters.push_back(it->second);
        }
    }

    const std::vector<GlobalComm> comms = order_communicators(all);
    std::map<uint64_t, uint32_t> comm_ids{{kWorldKey, 0}, {kSelfKey, 1}};
    for (const auto& comm : comms) comm_ids[comm.def.key] = comm.id;
    for (size_t p = 0; p < all.size(); ++p)
        for (uint64_t key : all[p].comm_keys) {
            auto found = comm_ids.find(key);
            mappings[p].comms.push_back(found == comm_ids.end() ? OTF2_UNDEFINED_COMM
                                                                : found->second);
        }
    const std::vector<MergedTopology> topologies = merge_topologies(all, comm_ids, comms, warnings);

    // Intern every remaining name before writing: readers expect strings first.
    std::map<std::string, uint32_t> host_nodes;
    for (const auto& process : all)
        host_nodes.emplace(process.host, static_cast<uint32_t>(host_nodes.size() + 1));
    for (const auto* region : regions) {
        strings(region->name);
        strings(region->canonical_name);
        strings(region->description);
        strings(region->source_file);
    }
    for (const auto* parameter : parameters) strings(parameter->name);
    for (const char* text :
         {"machine", "node", "Master thread", "MPI_COMM_WORLD", "MPI_COMM_SELF", "", "MPI"})
        strings(text);
    for (const auto& [host, node] : host_nodes) strings(host);
    for (size_t p = 0; p < all.size(); ++p) strings("MPI Rank " + std::to_string(p));
    for (const auto& process : all)
        for (size_t t = 1; t <= process.thread_event_counts.size(); ++t) strings(thread_name(t));
    for (const auto& comm : comms) strings(comm.name);
    for (const auto& topology : topologies) {
        strings(topology.name);
        for (size_t d = 0; d < topology.dims.size(); ++d)
            strings(topology.name + ", dimension " + std::to_string(d));
    }
    strings.write(writer);

    // Clock: one timeline from the earliest to the latest event of the run.
    uint64_t first = UINT64_MAX, last = 0;
    for (const auto& process : all) {
        first = std::min(first, process.first_time);
        last = std::max(last, process.last_time);
    }
    if (first > last) first = last;
    OTF2_GlobalDefWriter_WriteClockProperties(writer, 1000000000ULL, first, last - first,
                                              realtime_of(first));
    OTF2_GlobalDefWriter_WriteParadigm(writer, OTF2_PARADIGM_MPI, strings("MPI"),
                                       OTF2_PARADIGM_CLASS_PROCESS);

    // System tree, processes and their single thread each.
    OTF2_GlobalDefWriter_WriteSystemTreeNode(writer, 0, strings("machine"), strings("machine"),
                                             OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (const auto& [host, node] : host_nodes)
        OTF2_GlobalDefWriter_WriteSystemTreeNode(writer, node, strings(host), strings("node"), 0);
    for (size_t p = 0; p < all.size(); ++p)
        OTF2_GlobalDefWriter_WriteLocationGroup(
            writer, p, strings("MPI Rank " + std::to_string(p)), OTF2_LOCATION_GROUP_TYPE_PROCESS,
            host_nodes.at(all[p].host), OTF2_UNDEFINED_LOCATION_GROUP);
    for (size_t p = 0; p < all.size(); ++p) {
        OTF2_GlobalDefWriter_WriteLocation(writer, p, strings("Master thread"),
                                           OTF2_LOCATION_TYPE_CPU_THREAD, all[p].event_count, p);
        // Threads of a threaded run: locations of the same process (its location group).
        for (size_t t = 1; t <= all[p].thread_event_counts.size(); ++t)
            OTF2_GlobalDefWriter_WriteLocation(
                writer, static_cast<uint64_t>(t) << 32 | p, strings(thread_name(t)),
                OTF2_LOCATION_TYPE_CPU_THREAD, all[p].thread_event_counts[t - 1], p);
    }

    for (uint32_t id = 0; id < regions.size(); ++id) {
        const RegionDefinition& r = *regions[id];
        OTF2_GlobalDefWriter_WriteRegion(
            writer, id, strings(r.name), strings(r.canonical_name), strings(r.description), r.role,
            r.paradigm, OTF2_REGION_FLAG_NONE, strings(r.source_file), r.begin_line, 0);
    }
    for (uint32_t id = 0; id < parameters.size(); ++id)
        OTF2_GlobalDefWriter_WriteParameter(writer, id, strings(parameters[id]->name),
                                            parameters[id]->type);

    // Groups: 0 = all locations (COMM_LOCATIONS), 1 = self, 2 = world, 3.. = derived.
    std::vector<uint64_t> everyone(all.size());
    for (size_t p = 0; p < all.size(); ++p) everyone[p] = p;
    OTF2_GlobalDefWriter_WriteGroup(writer, 0, strings(""), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    static_cast<uint32_t>(everyone.size()), everyone.data());
    OTF2_GlobalDefWriter_WriteGroup(writer, 1, strings(""), OTF2_GROUP_TYPE_COMM_SELF,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, nullptr);
    OTF2_GlobalDefWriter_WriteGroup(writer, 2, strings(""), OTF2_GROUP_TYPE_COMM_GROUP,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    static_cast<uint32_t>(everyone.size()), everyone.data());
    for (const auto& comm : comms)
        OTF2_GlobalDefWriter_WriteGroup(
            writer, comm.id + 1, strings(""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
            OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(comm.def.members.size()),
            comm.def.members.data());
    OTF2_GlobalDefWriter_WriteComm(writer, 0, strings("MPI_COMM_WORLD"), 2, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(writer, 1, strings("MPI_COMM_SELF"), 1, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
    for (const auto& comm : comms) {
        auto parent = comm_ids.find(comm.def.parent_key);
        OTF2_GlobalDefWriter_WriteComm(
            writer, comm.id, strings(comm.name), comm.id + 1,
            parent == comm_ids.end() ? OTF2_UNDEFINED_COMM : parent->second, OTF2_COMM_FLAG_NONE);
    }

    // Cartesian topologies.
    uint32_t next_dimension = 0;
    for (uint32_t id = 0; id < topologies.size(); ++id) {
        const MergedTopology& topology = topologies[id];
        std::vector<OTF2_CartDimensionRef> dimensions;
        for (size_t d = 0; d < topology.dims.size(); ++d) {
            const bool periodic = d < topology.periods.size() && topology.periods[d] != 0;
            OTF2_GlobalDefWriter_WriteCartDimension(
                writer, next_dimension, strings(topology.name + ", dimension " + std::to_string(d)),
                static_cast<uint32_t>(topology.dims[d]),
                periodic ? OTF2_CART_PERIODIC_TRUE : OTF2_CART_PERIODIC_FALSE);
            dimensions.push_back(next_dimension++);
        }
        OTF2_GlobalDefWriter_WriteCartTopology(writer, id, strings(topology.name), topology.comm,
                                               static_cast<uint8_t>(dimensions.size()),
                                               dimensions.data());
        for (const auto& [rank, coords] : topology.coords_by_rank) {
            std::vector<uint32_t> unsigned_coords(coords.begin(), coords.end());
            OTF2_GlobalDefWriter_WriteCartCoordinate(writer, id, static_cast<uint32_t>(rank),
                                                     static_cast<uint8_t>(unsigned_coords.size()),
                                                     unsigned_coords.data());
        }
    }
    return mappings;
}

std::vector<UnifiedTopology> unified_topologies(const std::vector<ProcessContribution>& all,
                                                std::vector<std::string>& warnings) {
    const std::vector<GlobalComm> comms = order_communicators(all);
    std::map<uint64_t, uint32_t> comm_ids{{kWorldKey, 0}, {kSelfKey, 1}};
    for (const auto& comm : comms) comm_ids[comm.def.key] = comm.id;
    std::vector<UnifiedTopology> result;
    for (MergedTopology& merged : merge_topologies(all, comm_ids, comms, warnings)) {
        UnifiedTopology topology{
            std::move(merged.name), std::move(merged.dims), std::move(merged.periods), {}};
        for (auto& [rank, coords] : merged.coords_by_rank) {
            // Coordinates are by rank in the topology's communicator (derived ids from 2).
            uint64_t world = static_cast<uint64_t>(rank);
            if (merged.comm >= 2) {
                const std::vector<uint64_t>& members = comms.at(merged.comm - 2).def.members;
                if (static_cast<size_t>(rank) >= members.size()) continue;
                world = members[static_cast<size_t>(rank)];
            }
            topology.coords_by_world_rank[static_cast<uint32_t>(world)] = std::move(coords);
        }
        result.push_back(std::move(topology));
    }
    return result;
}

} // namespace topolens::measure
