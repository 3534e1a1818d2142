// Traces of runs that died before MPI_Finalize: `cut.txt` beside the anchor (written by
// topolens-complete, measure/TRACE_FORMAT.md) says how each rank ended; the reader then
// reads each rank's events up to where they stop.
#pragma once

#include "trace/model.h"

#include <string>
#include <string_view>

namespace topolens::trace {

inline constexpr const char* kCutMarkerName = "cut.txt";
// How describe_cut begins.
inline constexpr std::string_view kCutShortLead = "the run was cut short: ";

// The ranks of the cut-short run whose anchor is `anchor`; empty when there is no marker.
// Throws TraceError naming the line of a damaged marker.
std::vector<CutRank> read_cut_marker(const std::string& anchor);

// One sentence for people: which rank died of what and when, where every rank's events
// stop (seconds from the trace's first event). Empty for a complete run.
std::string describe_cut(const Trace& trace);

} // namespace topolens::trace
