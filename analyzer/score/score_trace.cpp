// score_trace: every event's record, attributed to the region it belongs to.
#include "analyzer/score/score.h"
#include "analyzer/score/score_regions.h"

#include "trace/record_size.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace topolens::score {

namespace otf2 = trace::otf2_size;

Score score_trace(const trace::Trace& trace) {
    const trace::Definitions& defs = trace.defs;
    uint32_t processes = 0;
    for (const trace::Location& l : defs.locations) processes = std::max(processes, l.rank + 1);

    std::vector<RegionScore> regions(defs.regions.size());
    std::vector<bool> on_path_to_mpi(defs.regions.size());
    for (RegionScore& r : regions) {
        r.visits.assign(processes, 0);
        r.bytes.assign(processes, 0);
        r.enter_leave.assign(processes, 0);
    }
    Score score;
    score.process_bytes.assign(processes, 0);
    const double ticks = static_cast<double>(std::max<uint64_t>(defs.timer_resolution, 1));

    struct Open {
        trace::Ref region;
        trace::Time enter;
        trace::Time nested = 0; // time in the visits it called
    };
    std::vector<Open> stack;
    for (std::size_t loc = 0; loc < trace.locations.size(); ++loc) {
        const trace::LocationEvents& events = trace.locations[loc];
        const uint32_t p = defs.locations[loc].rank;
        std::size_t next_request = 0;
        uint64_t records = 0;
        stack.clear();
        for (std::size_t i = 0; i < events.events.size(); ++i) {
            const trace::Event& e = events.events[i];
            uint64_t request = 0;
            while (next_request < events.requests.size() && events.requests[next_request].event < i)
                ++next_request;
            if (next_request < events.requests.size() && events.requests[next_request].event == i)
                request = events.requests[next_request].request;
            // OTF2 writes a timestamp only when the time changes.
            const bool new_time = i == 0 || e.time != events.events[i - 1].time;
            const uint64_t size =
                otf2::event_record(e, request, defs.program) + (new_time ? otf2::kTimestamp : 0);
            records += size;
            const bool region_event =
                (e.kind == trace::EventKind::Enter || e.kind == trace::EventKind::Leave) &&
                e.region() < regions.size();
            if (region_event) {
                RegionScore& r = regions[e.region()];
                r.bytes[p] += size;
                r.enter_leave[p] += size;
                if (e.kind == trace::EventKind::Enter) {
                    ++r.visits[p];
                    if (defs.regions[e.region()].is_mpi())
                        for (const Open& o : stack) on_path_to_mpi[o.region] = true;
                    stack.push_back({e.region(), e.time});
                } else if (!stack.empty() && stack.back().region == e.region()) {
                    // Exclusive time, as scorep-score counts it: the visit less its callees,
                    // so the regions' times add up to the run's (recursion counts once).
                    const trace::Time duration = e.time - stack.back().enter;
                    r.time +=
                        static_cast<double>(duration - std::min(duration, stack.back().nested)) /
                        ticks;
                    stack.pop_back();
                    if (!stack.empty()) stack.back().nested += duration;
                }
            } else if (!stack.empty()) {
                // Message, collective and parameter records belong to the call they are in.
                regions[stack.back().region].bytes[p] += size;
            }
        }
        score.process_bytes[p] += otf2::event_file(records);
    }
    for (std::size_t r = 0; r < regions.size(); ++r) {
        const trace::Region& def = defs.regions[r];
        RegionScore& s = regions[r];
        s.name = def.name;
        if (def.canonical_name != def.name) s.mangled_name = def.canonical_name;
        s.source_file = def.source_file;
        s.type = def.is_mpi()        ? RegionType::Mpi
                 : on_path_to_mpi[r] ? RegionType::Com
                                     : RegionType::Usr;
        s.unfilterable = def.is_mpi() || def.role == trace::RegionRole::Artificial ||
                         def.paradigm == trace::Paradigm::Measurement;
    }
    score.regions = visited_by_bytes(std::move(regions));
    return score;
}

uint64_t event_file_bytes(const trace::Trace& trace) {
    // The event files lie in the directory named after the anchor file, one per location.
    std::filesystem::path dir(trace.path);
    dir.replace_extension();
    uint64_t total = 0;
    for (const trace::Location& l : trace.defs.locations) {
        std::error_code error;
        const uint64_t size =
            std::filesystem::file_size(dir / (std::to_string(l.otf2_id) + ".evt"), error);
        if (!error) total += size;
    }
    return total;
}

} // namespace topolens::score
