// Message statistics (syncs, comms, bytes; patterns/message_statistics.cpp) on hand-built
// traces with exact counts and sizes, and on synthetic programs (`topolens synth`) whose
// messages and collectives are known.
#include "pattern_test_util.h"
#include "patterns/metric_names.h"
#include "trace/builder.h"
#include "trace/synthetic.h"

#include <gtest/gtest.h>

#include <array>
#include <iterator>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

using namespace topolens;
using namespace topolens::test;
using trace::CollectiveOp;
using trace::kNone;
using trace::TraceBuilder;
namespace metric = patterns::metric;

namespace {

// Every statistic at one call path and location, metric-inclusive (a parent holds its
// children), in the catalogue's order.
const char* const kNames[] = {metric::kSyncs,
                              metric::kSyncsP2P,
                              metric::kSyncsSend,
                              metric::kSyncsRecv,
                              metric::kSyncsColl,
                              metric::kComms,
                              metric::kCommsP2P,
                              metric::kCommsSend,
                              metric::kCommsRecv,
                              metric::kCommsColl,
                              metric::kCommsExchange,
                              metric::kCommsSource,
                              metric::kCommsDestination,
                              metric::kBytes,
                              metric::kBytesP2P,
                              metric::kBytesSent,
                              metric::kBytesReceived,
                              metric::kBytesColl,
                              metric::kBytesOut,
                              metric::kBytesIn};
constexpr size_t kCount = std::size(kNames);

struct Statistics {
    std::array<double, kCount> v{};
    double& operator[](const char* name) {
        for (size_t i = 0; i < kCount; ++i)
            if (std::string_view(kNames[i]) == name) return v[i];
        throw std::logic_error(name);
    }
    bool operator==(const Statistics&) const = default;
    Statistics operator+(const Statistics& other) const {
        Statistics sum = *this;
        for (size_t i = 0; i < kCount; ++i) sum.v[i] += other.v[i];
        return sum;
    }
};

// Prints the non-zero ones.
std::ostream& operator<<(std::ostream& out, const Statistics& s) {
    out << "{";
    for (size_t i = 0; i < kCount; ++i)
        if (s.v[i] != 0.0) out << " " << kNames[i] << "=" << s.v[i];
    return out << " }";
}

Statistics at(const analysis::AnalysisResult& r, const std::string& path, uint32_t loc) {
    Statistics s;
    for (size_t i = 0; i < kCount; ++i) s.v[i] = value(r, kNames[i], path, loc);
    return s;
}

// `value` at a leaf and each of its ancestors.
Statistics with(std::initializer_list<const char*> names, double value) {
    Statistics s;
    for (const char* name : names) s[name] = value;
    return s;
}
Statistics sync_send(double n) {
    return with({metric::kSyncs, metric::kSyncsP2P, metric::kSyncsSend}, n);
}
Statistics sync_recv(double n) {
    return with({metric::kSyncs, metric::kSyncsP2P, metric::kSyncsRecv}, n);
}
Statistics sync_coll(double n) {
    return with({metric::kSyncs, metric::kSyncsColl}, n);
}
Statistics comm_send(double n, double bytes) {
    return with({metric::kComms, metric::kCommsP2P, metric::kCommsSend}, n) +
           with({metric::kBytes, metric::kBytesP2P, metric::kBytesSent}, bytes);
}
Statistics comm_recv(double n, double bytes) {
    return with({metric::kComms, metric::kCommsP2P, metric::kCommsRecv}, n) +
           with({metric::kBytes, metric::kBytesP2P, metric::kBytesReceived}, bytes);
}
// One collective with `out` bytes sent and `in` received.
Statistics comm_coll(double out, double in) {
    const char* kind = out > 0 && in > 0 ? metric::kCommsExchange
                       : out > 0         ? metric::kCommsSource
                                         : metric::kCommsDestination;
    return with({metric::kComms, metric::kCommsColl, kind}, 1) +
           with({metric::kBytes, metric::kBytesColl, metric::kBytesOut}, out) +
           with({metric::kBytes, metric::kBytesColl, metric::kBytesIn}, in);
}

constexpr Statistics kNothing{};

} // namespace

TEST(MessageStatistics, BlockingMessagesCountAtTheSendAndTheReceive) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 10, 20, 1, b.world(), 7, 64);
    b.mpi_recv(1, 10, 30, 0, b.world(), 7, 64);
    b.mpi_send(0, 40, 50, 1, b.world(), 8, 0); // a zero-byte message synchronizes
    b.mpi_recv(1, 40, 60, 0, b.world(), 8, 0);
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_EQ(at(r, "program/MPI_Send", 0), comm_send(1, 64) + sync_send(1));
    EXPECT_EQ(at(r, "program/MPI_Recv", 1), comm_recv(1, 64) + sync_recv(1));
    EXPECT_EQ(at(r, "program/MPI_Recv", 0), kNothing) << "rank 0 never received";
    EXPECT_EQ(at(r, "program/MPI_Init", 0), kNothing) << "no collective records there";
    EXPECT_EQ(total(r, metric::kBytes, 0), 64.0);
    EXPECT_EQ(total(r, metric::kBytes, 1), 64.0);
}

TEST(MessageStatistics, AReceiveIsSizedByItsSend) {
    // The receive record says 100 bytes (the buffer); the send's 40 bytes are what moved.
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 10, 20, 1, b.world(), 7, 40);
    b.mpi_recv(1, 10, 30, 0, b.world(), 7, 100);
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_EQ(at(r, "program/MPI_Recv", 1), comm_recv(1, 40));
}

TEST(MessageStatistics, NonblockingReceivesCountWhereTheyComplete) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_irecv(1, 10, 12, /*request*/ 5);
    b.mpi_irecv(1, 13, 14, /*request*/ 6);
    b.mpi_isend(0, 20, 22, 1, b.world(), 3, 8, /*request*/ 1);
    b.mpi_isend(0, 23, 24, 1, b.world(), 4, 0, /*request*/ 2);
    b.mpi_wait_send(0, 30, 40, 1);
    b.mpi_wait_send(0, 41, 42, 2);
    const auto waitall = b.mpi_region("MPI_Waitall");
    b.enter(1, 30, waitall);
    b.irecv(1, 50, 0, b.world(), 3, 8, 5);
    b.irecv(1, 50, 0, b.world(), 4, 0, 6);
    b.leave(1, 50, waitall);
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_EQ(at(r, "program/MPI_Isend", 0), comm_send(1, 8) + sync_send(1));
    EXPECT_EQ(at(r, "program/MPI_Wait", 0), kNothing);
    EXPECT_EQ(at(r, "program/MPI_Irecv", 1), kNothing);
    EXPECT_EQ(at(r, "program/MPI_Waitall", 1), comm_recv(1, 8) + sync_recv(1));
}

TEST(MessageStatistics, SendrecvCountsBothEndsAtItsCallPath) {
    TraceBuilder b(2);
    begin(b, 2);
    const auto sendrecv = b.mpi_region("MPI_Sendrecv");
    for (uint32_t p = 0; p < 2; ++p) {
        b.enter(p, 10, sendrecv);
        b.send(p, 10, 1 - p, b.world(), 0, 16 * (p + 1));
        b.recv(p, 30, 1 - p, b.world(), 0, 64);
        b.leave(p, 30, sendrecv);
    }
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_EQ(at(r, "program/MPI_Sendrecv", 0), comm_send(1, 16) + comm_recv(1, 32));
    EXPECT_EQ(at(r, "program/MPI_Sendrecv", 1), comm_send(1, 32) + comm_recv(1, 16));
}

TEST(MessageStatistics, ASendNobodyReceivedStillCounts) {
    TraceBuilder b(2);
    begin(b, 2);
    b.mpi_send(0, 10, 20, 1, b.world(), 7, 24);
    end(b, 2, 200);
    const auto r = run(b);
    EXPECT_EQ(at(r, "program/MPI_Send", 0), comm_send(1, 24));
    EXPECT_EQ(total(r, metric::kComms, 1), 0.0);
}

// Collectives as topolens' measurement records them on 4 ranks (8-byte elements): each
// member's MpiCollectiveEnd carries what it sends and what it receives, the root's copy to
// itself included.
TEST(MessageStatistics, CollectivesCountPerMemberBySentAndReceivedBytes) {
    constexpr uint32_t kRanks = 4;
    TraceBuilder b(kRanks);
    begin(b, kRanks);
    for (uint32_t p = 0; p < kRanks; ++p) {
        const bool root = p == 1;
        b.mpi_collective(p, 10, 20, CollectiveOp::Barrier, b.world());
        b.mpi_collective(p, 30, 40, CollectiveOp::Bcast, b.world(), 1, root ? 8 : 0, root ? 0 : 8);
        b.mpi_collective(p, 50, 60, CollectiveOp::Reduce, b.world(), 1, 8, root ? 8 : 0);
        b.mpi_collective(p, 70, 80, CollectiveOp::Allreduce, b.world(), kNone, 32, 32);
        b.mpi_collective(p, 90, 100, CollectiveOp::Alltoall, b.world(), kNone, 32, 32);
        // Empty buffers: a synchronization.
        b.mpi_collective(p, 110, 120, CollectiveOp::Allreduce, b.world(), kNone, 0, 0);
    }
    end(b, kRanks, 200);
    const auto r = run(b);
    for (uint32_t p = 0; p < kRanks; ++p) {
        SCOPED_TRACE("rank " + std::to_string(p));
        const bool root = p == 1;
        EXPECT_EQ(at(r, "program/MPI_Barrier", p), sync_coll(1));
        EXPECT_EQ(at(r, "program/MPI_Bcast", p), comm_coll(root ? 8 : 0, root ? 0 : 8));
        EXPECT_EQ(at(r, "program/MPI_Reduce", p), comm_coll(8, root ? 8 : 0));
        EXPECT_EQ(at(r, "program/MPI_Allreduce", p), comm_coll(32, 32) + sync_coll(1));
        EXPECT_EQ(at(r, "program/MPI_Alltoall", p), comm_coll(32, 32));
        EXPECT_EQ(total(r, metric::kBytesSent, p) + total(r, metric::kBytesReceived, p), 0.0);
    }
    // The broadcast's root only sends, the reduction's root sends and receives; the others
    // only receive the broadcast and only send to the reduction.
    EXPECT_EQ(total(r, metric::kCommsExchange, 1), 3.0);
    EXPECT_EQ(total(r, metric::kCommsSource, 1), 1.0);
    EXPECT_EQ(total(r, metric::kCommsExchange, 0), 2.0);
    EXPECT_EQ(total(r, metric::kCommsDestination, 0), 1.0);
    EXPECT_EQ(total(r, metric::kCommsSource, 0), 1.0);
}

TEST(MessageStatistics, TheReportDefinesThemAsScalascaDoes) {
    TraceBuilder b(1);
    begin(b, 1);
    end(b, 1, 100);
    const auto r = run(b);
    const auto unit = [&](const char* name) {
        return r.report.metrics[*r.report.find_metric(name)].unit;
    };
    const auto parent = [&](const char* name) {
        const int p = r.report.metrics[*r.report.find_metric(name)].parent;
        return p < 0 ? std::string() : r.report.metrics[p].unique_name;
    };
    EXPECT_EQ(unit(metric::kSyncsSend), "occ");
    EXPECT_EQ(unit(metric::kCommsExchange), "occ");
    EXPECT_EQ(unit(metric::kBytesIn), "bytes");
    EXPECT_EQ(parent(metric::kSyncs), "");
    EXPECT_EQ(parent(metric::kComms), "");
    EXPECT_EQ(parent(metric::kBytes), "");
    EXPECT_EQ(parent(metric::kSyncsRecv), metric::kSyncsP2P);
    EXPECT_EQ(parent(metric::kCommsSource), metric::kCommsColl);
    EXPECT_EQ(parent(metric::kBytesReceived), metric::kBytesP2P);
    EXPECT_EQ(parent(metric::kBytesOut), metric::kBytesColl);
}

// Synthetic programs: every message and collective the generator built, counted once at
// each end.
namespace {

double sum(const analysis::AnalysisResult& r, const char* name) {
    return r.report.total(*r.report.find_metric(name));
}

void expect_every_message_counted(const trace::Synthetic& s, const analysis::AnalysisResult& r,
                                  uint64_t bytes_per_message) {
    const auto messages = static_cast<double>(s.expected.messages);
    ASSERT_GT(messages, 0);
    EXPECT_EQ(sum(r, metric::kCommsSend), messages);
    EXPECT_EQ(sum(r, metric::kCommsRecv), messages);
    EXPECT_EQ(sum(r, metric::kBytesSent), messages * bytes_per_message);
    EXPECT_EQ(sum(r, metric::kBytesReceived), messages * bytes_per_message);
    EXPECT_EQ(sum(r, metric::kSyncsP2P), 0.0);
}

} // namespace

TEST(MessageStatistics, HaloOnA3x3GridSendsAndReceivesOncePerNeighbour) {
    for (const auto variant : {trace::SynthVariant::Sendrecv, trace::SynthVariant::Nonblocking}) {
        SCOPED_TRACE(std::string(trace::synth_variant_name(variant)));
        trace::SynthOptions o;
        o.grid = {3, 3};
        o.pattern = trace::SynthPattern::Halo;
        o.iterations = 3;
        o.variant = variant;
        const trace::Synthetic s = trace::synthesize(o);
        const auto r = run(s.builder);
        expect_every_message_counted(s, r, 512);
        // Neighbours on a 3x3 grid: 2 at the corners, 3 on the edges, 4 in the centre.
        const int neighbours[9] = {2, 3, 2, 3, 4, 3, 2, 3, 2};
        const bool sendrecv = variant == trace::SynthVariant::Sendrecv;
        const std::string send_path = sendrecv ? "main/halo/MPI_Sendrecv" : "main/halo/MPI_Isend";
        const std::string recv_path = sendrecv ? "main/halo/MPI_Sendrecv" : "main/halo/MPI_Waitall";
        for (uint32_t p = 0; p < 9; ++p) {
            SCOPED_TRACE("rank " + std::to_string(p));
            const double n = 3.0 * neighbours[p];
            EXPECT_EQ(total(r, metric::kCommsSend, p), n);
            EXPECT_EQ(total(r, metric::kBytesReceived, p), n * 512);
            EXPECT_EQ(value(r, metric::kCommsSend, send_path, p), n);
            EXPECT_EQ(value(r, metric::kCommsRecv, recv_path, p), n);
        }
    }
}

TEST(MessageStatistics, SweepCountsEveryFace) {
    trace::SynthOptions o;
    o.grid = {3, 2, 2};
    o.pattern = trace::SynthPattern::Sweep;
    o.iterations = 1;
    const trace::Synthetic s = trace::synthesize(o);
    expect_every_message_counted(s, run(s.builder), 512);
}

TEST(MessageStatistics, SynthCollectivesCountAtEveryMember) {
    // Per iteration on n ranks: an Allreduce (8 bytes each way: an exchange at every rank),
    // a Barrier (a synchronization), a Bcast (the root sends 8 (n - 1) bytes, every other
    // rank receives 8) and a Reduce (the reverse).
    constexpr uint32_t n = 6;
    constexpr double kIterations = 2;
    trace::SynthOptions o;
    o.ranks = n;
    o.pattern = trace::SynthPattern::Collectives;
    o.iterations = 2;
    const trace::Synthetic s = trace::synthesize(o);
    const auto r = run(s.builder);
    EXPECT_EQ(s.expected.collectives, 4 * 2u);
    for (uint32_t p = 0; p < n; ++p) {
        SCOPED_TRACE("rank " + std::to_string(p));
        EXPECT_EQ(total(r, metric::kSyncsColl, p), kIterations);
        EXPECT_EQ(total(r, metric::kCommsExchange, p), kIterations);
        EXPECT_EQ(total(r, metric::kCommsSource, p) + total(r, metric::kCommsDestination, p),
                  2 * kIterations);
        EXPECT_EQ(total(r, metric::kSyncsP2P, p) + total(r, metric::kCommsP2P, p), 0.0);
    }
    EXPECT_EQ(sum(r, metric::kCommsSource), kIterations * n);
    EXPECT_EQ(sum(r, metric::kCommsDestination), kIterations * n);
    const double bytes_each_way = kIterations * (8 * n + 2 * 8 * (n - 1));
    EXPECT_EQ(sum(r, metric::kBytesOut), bytes_each_way);
    EXPECT_EQ(sum(r, metric::kBytesIn), bytes_each_way);
    EXPECT_EQ(sum(r, metric::kBytes), 2 * bytes_each_way);
}
