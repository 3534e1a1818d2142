// The report model: definitions, sparse exclusive severities and the inclusive views derived
// from them.
#include "analyzer/report/report.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <sstream>

namespace topolens::report {
namespace {

[[noreturn, gnu::cold, gnu::noinline]] void no_such_id(int id, std::size_t count,
                                                       const char* what) {
    throw std::out_of_range(std::string("report: no ") + what + " with id " + std::to_string(id) +
                            " (" + std::to_string(count) + " defined)");
}

// Called for every value added (millions in an analysis): the message is built out of line.
inline void check_id(int id, std::size_t count, const char* what) {
    if (id < 0 || static_cast<std::size_t>(id) >= count) [[unlikely]]
        no_such_id(id, count, what);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool all_zero(const std::vector<double>& row) {
    return std::all_of(row.begin(), row.end(), [](double v) { return v == 0.0; });
}

// Region names of a "a/b/c" path; empty names (doubled or outer slashes) are dropped.
std::vector<std::string> split_path(const std::string& path) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t slash = std::min(path.find('/', start), path.size());
        if (slash > start) parts.push_back(path.substr(start, slash - start));
        start = slash + 1;
    }
    return parts;
}

} // namespace

// ---------------------------------------------------------------- building

int Report::add_metric(Metric metric) {
    if (metric.parent != -1) check_id(metric.parent, metrics.size(), "parent metric");
    metric.children.clear(); // children link themselves when they are added
    const int id = static_cast<int>(metrics.size());
    if (metric.parent != -1) metrics[metric.parent].children.push_back(id);
    metrics.push_back(std::move(metric));
    rows_.resize(metrics.size());
    return id;
}

int Report::add_region(Region region) {
    regions.push_back(std::move(region));
    return static_cast<int>(regions.size()) - 1;
}

int Report::add_callpath(int region, int parent) {
    check_id(region, regions.size(), "region");
    if (parent != -1) check_id(parent, callpaths.size(), "parent call path");
    if (parent == -1) {
        for (std::size_t c = 0; c < callpaths.size(); ++c)
            if (callpaths[c].parent == -1 && callpaths[c].region == region)
                return static_cast<int>(c);
    } else {
        for (int child : callpaths[parent].children)
            if (callpaths[child].region == region) return child;
    }
    const int id = static_cast<int>(callpaths.size());
    Callpath callpath;
    callpath.region = region;
    callpath.parent = parent;
    callpaths.push_back(callpath);
    if (parent != -1) callpaths[parent].children.push_back(id);
    return id;
}

int Report::add_location(Location location) {
    locations.push_back(std::move(location));
    // Rows keep one value per location; a window keeps what it was given.
    if (kept_last_ < 0)
        for (auto& by_callpath : rows_)
            for (auto& row : by_callpath)
                if (!row.empty()) row.resize(locations.size() - kept_first_, 0.0);
    return static_cast<int>(locations.size()) - 1;
}

// ---------------------------------------------------------------- kept locations

void Report::keep_locations(int first, int last) {
    if (first < 0 || first > last || static_cast<std::size_t>(last) > locations.size())
        throw std::out_of_range("report: cannot keep locations [" + std::to_string(first) + ", " +
                                std::to_string(last) + ") of " + std::to_string(locations.size()));
    const LocationWindow old = kept_locations();
    for (auto& by_callpath : rows_)
        for (auto& row : by_callpath) {
            if (row.empty()) continue;
            std::vector<double> kept(static_cast<std::size_t>(last - first), 0.0);
            for (int l = std::max(first, old.first); l < std::min(last, old.last); ++l)
                kept[l - first] = row[l - old.first];
            row = all_zero(kept) ? std::vector<double>() : std::move(kept);
        }
    kept_first_ = first;
    kept_last_ = last;
}

Report::LocationWindow Report::kept_locations() const {
    return {kept_first_, kept_last_ < 0 ? static_cast<int>(locations.size()) : kept_last_};
}

int Report::kept_index(int location) const {
    const LocationWindow kept = kept_locations();
    return location >= kept.first && location < kept.last ? location - kept.first : -1;
}

// ---------------------------------------------------------------- exclusive severities

std::vector<double>& Report::row_for(int metric, int callpath) {
    check_id(metric, metrics.size(), "metric");
    check_id(callpath, callpaths.size(), "call path");
    if (rows_.size() < metrics.size()) rows_.resize(metrics.size());
    auto& by_callpath = rows_[metric];
    if (by_callpath.size() <= static_cast<std::size_t>(callpath))
        by_callpath.resize(callpaths.size());
    auto& row = by_callpath[callpath];
    if (row.empty()) {
        const LocationWindow kept = kept_locations();
        row.assign(static_cast<std::size_t>(kept.last - kept.first), 0.0);
    }
    return row;
}

double Report::value(int metric, int callpath, int location) const {
    check_id(metric, metrics.size(), "metric");
    check_id(callpath, callpaths.size(), "call path");
    check_id(location, locations.size(), "location");
    if (static_cast<std::size_t>(metric) >= rows_.size()) return 0.0;
    const auto& by_callpath = rows_[metric];
    if (static_cast<std::size_t>(callpath) >= by_callpath.size()) return 0.0;
    const auto& row = by_callpath[callpath];
    const int index = kept_index(location);
    return index >= 0 && static_cast<std::size_t>(index) < row.size() ? row[index] : 0.0;
}

void Report::add_value(int metric, int callpath, int location, double value) {
    check_id(location, locations.size(), "location");
    const int index = kept_index(location);
    if (value == 0.0 || index < 0) {
        // Keep rows sparse, but still reject ids that do not exist.
        check_id(metric, metrics.size(), "metric");
        check_id(callpath, callpaths.size(), "call path");
        return;
    }
    row_for(metric, callpath)[index] += value;
}

void Report::set_value(int metric, int callpath, int location, double value) {
    check_id(location, locations.size(), "location");
    if (value == 0.0 && this->value(metric, callpath, location) == 0.0) return;
    const int index = kept_index(location);
    if (index < 0) {
        check_id(metric, metrics.size(), "metric");
        check_id(callpath, callpaths.size(), "call path");
        return;
    }
    row_for(metric, callpath)[index] = value;
}

const std::vector<double>* Report::row(int metric, int callpath) const {
    check_id(metric, metrics.size(), "metric");
    check_id(callpath, callpaths.size(), "call path");
    if (static_cast<std::size_t>(metric) >= rows_.size()) return nullptr;
    const auto& by_callpath = rows_[metric];
    if (static_cast<std::size_t>(callpath) >= by_callpath.size()) return nullptr;
    const auto& row = by_callpath[callpath];
    return row.empty() || all_zero(row) ? nullptr : &row;
}

std::vector<int> Report::callpaths_with_values(int metric) const {
    check_id(metric, metrics.size(), "metric");
    std::vector<int> result;
    if (static_cast<std::size_t>(metric) >= rows_.size()) return result;
    const auto& by_callpath = rows_[metric];
    for (std::size_t c = 0; c < by_callpath.size(); ++c)
        if (!by_callpath[c].empty() && !all_zero(by_callpath[c]))
            result.push_back(static_cast<int>(c));
    return result;
}

// ---------------------------------------------------------------- lookups

std::optional<int> Report::part_of(int metric) const {
    const auto found = attributes.find(kPartOfAttribute);
    if (found == attributes.end()) return std::nullopt;
    const std::string wanted = metrics[metric].unique_name + "=";
    std::istringstream pairs(found->second);
    for (std::string pair; pairs >> pair;)
        if (pair.size() > wanted.size() && pair.compare(0, wanted.size(), wanted) == 0) {
            const std::string whole = pair.substr(wanted.size());
            for (std::size_t m = 0; m < metrics.size(); ++m)
                if (metrics[m].unique_name == whole) return static_cast<int>(m);
            return std::nullopt;
        }
    return std::nullopt;
}

void Report::set_part_of(const std::string& part, const std::string& whole) {
    std::string& pairs = attributes[kPartOfAttribute];
    pairs += (pairs.empty() ? "" : " ") + part + "=" + whole;
}

std::optional<int> Report::find_metric(const std::string& name) const {
    // Exact names first, so "Time" never loses to a case-insensitive near miss.
    for (std::size_t m = 0; m < metrics.size(); ++m)
        if (metrics[m].unique_name == name) return static_cast<int>(m);
    for (std::size_t m = 0; m < metrics.size(); ++m)
        if (metrics[m].display_name == name) return static_cast<int>(m);
    const std::string wanted = lower(name);
    for (std::size_t m = 0; m < metrics.size(); ++m)
        if (lower(metrics[m].unique_name) == wanted) return static_cast<int>(m);
    for (std::size_t m = 0; m < metrics.size(); ++m)
        if (lower(metrics[m].display_name) == wanted) return static_cast<int>(m);
    return std::nullopt;
}

std::string Report::callpath_name(int callpath) const {
    check_id(callpath, callpaths.size(), "call path");
    std::vector<int> chain;
    // Bounded by the number of call paths, so a damaged parent cycle cannot hang.
    for (int c = callpath; c != -1 && chain.size() <= callpaths.size(); c = callpaths[c].parent) {
        check_id(c, callpaths.size(), "call path");
        chain.push_back(c);
    }
    std::string name;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (!name.empty()) name += '/';
        const int region = callpaths[*it].region;
        name += region >= 0 && static_cast<std::size_t>(region) < regions.size()
                    ? regions[region].name
                    : "?";
    }
    return name;
}

std::optional<int> Report::find_callpath(const std::string& path) const {
    const std::vector<std::string> parts = split_path(path);
    if (parts.empty()) return std::nullopt;
    auto region_is = [&](int callpath, const std::string& name) {
        const int region = callpaths[callpath].region;
        return region >= 0 && static_cast<std::size_t>(region) < regions.size() &&
               regions[region].name == name;
    };
    // Depth-first over candidates: two regions may share a name, so a prefix can match more
    // than one call path. The first complete match in id order wins.
    std::function<std::optional<int>(int, std::size_t)> descend =
        [&](int callpath, std::size_t part) -> std::optional<int> {
        if (part == parts.size()) return callpath;
        for (int child : callpaths[callpath].children)
            if (region_is(child, parts[part]))
                if (auto found = descend(child, part + 1)) return found;
        return std::nullopt;
    };
    std::vector<int> roots;
    for (std::size_t c = 0; c < callpaths.size(); ++c)
        if (callpaths[c].parent == -1) roots.push_back(static_cast<int>(c));
    bool root_matched = false;
    for (int root : roots)
        if (region_is(root, parts[0])) {
            root_matched = true;
            if (auto found = descend(root, 1)) return found;
        }
    if (!root_matched && roots.size() == 1) {
        if (auto found = descend(roots[0], 0)) return found;
        // "program/..." names the root whatever it is called: the artificial root of a trace
        // without a program region is "program", the program region is named after the
        // executable ("ssor/MPI_Recv").
        if (parts[0] == "program") return descend(roots[0], 1);
    }
    return std::nullopt;
}

std::vector<int> Report::metric_subtree(int metric) const {
    check_id(metric, metrics.size(), "metric");
    std::vector<int> result;
    std::vector<int> stack = {metric};
    while (!stack.empty() && result.size() <= metrics.size()) {
        const int m = stack.back();
        stack.pop_back();
        result.push_back(m);
        const auto& children = metrics[m].children;
        for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
    return result;
}

// ---------------------------------------------------------------- derived values

double Report::metric_inclusive(int metric, int callpath, int location) const {
    double sum = 0.0;
    for (int m : metric_subtree(metric)) sum += value(m, callpath, location);
    return sum;
}

double Report::inclusive(int metric, int callpath, int location) const {
    check_id(callpath, callpaths.size(), "call path");
    double sum = 0.0;
    std::vector<int> stack = {callpath};
    std::size_t visited = 0;
    while (!stack.empty() && visited++ <= callpaths.size()) {
        const int c = stack.back();
        stack.pop_back();
        sum += metric_inclusive(metric, c, location);
        for (int child : callpaths[c].children) stack.push_back(child);
    }
    return sum;
}

double Report::total(int metric, int location) const {
    check_id(location, locations.size(), "location");
    return inclusive_by_location(metric, -1)[location];
}

double Report::total(int metric) const {
    double sum = 0.0;
    for (double v : inclusive_by_location(metric, -1)) sum += v;
    return sum;
}

std::vector<double> Report::inclusive_by_location(int metric, int callpath) const {
    const std::vector<int> subtree = metric_subtree(metric);
    if (callpath != -1) check_id(callpath, callpaths.size(), "call path");
    // Marks the call paths below `callpath` once instead of walking up from every row.
    std::vector<char> inside(callpaths.size(), callpath == -1 ? 1 : 0);
    if (callpath != -1) {
        std::vector<int> stack = {callpath};
        while (!stack.empty()) {
            const int c = stack.back();
            stack.pop_back();
            if (inside[c]) continue; // a damaged tree with a cycle ends here
            inside[c] = 1;
            for (int child : callpaths[c].children) stack.push_back(child);
        }
    }
    std::vector<double> result(locations.size(), 0.0);
    const auto first = static_cast<std::size_t>(kept_locations().first);
    for (int m : subtree) {
        if (static_cast<std::size_t>(m) >= rows_.size()) continue;
        const auto& by_callpath = rows_[m];
        for (std::size_t c = 0; c < by_callpath.size() && c < inside.size(); ++c) {
            if (!inside[c]) continue;
            const auto& row = by_callpath[c];
            for (std::size_t l = 0; l < row.size() && first + l < result.size(); ++l)
                result[first + l] += row[l];
        }
    }
    return result;
}

std::vector<double> Report::callpath_totals(int metric, bool callpath_inclusive) const {
    const std::vector<int> subtree = metric_subtree(metric);
    std::vector<double> own(callpaths.size(), 0.0);
    for (int m : subtree) {
        if (static_cast<std::size_t>(m) >= rows_.size()) continue;
        const auto& by_callpath = rows_[m];
        for (std::size_t c = 0; c < by_callpath.size() && c < own.size(); ++c)
            for (double v : by_callpath[c]) own[c] += v;
    }
    return callpath_inclusive ? callpath_subtree_sums(std::move(own)) : own;
}

std::vector<double> Report::callpath_subtree_sums(std::vector<double> own) const {
    // Children after parents in a depth-first order; summing that order backwards adds every
    // child into its parent after the child is complete.
    std::vector<int> order;
    std::vector<char> seen(callpaths.size(), 0);
    for (std::size_t root = 0; root < callpaths.size(); ++root) {
        if (callpaths[root].parent != -1) continue;
        std::vector<int> stack = {static_cast<int>(root)};
        while (!stack.empty()) {
            const int c = stack.back();
            stack.pop_back();
            if (seen[c]) continue;
            seen[c] = 1;
            order.push_back(c);
            for (int child : callpaths[c].children) stack.push_back(child);
        }
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int parent = callpaths[*it].parent;
        if (parent != -1) own[parent] += own[*it];
    }
    return own;
}

std::vector<uint32_t> Report::location_ranks() const {
    std::vector<uint32_t> ranks;
    ranks.reserve(locations.size());
    for (const Location& l : locations) ranks.push_back(static_cast<uint32_t>(l.rank));
    return ranks;
}

} // namespace topolens::report
