// Damaged anchor files and global definitions are refused before the OTF2 library loads
// them (trace/anchor_check): at once, with one line naming the file, without the
// gigabytes OTF2 allocates for a damaged count.
#include "sample_trace.h"
#include "test_util.h"
#include "trace_read_error.h"

#include "test_paths.h"
#include "trace/anchor_check.h"
#include "trace/reader.h"

#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>

namespace topolens::test {
namespace {

namespace fs = std::filesystem;
using namespace topolens::trace;
using Clock = std::chrono::steady_clock;

long max_rss_kb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

fs::path write_sample(const ScratchDir& dir) {
    const fs::path t = dir / "t";
    sample_trace().write(t.string());
    return t;
}

// A command under a memory and time limit: a regression fails, it does not take the
// machine. Sanitized binaries reserve terabytes of address space: no ulimit for them.
CommandResult run_limited(const std::vector<std::string>& argv) {
#if defined(__SANITIZE_ADDRESS__)
    std::vector<std::string> limited = {"timeout", "60"};
#else
    std::vector<std::string> limited = {"sh", "-c", "ulimit -v 4000000 && exec timeout 60 \"$@\"",
                                        "limited"};
#endif
    limited.insert(limited.end(), argv.begin(), argv.end());
    return run_command(limited);
}

// The reproducers of the robustness issue: OTF2 alone spends 10 to 60 s and 2 to 10 GB.
TEST(DamagedAnchor, ReproducersFailAtOnceWithOneLine) {
    for (const char* name :
         {"anchor_flip46_10GB", "anchor_creator_unterminated", "anchor_fuzz_oom"}) {
        SCOPED_TRACE(name);
        const fs::path dir = fs::path(topolens::test::robustness_dir()) / name;
        if (!fs::exists(dir / "traces.otf2"))
            GTEST_SKIP() << dir << " missing (TOPOLENS_ROBUSTNESS_DIR)";
        for (const char* command : {"info", "analyze"}) {
            ScratchDir scratch;
            std::vector<std::string> argv = {topolens::test::topolens_bin(), command, dir.string()};
            if (std::string(command) == "analyze")
                argv.insert(argv.end(), {"-o", (scratch / "r.cubex").string()});
            const auto start = Clock::now();
            const CommandResult r = run_limited(argv);
            const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
            EXPECT_EQ(r.exit_code, 1) << r.err;
            // One line, after `analyze`'s progress line.
            std::string lines = r.err;
            if (lines.rfind("topolens: reading ", 0) == 0) lines.erase(0, lines.find('\n') + 1);
            EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 1) << r.err;
            EXPECT_CONTAINS(r.err,
                            (dir / "traces.otf2").string() + ": not a readable OTF2 anchor file: ");
            EXPECT_LT(seconds, 20.0); // well under 2 s unloaded; generous for a busy machine
        }
    }
}

TEST(DamagedAnchor, ExactProblems) {
    ScratchDir dir;
    const fs::path t = write_sample(dir);
    const std::string good = read_file(t / "traces.otf2");
    const AnchorFacts facts = parse_anchor("a", good);
    EXPECT_EQ(facts.format, 3);
    EXPECT_EQ(facts.locations, 4u);
    EXPECT_EQ(facts.substrate, OTF2_SUBSTRATE_POSIX);
    auto problem = [](const std::string& bytes) {
        try {
            parse_anchor("a", bytes);
        } catch (const TraceError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(problem(""), "a: not a readable OTF2 anchor file: no OTF2 buffer header");
    EXPECT_EQ(problem(good.substr(0, 15)),
              "a: not a readable OTF2 anchor file: ends inside the chunk sizes (at byte 12 of 15)");
    // The creator's NUL replaced: the count of properties then comes from other bytes.
    const std::string creator = facts.creator;
    ASSERT_FALSE(creator.empty());
    const size_t at = good.find(creator);
    ASSERT_NE(at, std::string::npos);
    std::string bad = good;
    bad[good.find('\0', at)] = 'x';
    bad.resize(good.find('\0', at) + 1); // nothing terminates it any more
    EXPECT_EQ(problem(bad), "a: not a readable OTF2 anchor file: creator not terminated within "
                            "the file");
    // A count of properties no file of this size holds.
    bad = good;
    const size_t properties = good.find('\0', good.find('\0', at) + 1) + 1; // after description
    bad[properties + 3] = '\x10';
    EXPECT_EQ(problem(bad).rfind("a: not a readable OTF2 anchor file: declares 268435456 "
                                 "properties, more than the ",
                                 0),
              0u)
        << problem(bad);
    // Chunk sizes outside OTF2's range (OTF2 would allocate them per reader).
    bad = good;
    bad[19] = '\x01';
    EXPECT_CONTAINS(problem(bad), "chunk size");
}

TEST(DamagedAnchor, DeclaredCountsMustFitTheDefinitions) {
    ScratchDir dir;
    const fs::path t = write_sample(dir);
    const std::string defs = read_file(t / "traces.def");
    AnchorFacts facts = parse_anchor("a", read_file(t / "traces.otf2"));
    EXPECT_NO_THROW(check_global_definitions("d", defs, facts));
    auto problem = [&](const std::string& bytes, const AnchorFacts& f) {
        try {
            check_global_definitions("d", bytes, f);
        } catch (const TraceError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    AnchorFacts more = facts;
    more.global_definitions = facts.global_definitions + 1;
    EXPECT_EQ(problem(defs, more), "d: damaged global definitions: the anchor file declares " +
                                       std::to_string(more.global_definitions) +
                                       " definitions, the file holds " +
                                       std::to_string(facts.global_definitions));
    more.global_definitions = 1u << 30;
    EXPECT_EQ(problem(defs, more), "d: damaged global definitions: the anchor file declares " +
                                       std::to_string(1u << 30) + " definitions, more than the " +
                                       std::to_string(defs.size()) + "-byte file can hold");
    // A group record of 9 bytes (self 5, name 1, two members) claiming 200 members.
    std::string header(18, '\0');
    header[0] = 3;
    header[1] = 0x42;
    const std::string group = {18, 9, 1, 5, 1, 1, 0, 1, static_cast<char>(200), 0, 0, 2};
    AnchorFacts one;
    one.global_definitions = 1;
    EXPECT_EQ(problem(header + group, one),
              "d: damaged global definitions: group 5 at byte 18 declares 200 members in 9 bytes");
    // The same group with its true count is fine.
    std::string fine = group;
    fine[8] = 2;
    EXPECT_EQ(problem(header + fine, one), "");
    // An end-of-chunk mark sends OTF2 to the next chunk: there must be one (OTF2 would parse
    // memory it never read).
    std::string cut = header + group.substr(0, 11);
    cut[18 + 8] = 2;
    cut += '\0';
    AnchorFacts chunked = facts; // the anchor's chunk size: 256 KiB or more
    chunked.global_definitions = 1;
    EXPECT_EQ(problem(cut, chunked),
              "d: damaged global definitions: an end-of-chunk mark but no further chunk (the "
              "file ends at byte 30)");
}

// OTF2 allocates a mapping table by its count when it opens the event reader.
TEST(DamagedAnchor, LocalMappingTableMustFitItsRecord) {
    ScratchDir dir;
    const fs::path t = write_sample(dir);
    std::string header(18, '\0');
    header[0] = 3;
    header[1] = 0x42;
    // A dense table of 2 entries (record of 6 bytes) claiming 200, then the end mark.
    const std::string table = {5, 6, 0, 1, static_cast<char>(200), 0, 0, 0, 2};
    write_file(t / "traces" / "1.def", header + table);
    EXPECT_EQ(read_error(t), (t / "traces" / "1.def").string() +
                                 ": damaged local definitions: mapping table at byte 18 "
                                 "declares 200 entries in 6 bytes");
}

// An end-of-chunk mark in an event file's last chunk sends OTF2 to a chunk the file does
// not have (it then parses memory it never read).
TEST(DamagedAnchor, EventFileEndsWithItsEndMark) {
    ScratchDir dir;
    const fs::path t = write_sample(dir);
    const fs::path evt = t / "traces" / "1.evt";
    std::string bytes = read_file(evt);
    ASSERT_EQ(bytes.substr(bytes.size() - 2), std::string("\x02\x01")); // end of file, buffer
    bytes[bytes.size() - 2] = '\0';
    write_file(evt, bytes);
    EXPECT_EQ(read_error(t), evt.string() + ": damaged event file (an end-of-chunk mark at byte " +
                                 std::to_string(bytes.size() - 2) +
                                 " in the last chunk: OTF2 would read a chunk the file does not "
                                 "have)");
}

// The end check walks a last chunk's records by their lengths alone where they are far
// from the end, and checks each against the end near it: cut anywhere before its end mark,
// the chunk is refused; an end-of-chunk mark anywhere is refused; timestamps pass, and so
// does a long record (an 8-byte length; the careful walk reads it).
TEST(DamagedAnchor, EventFileEndCheckedAtEveryCut) {
    ScratchDir dir;
    const fs::path evt = dir / "1.evt";
    auto check = [&](const std::string& bytes) {
        write_file(evt, bytes);
        try {
            check_event_file_end(evt.string(), 1 << 20);
        } catch (const TraceError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    for (bool with_long_record : {false, true}) {
        SCOPED_TRACE(with_long_record);
        std::string chunk(18, '\0');
        chunk[0] = 3;
        chunk[1] = 0x42;
        for (int round = 0; round < 2; ++round) // far from the end, then near it
            for (uint8_t length : {0, 1, 3, 200, 254}) {
                chunk += std::string("\x05", 1) + std::string(8, '\x07'); // a timestamp
                chunk += static_cast<char>(10);
                chunk += static_cast<char>(length);
                chunk += std::string(length, '\x09');
            }
        size_t last_record = chunk.size() - 256;
        if (with_long_record) {
            last_record = chunk.size();
            chunk += std::string("\x0a\xff\x05", 3) + std::string(7, '\0') + std::string(5, 'x');
        }
        const size_t end_mark = chunk.size();
        chunk += std::string("\x02\x01", 2);
        EXPECT_EQ(check(chunk), "");
        for (size_t size = 18; size < chunk.size(); ++size) {
            SCOPED_TRACE(size);
            const std::string error = check(chunk.substr(0, size));
            if (size > end_mark)
                EXPECT_EQ(error, "");
            else
                EXPECT_CONTAINS(error, evt.string() + ": damaged event file (");
        }
        // An end-of-chunk mark in place of a record, far from the end and near it.
        for (size_t at : {size_t(18), last_record}) {
            SCOPED_TRACE(at);
            std::string bad = chunk;
            bad[at] = '\0';
            EXPECT_EQ(check(bad), evt.string() +
                                      ": damaged event file (an end-of-chunk mark at byte " +
                                      std::to_string(at) +
                                      " in the last chunk: OTF2 would read a chunk the file "
                                      "does not have)");
        }
    }
}

// Every byte of a genuine anchor changed (to its complement and with its top bit flipped),
// and the anchor cut at every length: each read ends quickly, in a TraceError or (damage
// in a name or the trace id) a normal read, and never takes hundreds of megabytes.
TEST(DamagedAnchor, EveryByteAndEveryLength) {
    ScratchDir dir;
    const fs::path t = write_sample(dir);
    const fs::path anchor = t / "traces.otf2";
    const std::string good = read_file(anchor);
    const long rss_before = max_rss_kb();
    double slowest = 0;
    auto read_timed = [&](const std::string& bytes, const std::string& what) {
        write_file(anchor, bytes);
        const auto start = Clock::now();
        const std::string error = read_error(t);
        slowest = std::max(slowest, std::chrono::duration<double>(Clock::now() - start).count());
        EXPECT_EQ(error.find('\n'), std::string::npos) << what << ": " << error;
        return error;
    };
    for (size_t i = 0; i < good.size(); ++i)
        for (uint8_t mask : {uint8_t(0xff), uint8_t(0x80)}) {
            std::string bad = good;
            bad[i] = static_cast<char>(bad[i] ^ mask);
            read_timed(bad, "byte " + std::to_string(i));
        }
    // The anchor's last field is its end mark; two bytes of buffer end follow it.
    for (size_t size = 0; size + 2 < good.size(); ++size)
        EXPECT_CONTAINS(read_timed(good.substr(0, size), "size " + std::to_string(size)),
                        anchor.string() + ": not a readable OTF2 anchor file: ");
    EXPECT_LT(slowest, 2.0);
    EXPECT_LT(max_rss_kb() - rss_before, 500 * 1024);
    write_file(anchor, good);
    EXPECT_EQ(read_error(t), "");
}

} // namespace
} // namespace topolens::test
