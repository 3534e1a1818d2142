// Writes a report kept in parts by ranks as one CUBE4 file (see gathered_report.h).
#include "analyzer/engine/gathered_report.h"

#include "analyzer/report/cube4.h"

#include <algorithm>
#include <map>
#include <optional>

namespace topolens::analysis {
namespace {

using Window = report::Report::LocationWindow;

// Every rank's kept locations, by rank; an error unless they follow each other from the
// first location to the last.
std::vector<Window> windows_of_ranks(const report::Report& kept, trace::Exchange& exchange,
                                     std::optional<std::string>& error) {
    trace::Bytes mine;
    trace::ByteWriter(mine).put(kept.kept_locations());
    std::vector<Window> windows;
    for (const trace::Bytes& theirs : exchange.all_gather(std::move(mine)))
        windows.push_back(trace::ByteReader(theirs, "kept locations").get<Window>());
    int next = 0;
    for (const Window& w : windows) {
        if (w.first != next) break;
        next = w.last;
    }
    if (next != static_cast<int>(kept.locations.size()))
        error = "the ranks' reports do not keep every location once, in rank order";
    return windows;
}

} // namespace

void write_cube4_gathered(const report::Report& kept, trace::Exchange& exchange,
                          const std::string& path) {
    const bool writes = exchange.rank() == 0;
    std::optional<std::string> error;
    const std::vector<Window> windows = windows_of_ranks(kept, exchange, error);
    if (error) error = "cannot write " + path + ": " + *error;
    std::optional<report::StoredValues> stored;
    std::optional<report::Cube4Writer> writer;
    if (!error) try {
            report::check_writable(kept, path);
            stored.emplace(kept);
            if (writes) writer.emplace(kept, path);
        } catch (const std::exception& e) {
            error = e.what();
        }
    if (const auto first = exchange.first_error(error)) throw report::ReportError(*first);

    for (int m = 0; m < static_cast<int>(kept.metrics.size()); ++m) {
        std::vector<trace::Bytes> out(exchange.size());
        if (!writes) {
            trace::ByteWriter to(out[0]);
            for (const auto& [callpath, row] : stored->rows(m)) {
                to.put(callpath);
                to.put_all(row);
            }
        }
        std::vector<trace::Bytes> in = exchange.all_to_all(std::move(out));
        if (!writes) continue;
        // Every rank's rows of the metric (rank 0's are here already).
        std::vector<std::map<int, std::vector<double>>> theirs(in.size());
        for (std::size_t r = 1; r < in.size(); ++r) {
            trace::ByteReader from(in[r], "stored values");
            while (!from.done()) {
                const auto callpath = from.get<int>();
                std::vector<double> row = from.get_all<double>();
                if (row.size() != static_cast<std::size_t>(windows[r].last - windows[r].first) ||
                    callpath < 0 || static_cast<std::size_t>(callpath) >= kept.callpaths.size())
                    throw std::logic_error("rank " + std::to_string(r) +
                                           " sent a row that is not of its locations");
                theirs[r].emplace(callpath, std::move(row));
            }
            trace::Bytes().swap(in[r]);
        }
        std::vector<report::Cube4Writer::Part> parts;
        for (std::size_t r = 0; r < windows.size(); ++r)
            parts.push_back({windows[r].first, r == 0 ? &stored->rows(m) : &theirs[r]});
        // After a failure rank 0 stays in the exchanges, so that no rank waits for it.
        if (!error) try {
                writer->add_metric(m, parts);
            } catch (const std::exception& e) {
                error = e.what();
            }
    }
    if (writes && !error) try {
            writer->finish(kept.wait_edges);
        } catch (const std::exception& e) {
            error = e.what();
        }
    if (const auto first = exchange.first_error(error)) throw report::ReportError(*first);
}

} // namespace topolens::analysis
