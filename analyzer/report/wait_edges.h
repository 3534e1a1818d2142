// Who made whom wait: each wait state's waiting and causing process (the root-cause
// analysis), summed per kind, kept in a report file as a member of its own, which Cube
// tools ignore: a CSV "kind,waiting,causing,seconds" (locations by index). This file is
// the one place that writes and reads it.
#pragma once

#include <string>
#include <vector>

namespace topolens::report {

struct WaitEdge {
    std::string kind; // "latesender", "latereceiver", "barrier", "n2n", "12n", "n21"
    int waiting = 0;  // location index
    int causing = 0;  // location index
    double seconds = 0.0;
    bool operator==(const WaitEdge&) const = default;
};

inline constexpr const char* kWaitEdgesMember = "topolens-wait-edges.csv";

std::string wait_edges_csv(const std::vector<WaitEdge>& edges);
// Throws std::runtime_error naming the line and what is wrong; `locations`: the report's
// number of locations (every index must be below it).
std::vector<WaitEdge> parse_wait_edges_csv(const std::string& text, std::size_t locations);

} // namespace topolens::report
