#include "cube_view.h"

#include "analyzer/report/tar.h"

#include <pugixml.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>

namespace topolens::test {
namespace {

template <class T> T little_endian(const std::string& bytes, std::size_t at) {
    if (at + sizeof(T) > bytes.size()) throw std::runtime_error("cube view: file too short");
    T value;
    std::memcpy(&value, bytes.data() + at, sizeof(T)); // the tests run on little-endian hosts
    return value;
}

double decode(const std::string& dtype, const std::string& bytes, std::size_t at) {
    if (dtype == "DOUBLE" || dtype == "FLOAT") return little_endian<double>(bytes, at);
    if (dtype == "INTEGER" || dtype == "INT64") return little_endian<int64_t>(bytes, at);
    if (dtype == "UINT64") return static_cast<double>(little_endian<uint64_t>(bytes, at));
    throw std::runtime_error("cube view: dtype " + dtype + " not known");
}

} // namespace

int CubeView::metric(const std::string& unique_name) const {
    for (std::size_t m = 0; m < metrics.size(); ++m)
        if (metrics[m].unique_name == unique_name) return static_cast<int>(m);
    return -1;
}

double CubeView::exclusive(int m, int cnode, std::size_t location) const {
    double value = stored[m][cnode][location];
    for (int child : metrics[m].children) value -= stored[child][cnode][location];
    return value;
}

double CubeView::total(int m, std::size_t location) const {
    double sum = 0.0;
    for (const auto& row : stored[m]) sum += row[location];
    return sum;
}

CubeView read_cube_view(const std::string& path) {
    tar::Reader archive(path);
    const tar::Entry* anchor = archive.find("anchor.xml");
    if (!anchor) throw std::runtime_error("cube view: no anchor.xml in " + path);
    const std::string xml = archive.read(*anchor);
    pugi::xml_document doc;
    if (!doc.load_buffer(xml.data(), xml.size()))
        throw std::runtime_error("cube view: bad anchor.xml");
    const pugi::xml_node cube = doc.child("cube");

    CubeView view;
    for (pugi::xml_node a : cube.children("attr"))
        view.attributes.emplace_back(a.attribute("key").value(), a.attribute("value").value());

    std::vector<std::string> ids, dtypes;
    std::function<void(pugi::xml_node, int)> metrics = [&](pugi::xml_node node, int parent) {
        for (pugi::xml_node m : node.children("metric")) {
            const int index = static_cast<int>(view.metrics.size());
            CubeView::Metric metric;
            metric.unique_name = m.child_value("uniq_name");
            metric.type = m.attribute("type").value();
            metric.parent = parent;
            view.metrics.push_back(metric);
            if (parent >= 0) view.metrics[parent].children.push_back(index);
            ids.push_back(m.attribute("id").value());
            dtypes.push_back(m.child_value("dtype"));
            metrics(m, index);
        }
    };
    metrics(cube.child("metrics"), -1);

    // Cnodes in document order, which is Cube's depth-first enumeration (EXCLUSIVE rows).
    std::vector<std::vector<int>> children;
    std::vector<int> roots;
    std::map<std::string, std::string> region_names;
    for (pugi::xml_node region : cube.child("program").children("region"))
        region_names[region.attribute("id").value()] = region.child_value("name");
    std::function<void(pugi::xml_node, int)> cnodes = [&](pugi::xml_node node, int parent) {
        for (pugi::xml_node c : node.children("cnode")) {
            const int index = static_cast<int>(view.cnode_parent.size());
            view.cnode_parent.push_back(parent);
            const std::string name = region_names.at(c.attribute("calleeId").value());
            view.cnode_path.push_back(parent >= 0 ? view.cnode_path[parent] + "/" + name : name);
            children.emplace_back();
            (parent >= 0 ? children[parent] : roots).push_back(index);
            cnodes(c, index);
        }
    };
    cnodes(cube.child("program"), -1);
    const std::size_t ncnodes = view.cnode_parent.size();
    // INCLUSIVE rows: per root, the root, then each node's list of children, node by node in
    // depth-first order (cubelib's WideSearchEnumerator).
    std::vector<int> wide;
    std::function<void(int)> lists = [&](int c) {
        for (int child : children[c]) wide.push_back(child);
        for (int child : children[c]) lists(child);
    };
    for (int root : roots) {
        wide.push_back(root);
        lists(root);
    }

    view.locations = 0;
    for (pugi::xpath_node location : cube.child("system").select_nodes(".//location"))
        (void)location, ++view.locations;

    view.stored.assign(view.metrics.size(), std::vector<std::vector<double>>(
                                                ncnodes, std::vector<double>(view.locations, 0.0)));
    for (std::size_t m = 0; m < view.metrics.size(); ++m) {
        const tar::Entry* index_entry = archive.find(ids[m] + ".index");
        const tar::Entry* data_entry = archive.find(ids[m] + ".data");
        if (!index_entry || !data_entry) continue;
        const std::string index = archive.read(*index_entry);
        const std::string data = archive.read(*data_entry);
        if (index.compare(0, 11, "CUBEX.INDEX") != 0 || data.compare(0, 10, "CUBEX.DATA") != 0)
            throw std::runtime_error("cube view: metric " + ids[m] + ": bad headers");
        if (little_endian<uint32_t>(index, 11) != 1)
            throw std::runtime_error("cube view: big-endian index");
        std::vector<uint32_t> positions;
        if (index[17] == 3) {
            for (std::size_t c = 0; c < ncnodes; ++c) positions.push_back(static_cast<uint32_t>(c));
        } else {
            const uint32_t count = little_endian<uint32_t>(index, 18);
            for (uint32_t i = 0; i < count; ++i)
                positions.push_back(little_endian<uint32_t>(index, 22 + 4 * std::size_t{i}));
        }
        const bool inclusive = view.metrics[m].type == "INCLUSIVE";
        const std::size_t width = dtypes[m] == "DOUBLE" || dtypes[m] == "FLOAT" ||
                                          dtypes[m] == "INTEGER" || dtypes[m] == "INT64" ||
                                          dtypes[m] == "UINT64"
                                      ? 8
                                      : 0;
        if (data.size() != 10 + positions.size() * view.locations * width)
            throw std::runtime_error("cube view: metric " + ids[m] + ": data size");
        auto& rows = view.stored[m];
        std::size_t at = 10;
        for (uint32_t p : positions) {
            const int c = inclusive ? wide.at(p) : static_cast<int>(p);
            for (std::size_t l = 0; l < view.locations; ++l, at += width)
                rows[c][l] = decode(dtypes[m], data, at);
        }
        if (inclusive) { // exclusive along the call tree: minus the children's inclusive
            std::vector<std::vector<double>> own = rows;
            for (std::size_t c = 0; c < ncnodes; ++c)
                if (view.cnode_parent[c] >= 0)
                    for (std::size_t l = 0; l < view.locations; ++l)
                        own[view.cnode_parent[c]][l] -= rows[c][l];
            rows = std::move(own);
        }
    }
    return view;
}

} // namespace topolens::test
