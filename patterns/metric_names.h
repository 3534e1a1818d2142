// Unique names of the metrics (CUBE's uniq_name; Scalasca's where one exists), for the
// metric catalogue's rows (patterns/metric_catalogue.cpp, which holds everything else about
// a metric) and for the patterns and tests that look a metric up.
#pragma once

namespace topolens::patterns::metric {

inline constexpr const char* kTime = "time";
inline constexpr const char* kExecution = "execution";
inline constexpr const char* kComputation = "comp";
inline constexpr const char* kOverhead = "overhead";
inline constexpr const char* kOutsideRegions = "outside_regions";
inline constexpr const char* kVisits = "visits";
inline constexpr const char* kMpi = "mpi";
inline constexpr const char* kInitExit = "mpi_init_exit";
inline constexpr const char* kSynchronization = "mpi_synchronization";
inline constexpr const char* kBarrierWait = "mpi_barrier_wait";
inline constexpr const char* kBarrierCompletion = "mpi_barrier_completion";
inline constexpr const char* kCommunication = "mpi_communication";
inline constexpr const char* kPointToPoint = "mpi_point2point";
inline constexpr const char* kLateSender = "mpi_latesender";
inline constexpr const char* kLateSenderWrongOrder = "mpi_latesender_wo";
inline constexpr const char* kWrongOrderSameSource = "mpi_lswo_same";
inline constexpr const char* kWrongOrderDifferentSources = "mpi_lswo_different";
inline constexpr const char* kLateReceiver = "mpi_latereceiver";
inline constexpr const char* kCollective = "mpi_collective";
inline constexpr const char* kWaitNxN = "mpi_wait_nxn";
inline constexpr const char* kNxNCompletion = "mpi_nxn_completion";
inline constexpr const char* kLateBroadcast = "mpi_latebroadcast";
inline constexpr const char* kEarlyReduce = "mpi_earlyreduce";
// The root of the wave metrics, and below it a templated row: one metric per corner of the
// process grid ("mpi_wavefront_ne_top").
inline constexpr const char* kWavefrontRoot = "mpi_wavefront";
inline constexpr const char* kWavefront = "mpi_wavefront_<corner>";
inline constexpr const char* kClockViolations = "clock_violations";
inline constexpr const char* kClockViolationsP2P = "clock_violations_p2p";
inline constexpr const char* kClockViolationsCollective = "clock_violations_coll";
inline constexpr const char* kCodeletTime = "codelet_time";
inline constexpr const char* kCodeletOutlierTime = "codelet_outlier_time";
// Message statistics: counts of operations and bytes, in three trees of their own.
inline constexpr const char* kSyncs = "syncs";
inline constexpr const char* kSyncsP2P = "syncs_p2p";
inline constexpr const char* kSyncsSend = "syncs_send";
inline constexpr const char* kSyncsRecv = "syncs_recv";
inline constexpr const char* kSyncsColl = "syncs_coll";
inline constexpr const char* kComms = "comms";
inline constexpr const char* kCommsP2P = "comms_p2p";
inline constexpr const char* kCommsSend = "comms_send";
inline constexpr const char* kCommsRecv = "comms_recv";
inline constexpr const char* kCommsColl = "comms_coll";
inline constexpr const char* kCommsExchange = "comms_cxch";
inline constexpr const char* kCommsSource = "comms_csrc";
inline constexpr const char* kCommsDestination = "comms_cdst";
inline constexpr const char* kBytes = "bytes";
inline constexpr const char* kBytesP2P = "bytes_p2p";
inline constexpr const char* kBytesSent = "bytes_sent";
inline constexpr const char* kBytesReceived = "bytes_rcvd";
inline constexpr const char* kBytesColl = "bytes_coll";
inline constexpr const char* kBytesOut = "bytes_cout";
inline constexpr const char* kBytesIn = "bytes_cin";

// Delay costs (Scalasca's root-cause analysis), a tree of its own beside Time.
inline constexpr const char* kDelay = "delay";
inline constexpr const char* kDelayMpi = "delay_mpi";
inline constexpr const char* kDelayP2P = "delay_p2p";
inline constexpr const char* kDelayCollective = "delay_collective";
inline constexpr const char* kDelayLateSenderAggregate = "delay_latesender_aggregate";
inline constexpr const char* kDelayLateSender = "delay_latesender";
inline constexpr const char* kDelayLateSenderLongTerm = "delay_latesender_longterm";
inline constexpr const char* kDelayLateReceiverAggregate = "delay_latereceiver_aggregate";
inline constexpr const char* kDelayLateReceiver = "delay_latereceiver";
inline constexpr const char* kDelayLateReceiverLongTerm = "delay_latereceiver_longterm";
inline constexpr const char* kDelayBarrierAggregate = "delay_barrier_aggregate";
inline constexpr const char* kDelayBarrier = "delay_barrier";
inline constexpr const char* kDelayBarrierLongTerm = "delay_barrier_longterm";
inline constexpr const char* kDelayNxNAggregate = "delay_n2n_aggregate";
inline constexpr const char* kDelayNxN = "delay_n2n";
inline constexpr const char* kDelayNxNLongTerm = "delay_n2n_longterm";
inline constexpr const char* kDelayLateBroadcastAggregate = "delay_12n_aggregate";
inline constexpr const char* kDelayLateBroadcast = "delay_12n";
inline constexpr const char* kDelayLateBroadcastLongTerm = "delay_12n_longterm";
inline constexpr const char* kDelayEarlyReduceAggregate = "delay_n21_aggregate";
inline constexpr const char* kDelayEarlyReduce = "delay_n21";
inline constexpr const char* kDelayEarlyReduceLongTerm = "delay_n21_longterm";

// Wait-state classification (Scalasca's): point-to-point waits that propagated or not,
// caused directly or through propagation.
inline constexpr const char* kWaitsDirectVsIndirect = "waitstates_direct_vs_indirect";
inline constexpr const char* kWaitDirect = "mpi_wait_direct";
inline constexpr const char* kWaitDirectLateSender = "mpi_wait_direct_latesender";
inline constexpr const char* kWaitDirectLateReceiver = "mpi_wait_direct_latereceiver";
inline constexpr const char* kWaitIndirect = "mpi_wait_indirect";
inline constexpr const char* kWaitIndirectLateSender = "mpi_wait_indirect_latesender";
inline constexpr const char* kWaitIndirectLateReceiver = "mpi_wait_indirect_latereceiver";
inline constexpr const char* kWaitsPropagatingVsTerminal = "waitstates_propagating_vs_terminal";
inline constexpr const char* kWaitPropagating = "mpi_wait_propagating";
inline constexpr const char* kWaitPropagatingLateSender = "mpi_wait_propagating_ls";
inline constexpr const char* kWaitPropagatingLateReceiver = "mpi_wait_propagating_lr";
inline constexpr const char* kWaitTerminal = "mpi_wait_terminal";
inline constexpr const char* kWaitTerminalLateSender = "mpi_wait_terminal_ls";
inline constexpr const char* kWaitTerminalLateReceiver = "mpi_wait_terminal_lr";
// The critical path (Scalasca's CriticalPath pattern) and the performance impact from it.
inline constexpr const char* kCriticalPath = "critical_path";
inline constexpr const char* kPerformanceImpact = "performance_impact";
inline constexpr const char* kPerformanceImpactCriticalPath = "performance_impact_criticalpath";
inline constexpr const char* kCriticalPathActivities = "critical_path_activities";
inline constexpr const char* kCriticalImbalanceImpact = "critical_imbalance_impact";
inline constexpr const char* kInterPartitionImbalance = "inter_partition_imbalance";
inline constexpr const char* kNonCriticalPathActivities = "non_critical_path_activities";

} // namespace topolens::patterns::metric
