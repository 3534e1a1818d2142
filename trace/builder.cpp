#include "trace/builder.h"

#include "trace/clock.h"
#include "trace/names.h"
#include "trace/program_encoding.h"

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>

namespace topolens::trace {

RegionRole mpi_region_role(const std::string& f) {
    static const std::set<std::string> p2p = {
        "MPI_Send",   "MPI_Recv",      "MPI_Isend",    "MPI_Irecv",
        "MPI_Ssend",  "MPI_Bsend",     "MPI_Rsend",    "MPI_Issend",
        "MPI_Ibsend", "MPI_Irsend",    "MPI_Sendrecv", "MPI_Sendrecv_replace",
        "MPI_Wait",   "MPI_Waitall",   "MPI_Waitany",  "MPI_Waitsome",
        "MPI_Test",   "MPI_Testall",   "MPI_Testany",  "MPI_Testsome",
        "MPI_Probe",  "MPI_Iprobe",    "MPI_Start",    "MPI_Startall",
        "MPI_Cancel", "MPI_Send_init", "MPI_Recv_init"};
    static const std::set<std::string> one2all = {"MPI_Bcast", "MPI_Scatter", "MPI_Scatterv"};
    static const std::set<std::string> all2one = {"MPI_Reduce", "MPI_Gather", "MPI_Gatherv"};
    static const std::set<std::string> all2all = {
        "MPI_Allreduce", "MPI_Allgather", "MPI_Allgatherv",     "MPI_Alltoall",
        "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block"};
    if (p2p.count(f)) return RegionRole::PointToPoint;
    if (f == "MPI_Barrier") return RegionRole::Barrier;
    if (one2all.count(f)) return RegionRole::CollOneToAll;
    if (all2one.count(f)) return RegionRole::CollAllToOne;
    if (all2all.count(f)) return RegionRole::CollAllToAll;
    if (f == "MPI_Scan" || f == "MPI_Exscan") return RegionRole::CollOther;
    return RegionRole::Function;
}

TraceBuilder::TraceBuilder(uint32_t ranks, uint64_t timer_resolution) {
    if (ranks == 0) throw std::invalid_argument("TraceBuilder needs at least one rank");
    if (timer_resolution == 0) throw std::invalid_argument("timer resolution must be > 0");
    Definitions& d = trace_.defs;
    d.timer_resolution = timer_resolution;
    d.creator = "topolens trace builder";
    for (uint32_t r = 0; r < ranks; ++r) {
        Location loc;
        loc.name = "Master thread";
        loc.rank = r;
        loc.host = "localhost";
        loc.otf2_id = r;
        d.locations.push_back(loc);
    }
    trace_.locations.resize(ranks);
    std::vector<uint32_t> all(ranks);
    for (uint32_t r = 0; r < ranks; ++r) all[r] = r;
    world_ = communicator("MPI_COMM_WORLD", all, kNone);
    Communicator self;
    self.name = "MPI_COMM_SELF";
    self.parent = world_;
    self.is_self = true;
    self_ = static_cast<Ref>(d.communicators.size());
    d.communicators.push_back(self);
}

void TraceBuilder::check_loc(Loc loc) const {
    if (loc >= trace_.defs.locations.size())
        throw std::invalid_argument("location " + std::to_string(loc) + " out of range");
}

void TraceBuilder::check_comm(Ref comm) const {
    if (comm >= trace_.defs.communicators.size())
        throw std::invalid_argument("communicator " + std::to_string(comm) + " undefined");
}

void TraceBuilder::check_rank(Ref comm, uint32_t rank, const char* what) const {
    check_comm(comm);
    const Communicator& c = trace_.defs.communicators[comm];
    const std::size_t size = c.is_self ? 1 : c.members.size();
    if (rank >= size)
        throw std::invalid_argument(std::string(what) + " " + std::to_string(rank) +
                                    " is not a rank of " + c.name);
}

TraceBuilder::Loc TraceBuilder::add_thread(uint32_t rank) {
    Definitions& d = trace_.defs;
    uint32_t threads = 0;
    for (const Location& l : d.locations)
        if (l.rank == rank) ++threads;
    if (threads == 0) throw std::invalid_argument("add_thread: no process of that rank");
    Location loc;
    loc.name = "Thread " + std::to_string(threads);
    loc.rank = rank;
    loc.host = d.locations[rank].host;
    loc.otf2_id = static_cast<uint64_t>(threads) << 32 | rank;
    d.locations.push_back(loc);
    trace_.locations.emplace_back();
    return static_cast<Loc>(d.locations.size() - 1);
}

void TraceBuilder::set_host(Loc rank, const std::string& host) {
    check_loc(rank);
    trace_.defs.locations[rank].host = host;
}

void TraceBuilder::set_creator(const std::string& creator) {
    trace_.defs.creator = creator;
}

void TraceBuilder::set_clock_properties(uint64_t global_offset, uint64_t trace_length) {
    trace_.defs.global_offset = global_offset;
    trace_.defs.trace_length = trace_length;
    clock_fixed_ = true;
}

Ref TraceBuilder::string(const std::string& s) {
    auto [it, added] = strings_.emplace(s, static_cast<Ref>(trace_.defs.strings.size()));
    if (added) trace_.defs.strings.push_back(s);
    return it->second;
}

Ref TraceBuilder::region(const std::string& name, Paradigm paradigm, RegionRole role,
                         const std::string& source_file, const std::string& canonical_name) {
    const std::string canonical = canonical_name.empty() ? name : canonical_name;
    auto key = std::make_tuple(name, canonical, paradigm, role, source_file);
    auto [it, added] = regions_.emplace(key, static_cast<Ref>(trace_.defs.regions.size()));
    if (added) {
        Region r;
        r.name = name;
        r.canonical_name = canonical;
        r.source_file = source_file;
        r.paradigm = paradigm;
        r.role = role;
        trace_.defs.regions.push_back(r);
    }
    return it->second;
}

Ref TraceBuilder::program(const std::string& name, const std::vector<std::string>& arguments) {
    if (trace_.defs.program.region != kNone)
        throw std::invalid_argument("the trace has a program already");
    trace_.defs.program.region =
        region(program_region_name(name), Paradigm::Measurement, RegionRole::Artificial, "",
               program_canonical_name(name, arguments));
    trace_.defs.program.name = name;
    trace_.defs.program.arguments = arguments;
    return trace_.defs.program.region;
}

void TraceBuilder::program_begin(Loc loc, Time t) {
    if (trace_.defs.program.region == kNone) throw std::invalid_argument("no program defined");
    enter(loc, t, trace_.defs.program.region);
}

void TraceBuilder::program_end(Loc loc, Time t, int64_t exit_status) {
    if (trace_.defs.program.region == kNone) throw std::invalid_argument("no program defined");
    Event& leave = add(loc, EventKind::Leave, t);
    leave.set_region(trace_.defs.program.region);
    leave.value = exit_status;
}

Ref TraceBuilder::mpi_region(const std::string& f) {
    return region(f, Paradigm::Mpi, mpi_region_role(f), "MPI");
}

Ref TraceBuilder::communicator(const std::string& name, std::vector<uint32_t> members, Ref parent) {
    if (parent != kNone) check_comm(parent);
    for (uint32_t m : members)
        if (m >= trace_.defs.locations.size())
            throw std::invalid_argument("communicator " + name + ": no rank " + std::to_string(m));
    Communicator c;
    c.name = name;
    c.members = std::move(members);
    c.parent = parent;
    trace_.defs.communicators.push_back(std::move(c));
    return static_cast<Ref>(trace_.defs.communicators.size() - 1);
}

Ref TraceBuilder::cart_topology(const std::string& name, Ref comm,
                                const std::vector<uint32_t>& sizes,
                                const std::vector<bool>& periodic) {
    check_comm(comm);
    if (sizes.empty() || sizes.size() != periodic.size())
        throw std::invalid_argument("topology " + name + ": sizes and periods differ in length");
    CartTopology t;
    t.name = name;
    t.communicator = comm;
    for (std::size_t i = 0; i < sizes.size(); ++i)
        t.dims.push_back({name + " dim " + std::to_string(i), sizes[i], periodic[i]});
    t.coords_by_rank.resize(trace_.defs.communicators[comm].members.size());
    trace_.defs.topologies.push_back(std::move(t));
    return static_cast<Ref>(trace_.defs.topologies.size() - 1);
}

void TraceBuilder::cart_coords(Ref topology, uint32_t comm_rank, std::vector<uint32_t> coords) {
    if (topology >= trace_.defs.topologies.size())
        throw std::invalid_argument("topology " + std::to_string(topology) + " undefined");
    CartTopology& t = trace_.defs.topologies[topology];
    if (coords.size() != t.dims.size())
        throw std::invalid_argument("topology " + t.name + ": wrong number of coordinates");
    for (std::size_t d = 0; d < coords.size(); ++d)
        if (coords[d] >= t.dims[d].size)
            throw std::invalid_argument("topology " + t.name + ": coordinate out of range");
    if (comm_rank >= t.coords_by_rank.size()) t.coords_by_rank.resize(comm_rank + 1);
    t.coords_by_rank[comm_rank] = std::move(coords);
}

Ref TraceBuilder::parameter(const std::string& name, ParameterType type) {
    auto [it, added] = parameters_.emplace(name, static_cast<Ref>(trace_.defs.parameters.size()));
    if (added) trace_.defs.parameters.push_back({name, type});
    return it->second;
}

void TraceBuilder::clock_offset(Loc loc, uint64_t local_time, int64_t offset, double stddev) {
    check_loc(loc);
    trace_.defs.locations[loc].clock_offsets.push_back({local_time, offset, stddev});
}

Event& TraceBuilder::add(Loc loc, EventKind kind, Time t) {
    check_loc(loc);
    Event& e = trace_.locations[loc].events.emplace_back();
    e.kind = kind;
    e.time = t;
    return e;
}

void TraceBuilder::add_request(Loc loc, uint64_t request) {
    LocationEvents& le = trace_.locations[loc];
    le.requests.push_back({static_cast<uint32_t>(le.events.size() - 1), request});
}

void TraceBuilder::enter(Loc loc, Time t, Ref region) {
    if (region >= trace_.defs.regions.size()) throw std::invalid_argument("undefined region");
    add(loc, EventKind::Enter, t).set_region(region);
}

void TraceBuilder::leave(Loc loc, Time t, Ref region) {
    if (region >= trace_.defs.regions.size()) throw std::invalid_argument("undefined region");
    add(loc, EventKind::Leave, t).set_region(region);
}

void TraceBuilder::send(Loc loc, Time t, uint32_t dest, Ref comm, uint32_t tag, uint64_t bytes) {
    check_rank(comm, dest, "destination");
    add(loc, EventKind::MpiSend, t).set_message(dest, comm, tag, bytes);
}

void TraceBuilder::recv(Loc loc, Time t, uint32_t source, Ref comm, uint32_t tag, uint64_t bytes) {
    check_rank(comm, source, "source");
    add(loc, EventKind::MpiRecv, t).set_message(source, comm, tag, bytes);
}

void TraceBuilder::isend(Loc loc, Time t, uint32_t dest, Ref comm, uint32_t tag, uint64_t bytes,
                         uint64_t request) {
    check_rank(comm, dest, "destination");
    add(loc, EventKind::MpiIsend, t).set_message(dest, comm, tag, bytes);
    add_request(loc, request);
}

void TraceBuilder::isend_complete(Loc loc, Time t, uint64_t request) {
    add(loc, EventKind::MpiIsendComplete, t);
    add_request(loc, request);
}

void TraceBuilder::irecv_request(Loc loc, Time t, uint64_t request) {
    add(loc, EventKind::MpiIrecvRequest, t);
    add_request(loc, request);
}

void TraceBuilder::irecv(Loc loc, Time t, uint32_t source, Ref comm, uint32_t tag, uint64_t bytes,
                         uint64_t request) {
    check_rank(comm, source, "source");
    add(loc, EventKind::MpiIrecv, t).set_message(source, comm, tag, bytes);
    add_request(loc, request);
}

void TraceBuilder::request_test(Loc loc, Time t, uint64_t request) {
    add(loc, EventKind::MpiRequestTest, t);
    add_request(loc, request);
}

void TraceBuilder::request_cancelled(Loc loc, Time t, uint64_t request) {
    add(loc, EventKind::MpiRequestCancelled, t);
    add_request(loc, request);
}

void TraceBuilder::collective_begin(Loc loc, Time t) {
    add(loc, EventKind::MpiCollectiveBegin, t);
}

void TraceBuilder::collective_end(Loc loc, Time t, CollectiveOp op, Ref comm, uint32_t root,
                                  uint64_t sent, uint64_t received) {
    check_comm(comm);
    if (root != kNone) check_rank(comm, root, "root");
    add(loc, EventKind::MpiCollectiveEnd, t).set_collective(root, comm, op, sent);
    add_request(loc, received); // the model keeps received bytes beside the event
}

void TraceBuilder::parameter_string(Loc loc, Time t, Ref parameter, const std::string& value) {
    if (parameter >= trace_.defs.parameters.size())
        throw std::invalid_argument("undefined parameter");
    const Ref s = string(value);
    add(loc, EventKind::ParameterString, t).set_parameter_string(parameter, s);
}

void TraceBuilder::parameter_int(Loc loc, Time t, Ref parameter, int64_t value) {
    if (parameter >= trace_.defs.parameters.size())
        throw std::invalid_argument("undefined parameter");
    add(loc, EventKind::ParameterInt, t).set_parameter_int(parameter, value);
}

void TraceBuilder::buffer_flush(Loc loc, Time t, Time stop) {
    add(loc, EventKind::BufferFlush, t).value = static_cast<int64_t>(stop);
}

void TraceBuilder::mpi_init(Loc loc, Time enter_t, Time leave_t) {
    const Ref r = mpi_region("MPI_Init");
    enter(loc, enter_t, r);
    leave(loc, leave_t, r);
}

void TraceBuilder::mpi_finalize(Loc loc, Time enter_t, Time leave_t) {
    const Ref r = mpi_region("MPI_Finalize");
    enter(loc, enter_t, r);
    leave(loc, leave_t, r);
}

void TraceBuilder::mpi_send(Loc loc, Time enter_t, Time leave_t, uint32_t dest, Ref comm,
                            uint32_t tag, uint64_t bytes) {
    const Ref r = mpi_region("MPI_Send");
    enter(loc, enter_t, r);
    send(loc, enter_t, dest, comm, tag, bytes);
    leave(loc, leave_t, r);
}

void TraceBuilder::mpi_recv(Loc loc, Time enter_t, Time leave_t, uint32_t source, Ref comm,
                            uint32_t tag, uint64_t bytes) {
    const Ref r = mpi_region("MPI_Recv");
    enter(loc, enter_t, r);
    recv(loc, leave_t, source, comm, tag, bytes);
    leave(loc, leave_t, r);
}

void TraceBuilder::mpi_isend(Loc loc, Time enter_t, Time leave_t, uint32_t dest, Ref comm,
                             uint32_t tag, uint64_t bytes, uint64_t request) {
    const Ref r = mpi_region("MPI_Isend");
    enter(loc, enter_t, r);
    isend(loc, enter_t, dest, comm, tag, bytes, request);
    leave(loc, leave_t, r);
}

void TraceBuilder::mpi_irecv(Loc loc, Time enter_t, Time leave_t, uint64_t request) {
    const Ref r = mpi_region("MPI_Irecv");
    enter(loc, enter_t, r);
    irecv_request(loc, enter_t, request);
    leave(loc, leave_t, r);
}

void TraceBuilder::mpi_wait_send(Loc loc, Time enter_t, Time leave_t, uint64_t request) {
    const Ref r = mpi_region("MPI_Wait");
    enter(loc, enter_t, r);
    isend_complete(loc, leave_t, request);
    leave(loc, leave_t, r);
}

void TraceBuilder::mpi_wait_recv(Loc loc, Time enter_t, Time leave_t, uint32_t source, Ref comm,
                                 uint32_t tag, uint64_t bytes, uint64_t request) {
    const Ref r = mpi_region("MPI_Wait");
    enter(loc, enter_t, r);
    irecv(loc, leave_t, source, comm, tag, bytes, request);
    leave(loc, leave_t, r);
}

void TraceBuilder::mpi_collective(Loc loc, Time enter_t, Time leave_t, CollectiveOp op, Ref comm,
                                  uint32_t root, uint64_t sent, uint64_t received) {
    if (op == CollectiveOp::Other)
        throw std::invalid_argument("mpi_collective needs a named collective operation");
    const Ref r = mpi_region("MPI_" + std::string(collective_op_name(op)));
    enter(loc, enter_t, r);
    collective_begin(loc, enter_t);
    collective_end(loc, leave_t, op, comm, root, sent, received);
    leave(loc, leave_t, r);
}

TraceBuilder::TunedOp TraceBuilder::tuned_op(const std::string& name) {
    for (std::size_t i = 0; i < tuned_.size(); ++i)
        if (tuned_[i].name == name) return static_cast<TunedOp>(i);
    TunedOpState s;
    s.name = name;
    s.region =
        region(name, Paradigm::User, RegionRole::Function, "", tuned_op_canonical_name(name));
    s.switch_param = parameter(codelet_parameter_name(name), ParameterType::Int);
    s.phase_param = parameter(phase_parameter_name(name), ParameterType::String);
    s.decision_param = parameter(decision_parameter_name(name), ParameterType::Int);
    const std::size_t n = trace_.defs.locations.size();
    s.current.assign(n, -1);
    s.executing.assign(n, -1);
    s.open.assign(n, false);
    tuned_.push_back(std::move(s));
    return static_cast<TunedOp>(tuned_.size() - 1);
}

Ref TraceBuilder::codelet(TunedOp op, int64_t index, const std::string& name) {
    if (op >= tuned_.size()) throw std::invalid_argument("undefined tuned operation");
    if (index < 0) throw std::invalid_argument("codelet index must be >= 0");
    TunedOpState& s = tuned_[op];
    auto it = s.codelets.find(index);
    if (it != s.codelets.end()) return it->second;
    const Ref r = region(name, Paradigm::User, RegionRole::Function, "",
                         codelet_canonical_name(s.name, index, name));
    s.codelets.emplace(index, r);
    return r;
}

Ref TraceBuilder::operation_region(TunedOp op) const {
    if (op >= tuned_.size()) throw std::invalid_argument("undefined tuned operation");
    return tuned_[op].region;
}

void TraceBuilder::codelet_switch(Loc loc, Time t, TunedOp op, int64_t index,
                                  const std::string& name) {
    codelet(op, index, name);
    parameter_int(loc, t, tuned_[op].switch_param, index);
    tuned_[op].current[loc] = index;
}

void TraceBuilder::tuning_phase(Loc loc, Time t, TunedOp op, TuningPhase phase) {
    if (op >= tuned_.size()) throw std::invalid_argument("undefined tuned operation");
    parameter_string(loc, t, tuned_[op].phase_param, std::string(tuning_phase_name(phase)));
}

void TraceBuilder::tuning_decision(Loc loc, Time t, TunedOp op, int64_t index,
                                   const std::string& name) {
    codelet(op, index, name);
    parameter_int(loc, t, tuned_[op].decision_param, index);
}

void TraceBuilder::tuned_begin(Loc loc, Time t, TunedOp op) {
    if (op >= tuned_.size()) throw std::invalid_argument("undefined tuned operation");
    check_loc(loc);
    TunedOpState& s = tuned_[op];
    if (s.open[loc]) throw std::invalid_argument("executions of " + s.name + " must not nest");
    enter(loc, t, s.region);
    s.executing[loc] = s.current[loc];
    if (s.executing[loc] >= 0) enter(loc, t, s.codelets.at(s.executing[loc]));
    s.open[loc] = true;
}

void TraceBuilder::tuned_end(Loc loc, Time t, TunedOp op) {
    if (op >= tuned_.size()) throw std::invalid_argument("undefined tuned operation");
    check_loc(loc);
    TunedOpState& s = tuned_[op];
    if (!s.open[loc]) throw std::invalid_argument("tuned_end without tuned_begin of " + s.name);
    if (s.executing[loc] >= 0) leave(loc, t, s.codelets.at(s.executing[loc]));
    leave(loc, t, s.region);
    s.open[loc] = false;
    s.executing[loc] = -1;
}

std::string TraceBuilder::write(const std::string& dir, const WriteOptions& options) {
    if (!clock_fixed_) {
        // Earliest and latest event on the corrected (global) clock.
        Time first = std::numeric_limits<Time>::max(), last = 0;
        for (std::size_t l = 0; l < trace_.locations.size(); ++l) {
            const ClockCorrection clock(trace_.defs.locations[l].clock_offsets);
            for (const Event& e : trace_.locations[l].events) {
                const Time t = clock.to_global(e.time).value_or(e.time);
                first = std::min(first, t);
                last = std::max(last, t);
            }
        }
        trace_.defs.global_offset = first <= last ? first : 0;
        trace_.defs.trace_length = first <= last ? last - first : 0;
    }
    return write_otf2(trace_, dir, options);
}

} // namespace topolens::trace
