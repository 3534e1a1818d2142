// Reads a CUBE4 .cubex archive into a Report (see cube4.h for what is supported).
//
// How rows map to call paths (from cubelib's readers): the index lists positions in an
// enumeration of the call tree, not cnode ids. An EXCLUSIVE metric enumerates cnodes depth
// first (each root, then its subtrees in document order); an INCLUSIVE metric enumerates, per
// root, the root, then all its children, then recursively each child's children list. Values
// of a row are per location, ordered by location id.
#include "analyzer/report/cube4.h"
#include "analyzer/report/tar.h"

#include <pugixml.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace topolens::report {
namespace {

constexpr const char* kSyntaxVersionKey = "Cube anchor.xml syntax version";
constexpr const char* kCreatorKey = "Creator";
// Metric and system trees are walked recursively; real ones are a few levels deep, so
// deeper nesting is a damaged file (and must not exhaust the stack). Call trees, which
// can be deep, are walked without recursion.
constexpr std::size_t kMaxDepth = 1000;

// Problems found in the archive's contents; read_cube4 adds the file name.
class Bad : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------- anchor helpers

std::optional<pugi::xml_attribute> id_attribute(pugi::xml_node node) {
    for (const char* name : {"id", "Id", "ID"})
        if (pugi::xml_attribute a = node.attribute(name)) return a;
    return std::nullopt;
}

std::optional<long long> parse_integer(const std::string& text) {
    const char* begin = text.data();
    const char* end = begin + text.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(*begin))) ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(end[-1]))) --end;
    long long value = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end || begin == end) return std::nullopt;
    return value;
}

// A required non-negative integer attribute, e.g. id="3".
long long int_attribute(pugi::xml_attribute a, const std::string& where) {
    const auto value = parse_integer(a.value());
    if (!value || *value < 0 || *value > INT32_MAX)
        throw Bad(where + ": attribute " + a.name() + "=\"" + a.value() +
                  "\" is not a non-negative integer");
    return *value;
}

long long node_id(pugi::xml_node node, const std::string& where) {
    const auto a = id_attribute(node);
    if (!a) throw Bad(where + " has no id attribute");
    return int_attribute(*a, where);
}

std::string text_of(pugi::xml_node node, const char* child) {
    return node.child(child).text().get();
}

long long optional_int(pugi::xml_node node, const char* attr, long long fallback,
                       const std::string& where) {
    pugi::xml_attribute a = node.attribute(attr);
    if (!a) return fallback;
    const auto value = parse_integer(a.value());
    if (!value) throw Bad(where + ": attribute " + attr + "=\"" + a.value() + "\" is not a number");
    return *value;
}

// When the file's ids are exactly 0..n-1 and every parent's id is below its children's, the
// report keeps them (our own files round-trip unchanged); otherwise document order.
std::vector<std::size_t> creation_order(const std::vector<long long>& ids,
                                        const std::vector<long long>& parent_ids) {
    std::vector<std::size_t> order(ids.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::vector<char> hit(ids.size(), 0);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= ids.size() || hit[ids[i]])
            return order;
        hit[ids[i]] = 1;
        if (parent_ids[i] >= ids[i]) return order;
    }
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
    return order;
}

// ---------------------------------------------------------------- metrics

enum class Kind { Exclusive, Inclusive, Derived };

struct FileMetric {
    long long id = 0;
    long long parent_id = -1; // file id of the parent metric
    int parent = -1;          // index into the list
    Metric metric;
    Kind kind = Kind::Exclusive;
    std::string dtype;
    int report_id = -1;
};

void collect_metrics(pugi::xml_node parent_node, int parent, std::vector<FileMetric>& out,
                     std::size_t depth) {
    if (depth > kMaxDepth) throw Bad("anchor.xml: metrics nested too deeply");
    for (pugi::xml_node node : parent_node.children("metric")) {
        FileMetric fm;
        const std::string uniq = text_of(node, "uniq_name");
        const std::string where = "anchor.xml: metric '" + uniq + "'";
        fm.id = node_id(node, where);
        fm.parent = parent;
        fm.parent_id = parent >= 0 ? out[parent].id : -1;
        fm.metric.unique_name = uniq;
        fm.metric.display_name = text_of(node, "disp_name");
        fm.metric.description = text_of(node, "descr");
        fm.metric.unit = text_of(node, "uom");
        fm.metric.url = text_of(node, "url");
        fm.dtype = text_of(node, "dtype");
        std::string type = node.attribute("type").value();
        if (type.empty() || type == "EXCLUSIVE") {
            fm.kind = Kind::Exclusive;
        } else if (type == "INCLUSIVE") {
            fm.kind = Kind::Inclusive;
        } else if (type == "POSTDERIVED" || type == "PREDERIVED_EXCLUSIVE" ||
                   type == "PREDERIVED_INCLUSIVE") {
            fm.kind = Kind::Derived;
            fm.metric.derived_type = type;
            fm.metric.cubepl = text_of(node, "cubepl");
            fm.metric.cubepl_init = text_of(node, "cubeplinit");
        } else {
            throw Bad(where + ": metric type " + type +
                      " is not supported (EXCLUSIVE, INCLUSIVE and derived metrics are)");
        }
        out.push_back(std::move(fm));
        collect_metrics(node, static_cast<int>(out.size()) - 1, out, depth + 1);
    }
}

// ---------------------------------------------------------------- call tree

struct FileCnode {
    long long id = 0;
    long long region_id = 0;
    int parent = -1; // index into the list (document order)
    std::vector<int> children;
    int callpath = -1;
};

void collect_cnodes(pugi::xml_node program, std::vector<FileCnode>& out) {
    // Iterative depth-first walk in document order: this order is Cube's enumeration of
    // EXCLUSIVE metrics, and recursive programs give deep trees.
    std::vector<std::pair<pugi::xml_node, int>> stack;
    std::vector<pugi::xml_node> roots;
    for (pugi::xml_node n : program.children("cnode")) roots.push_back(n);
    for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.emplace_back(*it, -1);
    while (!stack.empty()) {
        auto [node, parent] = stack.back();
        stack.pop_back();
        FileCnode c;
        c.id = node_id(node, "anchor.xml: a cnode");
        const std::string where = "anchor.xml: cnode " + std::to_string(c.id);
        pugi::xml_attribute callee = node.attribute("calleeId");
        if (!callee) throw Bad(where + " has no calleeId");
        c.region_id = int_attribute(callee, where);
        c.parent = parent;
        const int index = static_cast<int>(out.size());
        if (parent >= 0) out[parent].children.push_back(index);
        out.push_back(c);
        std::vector<pugi::xml_node> children;
        for (pugi::xml_node n : node.children("cnode")) children.push_back(n);
        for (auto it = children.rbegin(); it != children.rend(); ++it)
            stack.emplace_back(*it, index);
    }
}

// Cube's enumeration of an INCLUSIVE metric's rows (cubelib's WideSearchEnumerator).
std::vector<int> wide_order(const std::vector<FileCnode>& cnodes) {
    std::vector<int> order;
    for (std::size_t r = 0; r < cnodes.size(); ++r) {
        if (cnodes[r].parent != -1) continue;
        order.push_back(static_cast<int>(r));
        // Each entry lists a node whose children come next, then its children's lists.
        std::vector<int> stack = {static_cast<int>(r)};
        while (!stack.empty()) {
            const int n = stack.back();
            stack.pop_back();
            for (int child : cnodes[n].children) order.push_back(child);
            const auto& children = cnodes[n].children;
            for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
        }
    }
    return order;
}

// ---------------------------------------------------------------- system tree

struct FileLocation {
    long long id = 0;
    Location location;
};

struct SystemReader {
    std::vector<FileLocation> locations;
    std::map<long long, std::vector<std::size_t>> group_locations; // group id -> locations
    long long next_group = 0;

    // Location groups are numbered in document order, as Cube numbers them.
    void group(pugi::xml_node node, const std::string& host, bool cube3) {
        const std::string name = text_of(node, "name");
        const long long group_id = next_group++;
        const std::string where = "anchor.xml: location group '" + name + "'";
        const long long rank = rank_of(node, where);
        for (pugi::xml_node loc : node.children(cube3 ? "thread" : "location")) {
            FileLocation fl;
            fl.location.name = text_of(loc, "name");
            const std::string lwhere = "anchor.xml: location '" + fl.location.name + "'";
            fl.id = node_id(loc, lwhere);
            fl.location.host = host;
            fl.location.process = name.empty() && cube3 ? "Process " + std::to_string(rank) : name;
            fl.location.rank = static_cast<int>(rank);
            fl.location.thread = static_cast<int>(rank_of(loc, lwhere));
            group_locations[group_id].push_back(locations.size());
            locations.push_back(std::move(fl));
        }
    }

    static long long rank_of(pugi::xml_node node, const std::string& where) {
        pugi::xml_node rank = node.child("rank");
        if (!rank) return 0;
        const auto value = parse_integer(rank.text().get());
        if (!value || *value < 0 || *value > INT32_MAX)
            throw Bad(where + ": rank '" + rank.text().get() + "' is not a non-negative integer");
        return *value;
    }

    // A location's host is the system tree node that holds its location group.
    void tree_node(pugi::xml_node node, std::size_t depth) {
        if (depth > kMaxDepth) throw Bad("anchor.xml: system tree nested too deeply");
        const std::string name = text_of(node, "name");
        for (pugi::xml_node g : node.children("locationgroup")) group(g, name, false);
        for (pugi::xml_node child : node.children("systemtreenode")) tree_node(child, depth + 1);
    }

    void read(pugi::xml_node system) {
        for (pugi::xml_node n : system.children("systemtreenode")) tree_node(n, 0);
        // Cube 3 layout: machine > node > process > thread.
        for (pugi::xml_node machine : system.children("machine"))
            for (pugi::xml_node node : machine.children("node"))
                for (pugi::xml_node process : node.children("process"))
                    group(process, text_of(node, "name"), true);
    }
};

// ---------------------------------------------------------------- binary files

template <class T> T get(const std::string& bytes, std::size_t at, bool swap) {
    T value;
    unsigned char raw[sizeof(T)];
    std::memcpy(raw, bytes.data() + at, sizeof(T));
    if (swap) std::reverse(raw, raw + sizeof(T));
    std::memcpy(&value, raw, sizeof(T));
    return value;
}

struct Index {
    bool swap = false;
    std::vector<uint32_t> positions; // enumeration positions with a row, ascending
};

Index parse_index(const std::string& bytes, const std::string& name, std::size_t cnodes) {
    static const std::string marker = "CUBEX.INDEX";
    constexpr std::size_t kHeader = 11 + 4 + 2 + 1;
    if (bytes.compare(0, marker.size(), marker) != 0)
        throw Bad(name + ": not a CUBE index (does not start with CUBEX.INDEX)");
    if (bytes.size() < kHeader)
        throw Bad(name + ": too short (" + std::to_string(bytes.size()) +
                  " bytes, the header has " + std::to_string(kHeader) + ")");
    Index index;
    const uint32_t endian = get<uint32_t>(bytes, 11, false);
    if (endian == 0x01000000u) {
        index.swap = true;
    } else if (endian != 1) {
        throw Bad(name + ": bad byte-order marker " + std::to_string(endian));
    }
    const uint8_t format = static_cast<uint8_t>(bytes[17]);
    if (format == 3) { // dense: every call path has a row
        if (bytes.size() != kHeader)
            throw Bad(name + ": dense index with " + std::to_string(bytes.size() - kHeader) +
                      " stray bytes");
        for (std::size_t i = 0; i < cnodes; ++i)
            index.positions.push_back(static_cast<uint32_t>(i));
        return index;
    }
    if (format != 1)
        throw Bad(name + ": unknown index format " + std::to_string(format) +
                  " (1 sparse and 3 dense are known)");
    if (bytes.size() < kHeader + 4) throw Bad(name + ": sparse index without its count");
    const uint32_t count = get<uint32_t>(bytes, kHeader, index.swap);
    const uint64_t expected = kHeader + 4 + uint64_t{4} * count;
    if (bytes.size() != expected)
        throw Bad(name + ": wrong size: " + std::to_string(count) + " entries need " +
                  std::to_string(expected) + " bytes, the file has " +
                  std::to_string(bytes.size()));
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t p = get<uint32_t>(bytes, kHeader + 4 + 4 * std::size_t{i}, index.swap);
        if (p >= cnodes)
            throw Bad(name + ": entry " + std::to_string(p) + " names a call path that does not " +
                      "exist (anchor.xml defines " + std::to_string(cnodes) + ")");
        if (!index.positions.empty() && p <= index.positions.back())
            throw Bad(name + ": entries are not in ascending order");
        index.positions.push_back(p);
    }
    return index;
}

// How far below zero a stored time or count may be, relative to the metric's largest value:
// far above the rounding of the subtractions that make exclusive values (about 1e-16).
constexpr double kRoundingNoise = 1e-6;

// A value as an error message shows it: "nan", "-inf", "-1e+300".
std::string value_text(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

// Byte size of one value and how to read it as a double; nullopt if unsupported.
struct Dtype {
    std::size_t size;
    double (*decode)(const std::string&, std::size_t, bool);
};

template <class T> double decode_as(const std::string& b, std::size_t at, bool swap) {
    return static_cast<double>(get<T>(b, at, swap));
}

std::optional<Dtype> dtype_of(const std::string& dtype) {
    // Names as cubew maps them; FLOAT is stored as 8-byte double there.
    if (dtype == "DOUBLE" || dtype == "FLOAT" || dtype == "MINDOUBLE" || dtype == "MAXDOUBLE" ||
        dtype.empty())
        return Dtype{8, decode_as<double>};
    if (dtype == "INT64" || dtype == "INTEGER") return Dtype{8, decode_as<int64_t>};
    if (dtype == "UINT64") return Dtype{8, decode_as<uint64_t>};
    if (dtype == "INT32" || dtype == "INT" || dtype == "SIGNED INT" || dtype == "SIGNED INTEGER")
        return Dtype{4, decode_as<int32_t>};
    if (dtype == "UINT32" || dtype == "UNSIGNED INT" || dtype == "UNSIGNED INTEGER")
        return Dtype{4, decode_as<uint32_t>};
    if (dtype == "INT16" || dtype == "SHORT INT" || dtype == "SIGNED SHORT INT")
        return Dtype{2, decode_as<int16_t>};
    if (dtype == "UINT16" || dtype == "SHORT UNSIGNED INT" || dtype == "UNSIGNED SHORT INT")
        return Dtype{2, decode_as<uint16_t>};
    if (dtype == "INT8") return Dtype{1, decode_as<int8_t>};
    if (dtype == "UINT8" || dtype == "CHAR") return Dtype{1, decode_as<uint8_t>};
    return std::nullopt;
}

// ---------------------------------------------------------------- assembling the report

class AnchorReader {
  public:
    AnchorReader(const pugi::xml_node cube, tar::Reader& archive)
        : cube_(cube), archive_(archive) {}

    Report read() {
        attributes();
        metrics();
        program();
        system();
        topologies();
        data();
        return std::move(report_);
    }

  private:
    pugi::xml_node cube_;
    tar::Reader& archive_;
    Report report_;
    std::vector<FileMetric> metrics_;
    std::vector<FileCnode> cnodes_;
    std::vector<int> location_of_row_; // file location (document order) -> report location
    std::map<long long, int> location_by_id_;
    std::vector<FileLocation> file_locations_;
    std::map<long long, std::vector<std::size_t>> group_locations_;
    bool own_parts_ = false; // values are metric-exclusive (earlier topolens versions)

    void attributes() {
        bool creator = false, ours = false;
        for (pugi::xml_node a : cube_.children("attr")) {
            const std::string key = a.attribute("key").value();
            creator = creator || key == kCreatorKey;
            ours = ours || key.rfind("topolens.", 0) == 0;
            if (key == kSyntaxVersionKey) continue; // the writer sets it
            report_.attributes[key] = a.attribute("value").value();
        }
        // topolens wrote its reports without a Creator until it followed Cube's rule; those
        // files store each metric's own part (see cube4.h).
        own_parts_ = ours && !creator;
        for (pugi::xml_node murl : cube_.child("doc").child("mirrors").children("murl"))
            report_.mirrors.push_back(murl.text().get());
    }

    void metrics() {
        pugi::xml_node node = cube_.child("metrics");
        if (!node) throw Bad("anchor.xml has no <metrics>");
        collect_metrics(node, -1, metrics_, 0);
        std::set<long long> ids;
        for (const FileMetric& m : metrics_)
            if (!ids.insert(m.id).second)
                throw Bad("anchor.xml: two metrics have id " + std::to_string(m.id));
        std::vector<long long> file_ids, parent_ids;
        for (const FileMetric& m : metrics_) {
            file_ids.push_back(m.id);
            parent_ids.push_back(m.parent_id);
        }
        for (std::size_t i : creation_order(file_ids, parent_ids)) {
            FileMetric& m = metrics_[i];
            Metric metric = m.metric;
            metric.parent = m.parent >= 0 ? metrics_[m.parent].report_id : -1;
            m.report_id = report_.add_metric(std::move(metric));
        }
    }

    void program() {
        pugi::xml_node program = cube_.child("program");
        if (!program) throw Bad("anchor.xml has no <program>");
        std::vector<pugi::xml_node> regions;
        std::vector<long long> region_ids;
        for (pugi::xml_node r : program.children("region")) {
            regions.push_back(r);
            region_ids.push_back(node_id(r, "anchor.xml: region '" + text_of(r, "name") + "'"));
        }
        std::map<long long, int> region_of;
        const std::vector<long long> no_parents(regions.size(), -1);
        for (std::size_t i : creation_order(region_ids, no_parents)) {
            const pugi::xml_node r = regions[i];
            const std::string where = "anchor.xml: region " + std::to_string(region_ids[i]);
            Region region;
            region.name = text_of(r, "name");
            region.canonical_name =
                r.child("mangled_name") ? text_of(r, "mangled_name") : region.name;
            region.description = text_of(r, "descr");
            region.source_file = r.attribute("mod").value();
            region.paradigm = text_of(r, "paradigm");
            region.role = text_of(r, "role");
            region.begin_line = static_cast<int>(optional_int(r, "begin", -1, where));
            region.end_line = static_cast<int>(optional_int(r, "end", -1, where));
            if (!region_of.emplace(region_ids[i], report_.add_region(std::move(region))).second)
                throw Bad("anchor.xml: two regions have id " + std::to_string(region_ids[i]));
        }

        collect_cnodes(program, cnodes_);
        std::set<long long> ids;
        std::vector<long long> file_ids, parent_ids;
        for (const FileCnode& c : cnodes_) {
            if (!ids.insert(c.id).second)
                throw Bad("anchor.xml: two cnodes have id " + std::to_string(c.id));
            if (!region_of.count(c.region_id))
                throw Bad("anchor.xml: cnode " + std::to_string(c.id) + " calls undefined region " +
                          std::to_string(c.region_id));
            file_ids.push_back(c.id);
            parent_ids.push_back(c.parent >= 0 ? cnodes_[c.parent].id : -1);
        }
        for (std::size_t i : creation_order(file_ids, parent_ids)) {
            FileCnode& c = cnodes_[i];
            // Cnodes differing only in call site (line) become one call path: values add up.
            c.callpath = report_.add_callpath(region_of.at(c.region_id),
                                              c.parent >= 0 ? cnodes_[c.parent].callpath : -1);
        }
    }

    void system() {
        pugi::xml_node system = cube_.child("system");
        if (!system) throw Bad("anchor.xml has no <system>");
        SystemReader reader;
        reader.read(system);
        file_locations_ = std::move(reader.locations);
        group_locations_ = std::move(reader.group_locations);
        // Rows hold one value per location in location id order.
        std::vector<std::size_t> order(file_locations_.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return file_locations_[a].id < file_locations_[b].id;
        });
        location_of_row_.assign(file_locations_.size(), -1);
        for (std::size_t k = 0; k < order.size(); ++k) {
            if (k > 0 && file_locations_[order[k]].id == file_locations_[order[k - 1]].id)
                throw Bad("anchor.xml: two locations have id " +
                          std::to_string(file_locations_[order[k]].id));
            // Report location k is the k-th in id order, i.e. the k-th value of a row.
            location_of_row_[order[k]] = report_.add_location(file_locations_[order[k]].location);
            location_by_id_[file_locations_[order[k]].id] = location_of_row_[order[k]];
        }
    }

    int location_with_id(long long id, const std::string& where) const {
        const auto found = location_by_id_.find(id);
        if (found == location_by_id_.end())
            throw Bad(where + " names undefined location " + std::to_string(id));
        return found->second;
    }

    void topologies() {
        pugi::xml_node topologies = cube_.child("system").child("topologies");
        if (!topologies) topologies = cube_.child("topologies"); // early Cube 4 files
        for (pugi::xml_node cart : topologies.children("cart")) {
            CartTopology t;
            t.name = cart.attribute("name").value();
            const std::string where = "anchor.xml: topology '" + t.name + "'";
            bool named = false;
            for (pugi::xml_node dim : cart.children("dim")) {
                const long long size = optional_int(dim, "size", 0, where);
                if (size <= 0 || size > UINT32_MAX)
                    throw Bad(where + ": dimension size '" + dim.attribute("size").value() +
                              "' is not a positive number");
                t.sizes.push_back(static_cast<uint32_t>(size));
                const std::string periodic = dim.attribute("periodic").value();
                t.periodic.push_back(periodic == "true" || periodic == "TRUE" || periodic == "1");
                named = named || dim.attribute("name");
                t.dim_names.push_back(dim.attribute("name").value());
            }
            if (!named) t.dim_names.clear();
            if (t.sizes.empty()) throw Bad(where + " has no dimensions");
            if (pugi::xml_attribute ndims = cart.attribute("ndims"))
                if (int_attribute(ndims, where) != static_cast<long long>(t.sizes.size()))
                    throw Bad(where + ": ndims=" + ndims.value() + " but " +
                              std::to_string(t.sizes.size()) + " <dim> elements");
            t.coords.resize(report_.locations.size());
            for (pugi::xml_node coord : cart.children("coord")) {
                std::vector<uint32_t> xs;
                std::string text = coord.text().get();
                std::size_t pos = 0;
                while (true) {
                    pos = text.find_first_not_of(" \t\r\n", pos);
                    if (pos == std::string::npos) break;
                    const std::size_t end =
                        std::min(text.find_first_of(" \t\r\n", pos), text.size());
                    const auto x = parse_integer(text.substr(pos, end - pos));
                    if (!x || *x < 0 || *x > UINT32_MAX)
                        throw Bad(where + ": coordinate '" + text.substr(pos, end - pos) +
                                  "' is not a non-negative integer");
                    xs.push_back(static_cast<uint32_t>(*x));
                    pos = end;
                }
                if (xs.size() != t.sizes.size())
                    throw Bad(where + ": " + std::to_string(xs.size()) + " coordinates for " +
                              std::to_string(t.sizes.size()) + " dimensions");
                for (std::size_t d = 0; d < xs.size(); ++d)
                    if (xs[d] >= t.sizes[d])
                        throw Bad(where + ": coordinate " + std::to_string(xs[d]) +
                                  " is outside dimension " + std::to_string(d) + " (size " +
                                  std::to_string(t.sizes[d]) + ")");
                std::vector<int> targets;
                if (pugi::xml_attribute a = coord.attribute("locId")) {
                    targets.push_back(location_with_id(int_attribute(a, where), where));
                } else if (pugi::xml_attribute a = coord.attribute("thrdId")) {
                    targets.push_back(location_with_id(int_attribute(a, where), where));
                } else if (pugi::xml_attribute a = coord.attribute("lgId")
                                                       ? coord.attribute("lgId")
                                                       : coord.attribute("procId")) {
                    // Coordinates of a process: every location of it sits there.
                    const long long group = int_attribute(a, where);
                    auto found = group_locations_.find(group);
                    if (found == group_locations_.end())
                        throw Bad(where + " names undefined location group " +
                                  std::to_string(group));
                    for (std::size_t i : found->second) targets.push_back(location_of_row_[i]);
                } // coordinates of whole nodes or machines have no place in the report
                for (int l : targets) t.coords[l] = xs;
            }
            report_.topologies.push_back(std::move(t));
        }
    }

    void data() {
        std::vector<int> deep(cnodes_.size());
        for (std::size_t i = 0; i < deep.size(); ++i) deep[i] = static_cast<int>(i);
        const std::vector<int> wide = wide_order(cnodes_);
        const std::size_t nloc = file_locations_.size();
        for (const FileMetric& m : metrics_) {
            const std::string id = std::to_string(m.id);
            const tar::Entry* index_entry = archive_.find(id + ".index");
            const tar::Entry* data_entry = archive_.find(id + ".data");
            if (m.kind == Kind::Derived) continue;     // Cube computes these from other metrics
            if (!index_entry && !data_entry) continue; // a metric without values
            const std::string what = "metric '" + m.metric.unique_name + "' (id " + id + ")";
            if (!index_entry) throw Bad(id + ".data is present but " + id + ".index is missing");
            if (!data_entry) throw Bad(id + ".index is present but " + id + ".data is missing");
            const auto dtype = dtype_of(m.dtype);
            if (!dtype) throw Bad(what + ": data type " + m.dtype + " is not supported");

            const Index index =
                parse_index(archive_.read(*index_entry), id + ".index", cnodes_.size());
            const std::string bytes = archive_.read(*data_entry);
            if (bytes.compare(0, 11, "ZCUBEX.DATA") == 0)
                throw Bad(id + ".data: compressed (ZCUBEX) data is not supported; write the "
                               "report without CUBEW_ZLIB_COMPRESSION");
            if (bytes.compare(0, 10, "CUBEX.DATA") != 0)
                throw Bad(id + ".data: not a CUBE data file (does not start with CUBEX.DATA)");
            const uint64_t expected = 10 + uint64_t{index.positions.size()} * nloc * dtype->size;
            if (bytes.size() != expected)
                throw Bad(id + ".data: wrong size: " + std::to_string(index.positions.size()) +
                          " rows x " + std::to_string(nloc) + " locations x " +
                          std::to_string(dtype->size) +
                          " bytes + 10 = " + std::to_string(expected) +
                          " bytes expected, the file has " + std::to_string(bytes.size()));

            const std::vector<int>& order = m.kind == Kind::Inclusive ? wide : deep;
            // Rows by cnode (document order) and location, as the file holds them.
            std::vector<std::vector<double>> values(cnodes_.size());
            std::size_t at = 10;
            double largest = 0.0; // magnitude
            for (uint32_t position : index.positions) {
                auto& row = values[order[position]];
                row.resize(nloc);
                for (std::size_t l = 0; l < nloc; ++l, at += dtype->size) {
                    row[l] = dtype->decode(bytes, at, index.swap);
                    if (!std::isfinite(row[l])) impossible(id, what, order[position], l, row[l]);
                    largest = std::max(largest, std::abs(row[l]));
                }
            }
            // A time, a count or a number of bytes is never negative beyond the rounding of
            // the subtractions that made it (relative to the metric's largest value).
            if (m.metric.unit == "sec" || m.metric.unit == "occ" || m.metric.unit == "bytes")
                for (std::size_t c = 0; c < values.size(); ++c)
                    for (std::size_t l = 0; l < values[c].size(); ++l)
                        if (values[c][l] < -kRoundingNoise * largest)
                            impossible(id, what, static_cast<int>(c), l, values[c][l]);
            if (m.kind == Kind::Inclusive) {
                // Exclusive value = inclusive value minus the children's inclusive values.
                std::vector<std::vector<double>> exclusive = values;
                for (std::size_t c = 0; c < cnodes_.size(); ++c) {
                    const int parent = cnodes_[c].parent;
                    if (parent < 0 || values[c].empty()) continue;
                    auto& row = exclusive[parent];
                    if (row.empty()) row.assign(nloc, 0.0);
                    for (std::size_t l = 0; l < nloc; ++l) row[l] -= values[c][l];
                }
                values = std::move(exclusive);
            }
            for (std::size_t c = 0; c < cnodes_.size(); ++c)
                for (std::size_t l = 0; l < values[c].size(); ++l)
                    report_.add_value(m.report_id, cnodes_[c].callpath, static_cast<int>(l),
                                      values[c][l]);
        }
        if (!own_parts_) metric_exclusive();
    }

    [[noreturn]] void impossible(const std::string& id, const std::string& what, int cnode,
                                 std::size_t location, double value) const {
        throw Bad(id + ".data: " + what + " holds an impossible value (" + value_text(value) +
                  ") at call path " + std::to_string(cnodes_[cnode].id) + ", location " +
                  std::to_string(location));
    }

    // The metrics whose stored values Cube subtracts from `m`'s for its exclusive value: its
    // children, in order. A derived child (Cube evaluates its CubePL, we do not) stands for
    // the stored metrics below it, so that the parent's inclusive value stays the stored one.
    void stored_below(int m, std::vector<int>& out) const {
        for (int child : report_.metrics[m].children) {
            if (report_.metrics[child].derived_type.empty())
                out.push_back(child);
            else
                stored_below(child, out);
        }
    }

    // Cube's metric-exclusive value (cubelib's Cube::get_sev with CUBE_CALCULATE_EXCLUSIVE
    // along the metrics): the stored value minus each child's stored value, per call path
    // (after the call-tree conversion above) and location. Parents are converted before
    // their children, which still hold stored values then; ids grow from parent to child.
    void metric_exclusive() {
        const std::size_t nloc = report_.locations.size();
        for (int m = 0; m < static_cast<int>(report_.metrics.size()); ++m) {
            if (!report_.metrics[m].derived_type.empty()) continue;
            std::vector<int> below;
            stored_below(m, below);
            if (below.empty()) continue;
            std::set<int> paths;
            for (int child : below)
                for (int c : report_.callpaths_with_values(child)) paths.insert(c);
            for (int c : paths) {
                std::vector<double> own(nloc, 0.0), stored(nloc, 0.0);
                if (const std::vector<double>* row = report_.row(m, c)) stored = *row;
                own = stored;
                for (int child : below)
                    if (const std::vector<double>* row = report_.row(child, c))
                        for (std::size_t l = 0; l < nloc; ++l) own[l] -= (*row)[l];
                for (std::size_t l = 0; l < nloc; ++l) {
                    // Where the parent equals its children, rounding leaves dust; Cube shows
                    // it, we keep a clean zero.
                    if (own[l] < 0.0 && -own[l] <= 1e-12 * std::max(1.0, std::fabs(stored[l])))
                        own[l] = 0.0;
                    report_.set_value(m, c, static_cast<int>(l), own[l]);
                }
            }
        }
    }
};

bool starts_with_gzip(const std::string& bytes) {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
           static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string file_start(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char head[2] = {0, 0};
    in.read(head, 2);
    return std::string(head, static_cast<std::size_t>(in.gcount()));
}

} // namespace

Report read_cube4(const std::string& path) {
    try {
        tar::require_regular_file(path);
        if (starts_with_gzip(file_start(path)))
            throw Bad("gzip-compressed archive (.cubex.gz / tar.gz) is not supported; "
                      "gunzip it first");
        std::optional<tar::Reader> archive;
        try {
            archive.emplace(path);
        } catch (const tar::TarError& e) {
            throw Bad(e.what());
        }
        const tar::Entry* anchor_entry = archive->find("anchor.xml");
        if (!anchor_entry) throw Bad("no anchor.xml in the archive (not a CUBE4 report?)");
        const std::string anchor = archive->read(*anchor_entry);
        if (starts_with_gzip(anchor))
            throw Bad("anchor.xml is gzip-compressed; that is not supported");

        pugi::xml_document doc;
        const pugi::xml_parse_result parsed = doc.load_buffer(anchor.data(), anchor.size());
        if (!parsed)
            throw Bad("anchor.xml: malformed XML at byte " + std::to_string(parsed.offset) + ": " +
                      parsed.description());
        const pugi::xml_node cube = doc.child("cube");
        if (!cube) throw Bad("anchor.xml has no <cube> element");
        const std::string version = cube.attribute("version").value();
        if (version.rfind("4", 0) != 0)
            throw Bad("anchor.xml: CUBE version '" + version + "' is not supported (4.x is)");
        Report report = AnchorReader(cube, *archive).read();
        if (const tar::Entry* edges = archive->find(kWaitEdgesMember)) {
            try {
                report.wait_edges =
                    parse_wait_edges_csv(archive->read(*edges), report.locations.size());
            } catch (const std::runtime_error& e) {
                throw Bad(e.what());
            }
        }
        return report;
    } catch (const Bad& e) {
        throw ReportError(path + ": " + e.what());
    } catch (const tar::TarError& e) {
        throw ReportError(path + ": " + e.what());
    } catch (const std::out_of_range& e) {
        // The report model rejected an id the checks above let through.
        throw ReportError(path + ": inconsistent report: " + e.what());
    } catch (const std::bad_alloc&) {
        throw ReportError(path + ": too large to read into memory");
    }
}

} // namespace topolens::report
