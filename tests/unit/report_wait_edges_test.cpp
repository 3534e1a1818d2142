// Wait edges (who made whom wait) in the report file: written as a member of their own,
// read back exactly, absent from reports without them, and a damaged member is refused with
// a message naming the member, the line and the problem.
#include "analyzer/report/cube4.h"
#include "analyzer/report/tar.h"
#include "analyzer/report/wait_edges.h"
#include "report_sample.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <string>

using namespace topolens;
using report::WaitEdge;

namespace {

std::vector<WaitEdge> some_edges() {
    return {{"latesender", 0, 1, 0.25}, {"barrier", 2, 1, 1.0 / 3.0}, {"n2n", 1, 0, 1e-9}};
}

// The report file at `path` with its wait-edge member's text replaced by `text`.
void replace_edges(const std::string& path, const std::string& text) {
    std::vector<std::pair<std::string, std::string>> members;
    {
        tar::Reader in(path);
        for (const tar::Entry& e : in.entries())
            members.push_back({e.name, e.name == report::kWaitEdgesMember ? text : in.read(e)});
    }
    tar::Writer out(path);
    for (const auto& [name, data] : members) out.add(name, data);
    out.finish();
}

} // namespace

TEST(ReportWaitEdges, WrittenAndReadBackExactly) {
    test::ScratchDir dir;
    report::Report r = test::sample_report();
    ASSERT_GE(r.locations.size(), 3u);
    r.wait_edges = some_edges();
    const std::string path = (dir / "r.cubex").string();
    report::write_cube4(r, path);
    EXPECT_EQ(report::read_cube4(path).wait_edges, some_edges());
}

TEST(ReportWaitEdges, NoneWithoutAMember) {
    test::ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    report::write_cube4(test::sample_report(), path);
    tar::Reader archive(path);
    EXPECT_EQ(archive.find(report::kWaitEdgesMember), nullptr);
    EXPECT_TRUE(report::read_cube4(path).wait_edges.empty());
}

TEST(ReportWaitEdges, DamagedMemberIsRefusedByName) {
    test::ScratchDir dir;
    report::Report r = test::sample_report();
    r.wait_edges = some_edges();
    const std::string path = (dir / "r.cubex").string();
    const struct {
        std::string text, message;
    } cases[] = {
        {"kind,waiting\n", "topolens-wait-edges.csv: the first line is not"},
        {"kind,waiting,causing,seconds\nlatesender,0,1\n",
         "topolens-wait-edges.csv line 2: 3 fields, not 4"},
        {"kind,waiting,causing,seconds\nlatesender,0,99,1\n",
         "topolens-wait-edges.csv line 2: '99' is not a location of the report"},
        {"kind,waiting,causing,seconds\nbarrier,0,1,soon\n",
         "topolens-wait-edges.csv line 2: 'soon' is not a time in seconds"},
        {"kind,waiting,causing,seconds\n,0,1,1\n", "topolens-wait-edges.csv line 2: no kind"},
    };
    for (const auto& c : cases) {
        report::write_cube4(r, path);
        replace_edges(path, c.text);
        try {
            report::read_cube4(path);
            ADD_FAILURE() << "accepted: " << c.text;
        } catch (const report::ReportError& e) {
            EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        }
    }
}
