#include "trace/cut.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace topolens::trace {

namespace {

uint64_t number(const std::string& text, const std::string& where) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        throw TraceError(where + ": '" + text + "' is not a number");
    try {
        return std::stoull(text);
    } catch (const std::exception&) {
        throw TraceError(where + ": '" + text + "' is out of range");
    }
}

std::string seconds(Time t, Time origin) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f s", t > origin ? double(t - origin) * 1e-9 : 0.0);
    return text;
}

std::string ranks_text(const std::vector<uint32_t>& ranks) {
    std::string text = ranks.size() == 1 ? "rank " : "ranks ";
    for (size_t i = 0; i < ranks.size(); ++i) text += (i ? "," : "") + std::to_string(ranks[i]);
    return text;
}

// Causes the launcher inflicts on the others once one process died: not the culprit.
bool launcher_cause(const CutRank& r) {
    return r.cause == "signal SIGTERM" || r.cause == "signal SIGINT" || !r.died_at;
}

} // namespace

std::vector<CutRank> read_cut_marker(const std::string& anchor) {
    const std::filesystem::path file = std::filesystem::path(anchor).parent_path() / kCutMarkerName;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) return {};
    std::ifstream in(file);
    if (!in) throw TraceError(file.string() + ": cannot read");
    std::vector<CutRank> ranks;
    std::string line;
    for (int number_of_line = 1; std::getline(in, line); ++number_of_line) {
        if (line.empty() || line[0] == '#') continue;
        const std::string where = file.string() + ":" + std::to_string(number_of_line);
        std::vector<std::string> fields;
        std::istringstream split(line);
        for (std::string field; fields.size() < 3 && std::getline(split, field, '\t');)
            fields.push_back(field);
        std::string cause;
        std::getline(split, cause);
        if (fields.size() < 3 || cause.empty())
            throw TraceError(where + ": expected rank, events, time of death and cause");
        CutRank r;
        r.rank = static_cast<uint32_t>(number(fields[0], where));
        r.events_written = number(fields[1], where);
        if (fields[2] != "-") r.died_at = number(fields[2], where);
        r.cause = cause;
        ranks.push_back(std::move(r));
    }
    if (ranks.empty()) throw TraceError(file.string() + ": names no rank");
    return ranks;
}

std::string describe_cut(const Trace& trace) {
    if (trace.cut.empty()) return {};
    // Where each rank's events end, and the trace's first event as the origin.
    std::map<uint32_t, Time> last;
    Time origin = std::numeric_limits<Time>::max();
    for (size_t l = 0; l < trace.locations.size() && l < trace.defs.locations.size(); ++l) {
        const std::vector<Event>& events = trace.locations[l].events;
        if (events.empty()) continue;
        origin = std::min(origin, events.front().time);
        Time& end = last[trace.defs.locations[l].rank];
        end = std::max(end, events.back().time);
    }
    for (const CutRank& r : trace.cut)
        if (r.died_at) origin = std::min(origin, *r.died_at);
    if (origin == std::numeric_limits<Time>::max()) origin = 0;
    auto events_end = [&](uint32_t rank) {
        auto found = last.find(rank);
        return found == last.end() ? std::string("no events")
                                   : "events up to " + seconds(found->second, origin);
    };

    std::vector<const CutRank*> culprits;
    for (const CutRank& r : trace.cut)
        if (!launcher_cause(r)) culprits.push_back(&r);
    if (culprits.empty())
        for (const CutRank& r : trace.cut)
            if (!r.died_at) culprits.push_back(&r);
    if (culprits.empty()) {
        const CutRank* first = &trace.cut.front();
        for (const CutRank& r : trace.cut)
            if (*r.died_at < *first->died_at) first = &r;
        culprits.push_back(first);
    }

    std::string text(kCutShortLead);
    for (size_t i = 0; i < culprits.size(); ++i) {
        const CutRank& r = *culprits[i];
        text += (i ? "; " : "") + std::string("rank ") + std::to_string(r.rank);
        if (r.died_at)
            text += " died (" + r.cause + ") at " + seconds(*r.died_at, origin) + ", " +
                    events_end(r.rank);
        else
            text += " was " + r.cause + " (" + events_end(r.rank) + ")";
    }
    // The others, by cause, with the range of times their events stop at.
    // In the order of their first rank.
    std::vector<std::pair<std::string, std::vector<const CutRank*>>> others;
    for (const CutRank& r : trace.cut) {
        if (std::find(culprits.begin(), culprits.end(), &r) != culprits.end()) continue;
        auto group = std::find_if(others.begin(), others.end(),
                                  [&](const auto& g) { return g.first == r.cause; });
        if (group == others.end()) group = others.insert(others.end(), {r.cause, {}});
        group->second.push_back(&r);
    }
    for (const auto& [cause, ranks] : others) {
        std::vector<uint32_t> numbers;
        Time low = std::numeric_limits<Time>::max(), high = 0;
        bool none = false;
        for (const CutRank* r : ranks) {
            numbers.push_back(r->rank);
            auto found = last.find(r->rank);
            if (found == last.end()) {
                none = true;
                continue;
            }
            low = std::min(low, found->second);
            high = std::max(high, found->second);
        }
        const bool one = numbers.size() == 1;
        text += "; " + ranks_text(numbers) + " (" + cause + ") ";
        if (high == 0)
            text += one ? "has no events" : "have no events";
        else
            text += (one ? "stops at " : "stop at ") + seconds(low, origin) +
                    (seconds(high, origin) != seconds(low, origin) ? " to " + seconds(high, origin)
                                                                   : std::string()) +
                    (none ? " (some without events)" : "");
    }
    for (const CutRank& r : trace.cut)
        if (!r.read_note.empty()) text += "; rank " + std::to_string(r.rank) + ": " + r.read_note;
    return text;
}

} // namespace topolens::trace
