// A .cubex file's values as cubelib computes them, decoded straight from the archive (not
// through analyzer/report/cube4_reader.cpp), so tests can hold our reader and writer to Cube's
// rules: stored values are inclusive along the metric tree (Cube::get_sev subtracts each
// child metric's value for the exclusive view) and, along the call tree, exclusive or
// inclusive as the metric's type says (ExclusiveMetric / InclusiveMetric).
#pragma once

#include <string>
#include <vector>

namespace topolens::test {

struct CubeView {
    struct Metric {
        std::string unique_name;
        std::string type; // "EXCLUSIVE", "INCLUSIVE", or a derived type
        int parent = -1;
        std::vector<int> children;
    };
    std::vector<Metric> metrics;         // document order
    std::vector<int> cnode_parent;       // cnodes in document (depth-first) order
    std::vector<std::string> cnode_path; // "main/solver/MPI_Recv": region names from the root
    std::size_t locations = 0;           // in location id order
    // stored[metric][cnode][location]: the stored value, made call-tree exclusive for an
    // INCLUSIVE metric (the value Cube shows for a collapsed metric at an expanded call
    // path); all zero for a metric without data or a derived one.
    std::vector<std::vector<std::vector<double>>> stored;
    std::vector<std::pair<std::string, std::string>> attributes;

    int metric(const std::string& unique_name) const; // -1 if absent
    // Cube's metric-exclusive value: the stored value minus each child's, in child order.
    double exclusive(int metric, int cnode, std::size_t location) const;
    // Cube's value of the metric (inclusive along the metric tree, as stored) summed over
    // the whole call tree at one location.
    double total(int metric, std::size_t location) const;
};

// Throws std::runtime_error on anything it does not understand (it knows 8-byte DOUBLE,
// FLOAT, INTEGER, UINT64 data, sparse and dense little-endian indexes, the system tree as
// cubew writes it).
CubeView read_cube_view(const std::string& path);

} // namespace topolens::test
