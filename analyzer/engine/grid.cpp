// Where the analysis grid comes from (recorded, declared, communicators, inferred) and the
// roles of the processes in it. See grid.h; grids from communicators: comm_grid.cpp.
//
// Processes: the distinct world ranks of the trace's locations, ascending; "process p" is
// the p-th of them (p = the world rank in every trace with ranks 0..N-1). A grid gives
// coordinates to each process's first location, as the engine does for recorded topologies.
//
// Inference (no recorded topology covers all processes, none declared):
//   1. The communication graph: one undirected edge per pair of distinct processes that
//      exchanged at least one matched point-to-point message.
//   2. Candidates: every ordered factorisation of N into 1, 2 or 3 factors (each >= 2 in 2D
//      and 3D), numbered first coordinate fastest, rank = x + X*y + X*Y*z. That is how
//      programs that compute their own grid usually number it (Sweep3D: i + npe_i*j), and
//      the programs that do not call MPI_Cart_create are the ones that need inference.
//   3. A candidate fits when every edge joins grid neighbours: coordinates equal except on
//      one axis, where they differ by 1, or by size-1 across the wrap-around (axes larger
//      than 2). An axis is periodic exactly when some edge wraps around on it: declaring
//      it periodic otherwise only adds neighbour pairs nobody uses.
//   4. Among fitting candidates the one with the fewest neighbour pairs wins, i.e. the one
//      whose neighbour pairs the communication uses most completely. This prefers
//      non-periodic to periodic and fewer to more dimensions when both fit, and tells 2x4
//      from 4x2 (their neighbour pairs differ). Ties: fewer wrapping edges, fewer periodic
//      axes, fewer dimensions, then the first in enumeration order.
//   5. The winner is accepted only if the edges connect all processes and use at least half
//      of its neighbour pairs. Otherwise a few pairs (or separate chains) would "fit" many
//      grids; a halo exchange or wavefront uses all of them.
// Cost: a hash set over the messages, then O(edges) per candidate; N = 10^4 has 177
// ordered factorisations into at most 3 factors.
#include "analyzer/engine/grid.h"

#include "analyzer/engine/comm_grid.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace topolens::analysis {

namespace {

constexpr double kMinimumCoverage = 0.5; // of the grid's neighbour pairs, see step 5
constexpr uint32_t kMinimumInferred = 3; // processes: two are just a pair

std::string dims_text(const std::vector<uint32_t>& dims) {
    std::string out;
    for (size_t d = 0; d < dims.size(); ++d) out += (d ? "x" : "") + std::to_string(dims[d]);
    return out;
}

// "non-periodic", "periodic", "periodic in dimension 1", "periodic in dimensions 0 and 2"
std::string periodic_text(const std::vector<bool>& periodic) {
    std::vector<size_t> on;
    for (size_t d = 0; d < periodic.size(); ++d)
        if (periodic[d]) on.push_back(d);
    if (on.empty()) return "non-periodic";
    if (on.size() == periodic.size()) return "periodic";
    std::string out = on.size() == 1 ? "periodic in dimension " : "periodic in dimensions ";
    for (size_t i = 0; i < on.size(); ++i)
        out += (i == 0 ? "" : i + 1 == on.size() ? " and " : ", ") + std::to_string(on[i]);
    return out;
}

// "a non-periodic 4x4 grid", "a periodic 1D grid of 8", "a 4x4 grid periodic in dimension 1"
std::string grid_text(const std::vector<uint32_t>& dims, const std::vector<bool>& periodic) {
    const std::string shape =
        dims.size() == 1 ? "1D grid of " + std::to_string(dims[0]) : dims_text(dims) + " grid";
    const std::string p = periodic_text(periodic);
    return p.find(' ') == std::string::npos ? "a " + p + " " + shape : "a " + shape + " " + p;
}

// "rank = x + 4*y + 16*z" (col) or "rank = z + 2*y + 8*x" (row); axes named x, y, z.
std::string numbering_text(const std::vector<uint32_t>& dims, CartDeclaration::Order order) {
    static const char* const axis[] = {"x", "y", "z"};
    std::string out = "rank = ";
    uint64_t stride = 1;
    for (size_t i = 0; i < dims.size() && i < 3; ++i) {
        const size_t d = order == CartDeclaration::Order::Col ? i : dims.size() - 1 - i;
        out += (i ? " + " : "") + (stride == 1 ? "" : std::to_string(stride) + "*") + axis[d];
        stride *= dims[d];
    }
    return out;
}

std::string plural(size_t n, const std::string& word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string processes_text(size_t n) {
    return std::to_string(n) + (n == 1 ? " process" : " processes");
}

// The processes of a trace and where each one's coordinates go.
struct Processes {
    std::vector<uint32_t> ranks;               // distinct world ranks, ascending
    std::vector<uint32_t> first_location;      // per process
    std::vector<uint32_t> process_of_location; // per location
    std::unordered_map<uint32_t, uint32_t> process_of_rank;

    explicit Processes(const trace::Trace& trace) {
        const auto& locations = trace.defs.locations;
        for (const trace::Location& l : locations) ranks.push_back(l.rank);
        std::sort(ranks.begin(), ranks.end());
        ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
        first_location.assign(ranks.size(), trace::kNone);
        for (uint32_t p = 0; p < ranks.size(); ++p) process_of_rank[ranks[p]] = p;
        for (uint32_t loc = 0; loc < locations.size(); ++loc) {
            const uint32_t p = process_of_rank.at(locations[loc].rank);
            process_of_location.push_back(p);
            if (first_location[p] == trace::kNone) first_location[p] = loc;
        }
    }
    uint32_t count() const { return static_cast<uint32_t>(ranks.size()); }
};

// A report topology giving process p the coordinates coords_of(p).
template <class CoordsOf>
report::CartTopology make_grid(const trace::Trace& trace, const Processes& processes,
                               std::string name, const std::vector<uint32_t>& dims,
                               const std::vector<bool>& periodic, CoordsOf coords_of) {
    report::CartTopology grid;
    grid.name = std::move(name);
    grid.sizes = dims;
    grid.periodic = periodic;
    grid.coords.resize(trace.defs.locations.size());
    for (uint32_t p = 0; p < processes.count(); ++p)
        grid.coords[processes.first_location[p]] = coords_of(p);
    return grid;
}

// ---------------------------------------------------------------- recorded

struct RecordedCheck {
    std::optional<report::CartTopology> grid; // set when it covers every process
    uint32_t covered = 0;
};

// Coordinates of a recorded topology per process (valid ones only: one per dimension and
// inside it); the report topology is built as the engine builds it.
RecordedCheck check_recorded(const trace::Trace& trace, const Processes& processes,
                             const trace::CartTopology& t) {
    RecordedCheck check;
    std::vector<const std::vector<uint32_t>*> coords(processes.count(), nullptr);
    for (uint32_t rank = 0; rank < t.coords_by_rank.size(); ++rank) {
        const std::vector<uint32_t>& c = t.coords_by_rank[rank];
        if (c.empty() || c.size() != t.dims.size()) continue;
        bool inside = true;
        for (size_t d = 0; d < c.size(); ++d) inside = inside && c[d] < t.dims[d].size;
        if (!inside) continue;
        const uint32_t world = trace::world_rank(trace, t.communicator, rank, 0);
        const auto p = processes.process_of_rank.find(world);
        if (p == processes.process_of_rank.end() || coords[p->second]) continue;
        coords[p->second] = &c;
        ++check.covered;
    }
    if (t.dims.empty() || check.covered != processes.count()) return check;
    std::vector<uint32_t> dims;
    std::vector<bool> periodic;
    for (const trace::CartDimension& d : t.dims) {
        dims.push_back(d.size);
        periodic.push_back(d.periodic);
    }
    check.grid =
        make_grid(trace, processes, t.name, dims, periodic, [&](uint32_t p) { return *coords[p]; });
    for (const trace::CartDimension& d : t.dims) check.grid->dim_names.push_back(d.name);
    return check;
}

// ---------------------------------------------------------------- communication graph

using Edge = std::pair<uint32_t, uint32_t>; // processes, first < second

// Number of connected components of the graph over n processes.
uint32_t components(uint32_t n, const std::vector<Edge>& edges) {
    std::vector<uint32_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0u);
    auto find = [&](uint32_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    uint32_t count = n;
    for (const auto& [a, b] : edges) {
        const uint32_t ra = find(a), rb = find(b);
        if (ra != rb) {
            parent[ra] = rb;
            --count;
        }
    }
    return count;
}

// Every ordered factorisation of n into one factor, or two or three factors >= 2.
std::vector<std::vector<uint32_t>> factorisations(uint32_t n) {
    std::vector<uint32_t> divisors;
    for (uint64_t d = 2; d * d <= n; ++d)
        if (n % d == 0) {
            divisors.push_back(static_cast<uint32_t>(d));
            if (d * d != n) divisors.push_back(static_cast<uint32_t>(n / d));
        }
    std::sort(divisors.begin(), divisors.end());
    std::vector<std::vector<uint32_t>> out = {{n}};
    for (uint32_t a : divisors) out.push_back({a, n / a});
    for (uint32_t a : divisors)
        for (uint32_t b : divisors)
            if ((n / a) % b == 0 && n / a / b >= 2) out.push_back({a, b, n / a / b});
    return out;
}

struct Candidate {
    std::vector<uint32_t> dims;
    std::vector<bool> periodic;
    uint64_t neighbour_pairs = 0;
    uint64_t wrapping_edges = 0;
    size_t periodic_axes = 0;
};

// The candidate `dims` (first coordinate fastest) if every edge joins neighbours in it.
std::optional<Candidate> fit(const std::vector<uint32_t>& dims, uint32_t n,
                             const std::vector<Edge>& edges) {
    const size_t rank = dims.size();
    uint32_t stride[3] = {1, 1, 1};
    for (size_t d = 1; d < rank; ++d) stride[d] = stride[d - 1] * dims[d - 1];
    std::vector<uint64_t> wraps(rank, 0);
    for (const auto& [a, b] : edges) {
        size_t axis = rank; // the one axis on which a and b differ
        uint32_t ca = 0, cb = 0;
        for (size_t d = 0; d < rank; ++d) {
            const uint32_t xa = a / stride[d] % dims[d], xb = b / stride[d] % dims[d];
            if (xa == xb) continue;
            if (axis != rank) return std::nullopt;
            axis = d;
            ca = xa;
            cb = xb;
        }
        const uint32_t distance = ca > cb ? ca - cb : cb - ca;
        if (distance == 1) continue;
        if (dims[axis] > 2 && distance == dims[axis] - 1) {
            ++wraps[axis];
            continue;
        }
        return std::nullopt;
    }
    Candidate c;
    c.dims = dims;
    for (size_t d = 0; d < rank; ++d) {
        c.periodic.push_back(wraps[d] > 0);
        c.wrapping_edges += wraps[d];
        c.periodic_axes += wraps[d] > 0;
        c.neighbour_pairs += uint64_t{wraps[d] > 0 ? dims[d] : dims[d] - 1} * (n / dims[d]);
    }
    return c;
}

bool better(const Candidate& a, const Candidate& b) {
    if (a.neighbour_pairs != b.neighbour_pairs) return a.neighbour_pairs < b.neighbour_pairs;
    if (a.wrapping_edges != b.wrapping_edges) return a.wrapping_edges < b.wrapping_edges;
    if (a.periodic_axes != b.periodic_axes) return a.periodic_axes < b.periodic_axes;
    return a.dims.size() < b.dims.size();
}

struct Inference {
    std::optional<report::CartTopology> grid;
    std::string explanation; // why (or why not)
};

Inference infer(const trace::Trace& trace, const std::vector<Edge>& edges,
                const Processes& processes) {
    Inference result;
    const uint32_t n = processes.count();
    if (n < kMinimumInferred) {
        result.explanation = "the trace has fewer than " + std::to_string(kMinimumInferred) +
                             " processes to infer a grid from";
        return result;
    }
    if (edges.empty()) {
        result.explanation = "no point-to-point messages between different processes to infer "
                             "a grid from";
        return result;
    }
    if (const uint32_t groups = components(n, edges); groups > 1) {
        result.explanation = "the " + plural(edges.size(), "communicating pair") + " split the " +
                             std::to_string(n) + " processes into " + std::to_string(groups) +
                             " unconnected groups, so no grid can be inferred";
        return result;
    }
    std::optional<Candidate> best;
    for (const std::vector<uint32_t>& dims : factorisations(n))
        if (auto c = fit(dims, n, edges); c && (!best || better(*c, *best))) best = std::move(c);
    if (!best) {
        result.explanation = "no 1D, 2D or 3D grid of " + std::to_string(n) +
                             " processes (numbered first coordinate fastest) has all " +
                             plural(edges.size(), "communicating pair") + " as neighbours";
        return result;
    }
    const std::string grid = grid_text(best->dims, best->periodic);
    const std::string numbered =
        best->dims.size() > 1
            ? " numbered " + numbering_text(best->dims, CartDeclaration::Order::Col)
            : "";
    const std::string used = std::to_string(edges.size()) + " of its " +
                             std::to_string(best->neighbour_pairs) + " neighbour pairs";
    if (static_cast<double>(edges.size()) <
        kMinimumCoverage * static_cast<double>(best->neighbour_pairs)) {
        result.explanation = "the best fitting grid, " + grid + numbered + ", has only " + used +
                             " communicating (at least half are required)";
        return result;
    }
    // Connected and N >= 3: at least two pairs.
    result.explanation = "inferred from point-to-point messages: all " +
                         std::to_string(edges.size()) + " communicating pairs are neighbours in " +
                         grid + numbered + ", using " + used;
    const std::vector<uint32_t> dims = best->dims;
    result.grid =
        make_grid(trace, processes, "inferred " + dims_text(dims), dims, best->periodic,
                  [&](uint32_t p) { return grid_coords(p, dims, CartDeclaration::Order::Col); });
    return result;
}

// "a non-periodic 4x4 grid whose 4 rows are communicators of 4 processes (MPI_Comm_split
// 1,6-8) and whose 4 columns ..."; in 3D the lines along each axis.
std::string communicator_grid_text(const trace::Trace& trace, const CommunicatorGrid& grid) {
    const std::vector<uint32_t> dims = grid.dims();
    const auto lines = [&](const CommunicatorAxis& axis) {
        return std::to_string(axis.lines.size()) + " communicators of " +
               std::to_string(axis.size) + " processes (" +
               communicators_text(trace.defs.communicators, axis.lines) + ")";
    };
    std::string out = "from communicators: " + grid_text(dims, std::vector<bool>(dims.size()));
    if (dims.size() == 2) {
        // Axis 1 varies along a row, axis 0 along a column (coordinates (i, j) of row i).
        out += " whose rows are " + lines(grid.axes[1]) + " and whose columns are " +
               lines(grid.axes[0]) +
               "; a process's coordinates are its ranks in its column and its row";
    } else {
        std::vector<std::string> axes;
        for (size_t a = 0; a < grid.axes.size(); ++a)
            axes.push_back("along axis " + std::to_string(a) + " are " + lines(grid.axes[a]));
        out += " whose lines " + axes[0];
        for (size_t a = 1; a < axes.size(); ++a)
            out += (a + 1 == axes.size() ? " and " : ", ") + axes[a];
        out += "; a process's coordinate along an axis is its rank in its line along it";
    }
    if (grid.collectives + grid.messages == 0)
        return out + "; no collective operation or message used them";
    std::vector<std::string> used;
    if (grid.collectives) used.push_back(plural(grid.collectives, "collective operation"));
    if (grid.messages) used.push_back(plural(grid.messages, "message"));
    return out + "; " + (used.size() == 2 ? used[0] + " and " + used[1] : used[0]) + " on them";
}

// How many edges join neighbours in a grid (for the explanations of declared grids and of
// grids from communicators).
size_t neighbour_edges(const report::CartTopology& grid, const Processes& processes,
                       const std::vector<Edge>& edges) {
    size_t count = 0;
    for (const auto& [a, b] : edges) {
        const auto& ca = grid.coords[processes.first_location[a]];
        const auto& cb = grid.coords[processes.first_location[b]];
        size_t differ = 0;
        bool neighbour = true;
        for (size_t d = 0; d < ca.size(); ++d) {
            if (ca[d] == cb[d]) continue;
            const uint32_t distance = ca[d] > cb[d] ? ca[d] - cb[d] : cb[d] - ca[d];
            ++differ;
            neighbour = neighbour && (distance == 1 || (grid.periodic[d] && grid.sizes[d] > 2 &&
                                                        distance == grid.sizes[d] - 1));
        }
        count += differ == 1 && neighbour;
    }
    return count;
}

// "uint32 in decimal" or nullopt
std::optional<uint32_t> parse_number(std::string_view text) {
    uint32_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i)
        if (i == text.size() || text[i] == separator) {
            parts.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    return parts;
}

} // namespace

// ---------------------------------------------------------------- declarations

CartDeclaration parse_cart_declaration(const std::string& spec) {
    auto fail = [&](const std::string& why) {
        throw GridError("bad --cart '" + spec + "': " + why +
                        " (expected e.g. 8x8, 4x2x2:periodic=1,0,0 or 16:order=col)");
    };
    if (spec.empty()) fail("empty");
    const std::vector<std::string_view> parts = split(spec, ':');
    CartDeclaration decl;
    if (parts[0].empty()) fail("no dimensions before ':'");
    const std::vector<std::string_view> sizes = split(parts[0], 'x');
    if (sizes.size() > 3) fail("at most 3 dimensions, not " + std::to_string(sizes.size()));
    uint64_t product = 1;
    for (size_t d = 0; d < sizes.size(); ++d) {
        const std::string what = "dimension " + std::to_string(d + 1);
        if (sizes[d].empty()) fail(what + " is empty");
        const auto size = parse_number(sizes[d]);
        if (!size) {
            const bool digits = std::all_of(sizes[d].begin(), sizes[d].end(),
                                            [](char c) { return c >= '0' && c <= '9'; });
            fail(what + " is '" + std::string(sizes[d]) + "', " +
                 (digits ? "too large" : "not a positive whole number"));
        }
        if (*size == 0) fail(what + " is 0; sizes must be at least 1");
        product *= *size;
        if (product > std::numeric_limits<uint32_t>::max()) fail("more than 2^32-1 processes");
        decl.dims.push_back(*size);
    }
    decl.periodic.assign(decl.dims.size(), false);
    bool seen_periodic = false, seen_order = false;
    for (size_t i = 1; i < parts.size(); ++i) {
        const std::string_view option = parts[i];
        const size_t eq = option.find('=');
        if (option.empty()) fail("empty option after ':'");
        if (eq == std::string_view::npos)
            fail("option '" + std::string(option) + "' has no '=' (periodic=... or order=...)");
        const std::string_view key = option.substr(0, eq), value = option.substr(eq + 1);
        if (key == "periodic") {
            if (seen_periodic) fail("periodic given twice");
            seen_periodic = true;
            const std::vector<std::string_view> flags = split(value, ',');
            if (flags.size() != decl.dims.size())
                fail("periodic needs one flag per dimension (" + std::to_string(decl.dims.size()) +
                     "), got " + std::to_string(flags.size()));
            for (size_t d = 0; d < flags.size(); ++d) {
                if (flags[d] != "0" && flags[d] != "1")
                    fail("periodic flag " + std::to_string(d + 1) + " is '" +
                         std::string(flags[d]) + "', not 0 or 1");
                decl.periodic[d] = flags[d] == "1";
            }
        } else if (key == "order") {
            if (seen_order) fail("order given twice");
            seen_order = true;
            if (value == "row")
                decl.order = CartDeclaration::Order::Row;
            else if (value == "col")
                decl.order = CartDeclaration::Order::Col;
            else
                fail("order is '" + std::string(value) + "', not row or col");
        } else {
            fail("unknown option '" + std::string(key) + "' (periodic or order)");
        }
    }
    return decl;
}

std::vector<uint32_t> grid_coords(uint32_t rank, const std::vector<uint32_t>& dims,
                                  CartDeclaration::Order order) {
    uint64_t size = 1;
    for (uint32_t d : dims) size *= d;
    if (dims.empty() || rank >= size)
        throw GridError("rank " + std::to_string(rank) + " is outside a " +
                        (dims.empty() ? std::string("0-dimensional") : dims_text(dims)) + " grid");
    std::vector<uint32_t> coords(dims.size());
    uint32_t rest = rank;
    for (size_t i = 0; i < dims.size(); ++i) {
        const size_t d = order == CartDeclaration::Order::Col ? i : dims.size() - 1 - i;
        coords[d] = rest % dims[d];
        rest /= dims[d];
    }
    return coords;
}

std::string_view grid_source_name(GridSource source) {
    switch (source) {
    case GridSource::Recorded:
        return "recorded";
    case GridSource::Declared:
        return "declared";
    case GridSource::Communicators:
        return "communicators";
    case GridSource::Inferred:
        return "inferred";
    case GridSource::None:
        break;
    }
    return "none";
}

// ---------------------------------------------------------------- choice

GridTraffic grid_traffic(const trace::Trace& trace, const trace::Matching& matching) {
    const Processes processes(trace);
    const auto local = [&](uint32_t location) {
        return location >= matching.share.first && location < matching.share.last;
    };
    GridTraffic traffic;
    const size_t comms = trace.defs.communicators.size();
    traffic.use.collectives.assign(comms, 0);
    traffic.use.messages.assign(comms, 0);
    for (const trace::CollectiveMatch& c : matching.collectives) {
        const auto first = std::find_if(c.members.begin(), c.members.end(), [](trace::EventRef m) {
            return m.location != trace::kNone;
        });
        // A collective without members is in no share's matching: a whole trace counts it.
        if (!local(first == c.members.end() ? matching.share.first : first->location)) continue;
        if (c.comm < comms) ++traffic.use.collectives[c.comm];
    }
    std::unordered_set<uint64_t> pairs;
    uint64_t last = std::numeric_limits<uint64_t>::max(); // messages of one pair come in runs
    const size_t locations = processes.process_of_location.size();
    for (const trace::MessageMatch& m : matching.messages) {
        const uint32_t sl = m.send.location, rl = m.recv.location;
        if (!local(sl)) continue; // counted on the sender's rank, which has its events
        if (sl < trace.locations.size() && m.send.event < trace.locations[sl].events.size()) {
            const trace::Ref comm = trace.locations[sl].events[m.send.event].comm();
            if (comm < comms) ++traffic.use.messages[comm];
        }
        if (sl >= locations || rl >= locations) continue;
        uint32_t a = processes.process_of_location[sl], b = processes.process_of_location[rl];
        if (a == b) continue;
        if (a > b) std::swap(a, b);
        const uint64_t key = (uint64_t{a} << 32) | b;
        if (key == last) continue;
        last = key;
        pairs.insert(key);
    }
    traffic.pairs.reserve(pairs.size());
    for (uint64_t key : pairs)
        traffic.pairs.emplace_back(static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key));
    std::sort(traffic.pairs.begin(), traffic.pairs.end());
    return traffic;
}

GridTraffic merge_grid_traffic(const GridTraffic& mine, trace::Exchange& exchange) {
    trace::Bytes bytes;
    trace::ByteWriter out(bytes);
    std::vector<uint64_t> keys; // a pair as one value: std::pair is no plain value
    keys.reserve(mine.pairs.size());
    for (const auto& [a, b] : mine.pairs) keys.push_back((uint64_t{a} << 32) | b);
    out.put_all(keys);
    out.put_all(mine.use.collectives);
    out.put_all(mine.use.messages);
    GridTraffic all;
    all.use.collectives.assign(mine.use.collectives.size(), 0);
    all.use.messages.assign(mine.use.messages.size(), 0);
    const auto add = [](std::vector<uint64_t>& sum, const std::vector<uint64_t>& part) {
        if (part.size() != sum.size())
            throw std::logic_error("grid traffic: ranks disagree on the communicators");
        for (size_t c = 0; c < sum.size(); ++c) sum[c] += part[c];
    };
    for (const trace::Bytes& part : exchange.all_gather(std::move(bytes))) {
        trace::ByteReader in(part, "grid traffic");
        for (uint64_t key : in.get_all<uint64_t>())
            all.pairs.emplace_back(static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key));
        add(all.use.collectives, in.get_all<uint64_t>());
        add(all.use.messages, in.get_all<uint64_t>());
    }
    // A pair that messages joined on several ranks is one edge.
    std::sort(all.pairs.begin(), all.pairs.end());
    all.pairs.erase(std::unique(all.pairs.begin(), all.pairs.end()), all.pairs.end());
    return all;
}

namespace {

// The choice, asking for the traffic only when no recorded topology wins (which depends on
// the definitions alone, so on a share's matching every rank asks, or none does).
GridChoice choose(const trace::Trace& trace, const std::optional<CartDeclaration>& declared,
                  const std::function<const GridTraffic&()>& traffic) {
    const Processes processes(trace);
    const uint32_t n = processes.count();
    GridChoice choice;

    // A declaration that cannot fit is the user's error even when a recorded grid wins.
    if (declared) {
        uint64_t size = 1;
        for (uint32_t d : declared->dims) size *= d;
        if (declared->dims.empty() || declared->periodic.size() != declared->dims.size())
            throw GridError("--cart declaration without dimensions or with " +
                            std::to_string(declared->periodic.size()) + " periodic flags for " +
                            plural(declared->dims.size(), "dimension"));
        if (size != n)
            throw GridError("--cart " + dims_text(declared->dims) + " has " + std::to_string(size) +
                            " processes, the trace has " + std::to_string(n));
    }

    if (n == 0) {
        choice.explanation = "no grid: the trace has no processes";
        return choice;
    }
    std::string partial; // about recorded topologies that cover only some processes
    for (const trace::CartTopology& t : trace.defs.topologies) {
        RecordedCheck check = check_recorded(trace, processes, t);
        if (check.grid) {
            choice.source = GridSource::Recorded;
            choice.explanation = "recorded in the trace: topology '" + t.name + "', " +
                                 grid_text(check.grid->sizes, check.grid->periodic) +
                                 ", gives coordinates to all " + processes_text(n) +
                                 (declared ? "; the --cart declaration was not needed" : "");
            choice.grid = std::move(check.grid);
            return choice;
        }
        if (partial.empty())
            partial = "the trace's topology '" + t.name + "' gives coordinates to only " +
                      std::to_string(check.covered) + " of " + std::to_string(n) + " processes";
    }
    const std::string recorded_note = partial.empty() ? "the trace records no topology" : partial;

    if (declared) {
        choice.source = GridSource::Declared;
        const std::string name = "declared " + dims_text(declared->dims);
        choice.grid =
            make_grid(trace, processes, name, declared->dims, declared->periodic,
                      [&](uint32_t p) { return grid_coords(p, declared->dims, declared->order); });
        const bool col = declared->order == CartDeclaration::Order::Col;
        choice.explanation =
            "declared with --cart: " + grid_text(declared->dims, declared->periodic) +
            (declared->dims.size() > 1
                 ? std::string(" numbered ") + (col ? "first" : "last") + " coordinate fastest (" +
                       numbering_text(declared->dims, declared->order) + ")"
                 : "");
        const std::vector<Edge>& edges = traffic().pairs;
        if (!edges.empty())
            choice.explanation +=
                "; " + std::to_string(neighbour_edges(*choice.grid, processes, edges)) + " of " +
                std::to_string(edges.size()) + " communicating pairs are neighbours in it";
        if (!partial.empty()) choice.explanation += "; " + partial;
        return choice;
    }

    const CommunicatorGridSearch from_comms =
        find_communicator_grid(trace.defs.communicators, processes.ranks, traffic().use);
    std::optional<Inference> inferred;
    std::string passed_over; // a communicator grid the messages contradict
    if (from_comms.grid) {
        const CommunicatorGrid& found = *from_comms.grid;
        const std::vector<uint32_t> dims = found.dims();
        std::optional<report::CartTopology> grid =
            make_grid(trace, processes, "communicators " + dims_text(dims), dims,
                      std::vector<bool>(dims.size()), [&](uint32_t p) { return found.coords[p]; });
        std::string explanation = communicator_grid_text(trace, found);
        const std::vector<Edge>& edges = traffic().pairs;
        const size_t neighbours = edges.empty() ? 0 : neighbour_edges(*grid, processes, edges);
        if (!edges.empty())
            explanation += "; " + std::to_string(neighbours) + " of " +
                           std::to_string(edges.size()) +
                           " communicating pairs are neighbours in it";
        // Communicators that divide the processes both ways need not be the program's grid
        // (nodes and ranks per node split the same way): where the point-to-point messages
        // are the neighbours of an inferred grid and not all of this one's, theirs is the grid.
        if (neighbours < edges.size()) inferred = infer(trace, traffic().pairs, processes);
        if (!inferred || !inferred->grid) {
            choice.source = GridSource::Communicators;
            choice.grid = std::move(grid);
            choice.explanation = std::move(explanation);
            if (!partial.empty()) choice.explanation += "; " + partial;
            return choice;
        }
        passed_over = "; not the communicators' " + dims_text(dims) + " grid, where only " +
                      std::to_string(neighbours) + " of the " + std::to_string(edges.size()) +
                      " communicating pairs are neighbours";
    }
    if (!inferred) inferred = infer(trace, traffic().pairs, processes);

    if (inferred->grid) {
        choice.source = GridSource::Inferred;
        choice.grid = std::move(inferred->grid);
        choice.explanation = inferred->explanation + passed_over;
        if (!partial.empty()) choice.explanation += "; " + partial;
        return choice;
    }
    choice.explanation = "no grid: " + recorded_note + ", none was declared with --cart, " +
                         (from_comms.why_not.empty() ? "" : from_comms.why_not + ", ") + "and " +
                         inferred->explanation;
    return choice;
}

} // namespace

GridChoice choose_grid(const trace::Trace& trace, const GridTraffic& traffic,
                       const std::optional<CartDeclaration>& declared) {
    return choose(trace, declared, [&]() -> const GridTraffic& { return traffic; });
}

GridChoice choose_grid(const trace::Trace& trace, const trace::Matching& matching,
                       const std::optional<CartDeclaration>& declared, trace::Exchange* exchange) {
    std::optional<GridTraffic> traffic;
    return choose(trace, declared, [&]() -> const GridTraffic& {
        if (!traffic) {
            traffic = grid_traffic(trace, matching);
            if (exchange) traffic = merge_grid_traffic(*traffic, *exchange);
        }
        return *traffic;
    });
}

// ---------------------------------------------------------------- roles

std::vector<int> boundary_sides(const report::CartTopology& grid,
                                const std::vector<uint32_t>& coords) {
    if (coords.size() != grid.sizes.size())
        throw std::invalid_argument("coordinates with " + std::to_string(coords.size()) +
                                    " entries for a grid of " +
                                    plural(grid.sizes.size(), "dimension"));
    std::vector<int> sides(coords.size(), 0);
    for (size_t d = 0; d < coords.size(); ++d) {
        const bool periodic = d < grid.periodic.size() && grid.periodic[d];
        if (periodic || grid.sizes[d] <= 1) continue;
        if (coords[d] == 0)
            sides[d] = -1;
        else if (coords[d] + 1 == grid.sizes[d])
            sides[d] = 1;
    }
    return sides;
}

std::string_view grid_role_name(GridRole role) {
    switch (role) {
    case GridRole::Corner:
        return "corner";
    case GridRole::Edge:
        return "edge";
    case GridRole::Face:
        return "face";
    case GridRole::Interior:
        break;
    }
    return "interior";
}

bool has_roles(const report::CartTopology& grid) {
    for (size_t d = 0; d < grid.sizes.size(); ++d)
        if (grid.sizes[d] > 1 && !(d < grid.periodic.size() && grid.periodic[d])) return true;
    return false;
}

std::optional<GridRole> grid_role(const report::CartTopology& grid,
                                  const std::vector<uint32_t>& coords) {
    const std::vector<int> sides = boundary_sides(grid, coords);
    if (!has_roles(grid)) return std::nullopt;
    size_t effective = 0, boundary = 0;
    for (size_t d = 0; d < sides.size(); ++d) {
        effective += grid.sizes[d] > 1;
        boundary += sides[d] != 0;
    }
    if (boundary == 0) return GridRole::Interior;
    if (boundary == effective) return GridRole::Corner;
    if (effective == 3 && boundary == 1) return GridRole::Face;
    return GridRole::Edge; // 3D b = 2, 2D b = 1
}

std::vector<RoleStatistics> role_statistics(const report::Report& report,
                                            const std::vector<double>& by_location,
                                            const report::CartTopology& grid) {
    if (!has_roles(grid)) return {};
    // A process's value is the sum over its locations (threads); its role comes from the
    // first of its locations that has coordinates.
    std::map<int, std::pair<GridRole, double>> processes; // ordered: sums independent of hashing
    for (size_t l = 0; l < report.locations.size() && l < grid.coords.size(); ++l) {
        const auto& coords = grid.coords[l];
        if (coords.empty() || coords.size() != grid.sizes.size()) continue;
        processes.try_emplace(report.locations[l].rank, *grid_role(grid, coords), 0.0);
    }
    for (size_t l = 0; l < report.locations.size() && l < by_location.size(); ++l) {
        auto p = processes.find(report.locations[l].rank);
        if (p != processes.end()) p->second.second += by_location[l];
    }
    const GridRole order[] = {GridRole::Corner, GridRole::Edge, GridRole::Face, GridRole::Interior};
    std::vector<RoleStatistics> stats;
    size_t rest_processes = 0; // not corners
    double rest_sum = 0.0;
    for (GridRole role : order) {
        RoleStatistics s;
        s.role = role;
        double sum = 0.0;
        for (const auto& [rank, entry] : processes)
            if (entry.first == role) {
                ++s.processes;
                sum += entry.second;
            }
        if (s.processes == 0) continue;
        s.mean = sum / static_cast<double>(s.processes);
        if (role != GridRole::Corner) {
            rest_processes += s.processes;
            rest_sum += sum;
        }
        stats.push_back(s);
    }
    if (stats.empty()) return stats;
    if (stats.back().role == GridRole::Interior) {
        if (stats.back().mean > 0.0)
            for (RoleStatistics& s : stats) s.vs_interior = s.mean / stats.back().mean;
    } else if (stats.front().role == GridRole::Corner && rest_processes > 0 && rest_sum > 0.0) {
        // No interior: corners against everybody else, as the interior would be.
        const double rest = rest_sum / static_cast<double>(rest_processes);
        for (RoleStatistics& s : stats) s.vs_rest = s.mean / rest;
    }
    return stats;
}

std::vector<RoleStatistics> role_statistics(const report::Report& report, int metric,
                                            const report::CartTopology& grid) {
    return role_statistics(report, report.inclusive_by_location(metric, -1), grid);
}

} // namespace topolens::analysis
