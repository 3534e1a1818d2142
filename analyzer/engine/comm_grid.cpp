// Grids from communicators (comm_grid.h).
//
// Processes are indices into the ranks given (the trace's distinct world ranks, ascending).
//   1. Lines: communicators that could be a grid's lines: not MPI_COMM_SELF-like, with 2 to
//      N-1 members that are distinct processes of the trace. Communicators with the same
//      members (duplicates, or one made again every iteration) are one line, named by the
//      lowest-numbered of them; its ranks are that one's.
//   2. Families: per line size s dividing N, every way to divide all N processes into N/s
//      disjoint lines of size s. Searched, not grouped by size: the rows and columns of a
//      square grid have the same size. First one division per line through the lowest
//      process, completed greedily (the first line that fits through each next uncovered
//      process, used lines first): the program's own families. Then a search: the lowest
//      process not yet covered takes, in turn, each line through it that meets none chosen
//      so far, and every division not yet found is kept.
//   3. Grids: two families whose sizes multiply to N, or three. The coordinate of a process
//      along an axis is its rank in its line of that axis's family (as MPI_Cart_sub numbers
//      it); the families are a grid when the processes of every line agree on all other
//      coordinates and no two processes have the same coordinates. Then a line is exactly
//      the processes that differ from one of them along its axis only: two rows never meet,
//      a row and a column meet in one process.
//   4. Choice: three axes over two, then the grid with more axes whose communicators the
//      program used (a collective or a message on them), then the first found.
//   5. Axis order: by the distance in world rank between the first two processes of the line
//      through the lowest process, largest first; a grid numbered as MPI_Cart_create numbers
//      it (rank = i*C + j, the last coordinate fastest) gets the coordinates (i, j) it has
//      there: its column communicators give axis 0, its row communicators axis 1.
// A single split (one family), families whose lines overlap, and lines that leave processes
// out give no grid. The search is bounded: per size kMaxFamiliesPerSize divisions and
// kMaxSteps steps, kMaxFamilies in all (the explanation says when it stopped early); a
// program's grid communicators give one division per axis, found in about N/s steps.
#include "analyzer/engine/comm_grid.h"

#include "analyzer/report/rank_ranges.h"

#include <algorithm>
#include <map>

namespace topolens::analysis {

namespace {

constexpr size_t kMaxFamiliesPerSize = 8;
constexpr size_t kMaxFamilies = 24;
constexpr uint64_t kMaxSteps = 1'000'000;

struct Line {
    trace::Ref comm = trace::kNone; // the lowest-numbered communicator with these members
    std::vector<uint32_t> members;  // processes in communicator rank order
    bool used = false;              // a collective or message on one of its communicators
    uint64_t collectives = 0, messages = 0;
};

struct Family {
    uint32_t size = 0;           // processes per line
    std::vector<uint32_t> lines; // indices into the lines, ascending
};

uint64_t at(const std::vector<uint64_t>& counts, trace::Ref c) {
    return c < counts.size() ? counts[c] : 0;
}

std::vector<Line> grid_lines(const std::vector<trace::Communicator>& comms,
                             const std::vector<uint32_t>& ranks, const CommunicatorUse& use) {
    const auto n = static_cast<uint32_t>(ranks.size());
    std::vector<Line> lines;
    std::map<std::vector<uint32_t>, size_t> by_members; // sorted members -> line
    for (trace::Ref c = 0; c < comms.size(); ++c) {
        const trace::Communicator& comm = comms[c];
        const size_t size = comm.members.size();
        if (comm.is_self || size < 2 || size >= n) continue;
        std::vector<uint32_t> members;
        for (uint32_t world : comm.members) {
            const auto found = std::lower_bound(ranks.begin(), ranks.end(), world);
            if (found == ranks.end() || *found != world) break;
            members.push_back(static_cast<uint32_t>(found - ranks.begin()));
        }
        if (members.size() != size) continue; // a member outside the trace
        std::vector<uint32_t> sorted = members;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) continue;
        const auto [it, added] = by_members.emplace(std::move(sorted), lines.size());
        if (added) lines.push_back({c, std::move(members)});
        Line& line = lines[it->second];
        line.collectives += at(use.collectives, c);
        line.messages += at(use.messages, c);
        line.used = line.collectives + line.messages > 0;
    }
    return lines;
}

// Every division of the n processes into disjoint lines of one size (step 2).
std::vector<Family> families(const std::vector<Line>& lines, uint32_t n, bool& truncated) {
    std::map<uint32_t, std::vector<uint32_t>> of_size;
    for (uint32_t l = 0; l < lines.size(); ++l)
        of_size[static_cast<uint32_t>(lines[l].members.size())].push_back(l);
    std::vector<Family> found;
    for (const auto& [size, candidates] : of_size) {
        if (n % size != 0 || candidates.size() < n / size) continue;
        // Per process: the lines through it, those the program used first, so that among
        // many communicators of one size (blocks beside rows and columns) the divisions into
        // used lines are found before the search's bounds stop it.
        std::vector<uint32_t> ordered = candidates;
        std::stable_partition(ordered.begin(), ordered.end(),
                              [&](uint32_t l) { return lines[l].used; });
        std::vector<std::vector<uint32_t>> through(n);
        for (uint32_t l : ordered)
            for (uint32_t p : lines[l].members) through[p].push_back(l);
        // Depth-first with an explicit stack (up to N/2 levels deep): each level covers the
        // lowest process not yet covered with the next line through it that fits.
        struct Level {
            uint32_t process;
            size_t next = 0;              // the next line through it to try
            uint32_t line = trace::kNone; // the line chosen at this level
        };
        std::vector<char> covered(n, 0);
        std::vector<uint32_t> chosen;
        const auto cover = [&](uint32_t l, char value) {
            for (uint32_t p : lines[l].members) covered[p] = value;
        };
        size_t here = 0;
        const auto keep = [&](std::vector<uint32_t> division) {
            std::sort(division.begin(), division.end());
            for (const Family& f : found)
                if (f.size == size && f.lines == division) return false;
            found.push_back({size, std::move(division)});
            ++here;
            return true;
        };
        // First, one division per line through the lowest process, each completed with the
        // first line that fits through every next uncovered process: the program's own
        // families (all its rows, all its columns) come out here even where many other
        // divisions of this size would exhaust the search's bounds first.
        for (uint32_t start : through[0]) {
            if (found.size() == kMaxFamilies || here == kMaxFamiliesPerSize) break;
            cover(start, 1);
            chosen = {start};
            for (uint32_t p = 0; p < n && !chosen.empty(); ++p) {
                if (covered[p]) continue;
                const auto fits =
                    std::find_if(through[p].begin(), through[p].end(), [&](uint32_t l) {
                        return std::none_of(lines[l].members.begin(), lines[l].members.end(),
                                            [&](uint32_t q) { return covered[q] != 0; });
                    });
                if (fits == through[p].end()) {
                    chosen.clear();
                } else {
                    cover(*fits, 1);
                    chosen.push_back(*fits);
                }
            }
            std::fill(covered.begin(), covered.end(), 0);
            if (!chosen.empty()) keep(chosen);
        }
        chosen.clear();
        uint64_t steps = 0;
        std::vector<Level> levels = {{0}};
        bool stop = false; // this size took its share of steps or families
        while (!levels.empty() && !stop) {
            Level& level = levels.back();
            if (level.line != trace::kNone) { // back from the level above: try the next line
                cover(level.line, 0);
                chosen.pop_back();
                level.line = trace::kNone;
            }
            bool deeper = false;
            while (!deeper && level.next < through[level.process].size()) {
                if (++steps > kMaxSteps) {
                    stop = truncated = true;
                    break;
                }
                const uint32_t l = through[level.process][level.next++];
                const std::vector<uint32_t>& members = lines[l].members;
                if (std::any_of(members.begin(), members.end(),
                                [&](uint32_t p) { return covered[p] != 0; }))
                    continue;
                cover(l, 1);
                chosen.push_back(l);
                uint32_t next = level.process + 1;
                while (next < n && covered[next]) ++next;
                if (next < n) {
                    level.line = l;
                    levels.push_back({next});
                    deeper = true;
                    break;
                }
                if (found.size() == kMaxFamilies) {
                    truncated = true;
                    return found;
                }
                if (here == kMaxFamiliesPerSize) {
                    stop = truncated = true;
                    break;
                }
                keep(chosen);
                cover(l, 0);
                chosen.pop_back();
            }
            if (!deeper && !stop) levels.pop_back();
        }
    }
    return found;
}

using Coords = std::vector<std::vector<uint32_t>>;

// Each process's ranks in its lines of `axes`, if they are the coordinates of a grid (step 3).
std::optional<Coords> grid_coordinates(const std::vector<Line>& lines,
                                       const std::vector<const Family*>& axes, uint32_t n) {
    const size_t d = axes.size();
    Coords coords(n, std::vector<uint32_t>(d, 0));
    for (size_t a = 0; a < d; ++a)
        for (uint32_t l : axes[a]->lines)
            for (uint32_t r = 0; r < lines[l].members.size(); ++r)
                coords[lines[l].members[r]][a] = r;
    for (size_t a = 0; a < d; ++a)
        for (uint32_t l : axes[a]->lines) {
            const std::vector<uint32_t>& first = coords[lines[l].members.front()];
            for (uint32_t p : lines[l].members)
                for (size_t b = 0; b < d; ++b)
                    if (b != a && coords[p][b] != first[b]) return std::nullopt;
        }
    std::vector<char> taken(n, 0);
    for (const std::vector<uint32_t>& c : coords) {
        uint64_t cell = 0;
        for (size_t a = 0; a < d; ++a) cell = cell * axes[a]->size + c[a];
        if (cell >= n || taken[cell]) return std::nullopt;
        taken[cell] = 1;
    }
    return coords;
}

struct Found {
    std::vector<const Family*> axes;
    Coords coords;
    size_t used_axes = 0;
};

size_t used_axes(const std::vector<Line>& lines, const std::vector<const Family*>& axes) {
    size_t used = 0;
    for (const Family* f : axes)
        used += std::any_of(f->lines.begin(), f->lines.end(),
                            [&](uint32_t l) { return lines[l].used; });
    return used;
}

// Step 5: the axis whose lines step furthest in world rank first.
void order_axes(const std::vector<Line>& lines, const std::vector<uint32_t>& ranks, Found& f) {
    std::vector<uint64_t> stride;
    for (const Family* family : f.axes) {
        uint64_t s = 0;
        for (uint32_t l : family->lines) {
            const std::vector<uint32_t>& m = lines[l].members;
            if (std::find(m.begin(), m.end(), 0u) == m.end()) continue;
            s = ranks[m[0]] > ranks[m[1]] ? ranks[m[0]] - ranks[m[1]] : ranks[m[1]] - ranks[m[0]];
        }
        stride.push_back(s);
    }
    std::vector<size_t> order(f.axes.size());
    for (size_t a = 0; a < order.size(); ++a) order[a] = a;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return stride[a] > stride[b]; });
    Found sorted;
    sorted.used_axes = f.used_axes;
    for (size_t a : order) sorted.axes.push_back(f.axes[a]);
    sorted.coords.resize(f.coords.size());
    for (size_t p = 0; p < f.coords.size(); ++p)
        for (size_t a : order) sorted.coords[p].push_back(f.coords[p][a]);
    f = std::move(sorted);
}

// "2 communicators of 8 processes (MPI_Comm_split 1-2)": a family's lines, their size and
// names.
std::string family_text(const std::vector<trace::Communicator>& comms,
                        const std::vector<Line>& lines, const Family& f) {
    std::vector<trace::Ref> which;
    for (uint32_t l : f.lines) which.push_back(lines[l].comm);
    return std::to_string(f.lines.size()) + " communicators of " + std::to_string(f.size) +
           " processes (" + communicators_text(comms, which) + ")";
}

std::string dims_text(const std::vector<const Family*>& axes) {
    std::string out;
    for (const Family* f : axes) out += (out.empty() ? "" : "x") + std::to_string(f->size);
    return out;
}

} // namespace

std::vector<uint32_t> CommunicatorGrid::dims() const {
    std::vector<uint32_t> out;
    for (const CommunicatorAxis& a : axes) out.push_back(a.size);
    return out;
}

std::string communicators_text(const std::vector<trace::Communicator>& comms,
                               const std::vector<trace::Ref>& which) {
    std::string prefix;
    std::vector<uint32_t> numbers;
    bool numbered = true, named = true;
    for (trace::Ref c : which) {
        const std::string& name = c < comms.size() ? comms[c].name : std::string();
        named = named && !name.empty();
        const size_t space = name.rfind(' ');
        const std::string number = space == std::string::npos ? "" : name.substr(space + 1);
        if (number.empty() || number.size() > 9 ||
            !std::all_of(number.begin(), number.end(),
                         [](char ch) { return ch >= '0' && ch <= '9'; }) ||
            (!numbers.empty() && name.compare(0, space, prefix) != 0)) {
            numbered = false;
            continue;
        }
        prefix = name.substr(0, space);
        numbers.push_back(static_cast<uint32_t>(std::stoul(number)));
    }
    if (which.empty()) return "";
    if (numbered) return prefix + " " + rank_ranges(numbers);
    if (!named) return "communicators #" + rank_ranges(which);
    std::string out;
    for (size_t i = 0; i < which.size() && i < 4; ++i)
        out += (i ? ", " : "") + comms[which[i]].name;
    if (which.size() > 4) out += ", ... (" + std::to_string(which.size()) + " in all)";
    return out;
}

CommunicatorGridSearch find_communicator_grid(const std::vector<trace::Communicator>& comms,
                                              const std::vector<uint32_t>& ranks,
                                              const CommunicatorUse& use) {
    CommunicatorGridSearch search;
    const auto n = static_cast<uint32_t>(ranks.size());
    const std::vector<Line> lines = grid_lines(comms, ranks, use);
    if (lines.empty()) return search;
    bool truncated = false;
    const std::vector<Family> all = families(lines, n, truncated);

    std::optional<Found> best;
    std::string near_miss; // sizes that fit but whose ranks are no grid's coordinates
    const auto consider = [&](std::vector<const Family*> axes) {
        uint64_t cells = 1;
        for (const Family* f : axes) cells *= f->size;
        if (cells != n) return;
        auto coords = grid_coordinates(lines, axes, n);
        if (!coords) {
            if (near_miss.empty()) near_miss = dims_text(axes);
            return;
        }
        Found f{std::move(axes), std::move(*coords), 0};
        f.used_axes = used_axes(lines, f.axes);
        if (!best || f.axes.size() > best->axes.size() ||
            (f.axes.size() == best->axes.size() && f.used_axes > best->used_axes))
            best = std::move(f);
    };
    for (size_t i = 0; i < all.size(); ++i)
        for (size_t j = i + 1; j < all.size(); ++j) {
            consider({&all[i], &all[j]});
            for (size_t k = j + 1; k < all.size(); ++k) consider({&all[i], &all[j], &all[k]});
        }

    if (best) {
        order_axes(lines, ranks, *best);
        CommunicatorGrid grid;
        for (const Family* f : best->axes) {
            CommunicatorAxis axis;
            axis.size = f->size;
            for (uint32_t l : f->lines) {
                axis.lines.push_back(lines[l].comm);
                grid.collectives += lines[l].collectives;
                grid.messages += lines[l].messages;
            }
            std::sort(axis.lines.begin(), axis.lines.end());
            grid.axes.push_back(std::move(axis));
        }
        grid.coords = std::move(best->coords);
        search.grid = std::move(grid);
        return search;
    }

    const std::string processes = "the " + std::to_string(n) + " processes";
    if (all.empty()) {
        search.why_not = "no communicators divide all " + std::to_string(n) +
                         " processes into disjoint groups of equal size";
    } else if (all.size() == 1) {
        search.why_not = "the communicators divide " + processes +
                         " only one way: " + family_text(comms, lines, all[0]);
    } else {
        std::string ways;
        for (size_t i = 0; i < all.size() && i < 4; ++i)
            ways += (i ? "; " : "") + family_text(comms, lines, all[i]);
        if (all.size() > 4) ways += "; ...";
        search.why_not = "the communicators divide " + processes + " in " +
                         std::to_string(all.size()) + " ways (" + ways +
                         "), but no two or three of them are the lines of a grid";
        if (!near_miss.empty())
            search.why_not += " (as " + near_miss +
                              ", the processes' ranks in them are not the coordinates of one grid)";
    }
    if (truncated) search.why_not += "; too many communicators to try every division";
    return search;
}

} // namespace topolens::analysis
