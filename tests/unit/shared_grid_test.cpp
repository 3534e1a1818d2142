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
    for (unsigned ranks = 1; ranks <= max_ranks; ++ranks) {
        SCOPED_TRACE(std::to_string(ranks) + " ranks");
        std::vector<GridChoice> choices(ranks);
        trace::run_ranks_in_threads(ranks, [&](trace::Exchange& ex) {
            auto [t, m] = trace::read_and_match_share(anchor, ex, 1);
            if (input.drop_topologies) t.defs.topologies.clear();
            choices[ex.rank()] = analysis::choose_grid(t, m, input.declared, &ex);
        });
        for (unsigned r = 0; r < ranks; ++r) {
            SCOPED_TRACE("rank " + std::to_string(r));
            expect_same_choice(choices[r], serial);
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
