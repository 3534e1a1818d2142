// The words for a failed trace write: a rank's one line, rank 0's summary and the status
// lines `topolens run` reads (measure/write_outcome.h).
#include "write_outcome.h"

#include <gtest/gtest.h>
#include <otf2/OTF2_ErrorCodes.h>

using namespace topolens::measure;

namespace {

RankOutcome failed(WriteStage stage, OTF2_ErrorCode error, double seconds, uint64_t events = 0) {
    RankOutcome o;
    o.error = error;
    o.stage = static_cast<int32_t>(stage);
    o.seconds = seconds;
    o.events = events;
    return o;
}

} // namespace

TEST(WriteOutcome, RankLineNamesTheErrorAndHowFarTheTraceGoes) {
    EXPECT_EQ(write_failure_line(1, failed(WriteStage::Run, OTF2_ERROR_ENOSPC, 12.34, 4711)),
              "rank 1: writing the trace failed (No space left on device) 12.3 s after "
              "MPI_Init, after 4711 events; tracing stops on this rank, the program runs on");
    EXPECT_EQ(write_failure_line(0, failed(WriteStage::Finalize, OTF2_ERROR_EIO, 2.0)),
              "rank 0: writing the trace failed (Generic I/O error) in MPI_Finalize, 2.0 s after "
              "MPI_Init; the trace of this rank is incomplete");
    EXPECT_EQ(write_failure_line(3, failed(WriteStage::Definitions, OTF2_ERROR_ENOSPC, 2.0)),
              "rank 3: writing the trace failed (No space left on device) in MPI_Finalize, 2.0 s "
              "after MPI_Init; the trace of this rank is incomplete");
}

TEST(WriteOutcome, EverythingWrittenIsComplete) {
    const TraceStatus status = trace_status({RankOutcome{}, RankOutcome{}}, true, 0);
    EXPECT_TRUE(status.complete);
    EXPECT_TRUE(status.missing.empty());
    EXPECT_EQ(trace_summary_line("/t/run", status), "trace written to /t/run");
    EXPECT_EQ(report_path_text("/t/run", status), "/t/run\ncomplete\n");
}

TEST(WriteOutcome, FailedRanksAreGroupedByStageAndError) {
    const std::vector<RankOutcome> ranks = {
        failed(WriteStage::Run, OTF2_ERROR_ENOSPC, 1.3),
        RankOutcome{},
        failed(WriteStage::Run, OTF2_ERROR_ENOSPC, 3.0),
        failed(WriteStage::Finalize, OTF2_ERROR_ENOSPC, 9.0),
        failed(WriteStage::Run, OTF2_ERROR_EIO, 2.0),
        failed(WriteStage::Definitions, OTF2_ERROR_ENOSPC, 9.5),
        failed(WriteStage::Definitions, OTF2_ERROR_ENOSPC, 9.5)};
    const TraceStatus status = trace_status(ranks, true, OTF2_ERROR_ENOSPC);
    EXPECT_FALSE(status.complete);
    const std::vector<std::string> want = {
        "ranks 0,2 stopped early, 1.3 s to 3.0 s after MPI_Init (No space left on device)",
        "rank 4 stopped early, 2.0 s after MPI_Init (Generic I/O error)",
        "events of rank 3 not completely written at MPI_Finalize (No space left on device)",
        "local definitions of ranks 5,6 not written (No space left on device)",
        "definitions/anchor not written (No space left on device)"};
    EXPECT_EQ(status.missing, want);
    std::string joined, lines;
    for (const std::string& item : want) {
        joined += (joined.empty() ? "" : "; ") + item;
        lines += item + "\n";
    }
    EXPECT_EQ(trace_summary_line("/t", status), "trace in /t is incomplete: " + joined);
    EXPECT_EQ(report_path_text("/t", status), "/t\nincomplete\n" + lines);
}

TEST(WriteOutcome, DefinitionsNotTriedAreMissing) {
    const TraceStatus status =
        trace_status({failed(WriteStage::Run, OTF2_ERROR_ENOSPC, 0.5)}, false, 0);
    const std::vector<std::string> want = {
        "rank 0 stopped early, 0.5 s after MPI_Init (No space left on device)",
        "definitions/anchor not written (rank 0 could not write)"};
    EXPECT_EQ(status.missing, want);
}
