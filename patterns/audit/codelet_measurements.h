// The codelet audit's input: every search-phase execution of every codelet on every
// location, production totals and the tuner's decisions, as gathered from a trace by the
// codelet patterns. Kept in the report as the text attribute "topolens.codelet_measurements"
// (format: patterns/audit/AUDIT_FORMAT.md) so `topolens audit REPORT` can redo the audit with
// other parameters without the trace.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace topolens::patterns {

inline constexpr const char* kMeasurementsAttribute = "topolens.codelet_measurements";
inline constexpr const char* kAuditAttribute = "topolens.audit";

// One search-phase execution t(c, p, m).
struct SearchMeasurement {
    uint32_t location = 0;
    int64_t codelet = -1;
    uint32_t number = 0; // m: 0-based per location and codelet, in time order
    double start = 0;    // seconds since the trace's first event
    double duration = 0; // seconds
    double wait = 0;     // seconds of it spent in wait states (waiting for others)
};

// All production-phase executions of one codelet on one location.
struct ProductionTotal {
    uint32_t location = 0;
    int64_t codelet = -1;
    uint64_t executions = 0;
    double duration = 0; // summed, seconds
    double wait = 0;     // summed, seconds
};

// How the tuner timed its search-phase measurements (Benkert 2011, section 6.3.2): behind a
// barrier (each execution begins with, or right follows, an MPI_Barrier: the processes start
// together and one process's delay does not leak into its neighbours' next measurement),
// without one, or by a timer object that spans several operations (ADCL's timer objects).
enum class TimingTechnique { Unknown, BarrierBefore, NoBarrier, TimerObject };
const char* timing_technique_key(TimingTechnique t);   // "barrier", "no-barrier", "timer-object",
                                                       // "unknown"
const char* timing_technique_words(TimingTechnique t); // "a barrier before each measurement", ...
std::optional<TimingTechnique> parse_timing_technique(const std::string& key);

struct OperationMeasurements {
    std::string name;
    TimingTechnique technique = TimingTechnique::Unknown;
    std::map<int64_t, std::string> codelets; // index -> name
    std::map<uint32_t, int64_t> decisions;   // location -> decided codelet index
    std::vector<SearchMeasurement> search;   // by location, codelet, number
    std::vector<ProductionTotal> production; // by location, codelet
    uint64_t unfinished = 0;                 // executions entered but never left
};

struct CodeletMeasurements {
    double run_seconds = 0; // max over locations of last - first event
    std::vector<OperationMeasurements> operations;
};

class MeasurementsFormatError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

std::string to_text(const CodeletMeasurements& m);

// The measurements of a whole run from its parts, each over some of its locations (the ranks
// of an analysis shared out to ranks), given in location order: the same operations in
// each part; a timing technique holds where every part's with search executions agrees.
CodeletMeasurements merge_measurement_parts(const std::vector<CodeletMeasurements>& parts);
// Throws MeasurementsFormatError naming the line and what is wrong with it.
CodeletMeasurements parse_codelet_measurements(const std::string& text);

} // namespace topolens::patterns
