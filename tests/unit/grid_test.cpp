// The analysis grid: --cart declarations, coordinates, the choice between recorded, declared
// and inferred grids (synthetic traces), grid roles and their statistics, and the roles in
// `topolens summary`, `topolens values` and `topolens analyze --cart` (the real binary).
#include "analyzer/engine/grid.h"
#include "analyzer/report/cube4.h"
#include "analyzer/report/report_grid.h"
#include "test_paths.h"
#include "test_util.h"
#include "trace/builder.h"
#include "trace/matching.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <functional>
#include <random>
#include <sstream>

using namespace topolens;
using analysis::CartDeclaration;
using analysis::GridChoice;
using analysis::GridError;
using analysis::GridRole;
using analysis::GridSource;
using trace::TraceBuilder;

namespace {

using Pair = std::pair<uint32_t, uint32_t>;
using Coords = std::vector<uint32_t>;

// ---------------------------------------------------------------- helpers

// Neighbour pairs of a grid numbered first coordinate fastest, wrap-arounds on periodic
// axes larger than 2 included.
std::vector<Pair> grid_pairs(const std::vector<uint32_t>& dims, const std::vector<bool>& periodic) {
    uint32_t n = 1;
    for (uint32_t d : dims) n *= d;
    std::vector<Pair> pairs;
    for (uint32_t r = 0; r < n; ++r) {
        uint32_t stride = 1;
        for (size_t a = 0; a < dims.size(); ++a) {
            const uint32_t c = r / stride % dims[a];
            if (c + 1 < dims[a])
                pairs.emplace_back(r, r + stride);
            else if (periodic[a] && dims[a] > 2)
                pairs.emplace_back(r, r - c * stride);
            stride *= dims[a];
        }
    }
    return pairs;
}

// One message per pair (first to second); every rank inits first.
TraceBuilder messages_between(uint32_t ranks, const std::vector<Pair>& pairs) {
    TraceBuilder b(ranks);
    for (uint32_t r = 0; r < ranks; ++r) b.mpi_init(r, 0, 5);
    trace::Time t = 10;
    for (const auto& [from, to] : pairs) {
        b.mpi_send(from, t, t + 1, to, b.world(), 0, 8);
        b.mpi_recv(to, t + 2, t + 3, from, b.world(), 0, 8);
        t += 4;
    }
    return b;
}

GridChoice choose(const TraceBuilder& b, const std::optional<CartDeclaration>& declared = {}) {
    return analysis::choose_grid(b.trace(), trace::match(b.trace()), declared);
}

GridChoice infer(const std::vector<uint32_t>& dims, const std::vector<bool>& periodic) {
    uint32_t n = 1;
    for (uint32_t d : dims) n *= d;
    return choose(messages_between(n, grid_pairs(dims, periodic)));
}

// The message of the GridError `spec` raises ("" if none).
std::string parse_error(const std::string& spec) {
    try {
        analysis::parse_cart_declaration(spec);
    } catch (const GridError& e) {
        return e.what();
    }
    return "";
}

report::CartTopology topology(std::vector<uint32_t> sizes, std::vector<bool> periodic) {
    report::CartTopology t;
    t.sizes = std::move(sizes);
    t.periodic = std::move(periodic);
    return t;
}

} // namespace

// ---------------------------------------------------------------- declarations

TEST(CartDeclaration, ParsesDimsPeriodicityAndOrderInAnyOrder) {
    const CartDeclaration d2 = analysis::parse_cart_declaration("8x8");
    EXPECT_EQ(d2.dims, (Coords{8, 8}));
    EXPECT_EQ(d2.periodic, (std::vector<bool>{false, false}));
    EXPECT_EQ(d2.order, CartDeclaration::Order::Row);

    const CartDeclaration d1 = analysis::parse_cart_declaration("16");
    EXPECT_EQ(d1.dims, Coords{16});
    EXPECT_EQ(d1.periodic, std::vector<bool>{false});

    const CartDeclaration d3 = analysis::parse_cart_declaration("4x2x2:periodic=1,0,1:order=col");
    EXPECT_EQ(d3.dims, (Coords{4, 2, 2}));
    EXPECT_EQ(d3.periodic, (std::vector<bool>{true, false, true}));
    EXPECT_EQ(d3.order, CartDeclaration::Order::Col);

    const CartDeclaration swapped = analysis::parse_cart_declaration("4x4:order=row:periodic=0,1");
    EXPECT_EQ(swapped.periodic, (std::vector<bool>{false, true}));
    EXPECT_EQ(swapped.order, CartDeclaration::Order::Row);
}

TEST(CartDeclaration, RejectsMalformedSpecsClearly) {
    const std::string expected = " (expected e.g. 8x8, 4x2x2:periodic=1,0,0 or 16:order=col)";
    EXPECT_EQ(parse_error(""), "bad --cart '': empty" + expected);
    EXPECT_EQ(parse_error("0x4"),
              "bad --cart '0x4': dimension 1 is 0; sizes must be at least 1" + expected);
    EXPECT_EQ(parse_error("4x-2"),
              "bad --cart '4x-2': dimension 2 is '-2', not a positive whole number" + expected);
    EXPECT_EQ(parse_error("4xa"),
              "bad --cart '4xa': dimension 2 is 'a', not a positive whole number" + expected);
    EXPECT_EQ(parse_error("4x"), "bad --cart '4x': dimension 2 is empty" + expected);
    EXPECT_EQ(parse_error("2x2x2x2"),
              "bad --cart '2x2x2x2': at most 3 dimensions, not 4" + expected);
    EXPECT_EQ(parse_error("99999999999x2"),
              "bad --cart '99999999999x2': dimension 1 is '99999999999', too large" + expected);
    EXPECT_EQ(parse_error("65536x65536"),
              "bad --cart '65536x65536': more than 2^32-1 processes" + expected);
    EXPECT_EQ(parse_error("4x4:periodic=1"),
              "bad --cart '4x4:periodic=1': periodic needs one flag per dimension (2), got 1" +
                  expected);
    EXPECT_EQ(parse_error("4x4:periodic=1,2"),
              "bad --cart '4x4:periodic=1,2': periodic flag 2 is '2', not 0 or 1" + expected);
    EXPECT_EQ(parse_error("4x4:order=diag"),
              "bad --cart '4x4:order=diag': order is 'diag', not row or col" + expected);
    EXPECT_EQ(parse_error("4x4:colour=red"),
              "bad --cart '4x4:colour=red': unknown option 'colour' (periodic or order)" +
                  expected);
    EXPECT_EQ(
        parse_error("4x4:periodic"),
        "bad --cart '4x4:periodic': option 'periodic' has no '=' (periodic=... or order=...)" +
            expected);
    EXPECT_EQ(parse_error("4x4:"), "bad --cart '4x4:': empty option after ':'" + expected);
    EXPECT_EQ(parse_error(":order=row"),
              "bad --cart ':order=row': no dimensions before ':'" + expected);
    EXPECT_EQ(parse_error("4x4:order=row:order=col"),
              "bad --cart '4x4:order=row:order=col': order given twice" + expected);
    EXPECT_EQ(parse_error("4 x 4"),
              "bad --cart '4 x 4': dimension 1 is '4 ', not a positive whole number" + expected);
}

TEST(GridCoords, RowOrderVariesTheLastCoordinateFastest) {
    using O = CartDeclaration::Order;
    EXPECT_EQ(analysis::grid_coords(4, {2, 3}, O::Row), (Coords{1, 1}));
    EXPECT_EQ(analysis::grid_coords(5, {2, 3}, O::Row), (Coords{1, 2}));
    EXPECT_EQ(analysis::grid_coords(13, {4, 2, 2}, O::Row), (Coords{3, 0, 1}));
    EXPECT_EQ(analysis::grid_coords(7, {8}, O::Row), Coords{7});
}

TEST(GridCoords, ColOrderVariesTheFirstCoordinateFastest) {
    using O = CartDeclaration::Order;
    EXPECT_EQ(analysis::grid_coords(3, {2, 3}, O::Col), (Coords{1, 1}));
    EXPECT_EQ(analysis::grid_coords(5, {2, 3}, O::Col), (Coords{1, 2}));
    EXPECT_EQ(analysis::grid_coords(13, {4, 2, 2}, O::Col), (Coords{1, 1, 1}));
    EXPECT_EQ(analysis::grid_coords(6, {4, 2, 2}, O::Col), (Coords{2, 1, 0}));
    EXPECT_THROW(analysis::grid_coords(6, {2, 3}, O::Col), GridError);
}

// ---------------------------------------------------------------- recorded and declared

TEST(ChooseGrid, RecordedTopologyMapsCommunicatorRanksToLocations) {
    TraceBuilder b(4);
    const auto reversed = b.communicator("reversed", {3, 2, 1, 0}, b.world());
    const auto cart = b.cart_topology("cart", reversed, {2, 2}, {true, false});
    for (uint32_t r = 0; r < 4; ++r) b.cart_coords(cart, r, {r % 2, r / 2});
    const GridChoice c = choose(b);
    EXPECT_EQ(c.source, GridSource::Recorded);
    ASSERT_TRUE(c.grid);
    EXPECT_EQ(c.grid->name, "cart");
    EXPECT_EQ(c.grid->sizes, (Coords{2, 2}));
    EXPECT_EQ(c.grid->periodic, (std::vector<bool>{true, false}));
    EXPECT_EQ(c.grid->coords, (std::vector<Coords>{{1, 1}, {0, 1}, {1, 0}, {0, 0}}));
    EXPECT_EQ(c.explanation, "recorded in the trace: topology 'cart', a 2x2 grid periodic in "
                             "dimension 0, gives coordinates to all 4 processes");

    // A matching declaration is not needed; one that does not fit is still an error.
    const GridChoice with = choose(b, analysis::parse_cart_declaration("4"));
    EXPECT_EQ(with.source, GridSource::Recorded);
    EXPECT_EQ(with.explanation, c.explanation + "; the --cart declaration was not needed");
    EXPECT_THROW(choose(b, analysis::parse_cart_declaration("3")), GridError);
}

TEST(ChooseGrid, ATopologyCoveringSomeProcessesIsNotUsed) {
    TraceBuilder b(4);
    const auto half = b.cart_topology("half", b.world(), {2}, {false});
    b.cart_coords(half, 0, {0});
    b.cart_coords(half, 1, {1});
    const GridChoice c = choose(b);
    EXPECT_EQ(c.source, GridSource::None);
    EXPECT_FALSE(c.grid);
    EXPECT_EQ(c.explanation,
              "no grid: the trace's topology 'half' gives coordinates to only 2 of 4 processes, "
              "none was declared with --cart, and no point-to-point messages between different "
              "processes to infer a grid from");
}

TEST(ChooseGrid, DeclaredGridNumberedInEitherOrder) {
    TraceBuilder b = messages_between(12, grid_pairs({4, 3}, {false, false}));
    const GridChoice col =
        choose(b, analysis::parse_cart_declaration("4x3:order=col:periodic=1,0"));
    EXPECT_EQ(col.source, GridSource::Declared);
    ASSERT_TRUE(col.grid);
    EXPECT_EQ(col.grid->name, "declared 4x3");
    EXPECT_EQ(col.grid->sizes, (Coords{4, 3}));
    EXPECT_EQ(col.grid->periodic, (std::vector<bool>{true, false}));
    EXPECT_EQ(col.grid->coords[5], (Coords{1, 1}));
    EXPECT_EQ(col.grid->coords[11], (Coords{3, 2}));
    EXPECT_EQ(col.explanation,
              "declared with --cart: a 4x3 grid periodic in dimension 0 numbered first coordinate "
              "fastest (rank = x + 4*y); 17 of 17 communicating pairs are neighbours in it");

    const GridChoice row = choose(b, analysis::parse_cart_declaration("4x3"));
    EXPECT_EQ(row.grid->coords[5], (Coords{1, 2}));
    EXPECT_EQ(row.explanation, "declared with --cart: a non-periodic 4x3 grid numbered last "
                               "coordinate fastest (rank = y + 3*x); 6 of 17 communicating pairs "
                               "are neighbours in it");
}

TEST(ChooseGrid, DeclarationThatDoesNotFitTheRanksIsAnError) {
    TraceBuilder b(12);
    try {
        choose(b, analysis::parse_cart_declaration("4x4"));
        FAIL() << "no GridError";
    } catch (const GridError& e) {
        EXPECT_STREQ(e.what(), "--cart 4x4 has 16 processes, the trace has 12");
    }
}

TEST(ChooseGrid, OnlyEachProcesssFirstLocationGetsCoordinates) {
    trace::Trace t; // two threads per process
    for (uint32_t rank : {0u, 0u, 1u, 1u, 2u, 2u}) {
        trace::Location l;
        l.rank = rank;
        t.defs.locations.push_back(l);
    }
    t.locations.resize(6);
    const GridChoice c =
        analysis::choose_grid(t, trace::Matching{}, analysis::parse_cart_declaration("3"));
    ASSERT_TRUE(c.grid);
    EXPECT_EQ(c.grid->coords, (std::vector<Coords>{{0}, {}, {1}, {}, {2}, {}}));
}

// ---------------------------------------------------------------- inferred

TEST(ChooseGrid, InfersA4x4WavefrontGrid) {
    const GridChoice c = infer({4, 4}, {false, false});
    EXPECT_EQ(c.source, GridSource::Inferred);
    ASSERT_TRUE(c.grid);
    EXPECT_EQ(c.grid->name, "inferred 4x4");
    EXPECT_EQ(c.grid->sizes, (Coords{4, 4}));
    EXPECT_EQ(c.grid->periodic, (std::vector<bool>{false, false}));
    EXPECT_EQ(c.grid->coords[6], (Coords{2, 1}));
    EXPECT_EQ(c.explanation, "inferred from point-to-point messages: all 24 communicating pairs "
                             "are neighbours in a non-periodic 4x4 grid numbered rank = x + 4*y, "
                             "using 24 of its 24 neighbour pairs");
}

TEST(ChooseGrid, InfersTheGridsShapeNotItsTranspose) {
    const GridChoice tall = infer({2, 4}, {false, false});
    ASSERT_TRUE(tall.grid);
    EXPECT_EQ(tall.grid->sizes, (Coords{2, 4}));
    const GridChoice wide = infer({4, 2}, {false, false});
    ASSERT_TRUE(wide.grid);
    EXPECT_EQ(wide.grid->sizes, (Coords{4, 2}));
    const GridChoice chain = infer({8}, {false});
    ASSERT_TRUE(chain.grid);
    EXPECT_EQ(chain.grid->sizes, Coords{8});
    EXPECT_EQ(chain.grid->periodic, std::vector<bool>{false});
}

TEST(ChooseGrid, InfersAPeriodicRing) {
    const GridChoice c = infer({8}, {true});
    ASSERT_TRUE(c.grid);
    EXPECT_EQ(c.grid->name, "inferred 8");
    EXPECT_EQ(c.grid->sizes, Coords{8});
    EXPECT_EQ(c.grid->periodic, std::vector<bool>{true});
    EXPECT_EQ(c.explanation, "inferred from point-to-point messages: all 8 communicating pairs "
                             "are neighbours in a periodic 1D grid of 8, using 8 of its 8 "
                             "neighbour pairs");
    const GridChoice torus = infer({4, 4}, {false, true});
    ASSERT_TRUE(torus.grid);
    EXPECT_EQ(torus.grid->periodic, (std::vector<bool>{false, true}));
    EXPECT_NE(torus.explanation.find("a 4x4 grid periodic in dimension 1 numbered"),
              std::string::npos)
        << torus.explanation;
}

TEST(ChooseGrid, Infers3DHaloExchanges) {
    const GridChoice cube = infer({2, 2, 2}, {false, false, false});
    ASSERT_TRUE(cube.grid);
    EXPECT_EQ(cube.grid->sizes, (Coords{2, 2, 2}));
    EXPECT_EQ(cube.grid->coords[5], (Coords{1, 0, 1}));
    const GridChoice slab = infer({4, 2, 2}, {false, false, false});
    ASSERT_TRUE(slab.grid);
    EXPECT_EQ(slab.grid->name, "inferred 4x2x2");
    EXPECT_EQ(slab.explanation,
              "inferred from point-to-point messages: all 28 communicating pairs are neighbours "
              "in a non-periodic 4x2x2 grid numbered rank = x + 4*y + 8*z, using 28 of its 28 "
              "neighbour pairs");
}

TEST(ChooseGrid, NoGridForAllToAll) {
    std::vector<Pair> pairs;
    for (uint32_t a = 0; a < 6; ++a)
        for (uint32_t b = a + 1; b < 6; ++b) pairs.emplace_back(a, b);
    const GridChoice c = choose(messages_between(6, pairs));
    EXPECT_EQ(c.source, GridSource::None);
    EXPECT_FALSE(c.grid);
    EXPECT_EQ(c.explanation, "no grid: the trace records no topology, none was declared with "
                             "--cart, and no 1D, 2D or 3D grid of 6 processes (numbered first "
                             "coordinate fastest) has all 15 communicating pairs as neighbours");
}

TEST(ChooseGrid, NoGridForRandomPairsOrAStar) {
    std::mt19937 random(42);
    std::vector<Pair> pairs;
    for (uint32_t r = 1; r < 16; ++r) pairs.emplace_back(random() % r, r); // connected
    for (int i = 0; i < 20; ++i) {
        const uint32_t a = random() % 16, b = random() % 16;
        if (a != b) pairs.emplace_back(a, b);
    }
    EXPECT_EQ(choose(messages_between(16, pairs)).source, GridSource::None);

    std::vector<Pair> star;
    for (uint32_t r = 1; r < 9; ++r) star.emplace_back(0, r);
    EXPECT_EQ(choose(messages_between(9, star)).source, GridSource::None);
}

TEST(ChooseGrid, NoGridWhenThePairsLeaveProcessesApart) {
    std::vector<Pair> rows; // four separate east-west chains of a 4x4 grid
    for (const Pair& p : grid_pairs({4, 4}, {false, false}))
        if (p.second == p.first + 1) rows.push_back(p);
    const GridChoice c = choose(messages_between(16, rows));
    EXPECT_EQ(c.source, GridSource::None);
    EXPECT_EQ(c.explanation, "no grid: the trace records no topology, none was declared with "
                             "--cart, and the 12 communicating pairs split the 16 processes into "
                             "4 unconnected groups, so no grid can be inferred");
}

TEST(ChooseGrid, NoGridWhenMostNeighbourPairsAreUnused) {
    // A spanning tree of a 3x3x3 grid: east-west chains, one north-south chain per plane
    // at x = 0, one up-down chain at x = y = 0. Only the 3D grid fits; 26 of its 54 pairs.
    std::vector<Pair> tree;
    for (const Pair& p : grid_pairs({3, 3, 3}, {false, false, false})) {
        const uint32_t step = p.second - p.first, x = p.first % 3, y = p.first / 3 % 3;
        if (step == 1 || (step == 3 && x == 0) || (step == 9 && x == 0 && y == 0))
            tree.push_back(p);
    }
    ASSERT_EQ(tree.size(), 26u);
    const GridChoice c = choose(messages_between(27, tree));
    EXPECT_EQ(c.source, GridSource::None);
    EXPECT_EQ(c.explanation,
              "no grid: the trace records no topology, none was declared with --cart, and the "
              "best fitting grid, a non-periodic 3x3x3 grid numbered rank = x + 3*y + 9*z, has "
              "only 26 of its 54 neighbour pairs communicating (at least half are required)");
}

TEST(ChooseGrid, NoGridFromTooFewProcessesOrNoMessages) {
    EXPECT_EQ(choose(messages_between(2, {{0, 1}})).explanation,
              "no grid: the trace records no topology, none was declared with --cart, and the "
              "trace has fewer than 3 processes to infer a grid from");
    TraceBuilder b(4);
    for (uint32_t r = 0; r < 4; ++r)
        b.mpi_collective(r, 10, 20, trace::CollectiveOp::Allreduce, b.world());
    const GridChoice c = choose(b);
    EXPECT_EQ(c.source, GridSource::None);
    EXPECT_NE(c.explanation.find("no point-to-point messages"), std::string::npos);
    EXPECT_EQ(analysis::choose_grid(trace::Trace{}, trace::Matching{}, std::nullopt).explanation,
              "no grid: the trace has no processes");
}

TEST(ChooseGrid, InfersA100x100GridQuickly) {
    // 10^4 processes: built directly (no trace events), only the definitions and matches.
    const uint32_t n = 10000;
    trace::Trace t;
    t.defs.locations.resize(n);
    for (uint32_t r = 0; r < n; ++r) t.defs.locations[r].rank = r;
    t.locations.resize(n);
    trace::Matching m;
    for (int repeat = 0; repeat < 3; ++repeat) // several messages per pair, both directions
        for (const auto& [a, b] : grid_pairs({100, 100}, {false, false})) {
            m.messages.push_back({{a, 0}, {b, 0}, 0});
            m.messages.push_back({{b, 0}, {a, 0}, 0});
        }
    const auto start = std::chrono::steady_clock::now();
    const GridChoice c = analysis::choose_grid(t, m, std::nullopt);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(c.grid);
    EXPECT_EQ(c.grid->sizes, (Coords{100, 100}));
    EXPECT_EQ(c.grid->coords[9999], (Coords{99, 99}));
    EXPECT_LT(seconds, 5.0); // a generous bound: it takes well under a second
}

// ---------------------------------------------------------------- roles

TEST(GridRoles, OneDimension) {
    const auto line = topology({5}, {false});
    EXPECT_EQ(analysis::boundary_sides(line, {0}), std::vector<int>{-1});
    EXPECT_EQ(analysis::boundary_sides(line, {4}), std::vector<int>{1});
    EXPECT_EQ(analysis::boundary_sides(line, {2}), std::vector<int>{0});
    EXPECT_EQ(analysis::grid_role(line, {0}), GridRole::Corner);
    EXPECT_EQ(analysis::grid_role(line, {4}), GridRole::Corner);
    EXPECT_EQ(analysis::grid_role(line, {2}), GridRole::Interior);
    // A ring treats every process alike, and one process has nobody to compare with.
    const auto ring = topology({5}, {true});
    EXPECT_EQ(analysis::boundary_sides(ring, {0}), std::vector<int>{0});
    EXPECT_FALSE(analysis::has_roles(ring));
    EXPECT_EQ(analysis::grid_role(ring, {0}), std::nullopt);
    EXPECT_EQ(analysis::grid_role(ring, {4}), std::nullopt);
    EXPECT_FALSE(analysis::has_roles(topology({1}, {false})));
    EXPECT_EQ(analysis::grid_role(topology({1}, {false}), {0}), std::nullopt);
    EXPECT_TRUE(analysis::has_roles(line));
    EXPECT_TRUE(analysis::has_roles(topology({2}, {false})));
}

TEST(GridRoles, TwoDimensions) {
    const auto grid = topology({4, 3}, {false, false});
    EXPECT_EQ(analysis::boundary_sides(grid, {0, 0}), (std::vector<int>{-1, -1}));
    EXPECT_EQ(analysis::boundary_sides(grid, {3, 2}), (std::vector<int>{1, 1}));
    EXPECT_EQ(analysis::boundary_sides(grid, {1, 0}), (std::vector<int>{0, -1}));
    EXPECT_EQ(analysis::grid_role(grid, {0, 0}), GridRole::Corner);
    EXPECT_EQ(analysis::grid_role(grid, {3, 0}), GridRole::Corner);
    EXPECT_EQ(analysis::grid_role(grid, {1, 0}), GridRole::Edge);
    EXPECT_EQ(analysis::grid_role(grid, {0, 1}), GridRole::Edge);
    EXPECT_EQ(analysis::grid_role(grid, {2, 1}), GridRole::Interior);
    // A cylinder: periodic along x, so no corners.
    const auto cylinder = topology({4, 3}, {true, false});
    EXPECT_EQ(analysis::boundary_sides(cylinder, {0, 0}), (std::vector<int>{0, -1}));
    EXPECT_EQ(analysis::grid_role(cylinder, {0, 0}), GridRole::Edge);
    EXPECT_EQ(analysis::grid_role(cylinder, {3, 1}), GridRole::Interior);
    EXPECT_THROW(analysis::grid_role(grid, {1}), std::invalid_argument);
}

TEST(GridRoles, ThreeDimensionsAndDimensionsOfSizeOne) {
    const auto cube = topology({3, 3, 3}, {false, false, false});
    EXPECT_EQ(analysis::grid_role(cube, {0, 0, 0}), GridRole::Corner);
    EXPECT_EQ(analysis::grid_role(cube, {2, 0, 2}), GridRole::Corner);
    EXPECT_EQ(analysis::grid_role(cube, {0, 0, 1}), GridRole::Edge);
    EXPECT_EQ(analysis::grid_role(cube, {0, 1, 1}), GridRole::Face);
    EXPECT_EQ(analysis::grid_role(cube, {1, 1, 1}), GridRole::Interior);
    EXPECT_EQ(analysis::boundary_sides(cube, {2, 1, 0}), (std::vector<int>{1, 0, -1}));
    // Periodic in z: the z-boundary disappears, so former corners are edges.
    const auto tube = topology({3, 3, 3}, {false, false, true});
    EXPECT_EQ(analysis::grid_role(tube, {0, 0, 0}), GridRole::Edge);
    EXPECT_EQ(analysis::grid_role(tube, {0, 1, 0}), GridRole::Face);
    // A 3x3x1 grid is a 2D grid.
    const auto flat = topology({3, 3, 1}, {false, false, false});
    EXPECT_EQ(analysis::boundary_sides(flat, {0, 0, 0}), (std::vector<int>{-1, -1, 0}));
    EXPECT_EQ(analysis::grid_role(flat, {0, 0, 0}), GridRole::Corner);
    EXPECT_EQ(analysis::grid_role(flat, {1, 0, 0}), GridRole::Edge);
    EXPECT_EQ(analysis::grid_role(flat, {1, 1, 0}), GridRole::Interior);
    // Periodic in x and y, open in z (of size 1): no boundary anywhere.
    const auto slab = topology({3, 3, 1}, {true, true, false});
    EXPECT_FALSE(analysis::has_roles(slab));
    EXPECT_EQ(analysis::grid_role(slab, {0, 0, 0}), std::nullopt);
}

namespace {

// How many processes of the grid have each role (corner, edge, face, interior, none).
std::array<size_t, 5> role_counts(const report::CartTopology& grid) {
    std::array<size_t, 5> counts{};
    uint32_t n = 1;
    for (uint32_t d : grid.sizes) n *= d;
    for (uint32_t p = 0; p < n; ++p) {
        const auto role = analysis::grid_role(
            grid, analysis::grid_coords(p, grid.sizes, CartDeclaration::Order::Row));
        ++counts[role ? static_cast<size_t>(*role) : 4];
    }
    return counts;
}

} // namespace

TEST(GridRoles, GridsWithASideOf2HaveNoInterior) {
    // 16x2x2: every process lies on the y and z boundaries; the two x ends are corners.
    const auto bar = topology({16, 2, 2}, {false, false, false});
    EXPECT_TRUE(analysis::has_roles(bar));
    EXPECT_EQ(role_counts(bar), (std::array<size_t, 5>{8, 56, 0, 0, 0}));
    EXPECT_EQ(analysis::grid_role(bar, {0, 1, 0}), GridRole::Corner);
    EXPECT_EQ(analysis::grid_role(bar, {15, 0, 1}), GridRole::Corner);
    EXPECT_EQ(analysis::grid_role(bar, {7, 1, 1}), GridRole::Edge);
    EXPECT_EQ(role_counts(topology({2, 2}, {false, false})),
              (std::array<size_t, 5>{4, 0, 0, 0, 0}));
    EXPECT_EQ(role_counts(topology({4, 2}, {false, false})),
              (std::array<size_t, 5>{4, 4, 0, 0, 0}));
    EXPECT_EQ(role_counts(topology({2, 2, 2}, {false, false, false})),
              (std::array<size_t, 5>{8, 0, 0, 0, 0}));
    // 3x3x2: corners, edges and the two centres on the z faces, still no interior.
    EXPECT_EQ(role_counts(topology({3, 3, 2}, {false, false, false})),
              (std::array<size_t, 5>{8, 8, 2, 0, 0}));
}

TEST(GridRoles, PeriodicGrids) {
    // A ring and a torus: no roles at all.
    EXPECT_EQ(role_counts(topology({8}, {true})), (std::array<size_t, 5>{0, 0, 0, 0, 8}));
    const auto torus = topology({4, 4}, {true, true});
    EXPECT_FALSE(analysis::has_roles(torus));
    EXPECT_EQ(role_counts(torus), (std::array<size_t, 5>{0, 0, 0, 0, 16}));
    EXPECT_EQ(analysis::boundary_sides(torus, {0, 3}), (std::vector<int>{0, 0}));
    EXPECT_EQ(role_counts(topology({4, 2, 3}, {true, true, true})),
              (std::array<size_t, 5>{0, 0, 0, 0, 24}));
    // Partly periodic: the open axis keeps its boundaries. 4x3 periodic in x: the rows
    // y = 0 and y = 2 are edges (a boundary in one of two dimensions), y = 1 interior.
    const auto cylinder = topology({4, 3}, {true, false});
    EXPECT_TRUE(analysis::has_roles(cylinder));
    EXPECT_EQ(role_counts(cylinder), (std::array<size_t, 5>{0, 8, 0, 4, 0}));
    // 4x2 periodic in x: every process on a y boundary, all edges.
    EXPECT_EQ(role_counts(topology({4, 2}, {true, false})), (std::array<size_t, 5>{0, 8, 0, 0, 0}));
    // 16x2x2 periodic in x: boundaries in y and z, so edges only.
    EXPECT_EQ(role_counts(topology({16, 2, 2}, {true, false, false})),
              (std::array<size_t, 5>{0, 64, 0, 0, 0}));
    // 3x3x3 periodic in z: x and y boundaries make corners into edges, edges into faces.
    EXPECT_EQ(role_counts(topology({3, 3, 3}, {false, false, true})),
              (std::array<size_t, 5>{0, 12, 12, 3, 0}));
}

namespace {

// 3x3 grid "mesh" (coords x = r % 3, y = r / 3), Wait at NxN at MPI_Allreduce: corners 1.5,
// edges 1.0, the centre 0.5 (with 0.25 of it in a sub-metric); Time 4 per location. A 1D
// topology "line" comes first; the attributes name "mesh" as the recorded grid used.
report::Report role_report() {
    report::Report r;
    auto metric = [&](const char* unique, const char* display, int parent) {
        report::Metric m;
        m.unique_name = unique;
        m.display_name = display;
        m.parent = parent;
        return r.add_metric(m);
    };
    const int time = metric("time", "Time", -1);
    const int mpi = metric("mpi", "MPI", time);
    const int coll = metric("mpi_collective", "Collective", mpi);
    const int nxn = metric("mpi_wait_nxn", "Wait at NxN", coll);
    const int sub = metric("nxn_sub", "NxN part", nxn);
    report::Region program, allreduce;
    program.name = "program";
    allreduce.name = "MPI_Allreduce";
    const int root = r.add_callpath(r.add_region(program), -1);
    const int call = r.add_callpath(r.add_region(allreduce), root);
    report::CartTopology line, mesh;
    line.name = "line";
    line.sizes = {9};
    line.periodic = {false};
    mesh.name = "mesh";
    mesh.sizes = {3, 3};
    mesh.periodic = {false, false};
    for (int l = 0; l < 9; ++l) {
        report::Location loc;
        loc.name = "Master thread";
        loc.host = "node";
        loc.process = "MPI Rank " + std::to_string(l);
        loc.rank = l;
        r.add_location(loc);
        line.coords.push_back({static_cast<uint32_t>(l)});
        mesh.coords.push_back({static_cast<uint32_t>(l % 3), static_cast<uint32_t>(l / 3)});
        r.set_value(time, root, l, 4.0);
        const bool corner = l == 0 || l == 2 || l == 6 || l == 8;
        r.set_value(nxn, call, l, l == 4 ? 0.25 : corner ? 1.5 : 1.0);
    }
    r.set_value(sub, call, 4, 0.25);
    r.topologies = {line, mesh};
    r.attributes["topolens.grid"] = "mesh";
    r.attributes["topolens.grid_source"] = "recorded";
    r.attributes["topolens.grid_explanation"] =
        "recorded in the trace: topology 'mesh', a non-periodic 3x3 grid, gives coordinates to "
        "all 9 processes";
    return r;
}

} // namespace

TEST(RoleStatistics, MeanPerRoleAndRatioToTheInterior) {
    const report::Report r = role_report();
    const int nxn = *r.find_metric("mpi_wait_nxn");
    const auto stats = analysis::role_statistics(r, nxn, r.topologies[1]);
    ASSERT_EQ(stats.size(), 3u);
    EXPECT_EQ(stats[0].role, GridRole::Corner);
    EXPECT_EQ(stats[0].processes, 4u);
    EXPECT_EQ(stats[0].mean, 1.5);
    EXPECT_EQ(stats[0].vs_interior, 3.0);
    EXPECT_EQ(stats[1].role, GridRole::Edge);
    EXPECT_EQ(stats[1].processes, 4u);
    EXPECT_EQ(stats[1].mean, 1.0);
    EXPECT_EQ(stats[1].vs_interior, 2.0);
    EXPECT_EQ(stats[2].role, GridRole::Interior);
    EXPECT_EQ(stats[2].processes, 1u);
    EXPECT_EQ(stats[2].mean, 0.5); // the sub-metric counts in
    EXPECT_EQ(stats[2].vs_interior, 1.0);

    // Without an interior there is nothing to compare with.
    report::CartTopology two = topology({2, 2}, {false, false});
    two.coords = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    const auto corners = analysis::role_statistics(r, nxn, two);
    ASSERT_EQ(corners.size(), 1u);
    EXPECT_EQ(corners[0].processes, 4u);
    EXPECT_EQ(corners[0].mean, (1.5 + 1.0 + 1.5 + 1.0) / 4);
    EXPECT_FALSE(corners[0].vs_interior);
}

TEST(RoleStatistics, ThreadsOfAProcessAddUp) {
    report::Report r;
    report::Metric m;
    m.unique_name = "w";
    const int w = r.add_metric(m);
    report::Region region;
    region.name = "program";
    const int root = r.add_callpath(r.add_region(region), -1);
    for (int l = 0; l < 6; ++l) { // ranks 0,0,1,1,2,2: two threads each
        report::Location loc;
        loc.rank = l / 2;
        loc.thread = l % 2;
        r.add_location(loc);
        r.set_value(w, root, l, 1.0 + l);
    }
    report::CartTopology line = topology({3}, {false});
    line.coords = {{0}, {}, {1}, {}, {2}, {}};
    const auto stats = analysis::role_statistics(r, w, line);
    ASSERT_EQ(stats.size(), 2u);
    EXPECT_EQ(stats[0].mean, ((1.0 + 2.0) + (5.0 + 6.0)) / 2);
    EXPECT_EQ(stats[1].mean, 3.0 + 4.0);
    EXPECT_EQ(stats[0].vs_interior, 14.0 / 2 / 7.0);
}

namespace {

// A report with one process per cell of a `dims` grid "mesh" (row order, rank = location)
// and the metric tree of role_report: Time 4 per process, Wait at NxN at MPI_Allreduce as
// `wait` gives it per coordinates. The attributes name "mesh" as the recorded grid used.
report::Report grid_report(const std::vector<uint32_t>& dims, const std::vector<bool>& periodic,
                           const std::function<double(const Coords&)>& wait) {
    report::Report r;
    auto metric = [&](const char* unique, const char* display, int parent) {
        report::Metric m;
        m.unique_name = unique;
        m.display_name = display;
        m.parent = parent;
        return r.add_metric(m);
    };
    const int time = metric("time", "Time", -1);
    const int mpi = metric("mpi", "MPI", time);
    const int coll = metric("mpi_collective", "Collective", mpi);
    const int nxn = metric("mpi_wait_nxn", "Wait at NxN", coll);
    report::Region program, allreduce;
    program.name = "program";
    allreduce.name = "MPI_Allreduce";
    const int root = r.add_callpath(r.add_region(program), -1);
    const int call = r.add_callpath(r.add_region(allreduce), root);
    report::CartTopology mesh = topology(dims, periodic);
    mesh.name = "mesh";
    uint32_t n = 1;
    for (uint32_t d : dims) n *= d;
    for (uint32_t l = 0; l < n; ++l) {
        report::Location loc;
        loc.name = "Master thread";
        loc.host = "node";
        loc.process = "MPI Rank " + std::to_string(l);
        loc.rank = static_cast<int>(l);
        r.add_location(loc);
        mesh.coords.push_back(analysis::grid_coords(l, dims, CartDeclaration::Order::Row));
        r.set_value(time, root, static_cast<int>(l), 4.0);
        r.set_value(nxn, call, static_cast<int>(l), wait(mesh.coords.back()));
    }
    r.topologies = {mesh};
    r.attributes["topolens.grid"] = "mesh";
    r.attributes["topolens.grid_source"] = "recorded";
    return r;
}

// Wait at NxN statistics per role on grid_report(dims, periodic, wait).
std::vector<analysis::RoleStatistics>
grid_role_statistics(const std::vector<uint32_t>& dims, const std::vector<bool>& periodic,
                     const std::function<double(const Coords&)>& wait) {
    const report::Report r = grid_report(dims, periodic, wait);
    return analysis::role_statistics(r, *r.find_metric("mpi_wait_nxn"), r.topologies[0]);
}

// A wait per role: the role of the coordinates in a non-periodic grid of `dims`.
std::function<double(const Coords&)> by_role(const std::vector<uint32_t>& dims,
                                             std::array<double, 4> wait) {
    return [dims, wait](const Coords& c) {
        const auto grid = topology(dims, std::vector<bool>(dims.size(), false));
        return wait[static_cast<size_t>(*analysis::grid_role(grid, c))];
    };
}

} // namespace

TEST(RoleStatistics, WithoutInteriorCornersAreComparedWithTheRest) {
    // 16x2x2: 8 corners waiting 3 s, 56 edges 1.5 s.
    auto stats = grid_role_statistics({16, 2, 2}, {false, false, false},
                                      by_role({16, 2, 2}, {3.0, 1.5, 0.0, 0.0}));
    ASSERT_EQ(stats.size(), 2u);
    EXPECT_EQ(stats[0].role, GridRole::Corner);
    EXPECT_EQ(stats[0].processes, 8u);
    EXPECT_EQ(stats[0].mean, 3.0);
    EXPECT_EQ(stats[0].vs_rest, 2.0);
    EXPECT_FALSE(stats[0].vs_interior);
    EXPECT_EQ(stats[1].role, GridRole::Edge);
    EXPECT_EQ(stats[1].processes, 56u);
    EXPECT_EQ(stats[1].vs_rest, 1.0);
    EXPECT_FALSE(stats[1].vs_interior);

    // 3x3x2: the rest are 8 edges (2.25 s) and 2 faces (1 s), mean 2 s.
    stats = grid_role_statistics({3, 3, 2}, {false, false, false},
                                 by_role({3, 3, 2}, {4.0, 2.25, 1.0, 0.0}));
    ASSERT_EQ(stats.size(), 3u);
    EXPECT_EQ(stats[0].vs_rest, 2.0);
    EXPECT_EQ(stats[1].vs_rest, 1.125);
    EXPECT_EQ(stats[2].role, GridRole::Face);
    EXPECT_EQ(stats[2].processes, 2u);
    EXPECT_EQ(stats[2].vs_rest, 0.5);

    // 4x2 whose edges wait nothing: no ratio to a zero mean.
    stats = grid_role_statistics({4, 2}, {false, false}, by_role({4, 2}, {1.0, 0.0, 0.0, 0.0}));
    ASSERT_EQ(stats.size(), 2u);
    EXPECT_FALSE(stats[0].vs_rest);
    EXPECT_FALSE(stats[1].vs_rest);

    // 2x2: corners only, nothing to compare.
    stats = grid_role_statistics({2, 2}, {false, false}, [](const Coords&) { return 1.0; });
    ASSERT_EQ(stats.size(), 1u);
    EXPECT_EQ(stats[0].processes, 4u);
    EXPECT_FALSE(stats[0].vs_rest);
    EXPECT_FALSE(stats[0].vs_interior);

    // With an interior the ratios are to the interior, never to the rest.
    stats = grid_role_statistics({4, 3}, {false, false}, by_role({4, 3}, {3.0, 2.0, 0.0, 0.5}));
    ASSERT_EQ(stats.size(), 3u);
    EXPECT_EQ(stats[0].vs_interior, 6.0);
    EXPECT_FALSE(stats[0].vs_rest);
}

TEST(RoleStatistics, PeriodicGrids) {
    const auto wait = [](const Coords& c) { return 1.0 + c[0]; };
    // Fully periodic: no roles, no statistics.
    EXPECT_TRUE(grid_role_statistics({4, 4}, {true, true}, wait).empty());
    EXPECT_TRUE(grid_role_statistics({8}, {true}, wait).empty());
    // 4x3 periodic in x: rows y = 0, 2 are edges, y = 1 the interior.
    const auto rows = [](const Coords& c) { return c[1] == 1 ? 0.5 : 2.0; };
    auto stats = grid_role_statistics({4, 3}, {true, false}, rows);
    ASSERT_EQ(stats.size(), 2u);
    EXPECT_EQ(stats[0].role, GridRole::Edge);
    EXPECT_EQ(stats[0].processes, 8u);
    EXPECT_EQ(stats[0].vs_interior, 4.0);
    EXPECT_EQ(stats[1].role, GridRole::Interior);
    EXPECT_EQ(stats[1].processes, 4u);
    // 4x2 periodic in x: edges only, nothing to compare.
    stats = grid_role_statistics({4, 2}, {true, false}, wait);
    ASSERT_EQ(stats.size(), 1u);
    EXPECT_EQ(stats[0].role, GridRole::Edge);
    EXPECT_EQ(stats[0].mean, 2.5);
    EXPECT_FALSE(stats[0].vs_rest);
    EXPECT_FALSE(stats[0].vs_interior);
}

TEST(ReportGrid, FromAttributesOrTheFirstTopology) {
    report::Report r = role_report();
    report::ReportGrid g = report::report_grid(r);
    EXPECT_EQ(g.grid, &r.topologies[1]);
    EXPECT_EQ(g.source, "recorded");
    r.attributes.clear();
    g = report::report_grid(r);
    EXPECT_EQ(g.grid, &r.topologies[0]);
    EXPECT_EQ(g.source, "unknown");
    EXPECT_EQ(g.explanation, "");
    r.attributes["topolens.grid_source"] = "none";
    r.attributes["topolens.grid_explanation"] = "no grid: why";
    g = report::report_grid(r);
    EXPECT_EQ(g.grid, nullptr);
    EXPECT_EQ(g.explanation, "no grid: why");
}

// ---------------------------------------------------------------- commands

namespace {

test::CommandResult run_topolens(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {topolens::test::topolens_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_command(argv);
}

// The line starting with `start` and the `count` lines after it.
std::vector<std::string> block(const std::string& text, const std::string& start, size_t count) {
    std::vector<std::string> all;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) all.push_back(line);
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].rfind(start, 0) == 0)
            return std::vector<std::string>(all.begin() + i,
                                            all.begin() + std::min(all.size(), i + count + 1));
    return {};
}

} // namespace

TEST(GridCommands, SummaryNamesTheGridAndWaitsByRole) {
    test::ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    report::write_cube4(role_report(), path);
    const auto r = run_topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(block(r.out, "grid", 3),
              (std::vector<std::string>{
                  "grid",
                  "  used:         mesh 3x3, periodic no,no (recorded)",
                  "  explanation:  recorded in the trace: topology 'mesh', a non-periodic 3x3 "
                  "grid, gives coordinates to all 9 processes",
                  "  roles:        4 corner, 4 edge, 1 interior",
              }));
    EXPECT_EQ(block(r.out, "  top locations", 9),
              (std::vector<std::string>{
                  "  top locations (5 of 9)",
                  "    location  rank  host  coords     value      %",
                  "    0            0  node  0 0     1.500000  14.29",
                  "    2            2  node  2 0     1.500000  14.29",
                  "    6            6  node  0 2     1.500000  14.29",
                  "    8            8  node  2 2     1.500000  14.29",
                  "    1            1  node  1 0     1.000000   9.52",
                  "  by grid role (mean per process, sec)",
                  "    role      processes      mean  vs interior",
                  "    corner            4  1.500000        3.00x",
              }));
    EXPECT_EQ(block(r.out, "    edge", 1),
              (std::vector<std::string>{"    edge              4  1.000000        2.00x",
                                        "    interior          1  0.500000        1.00x"}));
}

TEST(GridCommands, SummaryOfOlderReportsAndReportsWithoutAGrid) {
    test::ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    report::Report old = role_report();
    old.attributes.clear();
    std::swap(old.topologies[0], old.topologies[1]); // mesh first: the one used
    report::write_cube4(old, path);
    auto r = run_topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(block(r.out, "grid", 2),
              (std::vector<std::string>{
                  "grid",
                  "  used:         mesh 3x3, periodic no,no (the report's first topology; source "
                  "unknown)",
                  "  roles:        4 corner, 4 edge, 1 interior",
              }));

    report::Report none = role_report();
    none.topologies = {};
    none.attributes = {{"topolens.grid_source", "none"},
                       {"topolens.grid_explanation", "no grid: for a reason"}};
    report::write_cube4(none, path);
    r = run_topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(block(r.out, "grid", 2),
              (std::vector<std::string>{"grid", "  used:         none",
                                        "  explanation:  no grid: for a reason"}));
    EXPECT_EQ(r.out.find("by grid role"), std::string::npos);

    // Periodic along x: rows y = 0 and y = 2 are edges, the middle row is interior.
    report::Report cylinder = role_report();
    cylinder.topologies[1].periodic = {true, false};
    report::write_cube4(cylinder, path);
    r = run_topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(block(r.out, "  by grid role", 3),
              (std::vector<std::string>{"  by grid role (mean per process, sec)",
                                        "    role      processes      mean  vs interior",
                                        "    edge              6  1.333333        1.60x",
                                        "    interior          3  0.833333        1.00x"}));

    // A grid of corners only has nothing to compare.
    report::Report corners = role_report();
    corners.topologies[1].sizes = {2, 2};
    corners.topologies[1].coords = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {}, {}, {}, {}, {}};
    report::write_cube4(corners, path);
    r = run_topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(block(r.out, "  by grid role", 3),
              (std::vector<std::string>{"  by grid role (mean per process, sec)",
                                        "    role    processes      mean",
                                        "    corner          4  1.250000",
                                        "    every process is a corner: nothing to compare"}));
}

TEST(GridCommands, SummaryComparesCornersWithTheRestWithoutInterior) {
    test::ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    // 16x2x2: corners wait 3 s, the 56 edges 1.5 s.
    report::write_cube4(
        grid_report({16, 2, 2}, {false, false, false}, by_role({16, 2, 2}, {3.0, 1.5, 0, 0})),
        path);
    auto r = run_topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(block(r.out, "  roles:", 0),
              std::vector<std::string>{"  roles:        8 corner, 56 edge"});
    EXPECT_EQ(
        block(r.out, "  by grid role", 4),
        (std::vector<std::string>{
            "  by grid role (mean per process, sec)", "    role    processes      mean  vs rest",
            "    corner          8  3.000000    2.00x", "    edge           56  1.500000    1.00x",
            "    no interior processes: ratios to the mean of the 56 processes that are not "
            "corners"}))
        << r.out;

    // 3x3x2: edges and faces together are the rest (mean 2 s).
    report::write_cube4(
        grid_report({3, 3, 2}, {false, false, false}, by_role({3, 3, 2}, {4.0, 2.25, 1.0, 0})),
        path);
    r = run_topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(
        block(r.out, "  by grid role", 5),
        (std::vector<std::string>{
            "  by grid role (mean per process, sec)", "    role    processes      mean  vs rest",
            "    corner          8  4.000000    2.00x", "    edge            8  2.250000    1.12x",
            "    face            2  1.000000    0.50x",
            "    no interior processes: ratios to the mean of the 10 processes that are "
            "not corners"}))
        << r.out;

    // The rest waiting nothing: no ratios.
    report::write_cube4(grid_report({4, 2}, {false, false}, by_role({4, 2}, {1.0, 0, 0, 0})), path);
    r = run_topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(block(r.out, "  by grid role", 4),
              (std::vector<std::string>{
                  "  by grid role (mean per process, sec)", "    role    processes      mean",
                  "    corner          4  1.000000", "    edge            4  0.000000",
                  "    the mean of the processes that are not corners is 0: ratios not available"}))
        << r.out;
}

TEST(GridCommands, PeriodicGridsHaveNoRoles) {
    test::ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    // A 4x4 torus: summary says so once for the grid and once per wait state.
    report::write_cube4(
        grid_report({4, 4}, {true, true}, [](const Coords& c) { return 1.0 + c[0]; }), path);
    auto r = run_topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(block(r.out, "grid", 2),
              (std::vector<std::string>{
                  "grid", "  used:         mesh 4x4, periodic yes,yes (recorded)",
                  "  roles:        none (periodic in every dimension: no process lies on a "
                  "boundary)"}))
        << r.out;
    // Rows and columns are still rows and columns (summary's means per row and column).
    EXPECT_EQ(
        block(r.out, "  by grid role", 5),
        (std::vector<std::string>{
            "  by grid role: none (periodic in every dimension: no process lies on a "
            "boundary)",
            "  by row and column (mean per process, sec; row i: coordinate 0 = i, column "
            "j: coordinate 1 = j)",
            "    slices     least         mean  vs others  most          mean  vs others",
            "    4 rows     row 0     1.000000      0.33x  row 3     4.000000      2.00x",
            "    4 columns  column 0  2.500000      1.00x  column 0  2.500000      1.00x", ""}))
        << r.out;
    EXPECT_EQ(r.out.find("interior"), std::string::npos) << r.out;

    // values: no role column entries, roles null, boundaries all 0.
    const auto csv = run_topolens({"values", path, "--metric", "mpi_wait_nxn"});
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_EQ(block(csv.out, "location", 2),
              (std::vector<std::string>{"location,rank,thread,host,coords,value,role",
                                        "0,0,0,node,0 0,1,", "1,1,0,node,0 1,1,"}));
    const auto json =
        run_topolens({"values", path, "--metric", "mpi_wait_nxn", "--format", "json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    EXPECT_NE(json.out.find("\"grid_source\": \"recorded\",\n \"roles\": null,\n"),
              std::string::npos)
        << json.out;
    EXPECT_NE(json.out.find("\"coords\": [3,1], \"role\": null, \"boundary\": [0,0], "
                            "\"value\": 4}"),
              std::string::npos)
        << json.out;

    // A ring, and a grid of one process.
    report::write_cube4(grid_report({8}, {true}, [](const Coords&) { return 1.0; }), path);
    r = run_topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(block(r.out, "  roles:", 0),
              std::vector<std::string>{
                  "  roles:        none (periodic in every dimension: no process lies on a "
                  "boundary)"});
    report::write_cube4(grid_report({1, 1}, {false, false}, [](const Coords&) { return 1.0; }),
                        path);
    r = run_topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(block(r.out, "  roles:", 0),
              std::vector<std::string>{"  roles:        none (no dimension larger than 1)"});
    EXPECT_EQ(block(r.out, "  by grid role", 0),
              std::vector<std::string>{"  by grid role: none (no dimension larger than 1)"});

    // Partly periodic: 4x3 periodic in x compares its rims (edges) with the middle row.
    report::write_cube4(
        grid_report({4, 3}, {true, false}, [](const Coords& c) { return c[1] == 1 ? 0.5 : 2.0; }),
        path);
    r = run_topolens({"summary", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(block(r.out, "  roles:", 0),
              std::vector<std::string>{"  roles:        8 edge, 4 interior"});
    EXPECT_EQ(block(r.out, "  by grid role", 3),
              (std::vector<std::string>{"  by grid role (mean per process, sec)",
                                        "    role      processes      mean  vs interior",
                                        "    edge              8  2.000000        4.00x",
                                        "    interior          4  0.500000        1.00x"}))
        << r.out;
}

TEST(GridCommands, ValuesGiveRolesPerLocationAndPerRole) {
    test::ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    report::write_cube4(role_report(), path);
    const auto csv = run_topolens({"values", path, "--metric", "Wait at NxN"});
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_EQ(block(csv.out, "location", 5),
              (std::vector<std::string>{"location,rank,thread,host,coords,value,role",
                                        "0,0,0,node,0 0,1.5,corner", "1,1,0,node,1 0,1,edge",
                                        "2,2,0,node,2 0,1.5,corner", "3,3,0,node,0 1,1,edge",
                                        "4,4,0,node,1 1,0.5,interior"}))
        << csv.out;

    const auto json =
        run_topolens({"values", path, "--metric", "mpi_wait_nxn", "--format", "json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    EXPECT_NE(json.out.find(" \"topology\": {\"name\": \"mesh\", \"dims\": [3,3], \"periodic\": "
                            "[false,false]}, \"grid_source\": \"recorded\",\n"
                            " \"roles\": [{\"role\": \"corner\", \"processes\": 4, \"mean\": "
                            "1.5, \"vs_interior\": 3, \"vs_rest\": null}, {\"role\": \"edge\", "
                            "\"processes\": 4, \"mean\": 1, \"vs_interior\": 2, \"vs_rest\": "
                            "null}, {\"role\": \"interior\", \"processes\": 1, \"mean\": 0.5, "
                            "\"vs_interior\": 1, \"vs_rest\": null}],\n"),
              std::string::npos)
        << json.out;
    EXPECT_NE(json.out.find("\"coords\": [2,0], \"role\": \"corner\", \"boundary\": [1,-1], "
                            "\"value\": 1.5}"),
              std::string::npos)
        << json.out;
    EXPECT_NE(json.out.find("\"coords\": [1,1], \"role\": \"interior\", \"boundary\": [0,0], "
                            "\"value\": 0.5}"),
              std::string::npos);

    // Another topology is a recorded one; roles in it, for the call path asked for.
    const auto line = run_topolens({"values", path, "--metric", "mpi_wait_nxn", "--format", "json",
                                    "--topology", "line", "--callpath", "MPI_Allreduce"});
    ASSERT_EQ(line.exit_code, 0) << line.err;
    EXPECT_NE(line.out.find("\"grid_source\": \"recorded\",\n \"roles\": [{\"role\": \"corner\", "
                            "\"processes\": 2, \"mean\": 1.5, \"vs_interior\": "),
              std::string::npos)
        << line.out;
    EXPECT_NE(line.out.find("\"coords\": [8], \"role\": \"corner\", \"boundary\": [1]"),
              std::string::npos);
}

TEST(GridCommands, ValuesWithoutTopology) {
    test::ScratchDir dir;
    const std::string path = (dir / "r.cubex").string();
    report::Report r = role_report();
    r.topologies.clear();
    r.attributes.clear();
    report::write_cube4(r, path);
    const auto json = run_topolens({"values", path, "--metric", "time", "--format", "json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    EXPECT_NE(json.out.find("\"topology\": null, \"grid_source\": null, \"roles\": null,\n"),
              std::string::npos)
        << json.out;
    EXPECT_EQ(json.out.find("\"role\":"), std::string::npos);
    const auto csv = run_topolens({"values", path, "--metric", "time"});
    EXPECT_EQ(block(csv.out, "location", 1),
              (std::vector<std::string>{"location,rank,thread,host,coords,value,role",
                                        "0,0,0,node,,5.5,"}));
}

namespace {

// 12 ranks on a 4x3 grid numbered rank = x + 4*y that never declare it: every rank sends to
// and receives from each grid neighbour, then meets the others in an Allreduce (1 tick =
// 1/1024 s). Entries: corners at 88, edges at 344, centre ranks 5 and 6 at 472 and 600, so
// Wait at NxN is 0.5 s per corner, 0.25 s per edge and 0.0625 s on average in the interior.
std::string write_grid_trace(const std::filesystem::path& dir) {
    const std::vector<uint32_t> dims = {4, 3};
    TraceBuilder b(12, 1024);
    std::vector<std::vector<uint32_t>> neighbours(12);
    for (const auto& [a, c] : grid_pairs(dims, {false, false})) {
        neighbours[a].push_back(c);
        neighbours[c].push_back(a);
    }
    for (uint32_t r = 0; r < 12; ++r) {
        b.mpi_init(r, 0, 5);
        trace::Time t = 10;
        for (uint32_t peer : neighbours[r]) {
            b.mpi_send(r, t, t + 1, peer, b.world(), 0, 8);
            t += 2;
        }
        t = 50;
        for (uint32_t peer : neighbours[r]) {
            b.mpi_recv(r, t, t + 1, peer, b.world(), 0, 8);
            t += 2;
        }
        const uint32_t x = r % 4, y = r / 4;
        const int boundary = (x == 0 || x == 3) + (y == 0 || y == 2);
        const trace::Time enter = boundary == 2 ? 88 : boundary == 1 ? 344 : r == 5 ? 472 : 600;
        b.mpi_collective(r, enter, 610, trace::CollectiveOp::Allreduce, b.world());
        b.mpi_finalize(r, 700, 705);
    }
    return b.write(dir.string());
}

} // namespace

TEST(GridCommands, AnalyzeDeclaredAndInferredGrids) {
    test::ScratchDir dir;
    const std::string trace = write_grid_trace(dir / "t");
    const std::string declared = (dir / "declared.cubex").string();
    auto r = run_topolens({"analyze", trace, "--quiet", "-o", declared, "--cart", "4x3:order=col"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    report::Report report = report::read_cube4(declared);
    EXPECT_EQ(report.attributes["topolens.grid_source"], "declared");
    EXPECT_EQ(report.attributes["topolens.grid"], "declared 4x3");
    ASSERT_FALSE(report.topologies.empty());
    EXPECT_EQ(report.topologies[0].name, "declared 4x3");
    EXPECT_EQ(report.topologies[0].coords[5], (Coords{1, 1}));

    auto summary = run_topolens({"summary", declared});
    ASSERT_EQ(summary.exit_code, 0) << summary.err;
    EXPECT_EQ(block(summary.out, "grid", 1),
              (std::vector<std::string>{"grid",
                                        "  used:         declared 4x3, periodic no,no (declared)"}))
        << summary.out;
    const auto nxn = block(summary.out, "Wait at NxN (", 15);
    ASSERT_EQ(nxn.size(), 16u) << summary.out;
    EXPECT_EQ(std::vector<std::string>(nxn.begin() + 11, nxn.end()),
              (std::vector<std::string>{"  by grid role (mean per process, sec)",
                                        "    role      processes      mean  vs interior",
                                        "    corner            4  0.500000        8.00x",
                                        "    edge              6  0.250000        4.00x",
                                        "    interior          2  0.062500        1.00x"}))
        << summary.out;

    // Without --cart the same grid is inferred from the messages.
    const std::string inferred = (dir / "inferred.cubex").string();
    r = run_topolens({"analyze", trace, "--quiet", "-o", inferred});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    report = report::read_cube4(inferred);
    EXPECT_EQ(report.attributes["topolens.grid_source"], "inferred");
    EXPECT_EQ(report.attributes["topolens.grid"], "inferred 4x3");
    EXPECT_EQ(report.attributes["topolens.grid_explanation"],
              "inferred from point-to-point messages: all 17 communicating pairs are neighbours "
              "in a non-periodic 4x3 grid numbered rank = x + 4*y, using 17 of its 17 neighbour "
              "pairs");
    const auto json =
        run_topolens({"values", inferred, "--metric", "mpi_wait_nxn", "--format", "json"});
    EXPECT_NE(json.out.find("\"grid_source\": \"inferred\""), std::string::npos) << json.out;
    EXPECT_NE(json.out.find("{\"role\": \"corner\", \"processes\": 4, \"mean\": 0.5, "
                            "\"vs_interior\": 8, \"vs_rest\": null}"),
              std::string::npos)
        << json.out;
}

TEST(GridCommands, AnalyzeRejectsBadDeclarations) {
    test::ScratchDir dir;
    const std::string trace = write_grid_trace(dir / "t");
    const std::string out = (dir / "r.cubex").string();
    auto r = run_topolens({"analyze", trace, "--quiet", "-o", out, "--cart", "4x4"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "topolens: error: --cart 4x4 has 16 processes, the trace has 12\n");
    EXPECT_FALSE(std::filesystem::exists(out));

    r = run_topolens({"analyze", trace, "--quiet", "-o", out, "--cart=0x12"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "topolens: error: analyze: bad --cart '0x12': dimension 1 is 0; sizes must "
                     "be at least 1 (expected e.g. 8x8, 4x2x2:periodic=1,0,0 or 16:order=col)\n");
    r = run_topolens({"analyze", trace, "--cart"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "topolens: error: analyze: --cart needs a grid, e.g. --cart 8x8\n");
}
