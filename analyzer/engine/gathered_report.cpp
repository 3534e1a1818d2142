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

    const std::size_t nloc = kept.locations.size();
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
        auto rows_of = [&](std::size_t r) -> const std::map<int, std::vector<double>>& {
            return r == 0 ? stored->rows(m) : theirs[r];
        };
        // A row is written when it holds a value at any location: on any rank.
        std::vector<int> callpaths;
        for (std::size_t r = 0; r < windows.size(); ++r)
            for (const auto& row : rows_of(r)) callpaths.push_back(row.first);
        const std::vector<uint32_t>& position = writer->positions();
        std::sort(callpaths.begin(), callpaths.end(),
                  [&](int a, int b) { return position[a] < position[b]; });
        callpaths.erase(std::unique(callpaths.begin(), callpaths.end()), callpaths.end());
        std::vector<double> values(callpaths.size() * nloc, 0.0);
        for (std::size_t i = 0; i < callpaths.size(); ++i)
            for (std::size_t r = 0; r < windows.size(); ++r)
                if (auto found = rows_of(r).find(callpaths[i]); found != rows_of(r).end())
                    std::copy(found->second.begin(), found->second.end(),
                              values.begin() +
                                  static_cast<std::ptrdiff_t>(i * nloc + windows[r].first));
        theirs.clear();
        // After a failure rank 0 stays in the exchanges, so that no rank waits for it.
        if (!error) try {
                writer->add_metric(m, callpaths, values);
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
