#include "patterns/metric_catalogue.h"

#include "patterns/codelet_regions.h"
#include "patterns/metric_names.h"
#include "patterns/wave_corners.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

namespace topolens::patterns {

namespace {

constexpr std::string_view kCorner = "<corner>";
constexpr size_t kTextWidth = 80; // of `topolens help metrics`

// One row per metric, in tree order (parents first): the order the metrics are defined in.
// `description` is written into every report: changing it changes the reports' bytes.
// `documentation` is docs/metrics.md's row (regenerate it with `topolens help metrics --markdown`).
// clang-format off
constexpr MetricEntry kCatalogue[] = {
    // time (time_pattern.cpp)
    {
        .unique_name = metric::kTime,
        .parent = "",
        .display_name = "Time",
        .unit = "sec",
        .description = "Wall-clock time of each process in recorded regions, by call path, as "
                       "Scalasca counts it. With the program region (traces of topolens' "
                       "measurement, Score-P's) that is the whole run: computation between "
                       "MPI calls included.",
        .hint = "Start here: expand Time along the call tree to see where each process spends "
                "its run, and along the metric tree to see how much of it is MPI.",
        .documentation =
            R"(wall-clock time each process spent in recorded regions, by call path — as Scalasca counts it. The program region (recorded by topolens' measurement and by Score-P) spans the run, so on such traces Time is each process's whole run (on the location of the thread that called `MPI_Init`; other threads' locations: their recorded regions); on traces without it (older ones), only the MPI calls and instrumented functions)",
        .pattern = PatternKind::Time,
    },
    {
        .unique_name = metric::kExecution,
        .parent = metric::kTime,
        .display_name = "Execution",
        .unit = "sec",
        .description = "Time executing the program: Time without the measurement's own "
                       "overhead (buffer flushes).",
        .hint = "Expand it: Computation against MPI.",
        .documentation = R"(Time without Overhead: the program executing — Scalasca's `execution`)",
        .pattern = PatternKind::Time,
    },
    {
        .unique_name = metric::kComputation,
        .parent = metric::kExecution,
        .display_name = "Computation",
        .unit = "sec",
        .description = "Execution outside MPI calls: the program's own time between MPI "
                       "calls (the program region's own part) and time in instrumented "
                       "functions.",
        .hint = "Compare it across processes along the call tree: uneven computation is load "
                "imbalance, which the wait states in MPI then show.",
        .documentation =
            R"(Execution outside MPI calls: the program region's own time (the application's code between MPI calls) and user regions — Scalasca's `comp`, Execution − MPI)",
        .pattern = PatternKind::Time,
    },
    {
        .unique_name = metric::kOutsideRegions,
        .parent = "",
        .display_name = "Outside regions",
        .unit = "sec",
        .description =
            "Wall-clock time of each process between its first and last recorded event that no "
            "recorded region covers, at the root call path: on traces without a program "
            "region, the application's own code between MPI calls. Not part of Time, as in "
            "Scalasca; Time + Outside regions is each process's whole recorded run.",
        .hint = "The application's own code between MPI calls on a trace without a program "
                "region: trace the program again with topolens' measurement, or instrument its "
                "functions (user API).",
        .documentation =
            R"(the rest of each process's recorded run: time between its first and last event that no recorded region covers, at the root call path. On traces without a program region (older ones, other writers) this is the application's own code between MPI calls; with one it is zero on every location that entered it (a thread's location of its own has no program region: its time between calls stays here). Kept apart from Time so that Time agrees with Scalasca's; Time + Outside regions is each process's whole run)",
        .pattern = PatternKind::Time,
    },
    {
        .unique_name = metric::kVisits,
        .parent = "",
        .display_name = "Visits",
        .unit = "occ",
        .description = "How often each call path was entered.",
        .hint = "Many visits of a short call cost overhead each: aggregate messages or calls.",
        .documentation =
            R"(how often each call path was entered (occurrences; the program region once per process that entered it, the artificial root `program` never))",
        .pattern = PatternKind::Time,
    },
    {
        .unique_name = metric::kMpi,
        .parent = metric::kExecution,
        .display_name = "MPI",
        .unit = "sec",
        .description = "Time spent inside MPI calls.",
        .hint = "A large share of Time: its wait states (below) tell what is waited for before "
                "the communication itself needs tuning.",
        .documentation = R"(time inside MPI calls)",
        .pattern = PatternKind::Time,
    },
    {
        .unique_name = metric::kInitExit,
        .parent = metric::kMpi,
        .display_name = "Init/Exit",
        .unit = "sec",
        .description = "Time in MPI_Init, MPI_Init_thread and MPI_Finalize.",
        .hint = "Large at MPI_Finalize: processes end at different times (imbalance at the "
                "end); at MPI_Init: slow start-up.",
        .documentation = R"(`MPI_Init`, `MPI_Init_thread`, `MPI_Finalize`)",
        .pattern = PatternKind::Time,
    },
    {
        .unique_name = metric::kSynchronization,
        .parent = metric::kMpi,
        .display_name = "Synchronization",
        .unit = "sec",
        .description = "Time in MPI_Barrier.",
        .hint = "Check that every MPI_Barrier is needed: data dependencies rarely need one.",
        .documentation = R"(`MPI_Barrier`)",
        .pattern = PatternKind::Time,
    },
    {
        .unique_name = metric::kCommunication,
        .parent = metric::kMpi,
        .display_name = "Communication",
        .unit = "sec",
        .description = "Time in MPI calls that move data: point-to-point and "
                       "collective operations.",
        .hint = "Expand it: the wait states below tell waiting from moving data.",
        .documentation = R"(point-to-point and collective calls)",
        .pattern = PatternKind::Time,
    },
    {
        .unique_name = metric::kPointToPoint,
        .parent = metric::kCommunication,
        .display_name = "Point-to-point",
        .unit = "sec",
        .description = "Time in point-to-point calls: sends, receives, waits "
                       "and tests of requests, probes.",
        .hint = "What Late Sender and Late Receiver leave is moving data: fewer, larger "
                "messages or overlap with computation (nonblocking calls).",
        .documentation = R"(sends, receives, waits, tests, probes)",
        .pattern = PatternKind::Time,
    },
    {
        .unique_name = metric::kCollective,
        .parent = metric::kCommunication,
        .display_name = "Collective",
        .unit = "sec",
        .description = "Time in collective operations other than MPI_Barrier.",
        .hint = "What the wait states below leave is the operations' own cost: fewer or "
                "smaller collectives, or nonblocking ones overlapped with computation.",
        .documentation = R"(collective operations other than `MPI_Barrier`)",
        .pattern = PatternKind::Time,
    },
    {
        .unique_name = metric::kOverhead,
        .parent = metric::kTime,
        .display_name = "Overhead",
        .unit = "sec",
        .description = "Time the measurement spent writing full event buffers to disk "
                       "(OTF2 BufferFlush records), at the call path where it happened.",
        .hint = "Perturbs the run where it happens: set TOPOLENS_BUFFER_SIZE larger or record "
                "fewer iterations.",
        .documentation =
            R"(time the measurement spent writing full event buffers to disk (OTF2 `BufferFlush` records) — Scalasca's `overhead`; it counts them as time in a region of their own, so MPI and Computation leave them out)",
        .pattern = PatternKind::Time,
    },
    // point-to-point (point_to_point_patterns.cpp)
    {
        .unique_name = metric::kLateSender,
        .parent = metric::kPointToPoint,
        .display_name = "Late Sender",
        .unit = "sec",
        .description =
            "Time a receiving call (MPI_Recv, MPI_Sendrecv, or the MPI_Wait* completing a "
            "nonblocking receive; not MPI_Test*) spent waiting because the matching send "
            "started later: e(send) - e(recv), at most the receiving call's duration. A call "
            "completing several receives counts its longest wait once.",
        .hint = "The senders are late: balance the work before the sends, or post the receive "
                "early (MPI_Irecv) and compute until its data is needed.",
        .documentation =
            R"(a receiving call — `MPI_Recv`, `MPI_Sendrecv`, or the `MPI_Wait*` completing a nonblocking receive; never `MPI_Test*` — entered before the matching send: `min(e(send), l(recv)) − e(recv)`, where `e(send)` is the enter of the call holding the send record (`MPI_Isend`'s own). `MPI_Waitall` and `MPI_Waitsome` count once per call, the receive that waited longest (the first of equal ones).)",
        .pattern = PatternKind::PointToPoint,
    },
    {
        .unique_name = metric::kLateSenderWrongOrder,
        .parent = metric::kLateSender,
        .display_name = "LS, Wrong Order",
        .unit = "sec",
        .description =
            "Late Sender time of a receive that a later receive of the same process shows was "
            "made in the wrong order: the later one takes a message that was sent earlier "
            "(Scalasca's rule, looking back over the last 100 Late Sender instances).",
        .hint = "Messages are received in another order than they were sent: see the two "
                "parts below.",
        .documentation =
            R"(a Late Sender instance that a *later* receive of the same process shows to be in the wrong order: that receive takes a message whose send record is earlier than the instance's. As in Scalasca, the instances looked back on are the last 100 not yet found wrong order; for a Waitall, only receives after it. Its own value is always zero: it splits into the two below.)",
        .pattern = PatternKind::PointToPoint,
    },
    {
        .unique_name = metric::kWrongOrderSameSource,
        .parent = metric::kLateSenderWrongOrder,
        .display_name = "Wrong Order, same source",
        .unit = "sec",
        .description =
            "LS, Wrong Order where the earlier-sent message came from the same process as the "
            "late one: receive in the order the messages are sent (or use MPI_ANY_TAG).",
        .hint = "Receive a process's messages in the order it sends them, or match them with "
                "MPI_ANY_TAG.",
        .documentation =
            R"(the earlier-sent message came from the same process as the late one (receive in sending order, or use `MPI_ANY_TAG`))",
        .pattern = PatternKind::PointToPoint,
    },
    {
        .unique_name = metric::kWrongOrderDifferentSources,
        .parent = metric::kLateSenderWrongOrder,
        .display_name = "Wrong Order, different sources",
        .unit = "sec",
        .description =
            "LS, Wrong Order where the earlier-sent message came from another process: "
            "receive from the processes in the order they send (or use MPI_ANY_SOURCE).",
        .hint = "Receive from the processes in the order they send, or post every receive and "
                "complete them with MPI_Waitany (or MPI_ANY_SOURCE).",
        .documentation =
            R"(it came from another process (receive in the order the processes send, or post both and `MPI_Waitall`/`MPI_ANY_SOURCE`))",
        .pattern = PatternKind::PointToPoint,
    },
    {
        .unique_name = metric::kLateReceiver,
        .parent = metric::kPointToPoint,
        .display_name = "Late Receiver",
        .unit = "sec",
        .description =
            "Time a standard or synchronous send (MPI_Send, MPI_Ssend, or the MPI_Wait* "
            "completing an MPI_Isend) spent waiting because the matching receive was posted "
            "later: e(recv) - e(send), only if the send was still in its call when the receive "
            "was posted (a buffered message did not wait).",
        .hint = "The receivers post late: post the receives earlier (MPI_Irecv before the "
                "computation), or send without waiting (MPI_Isend, buffered sends).",
        .documentation =
            R"(a standard or synchronous send — `MPI_Send`, `MPI_Ssend`, or the `MPI_Wait`/`MPI_Waitany` completing an `MPI_Isend` — still in its call when the matching receive was posted: `e(post) − e(send call)` if `l(send call) > e(post)`, else 0 (the message was buffered: no wait), where `e(post)` is the enter of `MPI_Recv` or `MPI_Irecv`. `MPI_Waitall`/`MPI_Waitsome` count their longest send wait once, and not at all when the same call also waited as Late Sender. `MPI_Bsend`, `MPI_Rsend`, `MPI_Sendrecv` and sends completed by `MPI_Test*` never count.)",
        .pattern = PatternKind::PointToPoint,
    },
    {
        .unique_name = metric::kClockViolations,
        .parent = "",
        .display_name = "Clock condition violations",
        .unit = "occ",
        .description =
            "Events whose order contradicts what MPI guarantees (a receive completed before "
            "its send began, a process left a synchronizing collective before another "
            "entered it): the clocks of the processes disagree, and times derived from them "
            "are unreliable.",
        .hint = "Wait states near violations are unreliable: trace again with synchronized "
                "clocks, or a shorter run (less drift).",
        .documentation =
            R"(events whose order contradicts what MPI guarantees (occurrences): the clocks disagree and times around them are unreliable. Split into the two below, counted as Scalasca counts them)",
        .pattern = PatternKind::PointToPoint,
    },
    {
        .unique_name = metric::kClockViolationsP2P,
        .parent = metric::kClockViolations,
        .display_name = "Point-to-point",
        .unit = "occ",
        .description = "Receives that completed before their send began.",
        .hint = "The clocks of sender and receiver disagree: see Clock condition violations.",
        .documentation = R"(receives that completed before their send began)",
        .pattern = PatternKind::PointToPoint,
    },
    // collective (collective_patterns.cpp)
    {
        .unique_name = metric::kBarrierWait,
        .parent = metric::kSynchronization,
        .display_name = "Wait at Barrier",
        .unit = "sec",
        .description =
            "Time in MPI_Barrier before the last process arrived: max over processes "
            "of their entry, minus this process's entry.",
        .hint =
            "Imbalance before the barrier: balance the work before it, or drop the barrier.",
        .documentation = R"(`max_q e_q − e_p`: waiting for the last process to arrive)",
        .pattern = PatternKind::Collective,
    },
    {
        .unique_name = metric::kBarrierCompletion,
        .parent = metric::kSynchronization,
        .display_name = "Barrier Completion",
        .unit = "sec",
        .description = "Time in MPI_Barrier after the first process had already left it.",
        .hint = "The barrier's own cost once everyone arrived: large values point to a slow "
                "or congested network.",
        .documentation = R"(`l_p − min_q l_q`: time after the first process could leave)",
        .pattern = PatternKind::Collective,
    },
    {
        .unique_name = metric::kWaitNxN,
        .parent = metric::kCollective,
        .display_name = "Wait at NxN",
        .unit = "sec",
        .description = "Time in an all-to-all collective (Allreduce, Alltoall, Allgather, "
                       "Reduce_scatter...) before the last process entered it.",
        .hint = "Imbalance before the all-to-all operation: balance the work before it.",
        .documentation =
            R"(all-to-all operations (Allreduce, Alltoall(v/w), Allgather(v), Reduce_scatter(_block)): `max_q e_q − e_p`. For every collective wait state, `e` and `l` are the times of the operation's `MpiCollectiveBegin` and `MpiCollectiveEnd` records (as Scalasca times them), not the call's enter and leave)",
        .pattern = PatternKind::Collective,
    },
    {
        .unique_name = metric::kNxNCompletion,
        .parent = metric::kCollective,
        .display_name = "NxN Completion",
        .unit = "sec",
        .description =
            "Time in an all-to-all collective after the first process had already left it.",
        .hint = "The operation's own cost once everyone arrived: smaller or fewer operations, "
                "or a faster network.",
        .documentation = R"(`l_p − min_q l_q`, at most what the wait left of the call)",
        .pattern = PatternKind::Collective,
    },
    {
        .unique_name = metric::kLateBroadcast,
        .parent = metric::kCollective,
        .display_name = "Late Broadcast",
        .unit = "sec",
        .description = "Time a non-root process of MPI_Bcast or MPI_Scatter(v) waited because "
                       "the root entered later: e(root) - e(process).",
        .hint = "The root is late: balance its work before the broadcast, or choose a root "
                "with less to do.",
        .documentation = R"(1-to-N (Bcast, Scatter(v)), non-root `p`: `e_root − e_p`)",
        .pattern = PatternKind::Collective,
    },
    {
        .unique_name = metric::kEarlyReduce,
        .parent = metric::kCollective,
        .display_name = "Early Reduce",
        .unit = "sec",
        .description = "Time the root of MPI_Reduce or MPI_Gather(v) waited because it entered "
                       "before the other processes: the latest entry of the others minus the "
                       "root's.",
        .hint = "The root waits for the others: give it more work before the reduction, or "
                "use a nonblocking one.",
        .documentation = R"(N-to-1 (Reduce, Gather(v)), the root: `max_{q≠root} e_q − e_root`)",
        .pattern = PatternKind::Collective,
    },
    {
        .unique_name = metric::kClockViolationsCollective,
        .parent = metric::kClockViolations,
        .display_name = "Collective",
        .unit = "occ",
        .description =
            "Processes that left a collective operation before a process whose data it needs "
            "entered it (Barrier, all-to-all: any member; 1-to-N: the root; N-to-1, for the "
            "root: any member), or left MPI_Init or MPI_Finalize before the last process "
            "entered it.",
        .hint = "The clocks of the members disagree: see Clock condition violations.",
        .documentation =
            R"(a process left a collective operation before a process whose data the operation needs entered it — Barrier and all-to-all operations: any member; 1-to-N (Bcast, Scatter): the root; N-to-1 (Reduce, Gather), for the root: any member (the non-roots of N-to-1 and the root of 1-to-N may leave early) — or left `MPI_Init` or `MPI_Finalize` before the last process entered it (see below))",
        .pattern = PatternKind::Collective,
    },
    // messages (message_statistics.cpp): counts and bytes of MPI operations, Scalasca's
    // message statistics, in trees of their own beside Time.
    {
        .unique_name = metric::kSyncs,
        .parent = "",
        .display_name = "Synchronizations",
        .unit = "occ",
        .description = "MPI operations that moved no data, by call path: point-to-point sends and "
                       "receives of zero-byte messages and collective operations that neither "
                       "sent nor received data (MPI_Barrier).",
        .hint = "Each synchronization costs a latency: check that every one is needed.",
        .documentation = R"(MPI operations that moved no data (occurrences): zero-byte point-to-point messages, used to coordinate, and collective operations without data such as `MPI_Barrier` — Scalasca's `syncs`. Its own value is always zero: it splits into the two below)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kSyncsP2P,
        .parent = metric::kSyncs,
        .display_name = "P2P synchronizations",
        .unit = "occ",
        .description = "Zero-byte point-to-point messages: each send and each receive counted "
                       "where it happened.",
        .hint = "Zero-byte messages coordinate processes: a collective, or data sent along with "
                "them, may do the same for less.",
        .documentation = R"(zero-byte point-to-point messages, counted at both ends)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kSyncsSend,
        .parent = metric::kSyncsP2P,
        .display_name = "P2P send synchronizations",
        .unit = "occ",
        .description = "Zero-byte messages sent (MpiSend and MpiIsend records), at the call path "
                       "of the call that sent them (MPI_Send, MPI_Isend, MPI_Sendrecv...).",
        .hint = "See Synchronizations.",
        .documentation = R"(every zero-byte `MpiSend`/`MpiIsend` record, at the call path of the sending call (`MPI_Send`, `MPI_Isend`, `MPI_Sendrecv`...), received or not)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kSyncsRecv,
        .parent = metric::kSyncsP2P,
        .display_name = "P2P receive synchronizations",
        .unit = "occ",
        .description = "Zero-byte messages received, at the call path of the call that completed "
                       "the receive (MPI_Recv, or the MPI_Wait*/MPI_Test* of an MPI_Irecv).",
        .hint = "See Synchronizations.",
        .documentation = R"(every receive (`MpiRecv`/`MpiIrecv` record) of a message whose send carried zero bytes, at the call path of the call that completed it (`MPI_Recv`, `MPI_Sendrecv`, the `MPI_Wait*`/`MPI_Test*` of an `MPI_Irecv`))",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kSyncsColl,
        .parent = metric::kSyncs,
        .display_name = "Collective synchronizations",
        .unit = "occ",
        .description = "Collective operations in which this process neither sent nor received "
                       "data (MPI_Barrier, or a collective with empty buffers), once per member.",
        .hint = "A collective that moves no data is a barrier: check that the synchronization is "
                "needed.",
        .documentation = R"(each member's part of a collective operation in which it neither sent nor received data (its `MpiCollectiveEnd` record has 0 bytes both ways): `MPI_Barrier`, or a collective with empty buffers)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kComms,
        .parent = "",
        .display_name = "Communications",
        .unit = "occ",
        .description = "MPI operations that moved data, by call path: point-to-point sends and "
                       "receives of messages of one byte or more, and collective operations in "
                       "which this process sent or received data.",
        .hint = "Many small operations cost a latency each: aggregate data into fewer, larger "
                "messages or collectives.",
        .documentation = R"(MPI operations that moved data (occurrences): point-to-point messages of one byte or more, and collective operations that sent or received data — Scalasca's `comms`. Its own value is always zero: it splits into the two below)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kCommsP2P,
        .parent = metric::kComms,
        .display_name = "P2P communications",
        .unit = "occ",
        .description = "Point-to-point messages with data: each send and each receive counted "
                       "where it happened.",
        .hint = "Divide P2P bytes by it for the average message size: "
                "many small messages are worth packing into fewer.",
        .documentation = R"(point-to-point messages of one byte or more, counted at both ends)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kCommsSend,
        .parent = metric::kCommsP2P,
        .display_name = "P2P send communications",
        .unit = "occ",
        .description = "Messages of one byte or more sent (MpiSend and MpiIsend records), at the "
                       "call path of the call that sent them.",
        .hint = "See P2P communications.",
        .documentation = R"(every `MpiSend`/`MpiIsend` record of one byte or more, at the call path of the sending call, received or not)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kCommsRecv,
        .parent = metric::kCommsP2P,
        .display_name = "P2P receive communications",
        .unit = "occ",
        .description = "Messages of one byte or more received, at the call path of the call that "
                       "completed the receive (MPI_Recv, or the MPI_Wait*/MPI_Test* of an "
                       "MPI_Irecv).",
        .hint = "See P2P communications.",
        .documentation = R"(every receive of a message whose send carried one byte or more, at the call path of the call that completed it)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kCommsColl,
        .parent = metric::kComms,
        .display_name = "Collective communications",
        .unit = "occ",
        .description = "Collective operations in which this process sent or received data, once "
                       "per member.",
        .hint = "Many collectives with small payloads: combine them (one Allreduce of a vector "
                "instead of several of scalars).",
        .documentation = R"(each member's part of a collective operation in which it sent or received data. Its own value is always zero: it splits into the three below)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kCommsExchange,
        .parent = metric::kCommsColl,
        .display_name = "Collective exchanges",
        .unit = "occ",
        .description = "Collective operations in which this process both sent and received data: "
                       "all-to-all operations, scans, and the root of a reduction or gather, "
                       "which contributes its own part.",
        .hint = "See Collective communications.",
        .documentation = R"(sent and received data (all-to-all operations, scans, and the root of `MPI_Reduce` and `MPI_Gather`, which contributes its own part))",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kCommsSource,
        .parent = metric::kCommsColl,
        .display_name = "Collectives as source",
        .unit = "occ",
        .description = "Collective operations in which this process only sent data: the non-roots "
                       "of gathers and reductions, and the root of a broadcast as topolens "
                       "records it.",
        .hint = "See Collective communications.",
        .documentation = R"(only sent data (the non-roots of `MPI_Gather` and `MPI_Reduce`; the root of `MPI_Bcast`, as topolens records it))",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kCommsDestination,
        .parent = metric::kCommsColl,
        .display_name = "Collectives as destination",
        .unit = "occ",
        .description = "Collective operations in which this process only received data: the "
                       "non-roots of broadcasts and scatters.",
        .hint = "See Collective communications.",
        .documentation = R"(only received data (the non-roots of `MPI_Bcast` and `MPI_Scatter`))",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kBytes,
        .parent = "",
        .display_name = "Bytes transferred",
        .unit = "bytes",
        .description = "Bytes the MPI operations of each process sent and received, by call path, "
                       "as the program asked for them (message and buffer sizes); what the "
                       "network really carried depends on the MPI library.",
        .hint = "Expand it and the call tree: where is most data moved, and is it spread evenly "
                "over the processes?",
        .documentation = R"(bytes the program sent and received in MPI operations (bytes), as it asked for them: message sizes, and the sizes a collective's buffers imply on each member — not what the MPI library really moved over the network. Scalasca's `bytes`. Its own value is always zero: it splits into the two below)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kBytesP2P,
        .parent = metric::kBytes,
        .display_name = "P2P bytes",
        .unit = "bytes",
        .description = "Bytes of point-to-point messages, counted at both ends: sent by the "
                       "sender, received by the receiver.",
        .hint = "Compare with P2P communications: few large messages beat many small "
                "ones, until they are so large that they need a rendezvous.",
        .documentation = R"(bytes of point-to-point messages, at both ends)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kBytesSent,
        .parent = metric::kBytesP2P,
        .display_name = "P2P bytes sent",
        .unit = "bytes",
        .description = "Bytes of the messages this process sent, at the call path of the sending "
                       "call.",
        .hint = "Summed over all processes it should equal Received: more sent than received "
                "means messages were never received.",
        .documentation = R"(the size of every `MpiSend`/`MpiIsend` record, at the call path of the sending call)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kBytesReceived,
        .parent = metric::kBytesP2P,
        .display_name = "P2P bytes received",
        .unit = "bytes",
        .description = "Bytes of the messages this process received, as their senders sent them, "
                       "at the call path of the call that completed the receive.",
        .hint = "See P2P bytes sent.",
        .documentation = R"(the size of every received message as its send record gives it (a receive whose send is missing: the receive record's size), at the call path of the call that completed the receive)",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kBytesColl,
        .parent = metric::kBytes,
        .display_name = "Collective bytes",
        .unit = "bytes",
        .description = "Bytes of collective operations, each member counting the data it "
                       "contributes and the data it gets, as the trace records them.",
        .hint = "Compare with Collective communications and the time in Collective: large data "
                "in small collectives is cheap, many small collectives are not.",
        .documentation = R"(bytes of collective operations, as each member's `MpiCollectiveEnd` record gives them: the data it contributes and the data it gets (topolens' measurement: from the call's counts and types, e.g. `MPI_Bcast`: the root sends the buffer once, every other member receives it; `MPI_Gather`: each sends its part, the root receives all parts, its own included))",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kBytesOut,
        .parent = metric::kBytesColl,
        .display_name = "Collective bytes outgoing",
        .unit = "bytes",
        .description = "Bytes this process sent in collective operations.",
        .hint = "See Collective bytes.",
        .documentation = R"(sent (the record's bytes sent))",
        .pattern = PatternKind::Messages,
    },
    {
        .unique_name = metric::kBytesIn,
        .parent = metric::kBytesColl,
        .display_name = "Collective bytes incoming",
        .unit = "bytes",
        .description = "Bytes this process received in collective operations.",
        .hint = "See Collective bytes.",
        .documentation = R"(received (the record's bytes received))",
        .pattern = PatternKind::Messages,
    },
    // wavefront (wavefront_patterns.cpp): a part of Late Sender in a tree of its own, as
    // Scalasca keeps delay costs beside Time, so that Late Sender stays Scalasca's and every
    // refill wait counts for its wave, Wrong Order or not.
    {
        .unique_name = metric::kWavefrontRoot,
        .parent = "",
        .display_name = "Wavefront",
        .unit = "sec",
        .description =
            "The part of Late Sender (Wrong Order included) spent waiting for a pipelined "
            "wave to (re)fill the pipeline on the process grid, split by the corner the wave "
            "comes from. Only where messages show a wave travelling: halo exchanges and "
            "transposes never count. Kept apart from Time, as a share of Late Sender.",
        .hint = "Pipeline fill: cut the sweep's work into smaller blocks (more, shorter "
                "stages), or start sweeps from several corners at once.",
        .documentation =
            R"(the part of Late Sender, Wrong Order included, where a pipelined wave refills the pipeline on the process grid (see [Grids and wavefronts](grids-and-wavefronts.md)); only where the messages show a wave travelling. A tree of its own beside Time, as Scalasca keeps delay costs: Late Sender stays Scalasca's, and `summary` and the GUI show each wave metric's share of Late Sender. Its own value is always zero: it splits into the corners below)",
        .pattern = PatternKind::Wavefront,
        .presence = Presence::WithGridCorners,
        .part_of = metric::kLateSender,
    },
    {
        .unique_name = metric::kWavefront,
        .parent = metric::kWavefrontRoot,
        .display_name = "Wavefront from <corner>",
        .unit = "sec",
        .description =
            "Late Sender time, Wrong Order included, where a pipelined wave coming from the "
            "<corner> corner of the process grid (re)fills the pipeline: the receives of the "
            "first block of a new wave at a process. The origin corner never waits; with one "
            "wave at a time the corner reached last waits most.",
        .hint = "Pipeline fill: cut the sweep's work into smaller blocks (more, shorter "
                "stages), or start sweeps from several corners at once.",
        .documentation =
            R"(Late Sender time, Wrong Order included, of the receives that start a new wave from corner X at a process (the pipeline refills); a share of Late Sender)",
        .pattern = PatternKind::Wavefront,
        .presence = Presence::PerGridCorner,
        .part_of = metric::kLateSender,
    },
    // delay costs (delay_costs.cpp): Scalasca's root-cause analysis, a tree beside Time
    {
        .unique_name = metric::kDelay,
        .parent = "",
        .display_name = "Delay costs",
        .unit = "sec",
        .description =
            "Root causes of wait states (Scalasca's delay costs): excess time, per call path, of the processes that arrived late at a synchronisation point, scaled to the waiting time it caused directly (short-term) and through waits that propagated further (long-term). Its own value is always zero.",
        .hint = "Processes and call paths with high delay costs are where time must be saved or moved: balance the work there, not where the waits show.",
        .documentation =
            R"(root of the delay costs (see [Root causes](root-causes.md)): where the time that others waited for was spent; a tree of its own beside Time; its own value is zero)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayMpi,
        .parent = metric::kDelay,
        .display_name = "MPI delay costs",
        .unit = "sec",
        .description =
            "Delays that caused wait states in MPI operations.",
        .hint = "See Delay costs.",
        .documentation =
            R"(delays causing MPI wait states; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayP2P,
        .parent = metric::kDelayMpi,
        .display_name = "MPI point-to-point delay costs",
        .unit = "sec",
        .description =
            "Delays that caused wait states in point-to-point communication.",
        .hint = "See Delay costs.",
        .documentation =
            R"(delays causing point-to-point wait states; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayLateSenderAggregate,
        .parent = metric::kDelayP2P,
        .display_name = "Late Sender delay costs",
        .unit = "sec",
        .description =
            "Delays that caused Late Sender wait states, directly and through propagation.",
        .hint = "See Delay costs.",
        .documentation =
            R"(delays causing Late Sender; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayLateSender,
        .parent = metric::kDelayLateSenderAggregate,
        .display_name = "Short-term Late Sender delay costs",
        .unit = "sec",
        .description =
            "Excess time on the process that was late, in the interval before the synchronisation point, scaled to the Late Sender time it caused directly.",
        .hint = "Reduce or move the work on these call paths: it made others wait (Late Sender).",
        .documentation =
            R"(excess time of the late process since its previous synchronisation with the waiting one, scaled to the Late Sender time it caused there)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayLateSenderLongTerm,
        .parent = metric::kDelayLateSenderAggregate,
        .display_name = "Long-term Late Sender delay costs",
        .unit = "sec",
        .description =
            "Excess time on the process that was late, scaled to the Late Sender time it caused further on: waits of processes that waited for processes that waited for it.",
        .hint = "The delay spread along the communication chain: fix it at its origin, or decouple the chain (nonblocking communication).",
        .documentation =
            R"(the same delay scaled to the Late Sender time its effect caused further on, through waits that propagated)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayLateReceiverAggregate,
        .parent = metric::kDelayP2P,
        .display_name = "Late Receiver delay costs",
        .unit = "sec",
        .description =
            "Delays that caused Late Receiver wait states, directly and through propagation.",
        .hint = "See Delay costs.",
        .documentation =
            R"(delays causing Late Receiver; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayLateReceiver,
        .parent = metric::kDelayLateReceiverAggregate,
        .display_name = "Short-term Late Receiver delay costs",
        .unit = "sec",
        .description =
            "Excess time on the process that was late, in the interval before the synchronisation point, scaled to the Late Receiver time it caused directly.",
        .hint = "Reduce or move the work on these call paths: it made others wait (Late Receiver).",
        .documentation =
            R"(excess time of the late process since its previous synchronisation with the waiting one, scaled to the Late Receiver time it caused there)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayLateReceiverLongTerm,
        .parent = metric::kDelayLateReceiverAggregate,
        .display_name = "Long-term Late Receiver delay costs",
        .unit = "sec",
        .description =
            "Excess time on the process that was late, scaled to the Late Receiver time it caused further on: waits of processes that waited for processes that waited for it.",
        .hint = "The delay spread along the communication chain: fix it at its origin, or decouple the chain (nonblocking communication).",
        .documentation =
            R"(the same delay scaled to the Late Receiver time its effect caused further on, through waits that propagated)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayCollective,
        .parent = metric::kDelayMpi,
        .display_name = "MPI collective delay costs",
        .unit = "sec",
        .description =
            "Delays that caused wait states in collective operations.",
        .hint = "See Delay costs.",
        .documentation =
            R"(delays causing collective wait states; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayBarrierAggregate,
        .parent = metric::kDelayCollective,
        .display_name = "Wait at Barrier delay costs",
        .unit = "sec",
        .description =
            "Delays that caused Wait at Barrier wait states, directly and through propagation.",
        .hint = "See Delay costs.",
        .documentation =
            R"(delays causing Wait at Barrier; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayBarrier,
        .parent = metric::kDelayBarrierAggregate,
        .display_name = "Short-term Wait at Barrier delay costs",
        .unit = "sec",
        .description =
            "Excess time on the process that was late, in the interval before the synchronisation point, scaled to the Wait at Barrier time it caused directly.",
        .hint = "Reduce or move the work on these call paths: it made others wait (Wait at Barrier).",
        .documentation =
            R"(excess time of the late process since its previous synchronisation with the waiting one, scaled to the Wait at Barrier time it caused there)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayBarrierLongTerm,
        .parent = metric::kDelayBarrierAggregate,
        .display_name = "Long-term Wait at Barrier delay costs",
        .unit = "sec",
        .description =
            "Excess time on the process that was late, scaled to the Wait at Barrier time it caused further on: waits of processes that waited for processes that waited for it.",
        .hint = "The delay spread along the communication chain: fix it at its origin, or decouple the chain (nonblocking communication).",
        .documentation =
            R"(the same delay scaled to the Wait at Barrier time its effect caused further on, through waits that propagated)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayNxNAggregate,
        .parent = metric::kDelayCollective,
        .display_name = "Wait at NxN delay costs",
        .unit = "sec",
        .description =
            "Delays that caused Wait at NxN wait states, directly and through propagation.",
        .hint = "See Delay costs.",
        .documentation =
            R"(delays causing Wait at NxN; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayNxN,
        .parent = metric::kDelayNxNAggregate,
        .display_name = "Short-term Wait at NxN delay costs",
        .unit = "sec",
        .description =
            "Excess time on the process that was late, in the interval before the synchronisation point, scaled to the Wait at NxN time it caused directly.",
        .hint = "Reduce or move the work on these call paths: it made others wait (Wait at NxN).",
        .documentation =
            R"(excess time of the late process since its previous synchronisation with the waiting one, scaled to the Wait at NxN time it caused there)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayNxNLongTerm,
        .parent = metric::kDelayNxNAggregate,
        .display_name = "Long-term Wait at NxN delay costs",
        .unit = "sec",
        .description =
            "Excess time on the process that was late, scaled to the Wait at NxN time it caused further on: waits of processes that waited for processes that waited for it.",
        .hint = "The delay spread along the communication chain: fix it at its origin, or decouple the chain (nonblocking communication).",
        .documentation =
            R"(the same delay scaled to the Wait at NxN time its effect caused further on, through waits that propagated)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayLateBroadcastAggregate,
        .parent = metric::kDelayCollective,
        .display_name = "Late Broadcast delay costs",
        .unit = "sec",
        .description =
            "Delays that caused Late Broadcast wait states, directly and through propagation.",
        .hint = "See Delay costs.",
        .documentation =
            R"(delays causing Late Broadcast; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayLateBroadcast,
        .parent = metric::kDelayLateBroadcastAggregate,
        .display_name = "Short-term Late Broadcast delay costs",
        .unit = "sec",
        .description =
            "Excess time on the process that was late, in the interval before the synchronisation point, scaled to the Late Broadcast time it caused directly.",
        .hint = "Reduce or move the work on these call paths: it made others wait (Late Broadcast).",
        .documentation =
            R"(excess time of the late process since its previous synchronisation with the waiting one, scaled to the Late Broadcast time it caused there)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayLateBroadcastLongTerm,
        .parent = metric::kDelayLateBroadcastAggregate,
        .display_name = "Long-term Late Broadcast delay costs",
        .unit = "sec",
        .description =
            "Excess time on the process that was late, scaled to the Late Broadcast time it caused further on: waits of processes that waited for processes that waited for it.",
        .hint = "The delay spread along the communication chain: fix it at its origin, or decouple the chain (nonblocking communication).",
        .documentation =
            R"(the same delay scaled to the Late Broadcast time its effect caused further on, through waits that propagated)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayEarlyReduceAggregate,
        .parent = metric::kDelayCollective,
        .display_name = "Early Reduce delay costs",
        .unit = "sec",
        .description =
            "Delays that caused Early Reduce wait states, directly and through propagation.",
        .hint = "See Delay costs.",
        .documentation =
            R"(delays causing Early Reduce; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayEarlyReduce,
        .parent = metric::kDelayEarlyReduceAggregate,
        .display_name = "Short-term Early Reduce delay costs",
        .unit = "sec",
        .description =
            "Excess time on the process that was late, in the interval before the synchronisation point, scaled to the Early Reduce time it caused directly.",
        .hint = "Reduce or move the work on these call paths: it made others wait (Early Reduce).",
        .documentation =
            R"(excess time of the late process since its previous synchronisation with the waiting one, scaled to the Early Reduce time it caused there)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kDelayEarlyReduceLongTerm,
        .parent = metric::kDelayEarlyReduceAggregate,
        .display_name = "Long-term Early Reduce delay costs",
        .unit = "sec",
        .description =
            "Excess time on the process that was late, scaled to the Early Reduce time it caused further on: waits of processes that waited for processes that waited for it.",
        .hint = "The delay spread along the communication chain: fix it at its origin, or decouple the chain (nonblocking communication).",
        .documentation =
            R"(the same delay scaled to the Early Reduce time its effect caused further on, through waits that propagated)",
        .pattern = PatternKind::Delay,
    },
    // wait-state classification (delay_costs.cpp), Scalasca's Waitstates.MPI
    {
        .unique_name = metric::kWaitsDirectVsIndirect,
        .parent = "",
        .display_name = "Point-to-point waits: direct vs. indirect",
        .unit = "sec",
        .description =
            "Late Sender and Late Receiver time split into the part a delay of the process waited for caused directly and the part that process spent waiting itself (propagated to here). Its own value is always zero.",
        .hint = "Indirect waiting is fixed where it started: follow the delay costs to their root causes.",
        .documentation =
            R"(Late Sender and Late Receiver split into direct and indirect waiting (a tree of its own beside Time, as Scalasca keeps it); zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitDirect,
        .parent = metric::kWaitsDirectVsIndirect,
        .display_name = "Direct waits",
        .unit = "sec",
        .description =
            "Point-to-point waiting caused directly by a delay of the process waited for.",
        .hint = "See the delay costs of the processes waited for.",
        .documentation =
            R"(waiting caused by the other process's own excess time; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitDirectLateSender,
        .parent = metric::kWaitDirect,
        .display_name = "Direct Late Sender",
        .unit = "sec",
        .description =
            "Late Sender time not explained by the sender's own waiting in its interval: caused by its excess time.",
        .hint = "The sender was busy: see its delay costs.",
        .documentation =
            R"(Late Sender minus its indirect part (topolens computes it; Scalasca names the metric but leaves it empty))",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitDirectLateReceiver,
        .parent = metric::kWaitDirect,
        .display_name = "Direct Late Receiver",
        .unit = "sec",
        .description =
            "Late Receiver time not explained by the receiver's own waiting in its interval.",
        .hint = "The receiver was busy: see its delay costs.",
        .documentation =
            R"(Late Receiver minus its indirect part (topolens computes it; Scalasca names the metric but leaves it empty))",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitIndirect,
        .parent = metric::kWaitsDirectVsIndirect,
        .display_name = "Indirect waits",
        .unit = "sec",
        .description =
            "Point-to-point waiting that the process waited for spent waiting itself: propagated waiting.",
        .hint = "See the delay costs.",
        .documentation =
            R"(propagated waiting; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitIndirectLateSender,
        .parent = metric::kWaitIndirect,
        .display_name = "Indirect Late Sender",
        .unit = "sec",
        .description =
            "The part of a Late Sender wait that the sender spent waiting itself in its interval (its scaled own waits), at the waiting receive.",
        .hint = "The chain started elsewhere: follow the long-term delay costs.",
        .documentation =
            R"(the part of Late Sender explained by the sender's own waits (Scalasca: scale × w, sent forward along the message))",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitIndirectLateReceiver,
        .parent = metric::kWaitIndirect,
        .display_name = "Indirect Late Receiver",
        .unit = "sec",
        .description =
            "The part of a Late Receiver wait that the receiver spent waiting itself in its interval, at the waiting send.",
        .hint = "The chain started elsewhere: follow the long-term delay costs.",
        .documentation =
            R"(the part of Late Receiver explained by the receiver's own waits)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitsPropagatingVsTerminal,
        .parent = "",
        .display_name = "Point-to-point waits: propagating vs. terminal",
        .unit = "sec",
        .description =
            "Late Sender and Late Receiver time split into waits that made other processes wait in turn (propagating) and waits that did not. Its own value is always zero.",
        .hint = "Propagating waits spread imbalance: decouple (nonblocking communication) or remove the cause.",
        .documentation =
            R"(Late Sender and Late Receiver split into propagating and terminal waiting (a tree of its own beside Time); zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitPropagating,
        .parent = metric::kWaitsPropagatingVsTerminal,
        .display_name = "Propagating waits",
        .unit = "sec",
        .description =
            "Point-to-point waiting that caused further waiting on other processes.",
        .hint = "See the delay costs.",
        .documentation =
            R"(waits that delayed others in turn; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitPropagatingLateSender,
        .parent = metric::kWaitPropagating,
        .display_name = "Propagating Late Sender",
        .unit = "sec",
        .description =
            "The part of each Late Sender wait that made another process wait later (the largest share any later wait took of it), at the waiting receive.",
        .hint = "This wait spread: the process waited and then made others wait.",
        .documentation =
            R"(Scalasca's rule: max over the later waits it explains of scale × its wait)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitPropagatingLateReceiver,
        .parent = metric::kWaitPropagating,
        .display_name = "Propagating Late Receiver",
        .unit = "sec",
        .description =
            "The part of each Late Receiver wait that made another process wait later, at the waiting send.",
        .hint = "This wait spread: the process waited and then made others wait.",
        .documentation =
            R"(as for Late Sender)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitTerminal,
        .parent = metric::kWaitsPropagatingVsTerminal,
        .display_name = "Terminal waits",
        .unit = "sec",
        .description =
            "Point-to-point waiting that did not cause further waiting.",
        .hint = "Waits that end a chain cost only their own process.",
        .documentation =
            R"(waits that delayed nobody; zero itself)",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitTerminalLateSender,
        .parent = metric::kWaitTerminal,
        .display_name = "Terminal Late Sender",
        .unit = "sec",
        .description =
            "Late Sender time that did not propagate: Late Sender minus its propagating part.",
        .hint = "This wait cost only this process.",
        .documentation =
            R"(Late Sender minus its propagating part (topolens computes it; Scalasca names the metric but leaves it empty))",
        .pattern = PatternKind::Delay,
    },
    {
        .unique_name = metric::kWaitTerminalLateReceiver,
        .parent = metric::kWaitTerminal,
        .display_name = "Terminal Late Receiver",
        .unit = "sec",
        .description =
            "Late Receiver time that did not propagate.",
        .hint = "This wait cost only this process.",
        .documentation =
            R"(Late Receiver minus its propagating part (topolens computes it; Scalasca names the metric but leaves it empty))",
        .pattern = PatternKind::Delay,
    },
    // critical path (critical_path.cpp): Scalasca's CriticalPath pattern, trees beside Time
    {
        .unique_name = metric::kCriticalPath,
        .parent = "",
        .display_name = "Critical path profile",
        .unit = "sec",
        .description =
            "The run's critical path: followed backward from the MPI_Finalize entered last to MPI_Init, it stays on a process until that process waited, then moves to the process it waited for. Its time per call path and process; the sum over processes is the run's wall-clock time up to that MPI_Finalize.",
        .hint = "Only call paths on the critical path make the run longer: shorten those. A process holding much of it is a bottleneck (imbalance or serial work).",
        .documentation =
            R"(the run's critical path (see [Critical path](critical-path.md)): from the last process's MPI_Finalize back to MPI_Init, it stays on a process until that process waited and moves to the one it waited for; its time per call path and process, summing to the run's wall-clock time)",
        .pattern = PatternKind::CriticalPath,
    },
    {
        .unique_name = metric::kPerformanceImpact,
        .parent = "",
        .display_name = "Performance impact",
        .unit = "sec",
        .description =
            "Every process's time, waits excluded, split by the critical path: time in activities on it, waits its imbalance caused, and time in activities off it.",
        .hint = "Expand it: critical-path activities and their imbalance against non-critical-path activities.",
        .documentation =
            R"(root of the performance impact: each process's time without waits, by whether its call paths are on the critical path, plus the waits the path's imbalance caused; zero itself)",
        .pattern = PatternKind::CriticalPath,
    },
    {
        .unique_name = metric::kPerformanceImpactCriticalPath,
        .parent = metric::kPerformanceImpact,
        .display_name = "Critical-path activities",
        .unit = "sec",
        .description =
            "Resources consumed by the call paths on the critical path, on every process: their execution and the waits their imbalance caused.",
        .hint = "Expand it: how much is the activities themselves, how much imbalance.",
        .documentation =
            R"(the resources the critical path's call paths consumed on every process: their execution and the waits their imbalance caused; zero itself)",
        .pattern = PatternKind::CriticalPath,
    },
    {
        .unique_name = metric::kCriticalPathActivities,
        .parent = metric::kPerformanceImpactCriticalPath,
        .display_name = "Activity impact",
        .unit = "sec",
        .description =
            "Each process's time in call paths on the critical path, waits excluded, up to the path's time in them.",
        .hint = "Time here is time every process spends on what the critical path runs: making it faster shortens the run.",
        .documentation =
            R"(each process's time, waits excluded, in call paths on the critical path, at most the path's own time there: min(path, process))",
        .pattern = PatternKind::CriticalPath,
    },
    {
        .unique_name = metric::kCriticalImbalanceImpact,
        .parent = metric::kPerformanceImpactCriticalPath,
        .display_name = "Critical-path imbalance impact",
        .unit = "sec",
        .description =
            "The processes' waits, mapped onto the call paths where the critical path spent more time than they did, at the processes holding the path there.",
        .hint = "Imbalanced call paths that make others wait: balance their work across processes.",
        .documentation =
            R"(every process's waits, mapped onto the call paths where the critical path spent more than that process did (its excess), and given to the path's holders by their share of it)",
        .pattern = PatternKind::CriticalPath,
    },
    {
        .unique_name = metric::kInterPartitionImbalance,
        .parent = metric::kCriticalImbalanceImpact,
        .display_name = "Inter-partition imbalance",
        .unit = "sec",
        .description =
            "The part of the imbalance impact due to call paths some processes never run (different partitions of an MPMD program).",
        .hint = "Rebalance the work or the number of processes between the partitions.",
        .documentation =
            R"(the part of it from call paths on the critical path that some processes never run (imbalance between the partitions of an MPMD program; zero on SPMD programs))",
        .pattern = PatternKind::CriticalPath,
    },
    {
        .unique_name = metric::kNonCriticalPathActivities,
        .parent = metric::kPerformanceImpact,
        .display_name = "Non-critical-path activities",
        .unit = "sec",
        .description =
            "Each process's time, waits excluded, in call paths beyond their time on the critical path: optimizing it does not shorten the run.",
        .hint = "Optimizing these call paths does not make the run shorter.",
        .documentation =
            R"(each process's time, waits excluded, beyond the critical path's time in the same call path: max(process − path, 0))",
        .pattern = PatternKind::CriticalPath,
    },
    // codelets (codelet_patterns.cpp)
    {
        .unique_name = metric::kCodeletTime,
        .parent = "",
        .display_name = "Codelet time",
        .unit = "sec",
        .description =
            "Time spent executing the codelets of tuned operations (ADCL-style autotuners), "
            "at each codelet's call path: what each implementation cost each process.",
        .hint = "Compare the codelets of an operation: the tuner should settle on the "
                "cheapest (`topolens audit` checks its decision).",
        .documentation =
            R"(time executing the codelets of tuned operations (autotuned runs), at each codelet's call path `operation/codelet`)",
        .pattern = PatternKind::Codelets,
        .presence = Presence::WithCodelets,
    },
    {
        .unique_name = metric::kCodeletOutlierTime,
        .parent = metric::kCodeletTime,
        .display_name = "Codelet outlier time",
        .unit = "sec",
        .description =
            "The part of Codelet time spent in search-phase executions that ADCL's "
            "heuristic flags as outliers: longer than 3 times the fastest execution of the "
            "same codelet on the same process. Such measurements can mislead the tuner.",
        .hint = "Outliers can mislead the tuner: `topolens audit` tells whether its decision "
                "held, and which waits caused them.",
        .documentation =
            R"(the part of it in search-phase executions that ADCL's heuristic flags as outliers (longer than 3× the fastest execution of that codelet on that process))",
        .pattern = PatternKind::Codelets,
        .presence = Presence::WithCodelets,
    },
};
// clang-format on

// `text` with every "<corner>" replaced by `corner`.
std::string expand(std::string_view text, std::string_view corner) {
    std::string out;
    for (size_t at = 0;;) {
        const size_t found = text.find(kCorner, at);
        out.append(text.substr(at, found - at));
        if (found == std::string_view::npos) return out;
        out.append(corner);
        at = found + kCorner.size();
    }
}

// A corner in a unique name: "NE-top" -> "ne_top".
std::string corner_in_name(std::string_view corner) {
    std::string name;
    for (char ch : corner) name += ch == '-' ? '_' : static_cast<char>(std::tolower(ch));
    return name;
}

// The anchor of a row in docs/metrics.md: the unique name ("mpi_wavefront_corner" for the templated
// one).
std::string anchor(const MetricEntry& entry) {
    return expand(entry.unique_name, "corner");
}

std::string display_name(std::string_view unique_name) {
    const MetricEntry* entry = find_catalogue_entry(unique_name);
    return entry ? std::string(entry->display_name) : std::string(unique_name);
}

// The rows in depth-first order: each followed by its children's subtrees.
void depth_first(std::string_view parent, int depth,
                 std::vector<std::pair<const MetricEntry*, int>>& out) {
    for (const MetricEntry& entry : kCatalogue)
        if (entry.parent == parent) {
            out.push_back({&entry, depth});
            depth_first(entry.unique_name, depth + 1, out);
        }
}

std::vector<std::pair<const MetricEntry*, int>> depth_first() {
    std::vector<std::pair<const MetricEntry*, int>> rows;
    depth_first("", 0, rows);
    return rows;
}

// `text` broken into lines of at most `width` characters, each starting with `indent`.
void wrap(std::ostream& out, std::string_view text, const std::string& indent, size_t width) {
    size_t column = 0; // 0: at the start of a line
    while (!text.empty()) {
        const size_t space = text.find(' ');
        const std::string_view word = text.substr(0, space);
        text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
        if (column > 0 && column + 1 + word.size() > width) {
            out << "\n";
            column = 0;
        }
        if (column == 0) {
            out << indent << word;
            column = indent.size() + word.size();
        } else {
            out << ' ' << word;
            column += 1 + word.size();
        }
    }
    out << "\n";
}

} // namespace

std::span<const MetricEntry> metric_catalogue() {
    return kCatalogue;
}

const MetricEntry* find_catalogue_entry(std::string_view unique_name) {
    for (const MetricEntry& entry : kCatalogue)
        if (entry.unique_name == unique_name) return &entry;
    return nullptr;
}

std::string metric_url(const MetricEntry& entry) {
    return "@mirror@docs/metrics.md#metric-" + anchor(entry);
}

analysis::MetricDefinition metric_definition(const MetricEntry& entry, std::string_view corner) {
    analysis::MetricDefinition d;
    d.unique_name = expand(entry.unique_name, corner_in_name(corner));
    d.parent = entry.parent;
    d.display_name = expand(entry.display_name, corner);
    d.unit = entry.unit;
    d.description = expand(entry.description, corner);
    d.url = metric_url(entry);
    d.part_of = entry.part_of;
    return d;
}

std::vector<analysis::MetricDefinition> catalogue_metrics(const report::Report& report,
                                                          const std::vector<PatternKind>& kinds) {
    std::vector<analysis::MetricDefinition> metrics;
    for (const MetricEntry& entry : kCatalogue) {
        if (std::find(kinds.begin(), kinds.end(), entry.pattern) == kinds.end()) continue;
        switch (entry.presence) {
        case Presence::Always:
            metrics.push_back(metric_definition(entry));
            break;
        case Presence::WithGridCorners:
            if (!wavefront_corners(report).empty()) metrics.push_back(metric_definition(entry));
            break;
        case Presence::PerGridCorner:
            for (const std::string& corner : wavefront_corners(report))
                metrics.push_back(metric_definition(entry, corner));
            break;
        case Presence::WithCodelets:
            if (has_codelets(report)) metrics.push_back(metric_definition(entry));
            break;
        }
    }
    return metrics;
}

std::string_view pattern_kind_name(PatternKind kind) {
    switch (kind) {
    case PatternKind::Time:
        return "time";
    case PatternKind::PointToPoint:
        return "point-to-point";
    case PatternKind::Collective:
        return "collective";
    case PatternKind::Wavefront:
        return "wavefront";
    case PatternKind::Codelets:
        return "codelets";
    case PatternKind::Messages:
        return "messages";
    case PatternKind::Delay:
        return "delay";
    case PatternKind::CriticalPath:
        return "critical-path";
    }
    return "unknown";
}

namespace {

// The catalogue as the engine reads it: the rows of the catalogued patterns it runs.
class Catalogue : public analysis::MetricCatalogue {
  public:
    std::vector<analysis::MetricDefinition>
    metrics(const report::Report& report,
            const std::vector<analysis::Pattern*>& patterns) const override {
        std::vector<PatternKind> kinds;
        for (const analysis::Pattern* pattern : patterns)
            if (const auto* catalogued = dynamic_cast<const CataloguedPattern*>(pattern))
                kinds.push_back(catalogued->kind());
        return catalogue_metrics(report, kinds);
    }
};

} // namespace

const analysis::MetricCatalogue* CataloguedPattern::catalogue() const {
    static const Catalogue catalogue;
    return &catalogue;
}

int metric_id(const report::Report& report, std::string_view unique_name) {
    const auto found = report.find_metric(std::string(unique_name));
    if (!found) throw std::logic_error("metric " + std::string(unique_name) + " undefined");
    return *found;
}

std::vector<int> metric_chain(const report::Report& report, int metric) {
    std::vector<int> chain;
    // Bounded by the number of metrics, as a damaged parent cycle must not hang.
    for (int m = metric; m >= 0 && chain.size() < report.metrics.size();
         m = report.metrics[m].parent)
        chain.push_back(m);
    return chain;
}

std::vector<int> metric_chain(const report::Report& report, std::string_view unique_name) {
    return metric_chain(report, metric_id(report, unique_name));
}

std::string metric_table_markdown() {
    std::ostringstream out;
    out << "| metric (unique name) | under | meaning |\n|---|---|---|\n";
    for (const auto& [entry, depth] : depth_first()) {
        const bool templated = entry->presence == Presence::PerGridCorner;
        // A templated row shows its display name with "X" and an example unique name.
        const std::string name = "`" + expand(entry->unique_name, corner_in_name("SW")) + "`";
        out << "| <a id=\"metric-" << anchor(*entry) << "\"></a>"
            << expand(entry->display_name, "X") << " (" << name
            << (templated ? ", ...) | " : ") | ");
        if (!entry->parent.empty()) out << display_name(entry->parent) << " ";
        out << "| " << entry->documentation << " |\n";
    }
    return out.str();
}

std::string metric_table_text() {
    std::ostringstream out;
    wrap(out,
         "Every metric of a topolens report, below its parent: display name (unique name, "
         "unit, parent), the description the report carries, and what to do about it.",
         "", kTextWidth);
    for (const auto& [entry, depth] : depth_first()) {
        const std::string indent(2 * static_cast<size_t>(depth), ' ');
        out << "\n"
            << indent << entry->display_name << "  (" << entry->unique_name << ", " << entry->unit;
        if (!entry->parent.empty()) out << ", under " << entry->parent;
        if (entry->presence == Presence::PerGridCorner)
            out << "; one per corner of the process grid";
        if (entry->presence == Presence::WithGridCorners) out << "; runs with a process grid";
        if (entry->presence == Presence::WithCodelets) out << "; autotuned runs only";
        if (!entry->part_of.empty()) out << "; a part of " << entry->part_of;
        out << ")\n";
        wrap(out, entry->description, indent + "    ", kTextWidth);
        wrap(out, "What to do: " + std::string(entry->hint), indent + "    ", kTextWidth);
    }
    return out.str();
}

} // namespace topolens::patterns
