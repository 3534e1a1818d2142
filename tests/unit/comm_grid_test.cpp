// Grids from row and column communicators (analyzer/engine/comm_grid.h): found for 2D and
// 3D splits, not for a single split, lines that overlap, families that do not cross, ranks
// that are no coordinates or communicators leaving processes out; their place among the
// other sources; the means per row and column (grid_slices.h); and the whole way through
// `topolens analyze`, `values` and `summary` for Alltoalls on rows and columns with a slow row.
#include "analyzer/engine/grid.h"
#include "analyzer/engine/grid_slices.h"
#include "analyzer/report/cube4.h"
#include "test_paths.h"
#include "test_util.h"
#include "trace/builder.h"
#include "trace/matching.h"

#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <sstream>

using namespace topolens;
using analysis::GridChoice;
using analysis::GridSource;
using trace::Ref;
using trace::TraceBuilder;

namespace {

using Coords = std::vector<uint32_t>;

GridChoice choose(const TraceBuilder& b, const std::optional<analysis::CartDeclaration>& d = {}) {
    return analysis::choose_grid(b.trace(), trace::match(b.trace()), d);
}

struct RowsAndColumns {
    std::vector<Ref> rows, columns; // row i, column j
};

// An R x C grid numbered rank = i*C + j (MPI_Cart_create's numbering), split first into
// rows (color i, key j), then into columns (color j, key i), with the communicators defined
// in the order and under the names the measurement gives those of MPI_Comm_split: by the
// world rank of each one's rank 0, then by creation on that rank, "MPI_Comm_split k".
RowsAndColumns split_grid(TraceBuilder& b, uint32_t rows, uint32_t columns) {
    struct Made {
        std::vector<uint32_t> members;
        bool row;
        uint32_t index;
        int created;
    };
    std::vector<Made> made;
    std::vector<int> created(rows * columns, 0); // per world rank: communicators it is rank 0 of
    for (uint32_t i = 0; i < rows; ++i) {
        std::vector<uint32_t> m;
        for (uint32_t j = 0; j < columns; ++j) m.push_back(i * columns + j);
        made.push_back({m, true, i, created[m[0]]++});
    }
    for (uint32_t j = 0; j < columns; ++j) {
        std::vector<uint32_t> m;
        for (uint32_t i = 0; i < rows; ++i) m.push_back(i * columns + j);
        made.push_back({m, false, j, created[m[0]]++});
    }
    std::sort(made.begin(), made.end(), [](const Made& a, const Made& c) {
        return std::pair(a.members[0], a.created) < std::pair(c.members[0], c.created);
    });
    RowsAndColumns out;
    out.rows.resize(rows);
    out.columns.resize(columns);
    int k = 0;
    for (const Made& m : made) {
        const Ref ref =
            b.communicator("MPI_Comm_split " + std::to_string(++k), m.members, b.world());
        (m.row ? out.rows[m.index] : out.columns[m.index]) = ref;
    }
    return out;
}

// Lines along each axis of an X x Y x Z grid numbered rank = x*Y*Z + y*Z + z, axis by axis,
// named "<name> k" in definition order.
std::vector<std::vector<Ref>> split_3d(TraceBuilder& b, uint32_t X, uint32_t Y, uint32_t Z) {
    const uint32_t dims[3] = {X, Y, Z};
    const auto rank = [&](const uint32_t c[3]) { return c[0] * Y * Z + c[1] * Z + c[2]; };
    std::vector<std::vector<Ref>> axes(3);
    const char* names[3] = {"along x", "along y", "along z"};
    for (int a = 0; a < 3; ++a) {
        int k = 0;
        const int u = (a + 1) % 3, v = (a + 2) % 3;
        for (uint32_t cu = 0; cu < dims[u]; ++cu)
            for (uint32_t cv = 0; cv < dims[v]; ++cv) {
                std::vector<uint32_t> members;
                for (uint32_t ca = 0; ca < dims[a]; ++ca) {
                    uint32_t c[3];
                    c[a] = ca, c[u] = cu, c[v] = cv;
                    members.push_back(rank(c));
                }
                axes[a].push_back(b.communicator(std::string(names[a]) + " " + std::to_string(++k),
                                                 members, b.world()));
            }
    }
    return axes;
}

// Every rank inits and finalizes (no other event).
void init_and_finalize(TraceBuilder& b, uint32_t n) {
    for (uint32_t r = 0; r < n; ++r) {
        b.mpi_init(r, 0, 5);
        b.mpi_finalize(r, 100, 105);
    }
}

} // namespace

// ---------------------------------------------------------------- found

TEST(CommunicatorGrid, RowsAndColumnsOf4x4) {
    TraceBuilder b(16);
    split_grid(b, 4, 4);
    init_and_finalize(b, 16);
    const GridChoice c = choose(b);
    EXPECT_EQ(c.source, GridSource::Communicators);
    EXPECT_EQ(analysis::grid_source_name(c.source), "communicators");
    ASSERT_TRUE(c.grid);
    EXPECT_EQ(c.grid->name, "communicators 4x4");
    EXPECT_EQ(c.grid->sizes, (Coords{4, 4}));
    EXPECT_EQ(c.grid->periodic, (std::vector<bool>{false, false}));
    for (uint32_t r = 0; r < 16; ++r) EXPECT_EQ(c.grid->coords[r], (Coords{r / 4, r % 4})) << r;
    // Rows: rank 0's first communicator and those of ranks 4, 8, 12; columns: rank 0's
    // second and those of ranks 1, 2, 3.
    EXPECT_EQ(c.explanation,
              "from communicators: a non-periodic 4x4 grid whose rows are 4 communicators of 4 "
              "processes (MPI_Comm_split 1,6-8) and whose columns are 4 communicators of 4 "
              "processes (MPI_Comm_split 2-5); a process's coordinates are its ranks in its "
              "column and its row; no collective operation or message used them");
}

TEST(CommunicatorGrid, RowsAndColumnsOf3x5AndTheirUse) {
    TraceBuilder b(15);
    const RowsAndColumns g = split_grid(b, 3, 5);
    // One Allreduce per row and two per column, a message along row 0.
    for (uint32_t r = 0; r < 15; ++r) {
        b.mpi_init(r, 0, 5);
        b.mpi_collective(r, 10, 20, trace::CollectiveOp::Allreduce, g.rows[r / 5]);
        b.mpi_collective(r, 30, 40, trace::CollectiveOp::Alltoall, g.columns[r % 5]);
        b.mpi_collective(r, 50, 60, trace::CollectiveOp::Alltoall, g.columns[r % 5]);
    }
    b.mpi_send(0, 70, 71, 1, g.rows[0], 0, 8);
    b.mpi_recv(1, 70, 72, 0, g.rows[0], 0, 8);
    for (uint32_t r = 0; r < 15; ++r) b.mpi_finalize(r, 100, 105);
    const GridChoice c = choose(b);
    EXPECT_EQ(c.source, GridSource::Communicators);
    ASSERT_TRUE(c.grid);
    EXPECT_EQ(c.grid->sizes, (Coords{3, 5}));
    for (uint32_t r = 0; r < 15; ++r) EXPECT_EQ(c.grid->coords[r], (Coords{r / 5, r % 5})) << r;
    // Column j > 0 is made on rank j, row i > 0 on rank 5i: 1 row0, 2 col0, 3-6 col1-4,
    // 7-8 rows 1-2.
    EXPECT_EQ(c.explanation,
              "from communicators: a non-periodic 3x5 grid whose rows are 3 communicators of 5 "
              "processes (MPI_Comm_split 1,7-8) and whose columns are 5 communicators of 3 "
              "processes (MPI_Comm_split 2-6); a process's coordinates are its ranks in its "
              "column and its row; 13 collective operations and 1 message on them; 1 of 1 "
              "communicating pairs are neighbours in it");
}

TEST(CommunicatorGrid, TheLastCoordinateVariesFastestInRank) {
    // 3 rows of 5 numbered rank = i + 3*j (columns hold consecutive ranks): the columns are
    // the fastest-varying axis, so they give the last coordinate, and the grid is 5x3.
    TraceBuilder b(15);
    for (uint32_t j = 0; j < 5; ++j)
        b.communicator("col " + std::to_string(j), {3 * j, 3 * j + 1, 3 * j + 2}, b.world());
    for (uint32_t i = 0; i < 3; ++i)
        b.communicator("row " + std::to_string(i), {i, i + 3, i + 6, i + 9, i + 12}, b.world());
    init_and_finalize(b, 15);
    const GridChoice c = choose(b);
    ASSERT_TRUE(c.grid) << c.explanation;
    EXPECT_EQ(c.grid->sizes, (Coords{5, 3}));
    for (uint32_t r = 0; r < 15; ++r) EXPECT_EQ(c.grid->coords[r], (Coords{r / 3, r % 3})) << r;
    EXPECT_EQ(c.explanation,
              "from communicators: a non-periodic 5x3 grid whose rows are 5 communicators of 3 "
              "processes (col 0-4) and whose columns are 3 communicators of 5 processes (row "
              "0-2); a process's coordinates are its ranks in its column and its row; no "
              "collective operation or message used them");
}

TEST(CommunicatorGrid, LinesAlongThreeAxesOf2x3x4) {
    TraceBuilder b(24);
    split_3d(b, 2, 3, 4);
    init_and_finalize(b, 24);
    const GridChoice c = choose(b);
    EXPECT_EQ(c.source, GridSource::Communicators);
    ASSERT_TRUE(c.grid) << c.explanation;
    EXPECT_EQ(c.grid->name, "communicators 2x3x4");
    EXPECT_EQ(c.grid->sizes, (Coords{2, 3, 4}));
    for (uint32_t r = 0; r < 24; ++r)
        EXPECT_EQ(c.grid->coords[r], (Coords{r / 12, r / 4 % 3, r % 4})) << r;
    EXPECT_EQ(c.explanation,
              "from communicators: a non-periodic 2x3x4 grid whose lines along axis 0 are 12 "
              "communicators of 2 processes (along x 1-12), along axis 1 are 8 communicators of 3 "
              "processes (along y 1-8) and along axis 2 are 6 communicators of 4 processes "
              "(along z 1-6); a process's coordinate along an axis is its rank in its line along "
              "it; no collective operation or message used them");
}

TEST(CommunicatorGrid, ThreeAxesWinOverPlanesAndLines) {
    // Planes of constant z (6 processes each) and the lines along z are a 6x4 grid too;
    // the lines along all three axes say more.
    TraceBuilder b(24);
    split_3d(b, 2, 3, 4);
    for (uint32_t z = 0; z < 4; ++z) {
        std::vector<uint32_t> plane;
        for (uint32_t xy = 0; xy < 6; ++xy) plane.push_back(xy * 4 + z);
        b.communicator("plane " + std::to_string(z), plane, b.world());
    }
    init_and_finalize(b, 24);
    const GridChoice c = choose(b);
    ASSERT_TRUE(c.grid) << c.explanation;
    EXPECT_EQ(c.grid->sizes, (Coords{2, 3, 4}));

    // Without the lines along x and y the planes and the lines along z give 6x4.
    TraceBuilder planes(24);
    for (uint32_t xy = 0; xy < 6; ++xy)
        planes.communicator("along z " + std::to_string(xy),
                            {4 * xy, 4 * xy + 1, 4 * xy + 2, 4 * xy + 3}, planes.world());
    for (uint32_t z = 0; z < 4; ++z) {
        std::vector<uint32_t> plane;
        for (uint32_t xy = 0; xy < 6; ++xy) plane.push_back(xy * 4 + z);
        planes.communicator("plane " + std::to_string(z), plane, planes.world());
    }
    init_and_finalize(planes, 24);
    const GridChoice p = choose(planes);
    ASSERT_TRUE(p.grid) << p.explanation;
    EXPECT_EQ(p.grid->sizes, (Coords{6, 4}));
    EXPECT_EQ(p.grid->coords[23], (Coords{5, 3}));
}

TEST(CommunicatorGrid, DuplicatesAndCommunicatorsMadeAgainAreOneLine) {
    TraceBuilder b(16);
    split_grid(b, 4, 4);
    split_grid(b, 4, 4); // made again: the same members and names, later ids
    b.communicator("dup of world", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                   b.world());
    init_and_finalize(b, 16);
    const GridChoice c = choose(b);
    ASSERT_TRUE(c.grid) << c.explanation;
    EXPECT_EQ(c.grid->sizes, (Coords{4, 4}));
    EXPECT_NE(c.explanation.find("rows are 4 communicators of 4 processes (MPI_Comm_split "
                                 "1,6-8) and whose columns are 4 communicators of 4 processes "
                                 "(MPI_Comm_split 2-5)"),
              std::string::npos)
        << c.explanation;
}

// ---------------------------------------------------------------- not found

TEST(CommunicatorGrid, NoGridFromASingleSplit) {
    TraceBuilder b(16);
    std::vector<uint32_t> even, odd;
    for (uint32_t r = 0; r < 16; ++r) (r % 2 ? odd : even).push_back(r);
    b.communicator("MPI_Comm_split 1", even, b.world());
    b.communicator("MPI_Comm_split 2", odd, b.world());
    init_and_finalize(b, 16);
    const GridChoice c = choose(b);
    EXPECT_EQ(c.source, GridSource::None);
    EXPECT_FALSE(c.grid);
    EXPECT_EQ(c.explanation,
              "no grid: the trace records no topology, none was declared with --cart, the "
              "communicators divide the 16 processes only one way: 2 communicators of 8 "
              "processes (MPI_Comm_split 1-2), and no point-to-point messages between different "
              "processes to infer a grid from");

    // Rows alone are no grid either.
    TraceBuilder rows(16);
    for (uint32_t i = 0; i < 4; ++i)
        rows.communicator("row " + std::to_string(i), {4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3},
                          rows.world());
    init_and_finalize(rows, 16);
    const GridChoice r = choose(rows);
    EXPECT_FALSE(r.grid);
    EXPECT_NE(r.explanation.find("only one way: 4 communicators of 4 processes (row 0-3)"),
              std::string::npos)
        << r.explanation;
}

TEST(CommunicatorGrid, NoGridFromOverlappingLines) {
    // Rows, and "columns" that overlap one another (a process in two of them).
    TraceBuilder b(16);
    for (uint32_t i = 0; i < 4; ++i)
        b.communicator("row " + std::to_string(i), {4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3},
                       b.world());
    b.communicator("col 0", {0, 4, 8, 12}, b.world());
    b.communicator("col 1", {1, 5, 9, 12}, b.world());
    b.communicator("col 2", {2, 6, 10, 14}, b.world());
    b.communicator("col 3", {3, 7, 11, 15}, b.world());
    init_and_finalize(b, 16);
    const GridChoice c = choose(b);
    EXPECT_FALSE(c.grid);
    EXPECT_NE(c.explanation.find("the communicators divide the 16 processes only one way: 4 "
                                 "communicators of 4 processes (row 0-3)"),
              std::string::npos)
        << c.explanation;

    // Lines that overlap everywhere divide nothing.
    TraceBuilder windows(8);
    for (uint32_t s = 1; s < 5; ++s) // none holds process 0 and another
        windows.communicator("window " + std::to_string(s), {s, s + 1, s + 2, s + 3},
                             windows.world());
    init_and_finalize(windows, 8);
    const GridChoice w = choose(windows);
    EXPECT_FALSE(w.grid);
    EXPECT_NE(w.explanation.find("no communicators divide all 8 processes into disjoint groups "
                                 "of equal size"),
              std::string::npos)
        << w.explanation;
}

TEST(CommunicatorGrid, NoGridFromFamiliesThatDoNotCross) {
    // Rows and 2x2 blocks: both divide the 16 processes into 4 groups of 4 (and so do two
    // rows with the two blocks beside them), but a row meets a block in two processes or none.
    TraceBuilder b(16);
    for (uint32_t i = 0; i < 4; ++i)
        b.communicator("row " + std::to_string(i), {4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3},
                       b.world());
    for (uint32_t k = 0; k < 4; ++k) {
        const uint32_t corner = (k / 2) * 8 + (k % 2) * 2;
        b.communicator("block " + std::to_string(k), {corner, corner + 1, corner + 4, corner + 5},
                       b.world());
    }
    init_and_finalize(b, 16);
    const GridChoice c = choose(b);
    EXPECT_FALSE(c.grid);
    EXPECT_NE(c.explanation.find(
                  "the communicators divide the 16 processes in 4 ways (4 communicators of 4 "
                  "processes (row 0-3); 4 communicators of 4 processes (row 2, row 3, block 0, "
                  "block 1); 4 communicators of 4 processes (row 0, row 1, block 2, block 3); 4 "
                  "communicators of 4 processes (block 0-3)), but no two or three of them are "
                  "the lines of a grid (as 4x4, the processes' ranks in them are not the "
                  "coordinates of one grid)"),
              std::string::npos)
        << c.explanation;
}

TEST(CommunicatorGrid, NoGridWhenRanksAreNoCoordinates) {
    // Row 1 numbered backwards (key -j): process 4 is rank 3 in its row, process 0 rank 0 in
    // its, yet they share a column: the ranks are no coordinates of one grid.
    TraceBuilder b(16);
    b.communicator("row 0", {0, 1, 2, 3}, b.world());
    b.communicator("row 1", {7, 6, 5, 4}, b.world());
    b.communicator("row 2", {8, 9, 10, 11}, b.world());
    b.communicator("row 3", {12, 13, 14, 15}, b.world());
    for (uint32_t j = 0; j < 4; ++j)
        b.communicator("col " + std::to_string(j), {j, j + 4, j + 8, j + 12}, b.world());
    init_and_finalize(b, 16);
    const GridChoice c = choose(b);
    EXPECT_FALSE(c.grid);
    EXPECT_NE(c.explanation.find("(as 4x4, the processes' ranks in them are not the coordinates "
                                 "of one grid)"),
              std::string::npos)
        << c.explanation;
}

TEST(CommunicatorGrid, NoGridFromUnequalGroupsOrPartialCoverage) {
    // Rows, and a split into groups of 4, 4 and 8.
    TraceBuilder unequal(16);
    for (uint32_t i = 0; i < 4; ++i)
        unequal.communicator("row " + std::to_string(i), {4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3},
                             unequal.world());
    unequal.communicator("part 0", {0, 4, 8, 12}, unequal.world());
    unequal.communicator("part 1", {1, 5, 9, 13}, unequal.world());
    unequal.communicator("part 2", {2, 3, 6, 7, 10, 11, 14, 15}, unequal.world());
    init_and_finalize(unequal, 16);
    const GridChoice u = choose(unequal);
    EXPECT_FALSE(u.grid);
    EXPECT_NE(u.explanation.find("only one way: 4 communicators of 4 processes (row 0-3)"),
              std::string::npos)
        << u.explanation;

    // A 4x4 grid of rows and columns among 17 processes: process 16 is in none.
    TraceBuilder partial(17);
    split_grid(partial, 4, 4);
    init_and_finalize(partial, 17);
    const GridChoice p = choose(partial);
    EXPECT_FALSE(p.grid);
    EXPECT_NE(p.explanation.find("no communicators divide all 17 processes into disjoint groups "
                                 "of equal size"),
              std::string::npos)
        << p.explanation;

    // Three of four rows: the columns alone remain.
    TraceBuilder missing(16);
    for (uint32_t i = 0; i < 3; ++i)
        missing.communicator("row " + std::to_string(i), {4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3},
                             missing.world());
    for (uint32_t j = 0; j < 4; ++j)
        missing.communicator("col " + std::to_string(j), {j, j + 4, j + 8, j + 12},
                             missing.world());
    init_and_finalize(missing, 16);
    const GridChoice m = choose(missing);
    EXPECT_FALSE(m.grid);
    EXPECT_NE(m.explanation.find("only one way: 4 communicators of 4 processes (col 0-3)"),
              std::string::npos)
        << m.explanation;
}

TEST(CommunicatorGrid, TheSearchIsBounded) {
    // All 70 groups of 4 of 8 processes divide them in 35 ways; the search stops after 8.
    TraceBuilder b(8);
    for (uint32_t mask = 0; mask < 256; ++mask) {
        if (std::popcount(mask) != 4) continue;
        std::vector<uint32_t> members;
        for (uint32_t r = 0; r < 8; ++r)
            if (mask >> r & 1) members.push_back(r);
        b.communicator("group " + std::to_string(mask), members, b.world());
    }
    init_and_finalize(b, 8);
    const GridChoice c = choose(b);
    EXPECT_FALSE(c.grid);
    EXPECT_NE(c.explanation.find("the communicators divide the 8 processes in 8 ways ("),
              std::string::npos)
        << c.explanation;
    EXPECT_NE(c.explanation.find("; too many communicators to try every division, and no "
                                 "point-to-point messages"),
              std::string::npos)
        << c.explanation;
}

TEST(CommunicatorGrid, A100x100GridBesidePairsQuickly) {
    // 10^4 processes: rows and columns of 100x100 and 5000 pairs (a division 5000 levels
    // deep), built directly (definitions only).
    const uint32_t n = 10000;
    trace::Trace t;
    t.defs.locations.resize(n);
    for (uint32_t r = 0; r < n; ++r) t.defs.locations[r].rank = r;
    t.locations.resize(n);
    const auto add = [&](std::vector<uint32_t> members) {
        trace::Communicator c;
        c.name = "comm " + std::to_string(t.defs.communicators.size());
        c.members = std::move(members);
        t.defs.communicators.push_back(std::move(c));
    };
    for (uint32_t k = 0; k < n / 2; ++k) add({2 * k, 2 * k + 1});
    for (uint32_t i = 0; i < 100; ++i) {
        std::vector<uint32_t> row, column;
        for (uint32_t j = 0; j < 100; ++j) {
            row.push_back(i * 100 + j);
            column.push_back(j * 100 + i);
        }
        add(row);
        add(column);
    }
    const auto start = std::chrono::steady_clock::now();
    const GridChoice c = analysis::choose_grid(t, trace::Matching{}, std::nullopt);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(c.grid) << c.explanation;
    EXPECT_EQ(c.source, GridSource::Communicators);
    EXPECT_EQ(c.grid->sizes, (Coords{100, 100}));
    EXPECT_EQ(c.grid->coords[1234], (Coords{12, 34}));
    EXPECT_LT(seconds, 5.0); // a generous bound: it takes well under a second
}

// ---------------------------------------------------------------- place among the sources

TEST(CommunicatorGrid, RecordedAndDeclaredGridsComeFirstInferredOnesAfter) {
    TraceBuilder b(16);
    split_grid(b, 4, 4);
    // A halo exchange on the same grid numbered rank = x + 4*y would infer 4x4 too.
    for (uint32_t r = 0; r < 16; ++r) b.mpi_init(r, 0, 5);
    trace::Time t = 10;
    for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t peer : {r + 1, r + 4}) {
            if ((peer == r + 1 && r % 4 == 3) || peer >= 16) continue;
            b.mpi_send(r, t, t + 1, peer, b.world(), 0, 8);
            b.mpi_recv(peer, t + 2, t + 3, r, b.world(), 0, 8);
            t += 4;
        }
    for (uint32_t r = 0; r < 16; ++r) b.mpi_finalize(r, t + 10, t + 15);
    const GridChoice c = choose(b);
    EXPECT_EQ(c.source, GridSource::Communicators);
    EXPECT_NE(c.explanation.find("; 24 of 24 communicating pairs are neighbours in it"),
              std::string::npos)
        << c.explanation;

    EXPECT_EQ(choose(b, analysis::parse_cart_declaration("2x8")).source, GridSource::Declared);

    const Ref cart = b.cart_topology("cart", b.world(), {4, 4}, {false, false});
    for (uint32_t r = 0; r < 16; ++r) b.cart_coords(cart, r, {r / 4, r % 4});
    EXPECT_EQ(choose(b).source, GridSource::Recorded);
}

// Many communicators of one size: 8 blocks of 2x4 processes, made first, beside the rows
// and columns of an 8x8 grid (all of size 8). They divide the 64 processes in 19 ways, more
// than the search takes per size; the rows and columns, which the program used, are tried
// first and give the grid.
TEST(CommunicatorGrid, UsedLinesAreTriedFirstAmongManyOfOneSize) {
    TraceBuilder b(64);
    for (uint32_t block = 0; block < 8; ++block) {
        std::vector<uint32_t> members; // rows 2*(block/2)..+1, columns 4*(block%2)..+3
        for (uint32_t i = 2 * (block / 2); i < 2 * (block / 2) + 2; ++i)
            for (uint32_t j = 4 * (block % 2); j < 4 * (block % 2) + 4; ++j)
                members.push_back(i * 8 + j);
        b.communicator("block " + std::to_string(block), members, b.world());
    }
    const RowsAndColumns g = split_grid(b, 8, 8);
    for (uint32_t r = 0; r < 64; ++r) {
        b.mpi_init(r, 0, 5);
        b.mpi_collective(r, 10, 20, trace::CollectiveOp::Alltoall, g.rows[r / 8]);
        b.mpi_collective(r, 30, 40, trace::CollectiveOp::Alltoall, g.columns[r % 8]);
        b.mpi_finalize(r, 100, 105);
    }
    const GridChoice c = choose(b);
    EXPECT_EQ(c.source, GridSource::Communicators) << c.explanation;
    ASSERT_TRUE(c.grid);
    EXPECT_EQ(c.grid->sizes, (Coords{8, 8}));
    for (uint32_t r = 0; r < 64; ++r) EXPECT_EQ(c.grid->coords[r], (Coords{r / 8, r % 8})) << r;
}

// Communicators that divide the processes both ways are not always the program's grid: a
// node communicator per 8 ranks and one per local rank (MPI_Comm_split_type, then a split
// by local rank) give a 2x8 "grid", while the halo messages are those of a 4x4 grid. The
// messages decide: the inferred grid wins, and the explanation says why.
TEST(CommunicatorGrid, AGridOfThePointToPointMessagesWinsOverOneTheyContradict) {
    TraceBuilder b(16);
    split_grid(b, 2, 8); // "nodes" of 8 ranks and "local ranks" across them
    for (uint32_t r = 0; r < 16; ++r) b.mpi_init(r, 0, 5);
    trace::Time t = 10;
    for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t peer : {r + 1, r + 4}) {
            if ((peer == r + 1 && r % 4 == 3) || peer >= 16) continue;
            b.mpi_send(r, t, t + 1, peer, b.world(), 0, 8);
            b.mpi_recv(peer, t + 2, t + 3, r, b.world(), 0, 8);
            t += 4;
        }
    for (uint32_t r = 0; r < 16; ++r) b.mpi_finalize(r, t + 10, t + 15);
    const GridChoice c = choose(b);
    EXPECT_EQ(c.source, GridSource::Inferred) << c.explanation;
    ASSERT_TRUE(c.grid.has_value());
    EXPECT_EQ(c.grid->sizes, (std::vector<uint32_t>{4, 4}));
    EXPECT_NE(c.explanation.find("not the communicators' 2x8 grid, where only"), std::string::npos)
        << c.explanation;
}

// ---------------------------------------------------------------- means per row and column

namespace {

// 12 processes as a 3x4 grid (coords (r / 4, r % 4)), one location each, a second thread
// for process 5; values per location as given.
report::Report slice_report(report::CartTopology& grid) {
    report::Report r;
    report::Metric m;
    m.unique_name = "mpi_wait_nxn";
    r.add_metric(m);
    grid.sizes = {3, 4};
    grid.periodic = {false, false};
    for (int l = 0; l < 13; ++l) {
        report::Location loc;
        loc.rank = l < 12 ? l : 5;
        loc.thread = l < 12 ? 0 : 1;
        r.add_location(loc);
        grid.coords.push_back(l < 12 ? Coords{uint32_t(l) / 4, uint32_t(l) % 4} : Coords{});
    }
    return r;
}

} // namespace

TEST(GridSlices, MeansPerRowAndColumn) {
    report::CartTopology grid;
    const report::Report r = slice_report(grid);
    // Row 1 waits least: 1 per process (process 5: 0.5 + 0.5 on its two threads); rows 0
    // and 2 wait 4 per process plus the column index.
    std::vector<double> v(13, 0.0);
    for (int p = 0; p < 12; ++p) v[p] = (p / 4 == 1 ? 1.0 : 4.0 + p % 4);
    v[5] = 0.5;
    v[12] = 0.5;
    const auto s = analysis::slice_statistics(r, v, grid);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].axis, 0u);
    EXPECT_EQ(s[0].processes, (std::vector<size_t>{4, 4, 4}));
    EXPECT_EQ(s[0].means, (std::vector<double>{5.5, 1.0, 5.5}));
    EXPECT_EQ(s[0].least, 1u);
    EXPECT_EQ(s[0].most, 0u); // the first of equal means
    EXPECT_DOUBLE_EQ(*s[0].least_vs_others, 1.0 / 5.5);
    EXPECT_DOUBLE_EQ(*s[0].most_vs_others, 5.5 / 3.25);
    EXPECT_EQ(s[1].axis, 1u);
    EXPECT_EQ(s[1].processes, (std::vector<size_t>{3, 3, 3, 3}));
    EXPECT_EQ(s[1].means, (std::vector<double>{3.0, 11.0 / 3, 13.0 / 3, 5.0}));
    EXPECT_EQ(s[1].least, 0u);
    EXPECT_EQ(s[1].most, 3u);
    EXPECT_DOUBLE_EQ(*s[1].least_vs_others, 3.0 / ((11.0 + 13.0 + 15.0) / 9));
    EXPECT_DOUBLE_EQ(*s[1].most_vs_others, 5.0 / ((9.0 + 11.0 + 13.0) / 9));

    // Nothing outside a slice to compare with: no ratio.
    std::vector<double> only_row1(13, 0.0);
    only_row1[4] = 2.0;
    const auto z = analysis::slice_statistics(r, only_row1, grid);
    EXPECT_EQ(z[0].least, 0u);
    EXPECT_EQ(z[0].most, 1u);
    EXPECT_FALSE(z[0].most_vs_others);
    EXPECT_EQ(*z[0].least_vs_others, 0.0);
}

TEST(GridSlices, OnlyGridsWithTwoAxesLargerThanOne) {
    report::CartTopology grid;
    const report::Report r = slice_report(grid);
    const std::vector<double> v(13, 1.0);
    report::CartTopology line = grid;
    line.sizes = {12};
    for (int l = 0; l < 12; ++l) line.coords[l] = {uint32_t(l)};
    EXPECT_TRUE(analysis::slice_statistics(r, v, line).empty());
    report::CartTopology flat = grid;
    flat.sizes = {1, 12, 1};
    for (int l = 0; l < 12; ++l) flat.coords[l] = {0, uint32_t(l), 0};
    EXPECT_TRUE(analysis::slice_statistics(r, v, flat).empty());
    report::CartTopology planes = grid;
    planes.sizes = {3, 1, 4};
    for (int l = 0; l < 12; ++l) planes.coords[l] = {uint32_t(l) / 4, 0, uint32_t(l) % 4};
    const auto s = analysis::slice_statistics(r, v, planes);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].axis, 0u);
    EXPECT_EQ(s[1].axis, 2u);
}

// ---------------------------------------------------------------- the commands

namespace {

test::CommandResult run_topolens(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {topolens::test::topolens_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_command(argv);
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> all;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) all.push_back(line);
    return all;
}

// The line starting with `start` and the `count` lines after it.
std::vector<std::string> block(const std::string& text, const std::string& start, size_t count) {
    const std::vector<std::string> all = lines_of(text);
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].rfind(start, 0) == 0)
            return std::vector<std::string>(all.begin() + i,
                                            all.begin() + std::min(all.size(), i + count + 1));
    return {};
}

// A 2D FFT-like transpose on 4x4 processes (rank = i*4 + j) split into rows and columns, no
// other communication; 1 tick = 1/1024 s. Two iterations from t0 = 100 and 200: process
// (i, j) enters the Alltoall on its row at t0 + 10 + j, row 2 (slow) 20 ticks later; each
// row leaves at its last entry + 2. After 10 ticks of computation all enter the Alltoall on
// their column; the slow row's process comes 20 ticks after the others of its column.
// Wait at NxN per iteration: 3 - j in the row, 20 in the column except for row 2.
std::string write_transpose(const std::filesystem::path& dir) {
    TraceBuilder b(16, 1024);
    const RowsAndColumns g = split_grid(b, 4, 4);
    for (uint32_t r = 0; r < 16; ++r) {
        const uint32_t i = r / 4, j = r % 4;
        const trace::Time late = i == 2 ? 20 : 0;
        b.mpi_init(r, 0, 5);
        for (trace::Time t0 : {100, 200}) {
            b.mpi_collective(r, t0 + 10 + j + late, t0 + 15 + late, trace::CollectiveOp::Alltoall,
                             g.rows[i]);
            b.mpi_collective(r, t0 + 25 + late, t0 + 47, trace::CollectiveOp::Alltoall,
                             g.columns[j]);
        }
        b.mpi_finalize(r, 300, 305);
    }
    return b.write(dir.string());
}

} // namespace

TEST(CommunicatorGridCommands, TransposeWaitsPerProcessAndTheSlowRow) {
    test::ScratchDir dir;
    const std::string trace = write_transpose(dir / "t");
    const std::string out = (dir / "r.cubex").string();
    auto r = run_topolens({"analyze", trace, "--quiet", "-o", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    report::Report report = report::read_cube4(out);
    EXPECT_EQ(report.attributes["topolens.grid_source"], "communicators");
    EXPECT_EQ(report.attributes["topolens.grid"], "communicators 4x4");
    EXPECT_EQ(report.attributes["topolens.grid_explanation"],
              "from communicators: a non-periodic 4x4 grid whose rows are 4 communicators of 4 "
              "processes (MPI_Comm_split 1,6-8) and whose columns are 4 communicators of 4 "
              "processes (MPI_Comm_split 2-5); a process's coordinates are its ranks in its "
              "column and its row; 16 collective operations on them");

    // Wait at NxN per process, with its coordinates and role.
    const auto csv = run_topolens({"values", out, "--metric", "mpi_wait_nxn"});
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    const std::vector<std::string> rows = lines_of(csv.out);
    ASSERT_EQ(rows.size(), 17u) << csv.out;
    EXPECT_EQ(rows[0], "location,rank,thread,host,coords,value,role");
    for (uint32_t p = 0; p < 16; ++p) {
        const uint32_t i = p / 4, j = p % 4;
        const double ticks = 2.0 * (3 - j) + (i == 2 ? 0.0 : 40.0);
        const bool corner = (i == 0 || i == 3) && (j == 0 || j == 3);
        const bool edge = !corner && (i == 0 || i == 3 || j == 0 || j == 3);
        std::ostringstream value;
        value.precision(17);
        value << ticks / 1024;
        EXPECT_EQ(rows[p + 1], std::to_string(p) + "," + std::to_string(p) + ",0,localhost," +
                                   std::to_string(i) + " " + std::to_string(j) + "," + value.str() +
                                   "," +
                                   (corner ? "corner"
                                    : edge ? "edge"
                                           : "interior"))
            << p;
    }

    // summary: the grid, then where Wait at NxN lies along the rows and across them. Row
    // means 43 ticks (2, 8, 2: the slow row waits 3), column j: 2 (3 - j) + 30.
    const auto s = run_topolens({"summary", out});
    ASSERT_EQ(s.exit_code, 0) << s.err;
    EXPECT_EQ(block(s.out, "grid", 1),
              (std::vector<std::string>{
                  "grid", "  used:         communicators 4x4, periodic no,no (communicators)"}))
        << s.out;
    EXPECT_EQ(block(s.out, "  by row and column", 3),
              (std::vector<std::string>{
                  "  by row and column (mean per process, sec; row i: coordinate 0 = i, column "
                  "j: coordinate 1 = j)",
                  "    slices     least         mean  vs others  most          mean  vs others",
                  "    4 rows     row 2     0.002930      0.07x  row 0     0.041992      1.45x",
                  "    4 columns  column 3  0.029297      0.88x  column 0  0.035156      1.12x",
              }))
        << s.out;
}
