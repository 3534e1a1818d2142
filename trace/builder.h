// TraceBuilder: synthetic traces with explicit timestamps, written as OTF2 archives that
// follow TRACE_FORMAT.md. For unit tests and synthetic-trace generation:
//
//   TraceBuilder b(2);
//   b.mpi_init(0, 0, 10);  b.mpi_init(1, 0, 12);
//   b.mpi_send(0, 20, 25, /*dest*/ 1, b.world(), /*tag*/ 7, /*bytes*/ 64);
//   b.mpi_recv(1, 15, 30, /*source*/ 0, b.world(), 7, 64);
//   b.write("/tmp/t");   // -> /tmp/t/traces.otf2
//
// One location per rank (location index = rank = OTF2 location id), plus any threads added
// with add_thread. Times are each location's local clock; clock_offset() adds ClockOffset
// definitions that a reader applies.
#pragma once

#include "trace/model.h"
#include "trace/tuned.h"
#include "trace/writer.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace topolens::trace {

// The role Score-P gives an MPI function ("MPI_Allreduce" -> CollAllToAll, ...).
RegionRole mpi_region_role(const std::string& mpi_function);

class TraceBuilder {
  public:
    using Loc = uint32_t; // location index = world rank
    using TunedOp = uint32_t;

    explicit TraceBuilder(uint32_t ranks, uint64_t timer_resolution = 1'000'000'000);

    // ---- definitions
    void set_host(Loc rank, const std::string& host); // default "localhost"
    // Another thread of process `rank`: a new location ("Thread k", OTF2 id k << 32 | rank,
    // as topolens records threads) after all existing ones; returns its index. Add threads
    // before tuned operations.
    Loc add_thread(uint32_t rank);
    void set_creator(const std::string& creator);
    // ClockProperties; by default derived at write(): earliest corrected time, span.
    void set_clock_properties(uint64_t global_offset, uint64_t trace_length);
    Ref string(const std::string& s); // interned; for ParameterString values
    // Equal arguments give the same region.
    Ref region(const std::string& name, Paradigm paradigm = Paradigm::User,
               RegionRole role = RegionRole::Function, const std::string& source_file = "",
               const std::string& canonical_name = "");
    // The program (trace/program_encoding.h): its region, named after `name` (the
    // executable's path), entered by program_begin and left by program_end (written as
    // ProgramBegin and ProgramEnd). Once per trace.
    Ref program(const std::string& name, const std::vector<std::string>& arguments = {});
    // Paradigm MPI, source file "MPI", role from mpi_region_role().
    Ref mpi_region(const std::string& mpi_function);
    Ref world() const { return world_; } // MPI_COMM_WORLD
    Ref self() const { return self_; }   // MPI_COMM_SELF
    // A derived communicator: members[i] = world rank of communicator rank i.
    Ref communicator(const std::string& name, std::vector<uint32_t> members, Ref parent);
    Ref cart_topology(const std::string& name, Ref comm, const std::vector<uint32_t>& sizes,
                      const std::vector<bool>& periodic);
    void cart_coords(Ref topology, uint32_t comm_rank, std::vector<uint32_t> coords);
    Ref parameter(const std::string& name, ParameterType type);
    void clock_offset(Loc loc, uint64_t local_time, int64_t offset, double stddev = 0.0);

    // ---- single records; peers and roots are ranks in `comm`
    void enter(Loc loc, Time t, Ref region);
    void leave(Loc loc, Time t, Ref region);
    void send(Loc loc, Time t, uint32_t dest, Ref comm, uint32_t tag, uint64_t bytes);
    void recv(Loc loc, Time t, uint32_t source, Ref comm, uint32_t tag, uint64_t bytes);
    void isend(Loc loc, Time t, uint32_t dest, Ref comm, uint32_t tag, uint64_t bytes,
               uint64_t request);
    void isend_complete(Loc loc, Time t, uint64_t request);
    void irecv_request(Loc loc, Time t, uint64_t request);
    void irecv(Loc loc, Time t, uint32_t source, Ref comm, uint32_t tag, uint64_t bytes,
               uint64_t request);
    void request_test(Loc loc, Time t, uint64_t request);
    void request_cancelled(Loc loc, Time t, uint64_t request);
    void collective_begin(Loc loc, Time t);
    void collective_end(Loc loc, Time t, CollectiveOp op, Ref comm, uint32_t root, uint64_t sent,
                        uint64_t received);
    void parameter_string(Loc loc, Time t, Ref parameter, const std::string& value);
    void parameter_int(Loc loc, Time t, Ref parameter, int64_t value);
    void buffer_flush(Loc loc, Time t, Time stop);
    void program_begin(Loc loc, Time t);
    void program_end(Loc loc, Time t, int64_t exit_status = 0);

    // ---- whole MPI calls: Enter(MPI_Xxx), the record(s), Leave(MPI_Xxx)
    void mpi_init(Loc loc, Time enter, Time leave);
    void mpi_finalize(Loc loc, Time enter, Time leave);
    void mpi_send(Loc loc, Time enter, Time leave, uint32_t dest, Ref comm, uint32_t tag,
                  uint64_t bytes); // MpiSend at enter
    void mpi_recv(Loc loc, Time enter, Time leave, uint32_t source, Ref comm, uint32_t tag,
                  uint64_t bytes); // MpiRecv at leave
    void mpi_isend(Loc loc, Time enter, Time leave, uint32_t dest, Ref comm, uint32_t tag,
                   uint64_t bytes, uint64_t request);
    void mpi_irecv(Loc loc, Time enter, Time leave, uint64_t request); // MpiIrecvRequest
    // MPI_Wait completing a send request (MpiIsendComplete) or a receive (MpiIrecv at leave).
    void mpi_wait_send(Loc loc, Time enter, Time leave, uint64_t request);
    void mpi_wait_recv(Loc loc, Time enter, Time leave, uint32_t source, Ref comm, uint32_t tag,
                       uint64_t bytes, uint64_t request);
    // MPI_<op>: MpiCollectiveBegin at enter, MpiCollectiveEnd at leave; root kNone if rootless.
    void mpi_collective(Loc loc, Time enter, Time leave, CollectiveOp op, Ref comm,
                        uint32_t root = kNone, uint64_t sent = 0, uint64_t received = 0);

    // ---- autotuner contract (TRACE_FORMAT.md "Tuned operations and codelets")
    TunedOp tuned_op(const std::string& name); // region + the three parameters
    Ref codelet(TunedOp op, int64_t index, const std::string& name); // the codelet's region
    Ref operation_region(TunedOp op) const;
    void codelet_switch(Loc loc, Time t, TunedOp op, int64_t index, const std::string& name);
    void tuning_phase(Loc loc, Time t, TunedOp op, TuningPhase phase);
    void tuning_decision(Loc loc, Time t, TunedOp op, int64_t index, const std::string& name);
    // One execution: Enter(op) [Enter(current codelet)] ... [Leave(codelet)] Leave(op); the
    // current codelet is the last switched to on `loc` (none before the first switch).
    void tuned_begin(Loc loc, Time t, TunedOp op);
    void tuned_end(Loc loc, Time t, TunedOp op);

    // ---- result
    const Trace& trace() const { return trace_; } // the model as built (local times)
    // Writes the archive into `dir` (replacing an old archive there); returns the anchor.
    std::string write(const std::string& dir, const WriteOptions& options = {});

  private:
    Event& add(Loc loc, EventKind kind, Time t);
    void add_request(Loc loc, uint64_t request);
    void check_loc(Loc loc) const;
    void check_comm(Ref comm) const;
    void check_rank(Ref comm, uint32_t rank, const char* what) const;

    struct TunedOpState {
        std::string name;
        Ref region, switch_param, phase_param, decision_param;
        std::map<int64_t, Ref> codelets;
        std::vector<int64_t> current;   // per location: codelet of the last switch (-1 none)
        std::vector<int64_t> executing; // per location: codelet entered by tuned_begin (-1)
        std::vector<bool> open;         // per location: inside tuned_begin/tuned_end
    };

    Trace trace_;
    Ref world_ = kNone, self_ = kNone;
    bool clock_fixed_ = false;
    std::map<std::string, Ref> strings_;
    std::map<std::tuple<std::string, std::string, Paradigm, RegionRole, std::string>, Ref> regions_;
    std::map<std::string, Ref> parameters_;
    std::vector<TunedOpState> tuned_;
};

} // namespace topolens::trace
