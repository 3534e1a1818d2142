// The process grid an analysis explains wait states with: where it comes from (recorded in
// the trace, declared by the user, the program's row and column communicators, inferred
// from who talks to whom) and the topological role of each process in it (corner, edge,
// face, interior).
#pragma once

#include "analyzer/engine/comm_grid.h"
#include "analyzer/report/report.h"
#include "trace/exchange.h"
#include "trace/matching.h"
#include "trace/model.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace topolens::analysis {

// `topolens analyze --cart 8x8[:periodic=1,0][:order=row|col]`.
struct CartDeclaration {
    std::vector<uint32_t> dims;
    std::vector<bool> periodic; // one per dim (default all false)
    // row: the last coordinate varies fastest (MPI_Cart_create's numbering);
    // col: the first coordinate varies fastest (rank = i + npe_i * j, as in Sweep3D).
    enum class Order { Row, Col } order = Order::Row;
};

// Thrown for declarations that are malformed or do not fit the trace; the message names
// the problem ("--cart 4x4 has 16 processes, the trace 12").
class GridError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

CartDeclaration parse_cart_declaration(const std::string& spec);

// Coordinates of world rank `rank` in a grid of `dims` numbered in `order`.
std::vector<uint32_t> grid_coords(uint32_t rank, const std::vector<uint32_t>& dims,
                                  CartDeclaration::Order order);

enum class GridSource { Recorded, Declared, Communicators, Inferred, None };
std::string_view grid_source_name(GridSource source); // "recorded", "declared", ...

struct GridChoice {
    GridSource source = GridSource::None;
    // The grid with one coordinate vector per location (empty for locations outside it);
    // unset when no grid could be found.
    std::optional<report::CartTopology> grid;
    std::string explanation; // one sentence for the report and `summary`
};

// The grid, in order of preference: the first topology recorded in the trace that gives
// coordinates to every process; else `declared` (GridError if it does not fit the ranks);
// else one whose rows and columns (2D) or lines along three axes (3D) are the program's
// communicators (comm_grid.h: the program's own statement of its grid, with coordinates
// from its ranks in them, comes before a guess from its traffic); else one inferred from
// the point-to-point communication graph (1D, 2D or 3D grids whose nearest neighbours are
// exactly the pairs that communicate); else none.
// Inference precisely (grid.cpp): grids numbered first coordinate fastest in which every
// communicating pair are neighbours; the one with the fewest neighbour pairs wins, if the
// pairs connect all processes and are at least half of its neighbour pairs. A declaration
// is checked against the rank count even when a recorded topology wins.
// With `exchange`, `matching` is this rank's share (read_and_match_share) and the call is
// collective: every rank gets the whole trace's choice (grid_traffic, merge_grid_traffic).
GridChoice choose_grid(const trace::Trace& trace, const trace::Matching& matching,
                       const std::optional<CartDeclaration>& declared,
                       trace::Exchange* exchange = nullptr);

// What the choice needs of the matched messages and collectives: who exchanged messages
// with whom (for inference and to say how many pairs a grid has as neighbours) and how
// much each communicator was used (for the grid from communicators).
struct GridTraffic {
    // Processes (the p-th of the trace's distinct world ranks, ascending) that exchanged at
    // least one matched message: (a, b) with a < b, ascending.
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    CommunicatorUse use;
};

// The traffic of `matching`. On a share's matching (Matching::share) only what this rank
// alone counts: the messages its locations sent (their communicator is in the send event)
// and the collectives whose first present member is one of its locations, so that over all
// ranks each message and collective counts exactly once.
GridTraffic grid_traffic(const trace::Trace& trace, const trace::Matching& matching);

// Collective: every rank's traffic merged in rank order, the whole trace's on every rank.
GridTraffic merge_grid_traffic(const GridTraffic& mine, trace::Exchange& exchange);

// choose_grid from the whole trace's traffic (`trace` needs only its definitions).
GridChoice choose_grid(const trace::Trace& trace, const GridTraffic& traffic,
                       const std::optional<CartDeclaration>& declared);

// ---------------------------------------------------------------- grid roles

// Per dimension: -1 on the low boundary (coordinate 0), +1 on the high one, 0 inside (or
// periodic, or a dimension of size 1, which has no boundary).
std::vector<int> boundary_sides(const report::CartTopology& grid,
                                const std::vector<uint32_t>& coords);

// By the number b of dimensions in which the process lies on a boundary:
// b = effective dims -> corner; 3D b = 2 -> edge, b = 1 -> face; 2D b = 1 -> edge;
// b = 0 -> interior. (1D: the two ends are corners.) Effective dims are those larger
// than 1, periodic ones included: on a cylinder the processes on its rims are edges.
enum class GridRole { Corner, Edge, Face, Interior };
std::string_view grid_role_name(GridRole role); // "corner", "edge", "face", "interior"

// Whether the processes of the grid differ by role: some dimension larger than 1 is not
// periodic, so processes lie on its boundaries. A fully periodic grid (ring, torus) treats
// every process alike, and a grid of one process has nobody to compare: no roles.
bool has_roles(const report::CartTopology& grid);
// The role of the process at `coords`; none on a grid without roles.
std::optional<GridRole> grid_role(const report::CartTopology& grid,
                                  const std::vector<uint32_t>& coords);

// How each role's mean compares with the others': with the interior's when the grid has
// interior processes; without them (a grid with a side of 2, e.g. 16x2x2, has none) with
// the rest, the mean over all processes that are not corners, when there are both.
struct RoleStatistics {
    GridRole role = GridRole::Interior;
    size_t processes = 0;
    double mean = 0.0;                 // mean per process of the metric's inclusive total
    std::optional<double> vs_interior; // mean / interior mean, when the interior mean > 0
    std::optional<double> vs_rest;     // no interior: mean / the non-corners' mean, when > 0
};

// Per role present in the grid, corners first, for one metric of the report (inclusive
// over its sub-metrics and the whole call tree); empty for a grid without roles.
std::vector<RoleStatistics> role_statistics(const report::Report& report, int metric,
                                            const report::CartTopology& grid);
// The same for any values per location (e.g. restricted to a call path); a process's value
// is the sum over its locations.
std::vector<RoleStatistics> role_statistics(const report::Report& report,
                                            const std::vector<double>& by_location,
                                            const report::CartTopology& grid);

} // namespace topolens::analysis
