// Codelet time and Codelet outlier time: the time each process spent executing the codelets
// of tuned operations (measure/TRACE_FORMAT.md, "Tuned operations and codelets"), and the
// part of it spent in search-phase executions that ADCL's heuristic flags as outliers
// (t > 3 * the fastest execution of that codelet on that process). Both are kept at the
// codelet's call path (operation/codelet), so outliers can be seen per process on the grid.
//
// At the end of the replay the same pattern gathers the codelet audit's input — every
// search-phase measurement with the time it spent in wait states — and stores it and the
// audit with default parameters in the report (patterns/audit/AUDIT_FORMAT.md).
#include "patterns/audit/codelet_audit.h"
#include "patterns/audit/codelet_audit_json.h"
#include "patterns/audit/codelet_estimators.h"
#include "patterns/audit/codelet_measurements.h"
#include "patterns/metric_catalogue.h"
#include "patterns/metric_names.h"
#include "patterns/registry.h"
#include "patterns/wait_state.h"
#include "trace/tuned.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <string_view>
#include <utility>

namespace topolens::patterns {

namespace {

using analysis::CallInfo;
using analysis::Context;
using trace::TuningPhase;

using trace::kCodeletPrefix; // the encoding: trace/tuned_encoding.h
using trace::kTunedPrefix;

class CodeletPatterns : public CataloguedPattern {
  public:
    CodeletPatterns() : CataloguedPattern(PatternKind::Codelets) {}
    std::unique_ptr<analysis::Pattern> clone() const override {
        auto copy = std::make_unique<CodeletPatterns>(*this);
        copy->tuned_.reset(); // found again from the trace the copy replays
        return copy;
    }
    // The waits per execution and the run's extent are what the audit needs of every
    // location.
    void merge(analysis::Pattern& worker) override {
        auto& other = dynamic_cast<CodeletPatterns&>(worker);
        execution_wait_.merge(other.execution_wait_);
        first_event_ = std::min(first_event_, other.first_event_);
        run_ = std::max(run_, other.run_);
    }

    // Without codelets (no autotuner in this run) the report has neither metric.
    void define_metrics(report::Report& r) override {
        codelet_time_ = outlier_time_ = -1;
        if (!r.find_metric(metric::kCodeletTime)) return;
        codelet_time_ = metric_id(r, metric::kCodeletTime);
        outlier_time_ = metric_id(r, metric::kCodeletOutlierTime);
    }

    void subscribe(analysis::Dispatcher& d) override {
        if (codelet_time_ < 0) return;
        d.on_location_begin([this](Context& c, uint32_t loc) { begin(c, loc); });
        d.on_region([this](Context& c, const CallInfo& call) { region(c, call); });
        d.on_location_done(
            [this](Context& c, uint32_t loc, analysis::Time first, analysis::Time last) {
                done(c, loc);
                if (!c.trace().locations[loc].events.empty()) {
                    first_event_ = std::min(first_event_, first);
                    run_ = std::max(run_, last - first);
                }
            });
        d.subscribe<WaitStateInstance>([this](Context&, const WaitStateInstance& w) {
            // Kept sorted by enter time (they nearly always arrive in that order).
            auto at = waits_.end();
            while (at != waits_.begin() && std::prev(at)->first > w.call.enter) --at;
            waits_.insert(at, {w.call.enter, w.wait});
        });
        d.on_finish([this](Context& c) { store_audit(c); });
    }

  private:
    struct Execution {
        uint32_t callpath;
        analysis::Time duration;
        bool search;
    };

    // This location's executions of tuned operations, as the audit and `topolens info` see
    // them (trace/tuned.h): the phase of each execution's codelet instance.
    void begin(Context& c, uint32_t loc) {
        const trace::Trace& t = c.trace();
        executions_.clear();
        phase_of_codelet_.clear();
        measured_start_.clear();
        waits_.clear();
        if (!tuned_) tuned_ = std::make_shared<const trace::TunedReconstruction>(t.defs);
        for (const trace::CodeletExecution& x : tuned_->executions(t, loc)) {
            if (x.codelet >= 0)
                phase_of_codelet_.emplace(std::pair(x.codelet_region, x.codelet_start), x.phase);
            if (x.measured_start != x.start) measured_start_[x.start] = x.measured_start;
        }
    }

    void region(Context& c, const CallInfo& call) {
        const trace::Region& region = c.trace().defs.regions[call.region];
        if (region.canonical_name.rfind(kTunedPrefix, 0) == 0) execution_done(call);
        if (region.canonical_name.rfind(kCodeletPrefix, 0) != 0) return;
        // A codelet instance that is no execution's codelet (not directly inside its
        // operation) is time in the codelet but no search-phase measurement.
        auto found = phase_of_codelet_.find({call.region, call.enter});
        const bool search =
            found != phase_of_codelet_.end() && found->second == TuningPhase::Search;
        executions_[call.region].push_back({call.callpath, call.leave - call.enter, search});
    }

    void done(Context& c, uint32_t loc) {
        for (const auto& [codelet, runs] : executions_) {
            std::vector<double> search;
            std::vector<size_t> index_of;
            for (size_t k = 0; k < runs.size(); ++k) {
                c.add(codelet_time_, runs[k].callpath, loc, c.seconds(runs[k].duration));
                if (!runs[k].search) continue;
                search.push_back(c.seconds(runs[k].duration));
                index_of.push_back(k);
            }
            if (search.empty()) continue;
            for (size_t outlier : heuristic_estimate(search).outliers) {
                const Execution& run = runs[index_of[outlier]];
                c.add(outlier_time_, run.callpath, loc, c.seconds(run.duration));
            }
        }
    }

    // An execution of a tuned operation ended: the wait states inside the part the tuner timed
    // are its wait (a leading barrier is left out, as from its measured time). The waits of
    // this location, sorted by enter time, stay until the location ends: executions of tuned
    // operations may nest.
    void execution_done(const CallInfo& call) {
        const auto by_enter = [](const auto& w, analysis::Time t) { return w.first < t; };
        const auto measured = measured_start_.find(call.enter);
        const analysis::Time from =
            measured == measured_start_.end() ? call.enter : measured->second;
        auto it = std::lower_bound(waits_.begin(), waits_.end(), from, by_enter);
        analysis::Time inside = 0;
        for (; it != waits_.end() && it->first <= call.leave; ++it) inside += it->second;
        if (inside) execution_wait_[{call.location, call.enter}] += inside;
    }

    void store_audit(Context& c) {
        const trace::Trace& t = c.trace();
        run_extent_over_every_rank(c);
        CodeletMeasurements m;
        m.run_seconds = c.seconds(run_);
        for (const trace::TunedOperation& op : trace::reconstruct_tuned_operations(t)) {
            OperationMeasurements out;
            out.name = op.name;
            out.technique = timing_technique(op);
            out.codelets = op.codelets;
            out.unfinished = op.unfinished_executions;
            for (uint32_t loc = 0; loc < op.locations.size(); ++loc)
                if (op.locations[loc].decision)
                    out.decisions[loc] = op.locations[loc].decision->index;
            std::map<std::pair<uint32_t, int64_t>, uint32_t> numbers;
            std::map<std::pair<uint32_t, int64_t>, ProductionTotal> production;
            for (const trace::CodeletExecution& x : op.executions) {
                if (x.codelet < 0) continue; // before any codelet switch: not a measurement
                auto found = execution_wait_.find({x.location, x.start});
                const double wait = found == execution_wait_.end() ? 0 : c.seconds(found->second);
                const double duration = c.seconds(x.measured_end - x.measured_start);
                if (x.phase == TuningPhase::Search) {
                    out.search.push_back({x.location, x.codelet, numbers[{x.location, x.codelet}]++,
                                          c.seconds(x.start - first_event_), duration, wait});
                } else if (x.phase == TuningPhase::Production) {
                    ProductionTotal& p = production[{x.location, x.codelet}];
                    p.location = x.location;
                    p.codelet = x.codelet;
                    ++p.executions;
                    p.duration += duration;
                    p.wait += wait;
                }
            }
            for (const auto& [key, total] : production) out.production.push_back(total);
            m.operations.push_back(std::move(out));
        }
        m = measurements_of_every_rank(c, std::move(m));
        if (m.operations.empty()) return;
        report::Report& r = c.report();
        r.attributes[kMeasurementsAttribute] = to_text(m);
        const std::vector<uint32_t> ranks = r.location_ranks();
        r.attributes[kAuditAttribute] = to_json(audit(m, AuditParameters{}, ranks), ranks);
    }

    // Shared out to ranks: the run's first event and longest location over every rank's.
    void run_extent_over_every_rank(Context& c) {
        trace::Bytes mine;
        trace::ByteWriter out(mine);
        out.put(first_event_);
        out.put(run_);
        for (const trace::Bytes& part : c.gather(std::move(mine))) {
            trace::ByteReader in(part, "codelet run extent");
            first_event_ = std::min(first_event_, in.get<analysis::Time>());
            run_ = std::max(run_, in.get<analysis::Time>());
        }
    }

    // Shared out to ranks: every rank's measurements (of its locations), merged in rank
    // order, which is location order. Numbers travel in their shortest exact form.
    static CodeletMeasurements measurements_of_every_rank(Context& c, CodeletMeasurements m) {
        trace::Bytes mine;
        trace::ByteWriter(mine).put_string(to_text(m));
        std::vector<trace::Bytes> parts = c.gather(std::move(mine));
        if (parts.size() == 1) return m;
        std::vector<CodeletMeasurements> measured;
        for (const trace::Bytes& part : parts)
            measured.push_back(parse_codelet_measurements(
                trace::ByteReader(part, "codelet measurements").get_string()));
        return merge_measurement_parts(measured);
    }

    // How the tuner timed its search: a timer object when the operation says so, behind a
    // barrier when every search-phase execution had one, else without.
    static TimingTechnique timing_technique(const trace::TunedOperation& op) {
        if (op.timer_object) return TimingTechnique::TimerObject;
        bool any = false, all_behind_barrier = true;
        for (const trace::CodeletExecution& x : op.executions) {
            if (x.phase != TuningPhase::Search || x.codelet < 0) continue;
            any = true;
            all_behind_barrier = all_behind_barrier && x.barrier_before;
        }
        if (!any) return TimingTechnique::Unknown;
        return all_behind_barrier ? TimingTechnique::BarrierBefore : TimingTechnique::NoBarrier;
    }

    int codelet_time_ = -1, outlier_time_ = -1;
    std::vector<std::pair<analysis::Time, analysis::Time>> waits_; // (call enter, wait) pending
    std::map<std::pair<uint32_t, analysis::Time>, analysis::Time> execution_wait_;
    analysis::Time first_event_ = std::numeric_limits<analysis::Time>::max(), run_ = 0;
    std::map<uint32_t, std::vector<Execution>> executions_; // by codelet region
    // This location's execution phases by codelet instance (region, enter time).
    std::map<std::pair<trace::Ref, analysis::Time>, TuningPhase> phase_of_codelet_;
    // This location's executions timed from a leading barrier's end: start -> measured start.
    std::map<analysis::Time, analysis::Time> measured_start_;
    std::shared_ptr<const trace::TunedReconstruction> tuned_; // of the trace replayed
};

} // namespace

std::unique_ptr<analysis::Pattern> codelet_patterns() {
    return std::make_unique<CodeletPatterns>();
}

} // namespace topolens::patterns
