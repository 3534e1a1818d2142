#include "write_outcome.h"

#include <otf2/OTF2_ErrorCodes.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

namespace topolens::measure {

namespace {

std::string seconds_text(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", seconds);
    return text;
}

// "rank 3" or "ranks 0,1,5"
std::string ranks_text(const std::vector<int>& ranks) {
    std::string text = ranks.size() == 1 ? "rank " : "ranks ";
    for (size_t i = 0; i < ranks.size(); ++i) text += (i ? "," : "") + std::to_string(ranks[i]);
    return text;
}

} // namespace

std::string write_error_text(int32_t error) {
    const char* text = OTF2_Error_GetDescription(static_cast<OTF2_ErrorCode>(error));
    return text && *text ? text : "OTF2 error " + std::to_string(error);
}

std::string write_failure_line(int rank, const RankOutcome& outcome) {
    const std::string head = "rank " + std::to_string(rank) + ": writing the trace failed (" +
                             write_error_text(outcome.error) + ") ";
    if (outcome.stage != static_cast<int32_t>(WriteStage::Run))
        return head + "in MPI_Finalize, " + seconds_text(outcome.seconds) +
               " after MPI_Init; the trace of this rank is incomplete";
    return head + seconds_text(outcome.seconds) + " after MPI_Init, after " +
           std::to_string(outcome.events) +
           " events; tracing stops on this rank, the program runs on";
}

TraceStatus trace_status(const std::vector<RankOutcome>& ranks, bool definitions_written,
                         int32_t definitions_error) {
    TraceStatus status;
    // Ranks grouped by stage and error, so that 64 ranks failing alike make one item; the
    // items by stage, then in the order of their first rank.
    std::map<std::pair<int32_t, int32_t>, std::vector<int>> groups;
    std::vector<std::pair<int32_t, int32_t>> order;
    std::map<std::pair<int32_t, int32_t>, std::pair<double, double>> times;
    for (size_t r = 0; r < ranks.size(); ++r) {
        if (ranks[r].error == 0) continue;
        const auto key = std::make_pair(ranks[r].stage, ranks[r].error);
        auto [it, fresh] = times.try_emplace(key, ranks[r].seconds, ranks[r].seconds);
        if (!fresh) {
            it->second.first = std::min(it->second.first, ranks[r].seconds);
            it->second.second = std::max(it->second.second, ranks[r].seconds);
        }
        if (fresh) order.push_back(key);
        groups[key].push_back(static_cast<int>(r));
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& key : order) {
        const std::vector<int>& members = groups[key];
        const auto [first, last] = times[key];
        std::string when = seconds_text(first);
        if (seconds_text(last) != when) when += " to " + seconds_text(last);
        const std::string why = " (" + write_error_text(key.second) + ")";
        if (key.first == static_cast<int32_t>(WriteStage::Run))
            status.missing.push_back(ranks_text(members) + " stopped early, " + when +
                                     " after MPI_Init" + why);
        else if (key.first == static_cast<int32_t>(WriteStage::Finalize))
            status.missing.push_back("events of " + ranks_text(members) +
                                     " not completely written at MPI_Finalize" + why);
        else
            status.missing.push_back("local definitions of " + ranks_text(members) +
                                     " not written" + why);
    }
    if (!definitions_written)
        status.missing.push_back("definitions/anchor not written (rank 0 could not write)");
    else if (definitions_error != 0)
        status.missing.push_back("definitions/anchor not written (" +
                                 write_error_text(definitions_error) + ")");
    status.complete = status.missing.empty();
    return status;
}

std::string trace_summary_line(const std::string& directory, const TraceStatus& status) {
    if (status.complete) return "trace written to " + directory;
    std::string line = "trace in " + directory + " is incomplete: ";
    for (size_t i = 0; i < status.missing.size(); ++i) line += (i ? "; " : "") + status.missing[i];
    return line;
}

std::string report_path_text(const std::string& directory, const TraceStatus& status) {
    std::string text = directory + "\n" + (status.complete ? "complete" : "incomplete") + "\n";
    for (const std::string& item : status.missing) text += item + "\n";
    return text;
}

} // namespace topolens::measure
