// The report of an analysis shared out to ranks, written as one CUBE4 file without any rank
// holding all of it: each rank's report keeps the values of its own locations
// (report::Report::keep_locations), the ranks' locations following each other in rank order.
//
// Every rank computes Cube's stored values of its locations (report::StoredValues: a
// location's depend on its own values only); then, metric by metric in id order, the ranks
// send their rows to rank 0, which writes that metric's members and lets them go. Rank 0
// holds one metric's rows over all locations at a time. The definitions and the wait edges
// are rank 0's report's. The file is byte for byte what report::write_cube4 writes of the
// whole report.
#pragma once

#include "analyzer/report/report.h"
#include "trace/exchange.h"

#include <string>

namespace topolens::analysis {

// Collective. Every rank throws the same report::ReportError when one of them cannot go on
// (the report cannot be written, the file cannot be created), none waits for another.
void write_cube4_gathered(const report::Report& kept, trace::Exchange& exchange,
                          const std::string& path);

} // namespace topolens::analysis
