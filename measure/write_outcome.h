// What each rank managed to write into the trace, and the words for it: the one line a rank
// prints when writing fails, rank 0's summary at MPI_Finalize, and the status lines that
// `topolens run` reads from TOPOLENS_REPORT_PATH_FILE. MPI-free (unit-tested).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace topolens::measure {

enum class WriteStage : int32_t {
    None = 0,
    Run = 1,        // an event write (a buffer flush) failed while the program ran
    Finalize = 2,   // closing the event file failed, in MPI_Finalize
    Definitions = 3 // writing the rank's local definitions failed, in MPI_Finalize
};

// One rank's outcome, gathered to rank 0 as raw bytes (the same library on every rank).
struct RankOutcome {
    int32_t error = 0;   // OTF2_ErrorCode of the first failed write; 0 if none
    int32_t stage = 0;   // WriteStage
    double seconds = 0;  // when, in seconds after MPI_Init
    uint64_t events = 0; // events recorded on the rank before
};

// The error's description, e.g. "No space left on device".
std::string write_error_text(int32_t error);

// "rank 1: writing the trace failed (No space left on device) 12.3 s after MPI_Init, after
// 4711 events; tracing stops on this rank, the program runs on"
// For a failure in MPI_Finalize: "rank 1: writing the trace failed (No space left on
// device) in MPI_Finalize, 12.3 s after MPI_Init; the trace of this rank is incomplete"
std::string write_failure_line(int rank, const RankOutcome& outcome);

struct TraceStatus {
    bool complete = true;
    std::vector<std::string> missing; // what was not written, one item each
};

// `definitions_error`: rank 0's writing of the global definitions and the anchor (0 if
// written); `definitions_written`: false when rank 0 could not even try.
TraceStatus trace_status(const std::vector<RankOutcome>& ranks, bool definitions_written,
                         int32_t definitions_error);

// "trace written to DIR" or "trace in DIR is incomplete: <missing>; <missing>"
std::string trace_summary_line(const std::string& directory, const TraceStatus& status);

// The content of TOPOLENS_REPORT_PATH_FILE: the directory, then "complete" or "incomplete"
// followed by one line per missing item.
std::string report_path_text(const std::string& directory, const TraceStatus& status);

} // namespace topolens::measure
