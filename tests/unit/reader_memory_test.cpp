// Reading memory per location: the reader holds an OTF2 event reader (and its chunk buffer, 1 MB
// by default) only for the location it is reading, so a trace of many small locations reads in
// memory far below 1 MB per location, in one thread or several, whole or a share of it.
#include "test_util.h"

#include "../bench/proc_status.h"
#include "test_paths.h"
#include "trace/reader.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

#include <fstream>
#include <malloc.h>

namespace topolens::test {
namespace {

using namespace topolens::trace;

constexpr uint32_t kRanks = 256;

SynthOptions options() {
    SynthOptions o;
    o.ranks = kRanks;
    o.pattern = SynthPattern::Mixed;
    o.iterations = 1;
    o.seed = 1;
    return o;
}

// Growth of the peak resident memory over `work`, in bytes; the peak is reset first.
template <class Work> uint64_t peak_growth(Work&& work) {
    malloc_trim(0); // freed heap pages would hide the growth
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5" << std::flush;
    if (!clear) return UINT64_MAX; // the caller skips
    const uint64_t base_kb = bench::status_kb("VmRSS:");
    work();
    const uint64_t hwm_kb = bench::status_kb("VmHWM:");
    return hwm_kb > base_kb ? (hwm_kb - base_kb) * 1024 : 0;
}

class ReaderMemory : public ::testing::Test {
  protected:
    // Written by `topolens synth` in its own process: its writing memory is not ours.
    static void SetUpTestSuite() {
        dir_ = new ScratchDir;
        const CommandResult r = run_command(
            {topolens::test::topolens_bin(), "synth", "-o", (*dir_ / "t").string(), "--ranks",
             std::to_string(kRanks), "--pattern", "mixed", "--iterations", "1", "--seed", "1"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    static void TearDownTestSuite() {
        delete dir_;
        dir_ = nullptr;
    }
    static std::string path() { return (*dir_ / "t").string(); }

    // Reads `share` in `threads` threads: every location of it has its synthesized events, the
    // others none, and the peak grew by far less than the 1 MB per location read that event
    // readers all open at once cost (the events themselves are a few kB per location).
    void expect_lean_read(unsigned threads, LocationShare share) {
#if defined(__SANITIZE_ADDRESS__)
        // ASan keeps freed blocks in quarantine and adds shadow memory: there the peak says
        // nothing of what the reader holds. The other stages measure it.
        GTEST_SKIP() << "peak memory is ASan's under ASan";
#endif
        const std::vector<uint64_t> expected = synth_event_counts(options());
        Trace trace;
        const uint64_t growth =
            peak_growth([&] { read_trace_into(path(), trace, threads, {}, share); });
        if (growth == UINT64_MAX) GTEST_SKIP() << "/proc/self/clear_refs refused";
        ASSERT_EQ(trace.locations.size(), kRanks);
        uint32_t read = 0;
        for (uint32_t i = 0; i < kRanks; ++i) {
            const bool in_share = i >= share.first && i < share.last;
            EXPECT_EQ(trace.locations[i].events.size(), in_share ? expected[i] : 0) << i;
            read += in_share;
        }
        const uint64_t per_location = growth / read;
        std::printf("peak growth %.1f MB for %u locations (%.1f kB each)\n", growth / 1048576.0,
                    read, per_location / 1024.0);
        EXPECT_LT(per_location, 256u * 1024) << "peak growth " << growth << " bytes";
    }

    static ScratchDir* dir_;
};

ScratchDir* ReaderMemory::dir_ = nullptr;

TEST_F(ReaderMemory, OneThreadHoldsOneEventReader) {
    expect_lean_read(1, {});
}

TEST_F(ReaderMemory, ThreadsHoldOneEventReaderEach) {
    expect_lean_read(2, {});
}

TEST_F(ReaderMemory, ShareHoldsOneEventReaderPerThread) {
    expect_lean_read(2, {64, 192});
}

} // namespace
} // namespace topolens::test
