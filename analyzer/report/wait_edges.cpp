#include "analyzer/report/wait_edges.h"

#include "analyzer/report/json.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace topolens::report {

namespace {

constexpr const char* kHeader = "kind,waiting,causing,seconds";

std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    std::string field;
    std::istringstream in(line);
    while (std::getline(in, field, ',')) out.push_back(field);
    if (!line.empty() && line.back() == ',') out.emplace_back();
    return out;
}

int location_field(const std::string& text, std::size_t locations, const std::string& where) {
    int value = -1;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < 0 ||
        static_cast<std::size_t>(value) >= locations)
        throw std::runtime_error(where + ": '" + text + "' is not a location of the report (0 to " +
                                 std::to_string(locations) + " - 1)");
    return value;
}

} // namespace

std::string wait_edges_csv(const std::vector<WaitEdge>& edges) {
    std::string out = std::string(kHeader) + "\n";
    for (const WaitEdge& e : edges)
        out += e.kind + "," + std::to_string(e.waiting) + "," + std::to_string(e.causing) + "," +
               json::shortest_number(e.seconds) + "\n";
    return out;
}

std::vector<WaitEdge> parse_wait_edges_csv(const std::string& text, std::size_t locations) {
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || line != kHeader)
        throw std::runtime_error(std::string(kWaitEdgesMember) + ": the first line is not '" +
                                 kHeader + "'");
    std::vector<WaitEdge> edges;
    for (int number = 2; std::getline(in, line); ++number) {
        if (line.empty()) continue;
        const std::string where = std::string(kWaitEdgesMember) + " line " + std::to_string(number);
        const std::vector<std::string> f = fields(line);
        if (f.size() != 4)
            throw std::runtime_error(where + ": " + std::to_string(f.size()) +
                                     " fields, not 4 (kind,waiting,causing,seconds)");
        WaitEdge e;
        e.kind = f[0];
        if (e.kind.empty()) throw std::runtime_error(where + ": no kind");
        e.waiting = location_field(f[1], locations, where);
        e.causing = location_field(f[2], locations, where);
        try {
            std::size_t used = 0;
            e.seconds = std::stod(f[3], &used);
            if (used != f[3].size() || !std::isfinite(e.seconds) || e.seconds < 0) throw 0;
        } catch (...) {
            throw std::runtime_error(where + ": '" + f[3] + "' is not a time in seconds");
        }
        edges.push_back(std::move(e));
    }
    return edges;
}

} // namespace topolens::report
