// topolens score TRACE|REPORT [--filter FILE] [--suggest-filter OUT]: what each region costs
// in the trace (visits, time, bytes of OTF2 event records), what a filter would save, and a
// filter of tiny, frequent functions, as scorep-score does.
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cut_short.h"
#include "analyzer/cli/options.h"
#include "analyzer/cli/text.h"

#include "analyzer/report/cube4.h"
#include "analyzer/score/score.h"
#include "trace/experiment_files.h"
#include "trace/reader.h"
#include "trace/region_filter.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

namespace topolens::cli {
namespace {

namespace sc = topolens::score;

std::string percent(uint64_t part, uint64_t whole) {
    return whole ? fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) : "0.0";
}

// A number of at least `least` (and finite) for `option`.
double parse_number(const std::string& option, const std::string& text, double least) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < least)
        throw UsageError{option + " needs a number of at least " + fixed(least, 0) + ", not '" +
                             text + "'",
                         false};
    return v;
}

// The profile to score, if `path` names one: a .cubex file, or a directory of profile mode
// (profile.cubex, and no trace, which would be scored exactly).
std::optional<std::string> profile_of(const std::string& path) {
    namespace fs = std::filesystem;
    if (fs::path(path).extension() == ".cubex") return path;
    std::error_code error;
    const fs::path dir(path);
    if (fs::is_directory(dir, error) && !fs::exists(dir / "traces.otf2", error) &&
        fs::is_regular_file(dir / trace::kProfileName, error))
        return (dir / trace::kProfileName).string();
    return std::nullopt;
}

void print_totals(std::ostream& out, const sc::Score& score, std::optional<uint64_t> actual) {
    out << (score.estimated_from_visits ? "Estimated from the profile's visits"
                                        : "Counted from the trace's events")
        << ": OTF2 event files of " << grouped(score.total_bytes()) << " bytes in all, "
        << grouped(score.max_process_bytes()) << " bytes at most per process ("
        << score.process_bytes.size() << " processes)\n";
    if (actual && *actual)
        out << "The trace's event files (*.evt): " << grouped(*actual) << " bytes; the estimate is "
            << percent(score.total_bytes(), *actual) << "% of it\n";
}

// The groups (ALL, MPI, COM, USR), then every region; `excluded` marks what a filter removes.
// `top` regions at most (0: all).
void print_table(std::ostream& out, const sc::Score& score, const std::vector<bool>& excluded,
                 bool with_filter, std::size_t top) {
    Table table({"flt", "type", "max_bytes", "total_bytes", "visits", "max_visits", "time(s)",
                 "time/visit(us)", "%bytes", "region"},
                {false, false, true, true, true, true, true, true, true, false});
    const uint64_t total = score.total_bytes();
    auto row = [&](const std::string& flt, const std::string& type, uint64_t max_bytes,
                   uint64_t bytes, uint64_t visits, uint64_t max_visits, double time,
                   const std::string& name) {
        table.row({flt, type, grouped(max_bytes), grouped(bytes), grouped(visits),
                   grouped(max_visits), fixed(time, 6),
                   visits ? fixed(time / static_cast<double>(visits) * 1e6, 3) : "-",
                   percent(bytes, total), name});
    };
    // A group's max is the largest process sum of its regions.
    const sc::RegionType types[] = {sc::RegionType::Mpi, sc::RegionType::Com, sc::RegionType::Usr};
    auto group = [&](const std::optional<sc::RegionType>& type, const std::string& label) {
        std::vector<uint64_t> bytes(score.process_bytes.size()), visits(bytes.size());
        double time = 0;
        bool any = false;
        for (const sc::RegionScore& r : score.regions) {
            if (type && r.type != *type) continue;
            any = true;
            time += r.time;
            for (std::size_t p = 0; p < bytes.size(); ++p) {
                bytes[p] += r.bytes[p];
                visits[p] += r.visits[p];
            }
        }
        if (!any && type) return;
        uint64_t b = 0, v = 0, mb = 0, mv = 0;
        for (std::size_t p = 0; p < bytes.size(); ++p) {
            b += bytes[p];
            v += visits[p];
            mb = std::max(mb, bytes[p]);
            mv = std::max(mv, visits[p]);
        }
        row(" ", label, mb, b, v, mv, time, type ? label : "(all regions)");
    };
    group(std::nullopt, "ALL");
    for (sc::RegionType t : types) group(t, sc::region_type_name(t));
    table.row({"", "", "", "", "", "", "", "", "", ""});
    const std::size_t shown = top ? std::min(top, score.regions.size()) : score.regions.size();
    for (std::size_t i = 0; i < shown; ++i) {
        const sc::RegionScore& r = score.regions[i];
        const std::string flt = !with_filter ? " " : excluded[i] ? "+" : "-";
        row(flt, sc::region_type_name(r.type), r.max_bytes(), r.total_bytes(), r.total_visits(),
            r.max_visits(), r.time, r.name);
    }
    out << table.render(0);
    if (shown < score.regions.size())
        out << "(" << score.regions.size() - shown << " more regions below; --top 0 shows all)\n";
}

} // namespace

void score_usage(std::ostream& out) {
    out << "usage: topolens score TRACE|REPORT [--filter FILE] [--suggest-filter OUT] [--top N]\n"
           "                      [--max-time-per-visit US] [--min-share PERCENT]\n\n"
           "What each region costs in a trace, as scorep-score tells it: its type (MPI; COM,\n"
           "a function on a call path to MPI; USR, any other function or region), visits\n"
           "(in all and at most per process), time, the bytes of OTF2 event records it costs\n"
           "(at most per process and in all) and its share of the whole, below the estimated\n"
           "size of the trace's event files. From a TRACE the records of every event are\n"
           "counted; from a REPORT (a CUBE4 call-path profile with visits, .cubex) they are\n"
           "estimated from the visits; a directory of profile mode stands for its\n"
           "profile.cubex.\n\n"
           "  --filter FILE          mark the regions the filter file (Score-P syntax) removes\n"
           "                         ('+'; MPI functions never) and say how much it saves\n"
           "  --suggest-filter OUT   write a filter of tiny, frequent functions to OUT (it is\n"
           "                         always named in the output): USR functions (not MPI, not\n"
           "                         on a call path to MPI) with less than --max-time-per-visit\n"
           "                         microseconds per visit (default 10) that cost at least\n"
           "                         --min-share percent of the trace (default 1)\n"
           "  --top N                show the N regions that cost the most bytes (default: all)\n\n"
           "docs/score.md describes the figures and the filter syntax.\n";
}

int score_main(const std::vector<std::string>& args) {
    std::string path, filter_path, suggest_path;
    std::size_t top = 0;
    sc::SuggestionRule rule;
    if (const auto exit =
            OptionParser()
                .help()
                .option({"--filter"}, [&](const std::string& v) { filter_path = v; },
                        {true, "--filter needs a filter file", false})
                .option({"--suggest-filter"}, [&](const std::string& v) { suggest_path = v; },
                        {true, "--suggest-filter needs a file to write", false})
                .option(
                    {"--top"},
                    [&](const std::string& v) {
                        const double n = parse_number("--top", v, 0);
                        if (n != std::floor(n))
                            throw UsageError{"--top needs a whole number, not '" + v + "'", false};
                        top = static_cast<std::size_t>(n);
                    },
                    {true, "--top needs a number", false})
                .option({"--max-time-per-visit"},
                        [&](const std::string& v) {
                            rule.max_time_per_visit =
                                parse_number("--max-time-per-visit", v, 0) * 1e-6;
                        },
                        {true, "--max-time-per-visit needs microseconds", false})
                .option({"--min-share"},
                        [&](const std::string& v) {
                            rule.min_share = parse_number("--min-share", v, 0) / 100.0;
                        },
                        {true, "--min-share needs a percentage", false})
                .positional(OptionParser::single(path, "trace or report", false))
                .run(args, "score: ", score_usage, [&] {
                    if (path.empty()) throw UsageError{"score needs a trace or a report"};
                }))
        return *exit;
    try {
        // The filter first: a bad one should not wait for a large trace to be read.
        std::optional<trace::RegionFilter> filter;
        if (!filter_path.empty()) filter = trace::RegionFilter::load(filter_path);

        sc::Score score;
        std::optional<uint64_t> actual;
        if (const std::optional<std::string> profile = profile_of(path)) {
            score = sc::score_report(report::read_cube4(*profile));
        } else {
            complete_if_cut_short(path);
            const trace::Trace trace = trace::read_trace(path);
            score = sc::score_trace(trace);
            actual = sc::event_file_bytes(trace);
        }
        std::ostream& out = std::cout;
        print_totals(out, score, actual);
        std::vector<bool> excluded(score.regions.size(), false);
        if (filter) {
            const sc::FilterEffect effect = sc::apply_filter(score, *filter);
            excluded = effect.excluded;
            std::size_t count = 0;
            for (bool e : excluded) count += e;
            out << "With the filter " << filter_path << ": " << count << " of "
                << score.regions.size() << " regions removed, saving "
                << grouped(effect.saved_bytes) << " bytes ("
                << percent(effect.saved_bytes, score.total_bytes())
                << "%): " << grouped(effect.total_bytes()) << " bytes in all, "
                << grouped(effect.max_process_bytes()) << " at most per process\n";
        }
        const std::vector<std::size_t> suggested = sc::suggest_filter(score, rule);
        if (!suggest_path.empty()) {
            std::ofstream file(suggest_path);
            file << sc::filter_file_text(score, suggested, rule);
            if (!file.flush()) throw std::runtime_error(suggest_path + ": cannot write the filter");
        }
        uint64_t saving = 0;
        for (std::size_t i : suggested)
            for (uint64_t b : score.regions[i].enter_leave) saving += b;
        out << "Suggested filter (" << rule.describe() << "): ";
        if (suggested.empty()) {
            out << "none" << (suggest_path.empty() ? "" : ", " + suggest_path + " excludes nothing")
                << "\n";
        } else {
            std::vector<std::string> names;
            for (std::size_t i : suggested) names.push_back(score.regions[i].name);
            out << suggested.size() << (suggested.size() == 1 ? " function" : " functions")
                << ", saving " << grouped(saving) << " bytes ("
                << percent(saving, score.total_bytes()) << "%)"
                << (suggest_path.empty() ? " (--suggest-filter OUT writes it)"
                                         : ", written to " + suggest_path)
                << ": " << join(names, ", ") << "\n";
        }
        out << "\n";
        print_table(out, score, excluded, filter.has_value(), top);
        return kExitOk;
    } catch (const std::exception& e) {
        print_error(e.what());
        return kExitFailure;
    }
}

} // namespace topolens::cli
