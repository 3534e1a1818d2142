// Damaged or unsupported CUBE4 input: every case is a ReportError naming the file and the
// problem, never a crash, a hang or another exception. Also the writer's refusals.
#include "report_cube4_util.h"
#include "report_sample.h"
#include "test_util.h"

#include "analyzer/report/cube4.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include <sys/stat.h>

namespace topolens::test {
namespace {

using namespace topolens::report;

// One metric (id 0, DOUBLE), one region, one call path, two locations; `metric_type`,
// `dtype`, `callee`, `coord_location` let cases break one thing each.
std::string anchor(const std::string& metric_type = "EXCLUSIVE",
                   const std::string& dtype = "DOUBLE", const std::string& callee = "0",
                   const std::string& coord_location = "1") {
    return R"(<?xml version="1.0" encoding="UTF-8"?>
<cube version="4.4">
<metrics><metric id="0" type=")" +
           metric_type + R"("><disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>)" +
           dtype + R"(</dtype><uom>sec</uom></metric></metrics>
<program><region id="0" mod="" begin="-1" end="-1"><name>main</name></region>
<cnode id="0" calleeId=")" +
           callee + R"("></cnode></program>
<system><systemtreenode Id="0"><name>m</name><class>machine</class>
<systemtreenode Id="1"><name>h</name><class>node</class>
<locationgroup Id="0"><name>P0</name><rank>0</rank><type>process</type>
<location Id="0"><name>T</name><rank>0</rank><type>thread</type></location></locationgroup>
<locationgroup Id="1"><name>P1</name><rank>1</rank><type>process</type>
<location Id="1"><name>T</name><rank>0</rank><type>thread</type></location></locationgroup>
</systemtreenode></systemtreenode>
<topologies><cart name="g" ndims="1"><dim size="2" periodic="false"/><coord locId=")" +
           coord_location + R"(">1</coord></cart></topologies>
</system></cube>
)";
}

const std::string kGoodData = "CUBEX.DATA" + le_double(1) + le_double(2);

// The size of the first member (anchor.xml) from its ustar header's octal size field.
std::size_t read_cube4_anchor_size(const std::string& archive) {
    return static_cast<std::size_t>(std::stoull(archive.substr(124, 11), nullptr, 8));
}

class Damaged : public ::testing::Test {
  protected:
    ScratchDir dir;
    std::string path = (dir / "r.cubex").string();

    // Reading `path` fails with a ReportError whose message names the file and `problem`.
    void expect_error(const std::string& problem) {
        try {
            read_cube4(path);
            ADD_FAILURE() << "no error; expected one about: " << problem;
        } catch (const ReportError& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find(path), std::string::npos) << message;
            EXPECT_NE(message.find(problem), std::string::npos) << message;
        } catch (const std::exception& e) {
            ADD_FAILURE() << "not a ReportError: " << e.what();
        }
    }

    void archive(const std::vector<std::pair<std::string, std::string>>& members) {
        write_archive(path, members);
    }
};

TEST_F(Damaged, TheMinimalArchiveIsFine) {
    archive({{"anchor.xml", anchor()}, {"0.index", sparse_index({0})}, {"0.data", kGoodData}});
    const Report r = read_cube4(path);
    EXPECT_EQ(r.value(0, 0, 1), 2.0);
    EXPECT_EQ(r.topologies[0].coords[1], std::vector<uint32_t>{1});
}

TEST_F(Damaged, MissingFile) {
    expect_error("cannot open");
}

TEST_F(Damaged, Directory) {
    std::filesystem::create_directory(path);
    expect_error("is a directory");
}

TEST_F(Damaged, FifoIsRefusedBeforeOpening) {
    // Opening a FIFO blocks until a writer comes: the reader must not even try.
    ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
    expect_error("not a regular file (a FIFO)");
}

TEST_F(Damaged, EmptyFile) {
    write_file(path, "");
    expect_error("empty file");
}

TEST_F(Damaged, NotATar) {
    write_file(path, std::string(2000, 'x'));
    expect_error("not a tar archive");
    write_file(path, "short");
    expect_error("not a tar archive");
}

TEST_F(Damaged, GzipArchiveAndGzipAnchor) {
    write_file(path, std::string("\x1f\x8b\x08\x00", 4) + std::string(600, '\0'));
    expect_error("gzip");
    archive({{"anchor.xml", std::string("\x1f\x8b\x08\x00rest", 8)}});
    expect_error("anchor.xml is gzip-compressed");
}

TEST_F(Damaged, TruncatedArchive) {
    write_cube4(sample_report(), path);
    const std::string whole = read_file(path);
    write_file(path, whole.substr(0, 700)); // inside anchor.xml's data
    expect_error("truncated");
    // inside the data of the last member (7.data, 42 bytes, before 1024 bytes of end blocks)
    write_file(path, whole.substr(0, whole.size() - 1024 - 512 + 20));
    expect_error("truncated: member '7.data' needs 42 bytes");
    // at a member boundary: every member before the cut is whole, the rest is missing
    const std::size_t after_anchor = 512 + (read_cube4_anchor_size(whole) + 511) / 512 * 512;
    write_file(path, whole.substr(0, after_anchor));
    expect_error("end-of-archive blocks are missing (the file ends at byte " +
                 std::to_string(after_anchor) + ", after member 'anchor.xml')");
    // inside the end-of-archive blocks: one zero block is not the end
    write_file(path, whole.substr(0, whole.size() - 512));
    expect_error("end-of-archive blocks are missing");
    write_file(path, whole); // and the whole file is fine
    EXPECT_NO_THROW(read_cube4(path));
}

TEST_F(Damaged, DamagedHeaderChecksum) {
    archive({{"anchor.xml", anchor()}, {"0.index", sparse_index({0})}, {"0.data", kGoodData}});
    std::string bytes = read_file(path);
    const std::size_t second = 512 + (anchor().size() + 511) / 512 * 512;
    bytes[second + 1] ^= 0x20; // "0.index" -> "0\x0eindex": the checksum no longer matches
    write_file(path, bytes);
    expect_error("damaged tar header");
}

TEST_F(Damaged, MissingAnchor) {
    archive({{"0.index", sparse_index({0})}, {"0.data", kGoodData}});
    expect_error("no anchor.xml");
}

TEST_F(Damaged, MalformedXml) {
    archive({{"anchor.xml", "<?xml version=\"1.0\"?>\n<cube version=\"4.4\"><metrics>"}});
    expect_error("malformed XML");
    archive({{"anchor.xml", "<?xml version=\"1.0\"?>\n<report/>"}});
    expect_error("no <cube> element");
    archive({{"anchor.xml", "<cube version=\"3.0\"></cube>"}});
    expect_error("version '3.0' is not supported");
}

TEST_F(Damaged, MissingDataOrIndexFile) {
    archive({{"anchor.xml", anchor()}, {"0.index", sparse_index({0})}});
    expect_error("0.data is missing");
    archive({{"anchor.xml", anchor()}, {"0.data", kGoodData}});
    expect_error("0.index is missing");
}

TEST_F(Damaged, ImpossibleValues) {
    // NaN and infinity are no value; a time (or count) cannot be negative beyond rounding
    // (RoundTripOfValuesThatAreNotRound keeps -2.5e-300). The message names the member, the
    // metric, the call path and the location.
    const auto with_second = [&](double value) {
        archive({{"anchor.xml", anchor()},
                 {"0.index", sparse_index({0})},
                 {"0.data", "CUBEX.DATA" + le_double(1) + le_double(value)}});
    };
    with_second(std::nan(""));
    expect_error("0.data: metric 'time' (id 0) holds an impossible value (nan) at call path 0, "
                 "location 1");
    with_second(-std::numeric_limits<double>::infinity());
    expect_error("0.data: metric 'time' (id 0) holds an impossible value (-inf)");
    with_second(-1e300);
    expect_error("0.data: metric 'time' (id 0) holds an impossible value (-1e+300)");
    // Any negative value, at any location.
    archive({{"anchor.xml", anchor()},
             {"0.index", sparse_index({0})},
             {"0.data", "CUBEX.DATA" + le_double(-2) + le_double(1)}});
    expect_error("holds an impossible value (-2) at call path 0, location 0");
    // Zero and positive values are read.
    with_second(0.0);
    EXPECT_EQ(read_cube4(path).value(0, 0, 1), 0.0);
}

TEST_F(Damaged, WrongDataSize) {
    archive({{"anchor.xml", anchor()},
             {"0.index", sparse_index({0})},
             {"0.data", "CUBEX.DATA" + le_double(1)}});
    expect_error("0.data: wrong size");
    archive(
        {{"anchor.xml", anchor()}, {"0.index", sparse_index({0})}, {"0.data", kGoodData + "x"}});
    expect_error("0.data: wrong size");
}

TEST_F(Damaged, WrongIndexFiles) {
    archive({{"anchor.xml", anchor()}, {"0.index", "CUBEX.INDEXX"}, {"0.data", kGoodData}});
    expect_error("0.index: too short");
    archive({{"anchor.xml", anchor()}, {"0.index", "NOT.AN.INDEX......"}, {"0.data", kGoodData}});
    expect_error("0.index: not a CUBE index");
    archive({{"anchor.xml", anchor()},
             {"0.index", "CUBEX.INDEX" + le32(7) + le16(0) + std::string(1, '\1') + le32(0)},
             {"0.data", "CUBEX.DATA"}});
    expect_error("0.index: bad byte-order marker");
    archive({{"anchor.xml", anchor()},
             {"0.index", "CUBEX.INDEX" + le32(1) + le16(0) + std::string(1, '\2')},
             {"0.data", "CUBEX.DATA"}});
    expect_error("0.index: unknown index format 2");
    archive(
        {{"anchor.xml", anchor()}, {"0.index", sparse_index({0}) + "xx"}, {"0.data", kGoodData}});
    expect_error("0.index: wrong size");
    // An index entry naming a call path the anchor does not define.
    archive({{"anchor.xml", anchor()}, {"0.index", sparse_index({1})}, {"0.data", kGoodData}});
    expect_error("entry 1 names a call path that does not exist");
}

TEST_F(Damaged, UnknownIds) {
    archive({{"anchor.xml", anchor("EXCLUSIVE", "DOUBLE", "7")}});
    expect_error("cnode 0 calls undefined region 7");
    archive({{"anchor.xml", anchor("EXCLUSIVE", "DOUBLE", "0", "9")}});
    expect_error("names undefined location 9");
    archive({{"anchor.xml", anchor("EXCLUSIVE", "DOUBLE", "x")}});
    expect_error("calleeId=\"x\" is not a non-negative integer");
}

TEST_F(Damaged, UnsupportedContent) {
    archive({{"anchor.xml", anchor()},
             {"0.index", sparse_index({0})},
             {"0.data", "ZCUBEX.DATA" + std::string(20, '\0')}});
    expect_error("compressed (ZCUBEX) data is not supported");
    archive({{"anchor.xml", anchor("EXCLUSIVE", "COMPLEX")},
             {"0.index", sparse_index({0})},
             {"0.data", kGoodData}});
    expect_error("data type COMPLEX is not supported");
    archive({{"anchor.xml", anchor("SIMPLE")}});
    expect_error("metric type SIMPLE is not supported");
    // An unsupported dtype without values is harmless.
    archive({{"anchor.xml", anchor("EXCLUSIVE", "COMPLEX")}});
    EXPECT_NO_THROW(read_cube4(path));
}

TEST_F(Damaged, NestingTooDeep) {
    std::string metrics;
    for (int i = 0; i < 5000; ++i)
        metrics += "<metric id=\"" + std::to_string(i) + "\"><uniq_name>m" + std::to_string(i) +
                   "</uniq_name>";
    for (int i = 0; i < 5000; ++i) metrics += "</metric>";
    std::string a = anchor();
    const std::size_t begin = a.find("<metrics>") + 9, end = a.find("</metrics>");
    a.replace(begin, end - begin, metrics);
    archive({{"anchor.xml", a}});
    expect_error("metrics nested too deeply");
}

TEST_F(Damaged, DeepCallTreesAreFine) {
    std::string cnodes;
    const int depth = 20000;
    for (int i = 0; i < depth; ++i)
        cnodes += "<cnode id=\"" + std::to_string(i) + "\" calleeId=\"0\">";
    for (int i = 0; i < depth; ++i) cnodes += "</cnode>";
    std::string a = anchor();
    const std::size_t begin = a.find("<cnode"), end = a.find("</program>");
    a.replace(begin, end - begin, cnodes);
    archive({{"anchor.xml", a}, {"0.index", sparse_index({depth - 1})}, {"0.data", kGoodData}});
    const Report r = read_cube4(path);
    ASSERT_EQ(r.callpaths.size(), static_cast<std::size_t>(depth));
    EXPECT_EQ(r.value(0, depth - 1, 1), 2.0);
    EXPECT_EQ(r.total(0), 3.0);
    // and back out, and in again
    write_cube4(r, (dir / "deep.cubex").string());
    EXPECT_EQ(read_cube4((dir / "deep.cubex").string()).total(0), 3.0);
}

TEST_F(Damaged, CoordinatesOutOfRange) {
    std::string a = anchor();
    a.replace(a.find(">1</coord>"), 10, ">2</coord>");
    archive({{"anchor.xml", a}});
    expect_error("coordinate 2 is outside dimension 0 (size 2)");
}

// Whatever the damage, reading ends in a ReportError or a report: never a crash, a hang or
// another exception.
TEST_F(Damaged, CutAndFlippedBytesNeverCrash) {
    write_cube4(sample_report(), path);
    const std::string whole = read_file(path);
    std::size_t errors = 0, reads = 0;
    auto attempt = [&](const std::string& bytes) {
        write_file(path, bytes);
        try {
            read_cube4(path);
            ++reads;
        } catch (const ReportError&) {
            ++errors;
        }
    };
    for (std::size_t length = 0; length < whole.size(); length += 61)
        attempt(whole.substr(0, length));
    for (std::size_t at = 0; at < whole.size(); at += 53) {
        std::string bytes = whole;
        bytes[at] = static_cast<char>(bytes[at] ^ 0x5a);
        attempt(bytes);
    }
    EXPECT_GT(errors, 0u);
    EXPECT_GT(reads, 0u); // flips inside values or padding still read
}

TEST(Cube4Write, RefusesWhatCubeCannotRepresent) {
    ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    auto expect_refusal = [&](const Report& r, const std::string& problem) {
        try {
            write_cube4(r, path);
            ADD_FAILURE() << "written; expected a refusal about: " << problem;
        } catch (const ReportError& e) {
            EXPECT_NE(std::string(e.what()).find("cannot write " + path), std::string::npos)
                << e.what();
            EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
        }
        EXPECT_FALSE(std::filesystem::exists(path));
    };
    expect_refusal(Report{}, "no metrics");
    Report r = sample_report();
    r.topologies[0].coords[1] = {2, 0};
    expect_refusal(r, "coordinate 2 of location 1 is outside dimension 0 (size 2)");
    r = sample_report();
    r.topologies[1].periodic.clear();
    expect_refusal(r, "1 sizes but 0 periodic flags");
    r = sample_report();
    r.metrics[7].unique_name = "visits";
    expect_refusal(r, "two metrics are named 'visits'");
    r = sample_report();
    r.callpaths[5].parent = 1; // still listed under solver
    expect_refusal(r, "call path 5 is listed as a child of 2 but names parent 1");

    try {
        write_cube4(sample_report(), (dir / "no/such/dir/r.cubex").string());
        ADD_FAILURE() << "written into a missing directory";
    } catch (const ReportError& e) {
        EXPECT_NE(std::string(e.what()).find("no/such/dir/r.cubex"), std::string::npos);
    }
}

} // namespace
} // namespace topolens::test
