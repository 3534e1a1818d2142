// Writes a Report as a CUBE4 .cubex archive (see cube4.h for the layout).
//
// The anchor follows what Cube's anchor parser accepts (its flex scanner matches literal
// tags): an XML declaration with version 1.0 and UTF-8, <cube version="4.4"> spelled exactly
// so, <attr> before <doc>, no empty-element tags for text elements (<url></url>, never
// <url/>), <locationgroup>/<location> children in the order name, rank, type, and <cart>
// with its name before ndims.
//
// Index entries are positions in a depth-first walk of the call tree, which is how Cube
// enumerates the cnodes of an EXCLUSIVE metric, and data rows come in that order. Cnode ids
// are those positions too, as Score-P and Scalasca number them, so readers that take index
// entries for cnode ids (pycubexr, Extra-P) read the same values as Cube.
#include "analyzer/report/cube4.h"
#include "analyzer/report/tar.h"

#include <pugixml.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

namespace topolens::report {
namespace {

constexpr const char* kAnchorVersion = "4.4";
constexpr const char* kSyntaxVersionKey = "Cube anchor.xml syntax version";
// Cube's key for the tool that wrote a report (Scalasca writes "Scalasca Trace Analyzer
// 2.6"); its presence also tells our reader that values follow Cube's metric-tree rule.
constexpr const char* kCreatorKey = "Creator";
constexpr const char* kCreator = "topolens " TOPOLENS_VERSION;

class Invalid : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

void text_child(pugi::xml_node parent, const char* name, const std::string& text) {
    parent.append_child(name).text().set(text.c_str());
}

// Cube's scanner knows "<attr .../>" and "<dim .../>" but every other element only as an
// opening and a closing tag ("<url></url>", "<cnode ...></cnode>"): an empty text child
// makes pugixml write those.
struct CloseEmptyElements : pugi::xml_tree_walker {
    bool for_each(pugi::xml_node& node) override {
        if (node.type() == pugi::node_element && !node.first_child() &&
            std::strcmp(node.name(), "attr") != 0 && std::strcmp(node.name(), "dim") != 0)
            node.append_child(pugi::node_pcdata);
        return true;
    }
};

void attr_child(pugi::xml_node parent, const std::string& key, const std::string& value) {
    pugi::xml_node node = parent.append_child("attr");
    node.append_attribute("key") = key.c_str();
    node.append_attribute("value") = value.c_str();
}

// Children lists must mirror the parent links and form a forest: every node reached once.
template <class Node>
std::vector<int> forest_preorder(const std::vector<Node>& nodes, const char* what) {
    std::vector<int> order;
    std::vector<char> seen(nodes.size(), 0);
    for (std::size_t root = 0; root < nodes.size(); ++root) {
        if (nodes[root].parent != -1) continue;
        std::vector<int> stack = {static_cast<int>(root)};
        while (!stack.empty()) {
            const int n = stack.back();
            stack.pop_back();
            if (seen[n])
                throw Invalid(std::string(what) + " " + std::to_string(n) +
                              " is reached twice in the tree");
            seen[n] = 1;
            order.push_back(n);
            const auto& children = nodes[n].children;
            for (auto it = children.rbegin(); it != children.rend(); ++it) {
                if (*it < 0 || static_cast<std::size_t>(*it) >= nodes.size())
                    throw Invalid(std::string(what) + " " + std::to_string(n) +
                                  " has an undefined child " + std::to_string(*it));
                if (nodes[*it].parent != n)
                    throw Invalid(std::string(what) + " " + std::to_string(*it) +
                                  " is listed as a child of " + std::to_string(n) +
                                  " but names parent " + std::to_string(nodes[*it].parent));
                stack.push_back(*it);
            }
        }
    }
    for (std::size_t n = 0; n < nodes.size(); ++n)
        if (!seen[n])
            throw Invalid(std::string(what) + " " + std::to_string(n) +
                          " is not in the tree (its parent does not list it, or a cycle)");
    return order;
}

void validate(const Report& report) {
    if (report.metrics.empty()) throw Invalid("no metrics (CUBE needs at least one)");
    if (report.callpaths.empty()) throw Invalid("no call paths (CUBE needs at least one)");
    if (report.locations.empty()) throw Invalid("no locations (CUBE needs at least one)");
    forest_preorder(report.metrics, "metric");
    std::set<std::string> names;
    for (std::size_t m = 0; m < report.metrics.size(); ++m) {
        const Metric& metric = report.metrics[m];
        if (metric.unique_name.empty())
            throw Invalid("metric " + std::to_string(m) + " has no unique name");
        if (!names.insert(metric.unique_name).second)
            throw Invalid("two metrics are named '" + metric.unique_name + "'");
        if (!metric.derived_type.empty() && !report.callpaths_with_values(m).empty())
            throw Invalid("metric '" + metric.unique_name + "' is derived but holds values");
    }
    forest_preorder(report.callpaths, "call path");
    for (std::size_t c = 0; c < report.callpaths.size(); ++c) {
        const int region = report.callpaths[c].region;
        if (region < 0 || static_cast<std::size_t>(region) >= report.regions.size())
            throw Invalid("call path " + std::to_string(c) + " has undefined region " +
                          std::to_string(region));
    }
    for (std::size_t l = 0; l < report.locations.size(); ++l)
        if (report.locations[l].rank < 0 || report.locations[l].thread < 0)
            throw Invalid("location " + std::to_string(l) + " has a negative rank or thread");
    for (const CartTopology& t : report.topologies) {
        const std::string name = "topology '" + t.name + "'";
        if (t.sizes.empty()) throw Invalid(name + " has no dimensions");
        if (t.periodic.size() != t.sizes.size())
            throw Invalid(name + ": " + std::to_string(t.sizes.size()) + " sizes but " +
                          std::to_string(t.periodic.size()) + " periodic flags");
        if (!t.dim_names.empty() && t.dim_names.size() != t.sizes.size())
            throw Invalid(name + ": " + std::to_string(t.sizes.size()) + " dimensions but " +
                          std::to_string(t.dim_names.size()) + " dimension names");
        for (uint32_t size : t.sizes)
            if (size == 0) throw Invalid(name + " has a dimension of size 0");
        if (t.coords.size() > report.locations.size())
            throw Invalid(name + " has coordinates for " + std::to_string(t.coords.size()) +
                          " locations but the report has " +
                          std::to_string(report.locations.size()));
        for (std::size_t l = 0; l < t.coords.size(); ++l) {
            if (t.coords[l].empty()) continue;
            if (t.coords[l].size() != t.sizes.size())
                throw Invalid(name + ": location " + std::to_string(l) + " has " +
                              std::to_string(t.coords[l].size()) + " coordinates for " +
                              std::to_string(t.sizes.size()) + " dimensions");
            for (std::size_t d = 0; d < t.sizes.size(); ++d)
                if (t.coords[l][d] >= t.sizes[d])
                    throw Invalid(name + ": coordinate " + std::to_string(t.coords[l][d]) +
                                  " of location " + std::to_string(l) + " is outside dimension " +
                                  std::to_string(d) + " (size " + std::to_string(t.sizes[d]) + ")");
        }
    }
}

void metric_xml(pugi::xml_node parent, const Report& report, int id) {
    const Metric& m = report.metrics[id];
    pugi::xml_node node = parent.append_child("metric");
    node.append_attribute("id") = id;
    node.append_attribute("type") = m.derived_type.empty() ? "EXCLUSIVE" : m.derived_type.c_str();
    text_child(node, "disp_name", m.display_name);
    text_child(node, "uniq_name", m.unique_name);
    text_child(node, "dtype", "DOUBLE");
    text_child(node, "uom", m.unit);
    text_child(node, "url", m.url);
    text_child(node, "descr", m.description);
    if (!m.derived_type.empty()) {
        text_child(node, "cubepl", m.cubepl);
        if (!m.cubepl_init.empty()) text_child(node, "cubeplinit", m.cubepl_init);
    }
    for (int child : m.children) metric_xml(node, report, child);
}

void region_xml(pugi::xml_node program, const Region& r, int id) {
    pugi::xml_node node = program.append_child("region");
    node.append_attribute("id") = id;
    node.append_attribute("mod") = r.source_file.c_str();
    node.append_attribute("begin") = r.begin_line;
    node.append_attribute("end") = r.end_line;
    text_child(node, "name", r.name);
    text_child(node, "mangled_name", r.canonical_name);
    text_child(node, "paradigm", r.paradigm);
    text_child(node, "role", r.role);
    text_child(node, "url", "");
    text_child(node, "descr", r.description);
}

void cnode_xml(pugi::xml_node parent, const Report& report, int id,
               const std::vector<uint32_t>& position) {
    // Iterative: call trees of recursive programs can be deep.
    std::vector<std::pair<pugi::xml_node, int>> stack = {{parent, id}};
    while (!stack.empty()) {
        auto [into, c] = stack.back();
        stack.pop_back();
        pugi::xml_node node = into.append_child("cnode");
        node.append_attribute("id") = position[c];
        node.append_attribute("calleeId") = report.callpaths[c].region;
        const auto& children = report.callpaths[c].children;
        for (auto it = children.rbegin(); it != children.rend(); ++it)
            stack.emplace_back(node, *it);
    }
}

// machine > node (host) > location group (process) > location, grouped in the order the
// hosts and processes first appear among the locations.
void system_xml(pugi::xml_node system, const Report& report) {
    pugi::xml_node machine = system.append_child("systemtreenode");
    machine.append_attribute("Id") = 0;
    text_child(machine, "name", "machine");
    text_child(machine, "class", "machine");

    struct Group {
        int rank;
        std::string process;
        std::vector<std::size_t> locations;
    };
    struct Host {
        std::string name;
        std::vector<Group> groups;
        std::map<std::pair<int, std::string>, std::size_t> group_of;
    };
    std::vector<Host> hosts;
    std::map<std::string, std::size_t> host_of;
    for (std::size_t id = 0; id < report.locations.size(); ++id) {
        const Location& l = report.locations[id];
        auto h = host_of.try_emplace(l.host, hosts.size());
        if (h.second) hosts.push_back(Host{l.host, {}, {}});
        Host& host = hosts[h.first->second];
        auto g = host.group_of.try_emplace({l.rank, l.process}, host.groups.size());
        if (g.second) host.groups.push_back(Group{l.rank, l.process, {}});
        host.groups[g.first->second].locations.push_back(id);
    }
    int node_id = 1, group_id = 0;
    for (const Host& host : hosts) {
        pugi::xml_node node = machine.append_child("systemtreenode");
        node.append_attribute("Id") = node_id++;
        text_child(node, "name", host.name);
        text_child(node, "class", "node");
        for (const Group& g : host.groups) {
            pugi::xml_node group = node.append_child("locationgroup");
            group.append_attribute("Id") = group_id++;
            text_child(group, "name", g.process);
            text_child(group, "rank", std::to_string(g.rank));
            text_child(group, "type", "process");
            for (std::size_t id : g.locations) {
                const Location& l = report.locations[id];
                pugi::xml_node location = group.append_child("location");
                location.append_attribute("Id") = static_cast<unsigned>(id);
                text_child(location, "name", l.name);
                text_child(location, "rank", std::to_string(l.thread));
                text_child(location, "type", "thread");
            }
        }
    }

    pugi::xml_node topologies = system.append_child("topologies");
    for (const CartTopology& t : report.topologies) {
        pugi::xml_node cart = topologies.append_child("cart");
        if (!t.name.empty()) cart.append_attribute("name") = t.name.c_str();
        cart.append_attribute("ndims") = static_cast<unsigned>(t.sizes.size());
        for (std::size_t d = 0; d < t.sizes.size(); ++d) {
            pugi::xml_node dim = cart.append_child("dim");
            if (!t.dim_names.empty()) dim.append_attribute("name") = t.dim_names[d].c_str();
            dim.append_attribute("size") = t.sizes[d];
            dim.append_attribute("periodic") = t.periodic[d] ? "true" : "false";
        }
        for (std::size_t l = 0; l < t.coords.size(); ++l) {
            if (t.coords[l].empty()) continue;
            std::string text;
            for (uint32_t x : t.coords[l]) text += (text.empty() ? "" : " ") + std::to_string(x);
            pugi::xml_node coord = cart.append_child("coord");
            coord.append_attribute("locId") = static_cast<unsigned>(l);
            coord.text().set(text.c_str());
        }
    }
}

std::string anchor_xml(const Report& report, const std::vector<uint32_t>& position) {
    pugi::xml_document doc;
    pugi::xml_node declaration = doc.append_child(pugi::node_declaration);
    declaration.append_attribute("version") = "1.0";
    declaration.append_attribute("encoding") = "UTF-8";
    pugi::xml_node cube = doc.append_child("cube");
    cube.append_attribute("version") = kAnchorVersion;
    attr_child(cube, kSyntaxVersionKey, kAnchorVersion);
    attr_child(cube, kCreatorKey, kCreator);
    for (const auto& [key, value] : report.attributes)
        if (key != kSyntaxVersionKey && key != kCreatorKey) attr_child(cube, key, value);
    pugi::xml_node mirrors = cube.append_child("doc").append_child("mirrors");
    for (const std::string& mirror : report.mirrors) text_child(mirrors, "murl", mirror);

    pugi::xml_node metrics = cube.append_child("metrics");
    for (std::size_t m = 0; m < report.metrics.size(); ++m)
        if (report.metrics[m].parent == -1) metric_xml(metrics, report, static_cast<int>(m));

    pugi::xml_node program = cube.append_child("program");
    for (std::size_t r = 0; r < report.regions.size(); ++r)
        region_xml(program, report.regions[r], static_cast<int>(r));
    for (std::size_t c = 0; c < report.callpaths.size(); ++c)
        if (report.callpaths[c].parent == -1)
            cnode_xml(program, report, static_cast<int>(c), position);

    system_xml(cube.append_child("system"), report);

    CloseEmptyElements closer;
    doc.traverse(closer);
    std::ostringstream out;
    // One element per line without indentation, as cubew writes it: indenting would make
    // the anchor grow with the square of the call tree's depth.
    doc.save(out, "", pugi::format_indent, pugi::encoding_utf8);
    return out.str();
}

// CUBE's binary files carry their byte order in a marker; we always write little-endian.
template <class T> void put(std::string& out, T value) {
    static_assert(std::endian::native == std::endian::little ||
                  std::endian::native == std::endian::big);
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    if constexpr (std::endian::native == std::endian::big) std::reverse(bytes, bytes + sizeof(T));
    out.append(reinterpret_cast<const char*>(bytes), sizeof(T));
}

} // namespace

void check_writable(const Report& report, const std::string& path) {
    try {
        validate(report);
    } catch (const Invalid& e) {
        throw ReportError("cannot write " + path + ": " + e.what());
    }
}

// ---------------------------------------------------------------- stored values

// Per (metric, call path) the row holds the metric's value with everything below it (the
// Report keeps each metric's own part). A derived metric holds no rows; the stored metrics
// below it count for its parent.
StoredValues::StoredValues(const Report& report) : report_(report) {
    const std::size_t n = report.metrics.size();
    rows_.resize(n);
    below_.resize(n);
    // Children before parents: reverse of a parents-first order.
    const std::vector<int> order = forest_preorder(report.metrics, "metric");
    for (auto it = order.rbegin(); it != order.rend(); ++it) compute(*it);
}

void StoredValues::compute(int m) {
    if (!report_.metrics[m].derived_type.empty()) return;
    auto collect_below = [&](auto& self, int metric) -> void {
        for (int child : report_.metrics[metric].children) {
            if (report_.metrics[child].derived_type.empty())
                below_[m].push_back(child);
            else
                self(self, child);
        }
    };
    collect_below(collect_below, m);
    const Report::LocationWindow kept = report_.kept_locations();
    const auto nloc = static_cast<std::size_t>(kept.last - kept.first);
    std::set<int> paths;
    for (int c : report_.callpaths_with_values(m)) paths.insert(c);
    for (int child : below_[m])
        for (const auto& row : rows_[child]) paths.insert(row.first);
    for (int c : paths) {
        std::vector<double> own(nloc, 0.0);
        if (const std::vector<double>* row = report_.row(m, c)) own = *row;
        std::vector<double> stored = own;
        // + 0.0 turns a -0.0 into 0.0, as adding a child's zero would: the stored value at a
        // location is then the same whether or not a child's row holds values elsewhere
        // (where its other locations are kept by other ranks).
        for (double& v : stored) v += 0.0;
        for (int child : below_[m])
            if (auto found = rows_[child].find(c); found != rows_[child].end())
                for (std::size_t l = 0; l < nloc; ++l) stored[l] += found->second[l];
        for (std::size_t l = 0; l < nloc; ++l)
            if (own[l] >= 0.0) stored[l] = no_less_than_children(m, c, l, stored[l]);
        if (std::any_of(stored.begin(), stored.end(), [](double v) { return v != 0.0; }))
            rows_[m].emplace(c, std::move(stored));
    }
}

// Cube computes the exclusive value by subtracting each child's stored value in turn
// (cubelib's Cube::get_sev); rounding of the sums can make that a few ulps negative where
// the own part is zero. Rounding the stored value up by those ulps keeps Cube's exclusive
// value, like ours, non-negative.
double StoredValues::no_less_than_children(int m, int c, std::size_t l, double stored) const {
    for (int step = 0; step < 64; ++step) {
        double rest = stored;
        for (int child : below_[m])
            if (auto found = rows_[child].find(c); found != rows_[child].end())
                rest -= found->second[l];
        if (rest >= 0.0) break;
        stored = std::nextafter(stored, INFINITY);
    }
    return stored;
}

// ---------------------------------------------------------------- the archive

Cube4Writer::Cube4Writer(const Report& report, const std::string& path)
    : path_(path), locations_(report.locations.size()) {
    check_writable(report, path);
    // Position of each call path in Cube's depth-first enumeration of the call tree.
    const std::vector<int> preorder = forest_preorder(report.callpaths, "call path");
    position_.resize(report.callpaths.size());
    for (std::size_t i = 0; i < preorder.size(); ++i)
        position_[preorder[i]] = static_cast<uint32_t>(i);
    try {
        // cubelib's tar reader expects one more 512-byte block after a member whose size is
        // a multiple of 512 (as its own writer pads); a newline after </cube> keeps the
        // anchor off such sizes. Index (22 + 4n bytes) and data files (10 + 8n) never are.
        std::string anchor = anchor_xml(report, position_);
        if (anchor.size() % 512 == 0) anchor += '\n';
        archive_.emplace(path_);
        archive_->add("anchor.xml", anchor);
    } catch (const tar::TarError& e) {
        throw ReportError("cannot write " + path_ + ": " + e.what());
    }
}

void Cube4Writer::add_metric(int metric, const std::vector<Part>& parts) {
    if (metric <= last_metric_)
        throw std::logic_error("cube4: metric " + std::to_string(metric) + " written after " +
                               std::to_string(last_metric_));
    last_metric_ = metric;
    std::vector<int> callpaths;
    for (const Part& part : parts)
        for (const auto& row : *part.rows) callpaths.push_back(row.first);
    std::sort(callpaths.begin(), callpaths.end(),
              [&](int a, int b) { return position_.at(a) < position_.at(b); });
    callpaths.erase(std::unique(callpaths.begin(), callpaths.end()), callpaths.end());
    if (callpaths.empty()) return; // like cubew: no files for a metric without values
    std::vector<double> values(callpaths.size() * locations_, 0.0);
    for (std::size_t i = 0; i < callpaths.size(); ++i)
        for (const Part& part : parts)
            if (auto found = part.rows->find(callpaths[i]); found != part.rows->end()) {
                if (part.first < 0 || part.first + found->second.size() > locations_)
                    throw std::logic_error("cube4: metric " + std::to_string(metric) +
                                           ": a row beyond the report's locations");
                std::copy(found->second.begin(), found->second.end(),
                          values.begin() +
                              static_cast<std::ptrdiff_t>(i * locations_ + part.first));
            }

    std::string index = "CUBEX.INDEX";
    put<int32_t>(index, 1);  // byte-order marker
    put<uint16_t>(index, 0); // version
    put<uint8_t>(index, 1);  // sparse index
    put<uint32_t>(index, static_cast<uint32_t>(callpaths.size()));
    for (int c : callpaths) put<uint32_t>(index, position_.at(c));

    std::string data = "CUBEX.DATA";
    data.reserve(data.size() + values.size() * sizeof(double));
    for (double value : values) put<double>(data, value);
    try {
        archive_->add(std::to_string(metric) + ".index", index);
        archive_->add(std::to_string(metric) + ".data", data);
    } catch (const tar::TarError& e) {
        throw ReportError("cannot write " + path_ + ": " + e.what());
    }
}

void Cube4Writer::finish(const std::vector<WaitEdge>& wait_edges) {
    try {
        if (!wait_edges.empty()) archive_->add(kWaitEdgesMember, wait_edges_csv(wait_edges));
        archive_->finish();
    } catch (const tar::TarError& e) {
        throw ReportError("cannot write " + path_ + ": " + e.what());
    }
}

void write_cube4(const Report& report, const std::string& path) {
    if (!report.keeps_all_locations())
        throw std::logic_error("write_cube4: the report keeps a part of its locations only");
    Cube4Writer writer(report, path);
    const StoredValues stored(report);
    for (std::size_t m = 0; m < report.metrics.size(); ++m)
        writer.add_metric(static_cast<int>(m), {{0, &stored.rows(static_cast<int>(m))}});
    writer.finish(report.wait_edges);
}

} // namespace topolens::report
