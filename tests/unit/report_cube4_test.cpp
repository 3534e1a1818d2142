// CUBE4 files: our reports round-trip, the archive and anchor.xml have the structure Cube's
// tools expect, the binary index/data files are laid out as the format says, and reports
// written by other tools (Score-P-style INCLUSIVE metrics, "Id" spellings, Cube 3 system
// trees, big-endian data, dense indexes, derived metrics) read correctly.
#include "report_cube4_util.h"
#include "report_sample.h"
#include "test_util.h"

#include "analyzer/report/cube4.h"
#include "analyzer/report/tar.h"

#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

namespace topolens::test {
namespace {

using namespace topolens::report;
namespace fs = std::filesystem;

// Call paths in depth-first order (roots and children in id order).
std::vector<int> depth_first(const Report& r) {
    std::vector<int> order;
    std::vector<int> stack;
    for (int c = static_cast<int>(r.callpaths.size()) - 1; c >= 0; --c)
        if (r.callpaths[c].parent == -1) stack.push_back(c);
    while (!stack.empty()) {
        const int c = stack.back();
        stack.pop_back();
        order.push_back(c);
        const auto& children = r.callpaths[c].children;
        for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
    return order;
}

// Everything equal; call paths are matched by their depth-first position, since CUBE numbers
// them so (with `same_ids`, their ids must be equal as well).
void expect_equal_reports(const Report& a, const Report& b, bool same_ids = false) {
    ASSERT_EQ(a.metrics.size(), b.metrics.size());
    for (std::size_t m = 0; m < a.metrics.size(); ++m) {
        SCOPED_TRACE("metric " + std::to_string(m));
        EXPECT_EQ(a.metrics[m].unique_name, b.metrics[m].unique_name);
        EXPECT_EQ(a.metrics[m].display_name, b.metrics[m].display_name);
        EXPECT_EQ(a.metrics[m].description, b.metrics[m].description);
        EXPECT_EQ(a.metrics[m].unit, b.metrics[m].unit);
        EXPECT_EQ(a.metrics[m].url, b.metrics[m].url);
        EXPECT_EQ(a.metrics[m].parent, b.metrics[m].parent);
        EXPECT_EQ(a.metrics[m].children, b.metrics[m].children);
        EXPECT_EQ(a.metrics[m].derived_type, b.metrics[m].derived_type);
        EXPECT_EQ(a.metrics[m].cubepl, b.metrics[m].cubepl);
    }
    ASSERT_EQ(a.regions.size(), b.regions.size());
    for (std::size_t r = 0; r < a.regions.size(); ++r) {
        SCOPED_TRACE("region " + std::to_string(r));
        EXPECT_EQ(a.regions[r].name, b.regions[r].name);
        EXPECT_EQ(a.regions[r].canonical_name, b.regions[r].canonical_name);
        EXPECT_EQ(a.regions[r].description, b.regions[r].description);
        EXPECT_EQ(a.regions[r].source_file, b.regions[r].source_file);
        EXPECT_EQ(a.regions[r].paradigm, b.regions[r].paradigm);
        EXPECT_EQ(a.regions[r].role, b.regions[r].role);
        EXPECT_EQ(a.regions[r].begin_line, b.regions[r].begin_line);
        EXPECT_EQ(a.regions[r].end_line, b.regions[r].end_line);
    }
    ASSERT_EQ(a.callpaths.size(), b.callpaths.size());
    const std::vector<int> order_a = depth_first(a), order_b = depth_first(b);
    ASSERT_EQ(order_a.size(), a.callpaths.size());
    ASSERT_EQ(order_b.size(), b.callpaths.size());
    std::vector<int> to_b(a.callpaths.size());
    for (std::size_t i = 0; i < order_a.size(); ++i) to_b[order_a[i]] = order_b[i];
    auto mapped = [&](int c) { return c == -1 ? -1 : to_b[c]; };
    for (std::size_t c = 0; c < a.callpaths.size(); ++c) {
        SCOPED_TRACE("call path " + std::to_string(c));
        const int cb = to_b[c];
        if (same_ids) {
            EXPECT_EQ(cb, static_cast<int>(c));
        }
        EXPECT_EQ(a.callpaths[c].region, b.callpaths[cb].region);
        EXPECT_EQ(mapped(a.callpaths[c].parent), b.callpaths[cb].parent);
        std::vector<int> children;
        for (int child : a.callpaths[c].children) children.push_back(mapped(child));
        EXPECT_EQ(children, b.callpaths[cb].children);
        EXPECT_EQ(a.callpath_name(static_cast<int>(c)), b.callpath_name(cb));
    }
    ASSERT_EQ(a.locations.size(), b.locations.size());
    for (std::size_t l = 0; l < a.locations.size(); ++l) {
        SCOPED_TRACE("location " + std::to_string(l));
        EXPECT_EQ(a.locations[l].name, b.locations[l].name);
        EXPECT_EQ(a.locations[l].host, b.locations[l].host);
        EXPECT_EQ(a.locations[l].process, b.locations[l].process);
        EXPECT_EQ(a.locations[l].rank, b.locations[l].rank);
        EXPECT_EQ(a.locations[l].thread, b.locations[l].thread);
    }
    ASSERT_EQ(a.topologies.size(), b.topologies.size());
    for (std::size_t t = 0; t < a.topologies.size(); ++t) {
        SCOPED_TRACE("topology " + std::to_string(t));
        EXPECT_EQ(a.topologies[t].name, b.topologies[t].name);
        EXPECT_EQ(a.topologies[t].dim_names, b.topologies[t].dim_names);
        EXPECT_EQ(a.topologies[t].sizes, b.topologies[t].sizes);
        EXPECT_EQ(a.topologies[t].periodic, b.topologies[t].periodic);
        EXPECT_EQ(a.topologies[t].coords, b.topologies[t].coords);
    }
    // Creator names the tool that wrote the file: topolens for every file we write.
    auto without_creator = [](std::map<std::string, std::string> attributes) {
        attributes.erase("Creator");
        return attributes;
    };
    EXPECT_EQ(without_creator(a.attributes), without_creator(b.attributes));
    EXPECT_EQ(b.attributes.at("Creator").rfind("topolens ", 0), 0u) << b.attributes.at("Creator");
    EXPECT_EQ(a.mirrors, b.mirrors);
    for (std::size_t m = 0; m < a.metrics.size(); ++m)
        for (std::size_t c = 0; c < a.callpaths.size(); ++c)
            for (std::size_t l = 0; l < a.locations.size(); ++l)
                EXPECT_EQ(a.value(m, c, l), b.value(m, to_b[c], l))
                    << "metric " << m << " call path " << c << " location " << l;
}

TEST(Cube4, RoundTripKeepsEverything) {
    ScratchDir dir;
    const Report original = sample_report();
    const std::string path = (dir / "r.cubex").string();
    write_cube4(original, path);
    const Report read = read_cube4(path);
    expect_equal_reports(original, read);
    EXPECT_EQ(read.total(0), 17.5);
    // Call paths come back numbered depth-first: MPI_Allreduce, created before the solver's
    // calls, is now the last.
    EXPECT_EQ(read.callpath_name(5), "program/main/MPI_Allreduce");
    EXPECT_EQ(read.callpath_name(3), "program/main/solver/MPI_Recv");
    // A report numbered so keeps its ids.
    write_cube4(read, (dir / "again.cubex").string());
    expect_equal_reports(read, read_cube4((dir / "again.cubex").string()), /*same_ids=*/true);
}

TEST(Cube4, RoundTripOfValuesThatAreNotRound) {
    ScratchDir dir;
    Report r = sample_report();
    r.set_value(0, 5, 2, 1.0 / 3.0);
    // A leaf metric: a parent's stored value holds its children's, which would absorb it.
    r.set_value(7, 5, 3, -2.5e-300);
    r.set_value(6, 5, 0, 123456789012.0);
    write_cube4(r, (dir / "r.cubex").string());
    const Report back = read_cube4((dir / "r.cubex").string());
    const auto send = back.find_callpath("program/main/solver/MPI_Send");
    ASSERT_TRUE(send);
    EXPECT_EQ(back.value(0, *send, 2), 1.0 / 3.0);
    EXPECT_EQ(back.value(7, *send, 3), -2.5e-300);
    EXPECT_EQ(back.value(6, *send, 0), 123456789012.0);
}

TEST(Cube4, WritingIsDeterministicAndReplacesTheFile) {
    ScratchDir dir;
    const std::string a = (dir / "a.cubex").string(), b = (dir / "b.cubex").string();
    write_cube4(sample_report(), a);
    write_cube4(sample_report(), b);
    EXPECT_EQ(read_file(a), read_file(b));
    write_file(b, "old content");
    write_cube4(sample_report(), b);
    EXPECT_EQ(read_file(a), read_file(b));
    EXPECT_FALSE(std::filesystem::exists(b + ".tmp"));
}

TEST(Cube4, ArchiveHoldsAnchorAndFilesOfMetricsWithValues) {
    ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    write_cube4(sample_report(), path);
    tar::Reader archive(path);
    std::vector<std::string> names;
    for (const tar::Entry& e : archive.entries()) names.push_back(e.name);
    // mpi_collective (4) holds no values of its own but Cube stores it with Wait at NxN's;
    // a metric without values anywhere below it would have no files, as cubew does it.
    EXPECT_EQ(names, (std::vector<std::string>{"anchor.xml", "0.index", "0.data", "1.index",
                                               "1.data", "2.index", "2.data", "3.index", "3.data",
                                               "4.index", "4.data", "5.index", "5.data", "6.index",
                                               "6.data", "7.index", "7.data"}));
    // Plain ustar: 512-byte header with magic "ustar\0" and version "00", data padded.
    const std::string bytes = read_file(path);
    ASSERT_GE(bytes.size(), 1024u);
    EXPECT_EQ(bytes.substr(0, 10), std::string("anchor.xml"));
    EXPECT_EQ(bytes.substr(257, 8), std::string("ustar\0"
                                                "00",
                                                8));
    EXPECT_EQ(bytes.size() % 512, 0u);
    EXPECT_EQ(bytes.substr(bytes.size() - 1024), std::string(1024, '\0'));
}

// cubelib looks for the next tar header one block further than the standard after a
// member whose size is a multiple of 512: the anchor never has such a size, whatever the
// report holds, and still reads back.
TEST(Cube4, NoMemberSizeIsAMultipleOf512) {
    ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    Report r = sample_report();
    int padded = 0;
    for (std::size_t length = 0; length < 512; ++length) {
        r.attributes["filler"] = std::string(length, 'x');
        write_cube4(r, path);
        tar::Reader archive(path);
        for (const tar::Entry& e : archive.entries())
            ASSERT_NE(e.size % 512, 0u) << e.name << " with a filler of " << length;
        const std::string anchor = archive.read(*archive.find("anchor.xml"));
        padded += anchor.back() == '\n' && anchor[anchor.size() - 2] == '\n';
    }
    EXPECT_GE(padded, 1); // some filler length hit a multiple of 512 and was padded
    EXPECT_EQ(read_cube4(path).attributes.at("filler"), std::string(511, 'x'));
}

TEST(Cube4, AnchorDeclaresMetricsProgramSystemAndTopologies) {
    ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    write_cube4(sample_report(), path);
    tar::Reader archive(path);
    const std::string anchor = archive.read(*archive.find("anchor.xml"));

    // What Cube's flex scanner matches literally.
    EXPECT_EQ(anchor.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0), 0u) << anchor;
    EXPECT_NE(anchor.find("<cube version=\"4.4\">"), std::string::npos);
    EXPECT_NE(anchor.find("<cart name=\"grid\" ndims=\"2\">"), std::string::npos);
    EXPECT_NE(anchor.find("<url></url>"), std::string::npos);
    EXPECT_FALSE(std::regex_search(anchor, std::regex("<(name|url|descr|mangled_name|disp_name|"
                                                      "uniq_name|dtype|uom|paradigm|role|class|"
                                                      "type|rank|mirrors|cnode|topologies|"
                                                      "location)\\s*/>")))
        << "empty-element tags Cube's scanner does not accept";
    EXPECT_EQ(anchor.find("<!--"), std::string::npos);
    // ... while <attr> and <dim> must be empty-element tags.
    EXPECT_NE(anchor.find("<attr key=\"topolens.trace\" value=\"/data/run1/traces.otf2\" />"),
              std::string::npos);
    EXPECT_NE(anchor.find("<dim name=\"x\" size=\"2\" periodic=\"true\" />"), std::string::npos);
    EXPECT_EQ(anchor.find("</attr>"), std::string::npos);
    EXPECT_EQ(anchor.find("</dim>"), std::string::npos);
    EXPECT_NE(anchor.find("<cnode id=\"3\" calleeId=\"4\"></cnode>"), std::string::npos);

    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_string(anchor.c_str())) << anchor;
    const pugi::xml_node cube = doc.child("cube");
    ASSERT_TRUE(cube);
    EXPECT_STREQ(cube.attribute("version").value(), "4.4");
    // <attr> elements come first, then <doc>, <metrics>, <program>, <system>.
    std::vector<std::string> order;
    for (pugi::xml_node n : cube.children())
        if (order.empty() || order.back() != n.name()) order.push_back(n.name());
    EXPECT_EQ(order, (std::vector<std::string>{"attr", "doc", "metrics", "program", "system"}));
    std::map<std::string, std::string> attrs;
    for (pugi::xml_node a : cube.children("attr"))
        attrs[a.attribute("key").value()] = a.attribute("value").value();
    EXPECT_EQ(attrs["Cube anchor.xml syntax version"], "4.4");
    EXPECT_EQ(attrs["topolens.trace"], "/data/run1/traces.otf2");
    EXPECT_EQ(attrs["note"], "a<b & \"c\" > d");
    EXPECT_TRUE(cube.child("doc").child("mirrors"));

    // metrics: nested, EXCLUSIVE, DOUBLE
    const pugi::xml_node time = cube.child("metrics").child("metric");
    EXPECT_STREQ(time.attribute("id").value(), "0");
    EXPECT_STREQ(time.attribute("type").value(), "EXCLUSIVE");
    EXPECT_STREQ(time.child_value("disp_name"), "Time");
    EXPECT_STREQ(time.child_value("uniq_name"), "time");
    EXPECT_STREQ(time.child_value("dtype"), "DOUBLE");
    EXPECT_STREQ(time.child_value("uom"), "sec");
    EXPECT_STREQ(time.child_value("url"), "https://example.org/metrics#time");
    EXPECT_STREQ(time.child_value("descr"), "Description of Time.");
    const pugi::xml_node wo =
        time.child("metric").child("metric").child("metric"); // time > mpi > ls > wo
    EXPECT_STREQ(wo.child_value("uniq_name"), "mpi_latesender_wo");
    EXPECT_STREQ(wo.attribute("id").value(), "3");
    std::vector<std::string> roots;
    for (pugi::xml_node m : cube.child("metrics").children("metric"))
        roots.push_back(m.child_value("uniq_name"));
    EXPECT_EQ(roots, (std::vector<std::string>{"time", "visits", "clock_violations"}));

    // program: regions, then nested cnodes naming their regions
    const pugi::xml_node program = cube.child("program");
    const pugi::xml_node main = program.find_child_by_attribute("region", "id", "1");
    EXPECT_STREQ(main.attribute("mod").value(), "app.c");
    EXPECT_STREQ(main.attribute("begin").value(), "10");
    EXPECT_STREQ(main.attribute("end").value(), "90");
    EXPECT_STREQ(main.child_value("name"), "main");
    EXPECT_STREQ(main.child_value("mangled_name"), "_main");
    EXPECT_STREQ(main.child_value("paradigm"), "user");
    EXPECT_STREQ(main.child_value("role"), "function");
    EXPECT_STREQ(main.child_value("descr"), "the main region");
    const pugi::xml_node root = program.child("cnode");
    EXPECT_STREQ(root.attribute("id").value(), "0");
    EXPECT_STREQ(root.attribute("calleeId").value(), "0");
    // cnode ids are depth-first positions, calleeIds region ids
    const pugi::xml_node recv = root.child("cnode").child("cnode").child("cnode");
    EXPECT_STREQ(recv.attribute("id").value(), "3");
    EXPECT_STREQ(recv.attribute("calleeId").value(), "4");
    const pugi::xml_node allreduce = root.child("cnode").child("cnode").next_sibling("cnode");
    EXPECT_STREQ(allreduce.attribute("id").value(), "5");
    EXPECT_STREQ(allreduce.attribute("calleeId").value(), "3");
    EXPECT_FALSE(program.child("cnode").next_sibling("cnode")); // one root

    // system: machine > node > process > thread, then topologies
    const pugi::xml_node system = cube.child("system");
    const pugi::xml_node machine = system.child("systemtreenode");
    EXPECT_STREQ(machine.child_value("class"), "machine");
    std::vector<std::string> nodes;
    for (pugi::xml_node n : machine.children("systemtreenode")) {
        EXPECT_STREQ(n.child_value("class"), "node");
        nodes.push_back(n.child_value("name"));
    }
    EXPECT_EQ(nodes, (std::vector<std::string>{"nodeA", "nodeB"}));
    const pugi::xml_node group =
        machine.child("systemtreenode").next_sibling("systemtreenode").child("locationgroup");
    EXPECT_STREQ(group.child_value("name"), "MPI Rank 2");
    EXPECT_STREQ(group.child_value("rank"), "2");
    EXPECT_STREQ(group.child_value("type"), "process");
    std::vector<std::string> group_children;
    for (pugi::xml_node n : group.children()) group_children.push_back(n.name());
    EXPECT_EQ(group_children, (std::vector<std::string>{"name", "rank", "type", "location"}));
    const pugi::xml_node location = group.child("location");
    EXPECT_STREQ(location.attribute("Id").value(), "2");
    EXPECT_STREQ(location.child_value("name"), "Master thread");
    EXPECT_STREQ(location.child_value("rank"), "0");
    EXPECT_STREQ(location.child_value("type"), "thread");

    const pugi::xml_node topologies = system.child("topologies");
    ASSERT_TRUE(topologies);
    EXPECT_FALSE(topologies.next_sibling()); // the last element of <system>
    const pugi::xml_node grid = topologies.child("cart");
    EXPECT_STREQ(grid.attribute("name").value(), "grid");
    EXPECT_STREQ(grid.attribute("ndims").value(), "2");
    const pugi::xml_node x = grid.child("dim");
    EXPECT_STREQ(x.attribute("name").value(), "x");
    EXPECT_STREQ(x.attribute("size").value(), "2");
    EXPECT_STREQ(x.attribute("periodic").value(), "true");
    EXPECT_STREQ(x.next_sibling("dim").attribute("periodic").value(), "false");
    const pugi::xml_node coord1 = grid.find_child_by_attribute("coord", "locId", "1");
    EXPECT_STREQ(coord1.child_value(), "1 0");
    EXPECT_STREQ(grid.find_child_by_attribute("coord", "locId", "2").child_value(), "0 1");
    const pugi::xml_node line = grid.next_sibling("cart");
    EXPECT_STREQ(line.attribute("name").value(), "line");
    EXPECT_FALSE(line.child("dim").attribute("name"));
    EXPECT_EQ(std::distance(line.children("coord").begin(), line.children("coord").end()), 2);
}

// A member of 8 GiB or more gets its size from a pax record, alone in its extended header
// (the form cubelib reads); the archive is made sparse so that the test writes no data.
TEST(Cube4, HugeMembersHaveTheirSizeInAPaxRecord) {
    ScratchDir dir;
    const uint64_t size = (uint64_t{1} << 33) + 5;
    const std::string header = tar::member_header("7.data", size);
    ASSERT_EQ(header.size(), 3u * 512);
    EXPECT_EQ(header[156], 'x');
    // 2 + 6 + 10 digits + newline: the record counts its own length, then zeros.
    EXPECT_EQ(header.substr(512, 20), std::string("19 size=8589934597\n\0", 20));
    EXPECT_EQ(header[1024 + 156], '0');
    EXPECT_EQ(tar::member_header("0.index", 100).size(), 512u);
    const fs::path path = dir / "huge.cubex";
    {
        std::ofstream out(path, std::ios::binary);
        out << header;
        out.seekp(static_cast<std::streamoff>(header.size() + size + (512 - size % 512) + 1023));
        out.put('\0'); // the end of archive: two zero blocks
    }
    tar::Reader archive(path.string());
    ASSERT_EQ(archive.entries().size(), 1u);
    EXPECT_EQ(archive.entries()[0].name, "7.data");
    EXPECT_EQ(archive.entries()[0].size, size);
    EXPECT_EQ(archive.entries()[0].offset, 3u * 512);
    const CommandResult listing = run_command({"tar", "tvf", path.string()});
    EXPECT_EQ(listing.exit_code, 0) << listing.err;
    EXPECT_NE(listing.out.find(" 8589934597 "), std::string::npos) << listing.out;
}

TEST(Cube4, IndexAndDataFilesHaveTheFormatsHeaders) {
    ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    write_cube4(sample_report(), path);
    tar::Reader archive(path);

    // Late Sender: one row, MPI_Recv (call path 4, depth-first position 3), with its Wrong
    // Order part: stored values are inclusive along the metric tree, as Cube reads them.
    const std::string index = archive.read(*archive.find("2.index"));
    EXPECT_EQ(index, std::string("CUBEX.INDEX") + le32(1) + le16(0) + std::string(1, '\1') +
                         le32(1) + le32(3));
    const std::string data = archive.read(*archive.find("2.data"));
    EXPECT_EQ(data, std::string("CUBEX.DATA") + le_double(.5) + le_double(1.25) + le_double(0) +
                        le_double(0));

    // MPI with Late Sender and Wait at NxN, rows in depth-first order: Recv (3), Send (4),
    // Allreduce (5).
    EXPECT_EQ(archive.read(*archive.find("1.index")), std::string("CUBEX.INDEX") + le32(1) +
                                                          le16(0) + std::string(1, '\1') + le32(3) +
                                                          le32(3) + le32(4) + le32(5));
    std::string mpi = "CUBEX.DATA";
    for (double v : {.75, 1.75, 0., 0., .125, 0., 0., .125, .5, .625, .75, .875})
        mpi += le_double(v);
    EXPECT_EQ(archive.read(*archive.find("1.data")), mpi);

    // Time holds MPI below it: rows at program (0), solver (2) and the three MPI calls.
    EXPECT_EQ(archive.read(*archive.find("0.index")),
              std::string("CUBEX.INDEX") + le32(1) + le16(0) + std::string(1, '\1') + le32(5) +
                  le32(0) + le32(2) + le32(3) + le32(4) + le32(5));
    std::string time = "CUBEX.DATA";
    for (double v : {1., 1., 1.,   1., 2., 2.,   2., 2.,   .75, 1.75,
                     0., 0., .125, 0., 0., .125, .5, .625, .75, .875})
        time += le_double(v);
    EXPECT_EQ(archive.read(*archive.find("0.data")), time);
}

// ---------------------------------------------------------------- reports of other tools

// A Score-P-style profile: visits EXCLUSIVE/UINT64, time INCLUSIVE/DOUBLE with a dense index,
// a derived child metric, "Id" on system tree elements, cnode ids out of document order.
const char* kScorepAnchor = R"(<?xml version="1.0" encoding="UTF-8"?>
<cube version="4.5">
<attr key="Creator" value="Score-P 8.1"/>
<attr key="CubePL Version" value="1.1"/>
<doc><mirrors><murl>http://score-p.org/</murl></mirrors></doc>
<metrics title="Metric tree">
 <metric id="0" type="EXCLUSIVE"><disp_name>Visits</disp_name><uniq_name>visits</uniq_name><dtype>UINT64</dtype><uom>occ</uom><url></url><descr>Number of visits</descr></metric>
 <metric id="1" type="INCLUSIVE"><disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom><url/><descr/>
  <metric id="2" type="POSTDERIVED"><disp_name>Computation</disp_name><uniq_name>comp</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom><cubepl>metric::time() - metric::mpi()</cubepl></metric>
 </metric>
</metrics>
<program>
 <region id="0" mod="main.c" begin="1" end="50"><name>main</name><mangled_name>main</mangled_name><paradigm>compiler</paradigm><role>function</role><url></url><descr></descr></region>
 <region id="1" mod="MPI" begin="-1" end="-1"><name>MPI_Recv</name><paradigm>mpi</paradigm><role>point2point</role></region>
 <region id="2" mod="main.c" begin="10" end="20"><name>work</name><mangled_name>work_</mangled_name><paradigm>compiler</paradigm><role>function</role></region>
 <cnode id="0" calleeId="0">
  <cnode id="2" line="12" mod="main.c" calleeId="2">
   <cnode id="3" calleeId="1"><parameter partype="numeric" parkey="n" parvalue="3" /></cnode>
  </cnode>
  <cnode id="1" calleeId="1"/>
 </cnode>
</program>
<system>
 <systemtreenode Id="0"><name>cluster</name><class>machine</class>
  <systemtreenode Id="1"><name>n1</name><class>node</class>
   <locationgroup Id="0"><name>MPI Rank 0</name><rank>0</rank><type>process</type>
    <location Id="0"><name>Master thread</name><rank>0</rank><type>thread</type></location>
   </locationgroup>
   <locationgroup Id="1"><name>MPI Rank 1</name><rank>1</rank><type>process</type>
    <location Id="1"><name>Master thread</name><rank>0</rank><type>thread</type></location>
   </locationgroup>
  </systemtreenode>
 </systemtreenode>
 <topologies><cart ndims="1"><dim size="2" periodic="true"/><coord locId="1">1</coord><coord locId="0">0</coord></cart></topologies>
</system>
</cube>
)";

TEST(Cube4, ReadsScorepStyleReports) {
    ScratchDir dir;
    const std::string path = (dir / "profile.cubex").string();
    // Document (depth-first) order: main, main/work, main/work/MPI_Recv, main/MPI_Recv.
    // Time, INCLUSIVE, dense: rows in Cube's wide order main, work, main/MPI_Recv,
    // main/work/MPI_Recv.
    std::string time = "CUBEX.DATA";
    for (double v : {10., 12., 6., 7., 1., 2., 2., 3.}) time += le_double(v);
    // Visits, EXCLUSIVE, sparse positions 0 (main), 2 (work/MPI_Recv), 3 (main/MPI_Recv).
    std::string visits = "CUBEX.DATA";
    for (uint64_t v : {1, 1, 5, 6, 7, 8}) visits += le64(v);
    write_archive(path, {{"anchor.xml", kScorepAnchor},
                         {"0.index", sparse_index({0, 2, 3})},
                         {"0.data", visits},
                         {"1.index", dense_index()},
                         {"1.data", time}});
    const Report r = read_cube4(path);

    ASSERT_EQ(r.metrics.size(), 3u);
    EXPECT_EQ(r.metrics[0].unique_name, "visits");
    EXPECT_EQ(r.metrics[0].unit, "occ");
    EXPECT_EQ(r.metrics[1].unique_name, "time");
    EXPECT_EQ(r.metrics[1].children, std::vector<int>{2});
    EXPECT_EQ(r.metrics[2].derived_type, "POSTDERIVED");
    EXPECT_EQ(r.metrics[2].cubepl, "metric::time() - metric::mpi()");
    EXPECT_EQ(r.attributes.at("Creator"), "Score-P 8.1");

    // Call paths keep the file's cnode ids (a permutation with parents first).
    ASSERT_EQ(r.callpaths.size(), 4u);
    EXPECT_EQ(r.callpath_name(0), "main");
    EXPECT_EQ(r.callpath_name(1), "main/MPI_Recv");
    EXPECT_EQ(r.callpath_name(2), "main/work");
    EXPECT_EQ(r.callpath_name(3), "main/work/MPI_Recv");
    EXPECT_EQ(r.regions[1].canonical_name, "MPI_Recv"); // no mangled_name: the name
    EXPECT_EQ(r.regions[2].canonical_name, "work_");
    EXPECT_EQ(r.regions[2].begin_line, 10);
    EXPECT_EQ(r.regions[1].begin_line, -1);

    // INCLUSIVE time became exclusive along the call tree.
    EXPECT_EQ(*r.row(1, 0), (std::vector<double>{3, 3}));
    EXPECT_EQ(*r.row(1, 2), (std::vector<double>{4, 4}));
    EXPECT_EQ(*r.row(1, 1), (std::vector<double>{1, 2}));
    EXPECT_EQ(*r.row(1, 3), (std::vector<double>{2, 3}));
    EXPECT_EQ(r.total(1), 22.0);
    // EXCLUSIVE visits: positions are depth-first positions, not cnode ids.
    EXPECT_EQ(*r.row(0, 0), (std::vector<double>{1, 1}));
    EXPECT_EQ(*r.row(0, 3), (std::vector<double>{5, 6}));
    EXPECT_EQ(*r.row(0, 1), (std::vector<double>{7, 8}));
    EXPECT_EQ(r.row(0, 2), nullptr);

    ASSERT_EQ(r.locations.size(), 2u);
    EXPECT_EQ(r.locations[1].host, "n1");
    EXPECT_EQ(r.locations[1].process, "MPI Rank 1");
    EXPECT_EQ(r.locations[1].rank, 1);
    EXPECT_EQ(r.locations[1].thread, 0);
    ASSERT_EQ(r.topologies.size(), 1u);
    EXPECT_EQ(r.topologies[0].name, "");
    EXPECT_TRUE(r.topologies[0].dim_names.empty());
    EXPECT_EQ(r.topologies[0].periodic, std::vector<bool>{true});
    EXPECT_EQ(r.topologies[0].coords, (std::vector<std::vector<uint32_t>>{{0}, {1}}));

    // What we read, we write so that it reads back the same (derived metric included).
    write_cube4(r, (dir / "again.cubex").string());
    expect_equal_reports(r, read_cube4((dir / "again.cubex").string()), /*same_ids=*/true);
}

// Cube 3-style system tree, thrdId coordinates, big-endian files, FLOAT (8-byte) data,
// location ids out of document order.
TEST(Cube4, ReadsCube3SystemTreesAndBigEndianFiles) {
    ScratchDir dir;
    const std::string path = (dir / "old.cubex").string();
    const std::string anchor = R"(<?xml version="1.0" encoding="UTF-8"?>
<cube version="4.0">
<metrics><metric id="0"><disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>FLOAT</dtype><uom>sec</uom></metric></metrics>
<program><region id="0" mod="" begin="-1" end="-1"><name>main</name></region><cnode id="0" calleeId="0"></cnode></program>
<system><machine Id="0"><name>m</name><node Id="0"><name>host1</name>
<process Id="0"><name>P0</name><rank>0</rank>
<thread Id="1"><name>T1</name><rank>1</rank></thread>
<thread Id="0"><name>T0</name><rank>0</rank></thread>
</process></node></machine>
<topologies><cart name="c" ndims="2"><dim size="1" periodic="false"/><dim size="2" periodic="false"/><coord thrdId="1">0 1</coord></cart></topologies>
</system></cube>)";
    std::string index =
        "CUBEX.INDEX" + be32(1) + std::string("\0\0", 2) + std::string(1, '\1') + be32(1) + be32(0);
    write_archive(path, {{"anchor.xml", anchor},
                         {"0.index", index},
                         {"0.data", "CUBEX.DATA" + be_double(1.5) + be_double(2.5)}});
    const Report r = read_cube4(path);
    ASSERT_EQ(r.locations.size(), 2u);
    EXPECT_EQ(r.locations[0].name, "T0"); // location order is id order
    EXPECT_EQ(r.locations[1].name, "T1");
    EXPECT_EQ(r.locations[1].thread, 1);
    EXPECT_EQ(r.locations[1].process, "P0");
    EXPECT_EQ(r.locations[1].host, "host1");
    EXPECT_EQ(r.value(0, 0, 0), 1.5);
    EXPECT_EQ(r.value(0, 0, 1), 2.5);
    EXPECT_EQ(r.topologies[0].coords, (std::vector<std::vector<uint32_t>>{{}, {0, 1}}));
}

// ---------------------------------------------------------------- the metric-tree convention

// time > { mpi, derived > late }: one call path, two locations; `attrs` go into the anchor.
std::string convention_anchor(const std::string& attrs) {
    return R"(<?xml version="1.0" encoding="UTF-8"?>
<cube version="4.4">
)" + attrs +
           R"(
<metrics>
 <metric id="0" type="EXCLUSIVE"><disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr></descr>
  <metric id="1" type="EXCLUSIVE"><disp_name>MPI</disp_name><uniq_name>mpi</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr></descr></metric>
  <metric id="2" type="POSTDERIVED"><disp_name>Waits</disp_name><uniq_name>waits</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr></descr><cubepl>metric::late()</cubepl>
   <metric id="3" type="EXCLUSIVE"><disp_name>Late</disp_name><uniq_name>late</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr></descr></metric>
  </metric>
 </metric>
</metrics>
<program><region id="0" mod="" begin="-1" end="-1"><name>main</name></region><cnode id="0" calleeId="0"></cnode></program>
<system><systemtreenode Id="0"><name>m</name><class>machine</class>
<locationgroup Id="0"><name>P0</name><rank>0</rank><type>process</type><location Id="0"><name>T</name><rank>0</rank><type>thread</type></location></locationgroup>
<locationgroup Id="1"><name>P1</name><rank>1</rank><type>process</type><location Id="1"><name>T</name><rank>0</rank><type>thread</type></location></locationgroup>
</systemtreenode></system></cube>
)";
}

Report read_convention(const ScratchDir& dir, const std::string& attrs) {
    const std::string path = (dir / "c.cubex").string();
    auto row = [](double a, double b) {
        return std::string("CUBEX.DATA") + le_double(a) + le_double(b);
    };
    write_archive(path, {{"anchor.xml", convention_anchor(attrs)},
                         {"0.index", sparse_index({0})},
                         {"0.data", row(10, 20)},
                         {"1.index", sparse_index({0})},
                         {"1.data", row(4, 8)},
                         {"3.index", sparse_index({0})},
                         {"3.data", row(1, 2)}});
    return read_cube4(path);
}

// As Cube reads them (Scalasca's, ours now): a parent's stored value holds its children's,
// a derived child standing for the stored metrics below it.
TEST(Cube4, StoredValuesIncludeTheChildMetrics) {
    ScratchDir dir;
    for (
        const std::string& attrs :
        {std::string(R"(<attr key="Creator" value="Scalasca Trace Analyzer 2.6"/>)"),
         std::string(
             R"(<attr key="Creator" value="topolens 0.2"/><attr key="topolens.trace" value="t"/>)"),
         std::string()}) {
        SCOPED_TRACE(attrs);
        const Report r = read_convention(dir, attrs);
        EXPECT_EQ(r.value(0, 0, 0), 5.0); // 10 - 4 - 1
        EXPECT_EQ(r.value(0, 0, 1), 10.0);
        EXPECT_EQ(r.total(0, 0), 10.0);
        EXPECT_EQ(r.total(0, 1), 20.0);
        EXPECT_EQ(r.total(1, 1), 8.0);
        EXPECT_EQ(r.total(3, 1), 2.0);
    }
}

// Reports of topolens before it wrote a Creator (topolens.* attributes, no Creator) stored
// each metric's own part: their values are taken as they are.
TEST(Cube4, EarlierTopolensReportsKeepTheirOwnParts) {
    ScratchDir dir;
    const Report r = read_convention(
        dir,
        R"(<attr key="Cube anchor.xml syntax version" value="4.4"/><attr key="topolens.trace" value="t"/>)");
    EXPECT_EQ(r.value(0, 0, 0), 10.0);
    EXPECT_EQ(r.total(0, 0), 15.0);
    EXPECT_EQ(r.total(0, 1), 30.0);
    EXPECT_EQ(r.total(1, 1), 8.0);
}

// A parent equal to its children reads as a clean zero of its own, and our writer stores
// what Cube subtracts from without going below zero.
TEST(Cube4, OwnPartsAreNeverBelowZeroInCubesView) {
    ScratchDir dir;
    Report r = sample_report();
    // At MPI_Recv on location 2 MPI's own part is zero and its children's sum rounds down:
    // 1 + 1e-17 is stored as 1, and Cube's 1 - 1 - 1e-17 would be negative.
    r.set_value(2, 4, 2, 1.0);
    r.set_value(5, 4, 2, 1e-17);
    ASSERT_LT((1.0 + 1e-17) - 1.0 - 1e-17, 0.0);
    const std::string path = (dir / "r.cubex").string();
    write_cube4(r, path);
    tar::Reader archive(path);
    auto stored = [&](int metric, std::size_t row, std::size_t location) {
        const std::string data = archive.read(*archive.find(std::to_string(metric) + ".data"));
        double v;
        std::memcpy(&v, data.data() + 10 + 8 * (row * 4 + location), 8);
        return v;
    };
    // First rows (MPI_Recv, position 3) of MPI, Late Sender and Collective.
    const double mpi = stored(1, 0, 2), ls = stored(2, 0, 2), collective = stored(4, 0, 2);
    EXPECT_EQ(ls, 1.0);
    EXPECT_EQ(collective, 1e-17);
    EXPECT_GE(mpi - ls - collective, 0.0); // in Cube's order: children one by one
    EXPECT_LE(mpi, std::nextafter(std::nextafter(1.0, 2.0), 2.0)); // an ulp or two above
    const Report back = read_cube4(path);
    EXPECT_GE(back.value(1, 3, 2), 0.0);
    EXPECT_EQ(back.value(2, 3, 2), 1.0);
}

TEST(Cube4, AnchorNamesTopolensAsCreatorAndListsTheMirrors) {
    ScratchDir dir;
    Report r = sample_report();
    r.attributes["Creator"] = "Scalasca Trace Analyzer 2.6"; // read from another tool's file
    r.mirrors = {"https://example.org/docs/", "file:///usr/share/doc/topolens/"};
    const std::string path = (dir / "r.cubex").string();
    write_cube4(r, path);
    tar::Reader archive(path);
    const std::string anchor = archive.read(*archive.find("anchor.xml"));
    EXPECT_NE(anchor.find("<attr key=\"Creator\" value=\"topolens "), std::string::npos) << anchor;
    EXPECT_EQ(anchor.find("Scalasca"), std::string::npos);
    EXPECT_NE(anchor.find("<doc>\n<mirrors>\n<murl>https://example.org/docs/</murl>\n<murl>file:///"
                          "usr/share/doc/topolens/</murl>\n</mirrors>\n</doc>"),
              std::string::npos)
        << anchor;
    EXPECT_EQ(read_cube4(path).mirrors, r.mirrors);
}

TEST(Cube4, ReadsMetricsWithoutValuesAndArchivesWithExtraMembers) {
    ScratchDir dir;
    Report r = sample_report();
    const std::string path = (dir / "r.cubex").string();
    write_cube4(r, path);
    // An extra member and a stray zero block (cubew pads some members with one) are fine.
    tar::Reader archive(path);
    std::vector<std::pair<std::string, std::string>> members;
    for (const tar::Entry& e : archive.entries()) members.emplace_back(e.name, archive.read(e));
    members.emplace_back("notes.txt", std::string(512, 'x'));
    write_archive((dir / "extra.cubex").string(), members, /*stray_zero_blocks=*/true);
    expect_equal_reports(r, read_cube4((dir / "extra.cubex").string()));
}

} // namespace
} // namespace topolens::test
