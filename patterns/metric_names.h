// Unique names of the metrics (CUBE's uniq_name; Scalasca's where one exists), for the
// metric catalogue's rows (patterns/metric_catalogue.cpp, which holds everything else about
// a metric) and for the patterns and tests that look a metric up.
#pragma once

namespace topolens::patterns::metric {

inline constexpr const char* kTime = "time";
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

} // namespace topolens::patterns::metric
