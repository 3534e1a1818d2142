// The grid choice of an analysis shared out to ranks: each rank matches only its share of
// the locations, yet every rank chooses the serial analysis's grid, with the same source and
// explanation, because the messages and collectives the choice counts are counted once
// each, on one rank, and merged through the Exchange. Ranks run as threads (ThreadExchange).
#include "analyzer/engine/grid.h"
#include "test_util.h"
#include "trace/builder.h"
#include "trace/matching.h"
#include "trace/synthetic.h"
#include "trace/thread_exchange.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace topolens;
using analysis::CartDeclaration;
using analysis::GridChoice;
using analysis::GridSource;
using test::ScratchDir;

namespace {

void expect_same_choice(const GridChoice& got, const GridChoice& serial) {
    EXPECT_EQ(analysis::grid_source_name(got.source), analysis::grid_source_name(serial.source));
    EXPECT_EQ(got.explanation, serial.explanation);
    ASSERT_EQ(got.grid.has_value(), serial.grid.has_value());
    if (!serial.grid) return;
    EXPECT_EQ(got.grid->name, serial.grid->name);
    EXPECT_EQ(got.grid->dim_names, serial.grid->dim_names);
    EXPECT_EQ(got.grid->sizes, serial.grid->sizes);
    EXPECT_EQ(got.grid->periodic, serial.grid->periodic);
    EXPECT_EQ(got.grid->coords, serial.grid->coords);
}

struct ChoiceInput {
    std::optional<CartDeclaration> declared;
    bool drop_topologies = false; // as if the program had recorded none: the grid is inferred
};

// Every rank's choice on 1 to `max_ranks` ranks against the serial choice, which it returns.
GridChoice expect_every_rank_chooses_the_serial_grid(const std::string& anchor, unsigned max_ranks,
                                                     const ChoiceInput& input = {}) {
    auto [whole, all] = trace::read_and_match(anchor, 1);
    if (input.drop_topologies) whole.defs.topologies.clear();
    const GridChoice serial = analysis::choose_grid(whole, all, input.declared);
    const analysis::GridTraffic whole_traffic = analysis::grid_traffic(whole, all);
    for (unsigned ranks = 1; ranks <= max_ranks; ++ranks) {
        SCOPED_TRACE(std::to_string(ranks) + " ranks");
        std::vector<GridChoice> choices(ranks);
        std::vector<analysis::GridTraffic> traffic(ranks);
        trace::run_ranks_in_threads(ranks, [&](trace::Exchange& ex) {
            auto [t, m] = trace::read_and_match_share(anchor, ex, 1);
            if (input.drop_topologies) t.defs.topologies.clear();
            choices[ex.rank()] = analysis::choose_grid(t, m, input.declared, &ex);
            traffic[ex.rank()] = analysis::merge_grid_traffic(analysis::grid_traffic(t, m), ex);
        });
        for (unsigned r = 0; r < ranks; ++r) {
            SCOPED_TRACE("rank " + std::to_string(r));
            expect_same_choice(choices[r], serial);
            EXPECT_EQ(traffic[r].pairs, whole_traffic.pairs);
            EXPECT_EQ(traffic[r].use.collectives, whole_traffic.use.collectives);
            EXPECT_EQ(traffic[r].use.messages, whole_traffic.use.messages);
        }
    }
    return serial;
}

std::string synthetic(const ScratchDir& dir, const std::string& name, trace::SynthOptions o) {
    return trace::synthesize(o).builder.write((dir / name).string());
}

} // namespace

TEST(SharedGrid, InferredFromTheMessagesOfEveryShare) {
    ScratchDir dir;
    const ChoiceInput inferred{std::nullopt, true};

    trace::SynthOptions halo;
    halo.pattern = trace::SynthPattern::Halo;
    halo.grid = {4, 3};
    halo.iterations = 2;
    GridChoice c =
        expect_every_rank_chooses_the_serial_grid(synthetic(dir, "halo", halo), 4, inferred);
    EXPECT_EQ(c.source, GridSource::Inferred) << c.explanation;

    trace::SynthOptions torus;
    torus.pattern = trace::SynthPattern::Halo;
    torus.grid = {4, 4};
    torus.periodic = {true, true};
    torus.variant = trace::SynthVariant::Nonblocking;
    torus.iterations = 2;
    c = expect_every_rank_chooses_the_serial_grid(synthetic(dir, "torus", torus), 4, inferred);
    EXPECT_EQ(c.source, GridSource::Inferred) << c.explanation;
    ASSERT_TRUE(c.grid);
    EXPECT_EQ(c.grid->periodic, (std::vector<bool>{true, true}));

    trace::SynthOptions sweep;
    sweep.pattern = trace::SynthPattern::Sweep;
    sweep.grid = {3, 3};
    sweep.between = trace::SynthBetween::Allreduce;
    sweep.iterations = 1;
    c = expect_every_rank_chooses_the_serial_grid(synthetic(dir, "sweep", sweep), 4, inferred);
    EXPECT_EQ(c.source, GridSource::Inferred) << c.explanation;

    trace::SynthOptions mixed;
    mixed.grid = {3, 4};
    mixed.iterations = 2;
    // Its messages go beyond grid neighbours: no grid, for the same pairs on every rank.
    c = expect_every_rank_chooses_the_serial_grid(synthetic(dir, "mixed", mixed), 4, inferred);
    EXPECT_EQ(c.source, GridSource::None) << c.explanation;
    EXPECT_NE(c.explanation.find("communicating pairs as neighbours"), std::string::npos)
        << c.explanation;

    trace::SynthOptions ssor;
    ssor.pattern = trace::SynthPattern::Ssor;
    ssor.grid = {2, 2, 3};
    ssor.iterations = 1;
    c = expect_every_rank_chooses_the_serial_grid(synthetic(dir, "ssor", ssor), 4, inferred);
    EXPECT_EQ(c.source, GridSource::Inferred) << c.explanation;

    // Collectives only: no grid, and every rank says why as the serial analysis does.
    trace::SynthOptions collectives;
    collectives.pattern = trace::SynthPattern::Collectives;
    collectives.ranks = 6;
    collectives.iterations = 2;
    c = expect_every_rank_chooses_the_serial_grid(synthetic(dir, "collectives", collectives), 4,
                                                  inferred);
    EXPECT_EQ(c.source, GridSource::None) << c.explanation;
}

TEST(SharedGrid, RecordedAndDeclaredGrids) {
    ScratchDir dir;
    trace::SynthOptions halo;
    halo.pattern = trace::SynthPattern::Halo;
    halo.grid = {4, 3};
    halo.iterations = 2;
    const std::string anchor = synthetic(dir, "halo", halo);
    GridChoice c = expect_every_rank_chooses_the_serial_grid(anchor, 4);
    EXPECT_EQ(c.source, GridSource::Recorded) << c.explanation;

    // The explanation counts the communicating pairs that are neighbours in the declaration.
    const ChoiceInput transposed{analysis::parse_cart_declaration("3x4:order=col"), true};
    c = expect_every_rank_chooses_the_serial_grid(anchor, 4, transposed);
    EXPECT_EQ(c.source, GridSource::Declared) << c.explanation;
    EXPECT_NE(c.explanation.find("communicating pairs are neighbours in it"), std::string::npos)
        << c.explanation;
}

namespace {

// 12 processes as 3 rows of 4 (rank = 4i + j): a communicator per row and per column, an
// Allreduce on every row and two Alltoalls on every column, and messages along each row on
// its communicator (each from one process to its right-hand neighbour, so that every rank's
// share sends some and receives some).
std::string rows_and_columns(const ScratchDir& dir) {
    trace::TraceBuilder b(12);
    std::vector<trace::Ref> rows, columns;
    for (uint32_t i = 0; i < 3; ++i)
        rows.push_back(b.communicator("row " + std::to_string(i),
                                      {4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3}, b.world()));
    for (uint32_t j = 0; j < 4; ++j)
        columns.push_back(b.communicator("col " + std::to_string(j), {j, j + 4, j + 8}, b.world()));
    for (uint32_t r = 0; r < 12; ++r) {
        b.mpi_init(r, 0, 5);
        b.mpi_collective(r, 10, 20, trace::CollectiveOp::Allreduce, rows[r / 4]);
        b.mpi_collective(r, 30, 40, trace::CollectiveOp::Alltoall, columns[r % 4]);
        b.mpi_collective(r, 50, 60, trace::CollectiveOp::Alltoall, columns[r % 4]);
    }
    for (uint32_t r = 0; r < 12; ++r)
        if (r % 4 != 3) b.mpi_send(r, 70, 71, r % 4 + 1, rows[r / 4], 0, 8);
    for (uint32_t r = 0; r < 12; ++r)
        if (r % 4 != 0) b.mpi_recv(r, 80, 82, r % 4 - 1, rows[r / 4], 0, 8);
    for (uint32_t r = 0; r < 12; ++r) b.mpi_finalize(r, 100, 105);
    return b.write((dir / "rows_and_columns").string());
}

} // namespace

TEST(SharedGrid, FromCommunicatorsCountingEachCollectiveAndMessageOnce) {
    ScratchDir dir;
    const GridChoice c = expect_every_rank_chooses_the_serial_grid(rows_and_columns(dir), 4);
    EXPECT_EQ(c.source, GridSource::Communicators) << c.explanation;
    // 3 + 2 * 4 collectives, 3 * 3 messages: counted once each whichever rank holds them.
    EXPECT_NE(c.explanation.find("11 collective operations and 9 messages on them"),
              std::string::npos)
        << c.explanation;
}

// "Nodes" of 8 processes and "local ranks" across them divide the 16 processes 2x8, but the
// messages are those of a 4x4 grid: the inferred grid wins on every rank, as in the serial
// analysis, which needs both the pairs and the communicators' use.
TEST(SharedGrid, InferredGridWinsOverCommunicatorsTheMessagesContradict) {
    ScratchDir dir;
    trace::TraceBuilder b(16);
    for (uint32_t node = 0; node < 2; ++node) {
        std::vector<uint32_t> members;
        for (uint32_t k = 0; k < 8; ++k) members.push_back(8 * node + k);
        b.communicator("node " + std::to_string(node), members, b.world());
    }
    for (uint32_t k = 0; k < 8; ++k)
        b.communicator("local " + std::to_string(k), {k, k + 8}, b.world());
    for (uint32_t r = 0; r < 16; ++r) b.mpi_init(r, 0, 5);
    // Each process sends to its right-hand and upper neighbours, then receives from its
    // left-hand and lower ones.
    for (uint32_t r = 0; r < 16; ++r) {
        if (r % 4 != 3) b.mpi_send(r, 10, 11, r + 1, b.world(), 0, 8);
        if (r + 4 < 16) b.mpi_send(r, 12, 13, r + 4, b.world(), 0, 8);
    }
    for (uint32_t r = 0; r < 16; ++r) {
        if (r % 4 != 0) b.mpi_recv(r, 20, 21, r - 1, b.world(), 0, 8);
        if (r >= 4) b.mpi_recv(r, 22, 23, r - 4, b.world(), 0, 8);
    }
    for (uint32_t r = 0; r < 16; ++r) b.mpi_finalize(r, 100, 105);
    const GridChoice c =
        expect_every_rank_chooses_the_serial_grid(b.write((dir / "nodes").string()), 4);
    EXPECT_EQ(c.source, GridSource::Inferred) << c.explanation;
    EXPECT_NE(c.explanation.find("not the communicators' 2x8 grid"), std::string::npos)
        << c.explanation;
}

// Processes with two threads each (a share keeps a process's threads together): messages
// go from one process's second thread to another's first, and the grid is the processes'.
TEST(SharedGrid, ThreadsOfAProcessAreOneProcessOfTheGrid) {
    ScratchDir dir;
    constexpr uint32_t kProcesses = 6; // a 3x2 grid, rank = x + 3y
    trace::TraceBuilder b(kProcesses);
    std::vector<trace::TraceBuilder::Loc> second;
    for (uint32_t p = 0; p < kProcesses; ++p) second.push_back(b.add_thread(p));
    for (uint32_t p = 0; p < kProcesses; ++p) {
        b.mpi_init(p, 0, 5);
        b.mpi_init(second[p], 0, 5);
    }
    for (uint32_t p = 0; p < kProcesses; ++p) {
        if (p % 3 != 2) b.mpi_send(second[p], 10, 11, p + 1, b.world(), 0, 8);
        if (p + 3 < kProcesses) b.mpi_send(second[p], 12, 13, p + 3, b.world(), 0, 8);
    }
    for (uint32_t p = 0; p < kProcesses; ++p) {
        if (p % 3 != 0) b.mpi_recv(p, 20, 21, p - 1, b.world(), 0, 8);
        if (p >= 3) b.mpi_recv(p, 22, 23, p - 3, b.world(), 0, 8);
    }
    for (uint32_t p = 0; p < kProcesses; ++p) {
        b.mpi_finalize(p, 100, 105);
        b.mpi_finalize(second[p], 100, 105);
    }
    const GridChoice c =
        expect_every_rank_chooses_the_serial_grid(b.write((dir / "threads").string()), 4);
    EXPECT_EQ(c.source, GridSource::Inferred) << c.explanation;
    ASSERT_TRUE(c.grid);
    EXPECT_EQ(c.grid->sizes, (std::vector<uint32_t>{3, 2}));
}
