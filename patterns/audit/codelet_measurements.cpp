#include "patterns/audit/codelet_measurements.h"

#include "analyzer/report/json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace topolens::patterns {

namespace {

constexpr const char* kHeader = "topolens-codelet-measurements";
// Version 2 added the 'timing' record; version 1 is read as well (timing unknown).
constexpr int kVersion = 2;
constexpr int kOldestVersion = 1;

constexpr TimingTechnique kTechniques[] = {TimingTechnique::Unknown, TimingTechnique::BarrierBefore,
                                           TimingTechnique::NoBarrier,
                                           TimingTechnique::TimerObject};

// Names may hold anything; the three characters that would break a line are escaped.
std::string encode(const std::string& name) {
    std::string out;
    for (char ch : name) {
        if (ch == '%')
            out += "%25";
        else if (ch == '\t')
            out += "%09";
        else if (ch == '\n')
            out += "%0A";
        else
            out += ch;
    }
    return out;
}

std::string number(double v) {
    return json::shortest_number(v);
}

class LineParser {
  public:
    LineParser(std::vector<std::string> fields, std::size_t line)
        : fields_(std::move(fields)), line_(line) {}

    void expect_fields(std::size_t n) const {
        if (fields_.size() != n)
            fail("'" + fields_[0] + "' needs " + std::to_string(n - 1) + " fields, found " +
                 std::to_string(fields_.size() - 1));
    }
    const std::string& keyword() const { return fields_[0]; }

    std::string name(std::size_t i) const {
        const std::string& s = fields_[i];
        std::string out;
        for (std::size_t k = 0; k < s.size(); ++k) {
            if (s[k] != '%') {
                out += s[k];
                continue;
            }
            const std::string code = s.substr(k + 1, 2);
            if (code == "25")
                out += '%';
            else if (code == "09")
                out += '\t';
            else if (code == "0A")
                out += '\n';
            else
                fail("bad escape '%" + code + "' in name");
            k += 2;
        }
        return out;
    }

    template <typename T> T integer(std::size_t i) const {
        const std::string& s = fields_[i];
        T v{};
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || end != s.data() + s.size())
            fail("field " + std::to_string(i) + " is not an integer: '" + s + "'");
        return v;
    }

    // A finite, non-negative number of seconds.
    double seconds(std::size_t i) const {
        const std::string& s = fields_[i];
        double v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v < 0)
            fail("field " + std::to_string(i) + " is not a time in seconds: '" + s + "'");
        return v;
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw MeasurementsFormatError("codelet measurements, line " + std::to_string(line_) + ": " +
                                      what);
    }

  private:
    std::vector<std::string> fields_;
    std::size_t line_;
};

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (;;) {
        const std::size_t tab = line.find('\t', start);
        fields.push_back(line.substr(start, tab - start));
        if (tab == std::string::npos) return fields;
        start = tab + 1;
    }
}

} // namespace

const char* timing_technique_key(TimingTechnique t) {
    switch (t) {
    case TimingTechnique::BarrierBefore:
        return "barrier";
    case TimingTechnique::NoBarrier:
        return "no-barrier";
    case TimingTechnique::TimerObject:
        return "timer-object";
    case TimingTechnique::Unknown:
        break;
    }
    return "unknown";
}

const char* timing_technique_words(TimingTechnique t) {
    switch (t) {
    case TimingTechnique::BarrierBefore:
        return "a barrier before each measurement";
    case TimingTechnique::NoBarrier:
        return "no barrier before the measurements";
    case TimingTechnique::TimerObject:
        return "a timer object spanning several operations";
    case TimingTechnique::Unknown:
        break;
    }
    return "not known (no search-phase measurement, or a report written before topolens "
           "recorded it)";
}

std::optional<TimingTechnique> parse_timing_technique(const std::string& key) {
    for (TimingTechnique t : kTechniques)
        if (key == timing_technique_key(t)) return t;
    return std::nullopt;
}

std::string to_text(const CodeletMeasurements& m) {
    std::ostringstream out;
    out << kHeader << '\t' << kVersion << '\n';
    out << "run\t" << number(m.run_seconds) << '\n';
    for (const OperationMeasurements& op : m.operations) {
        out << "operation\t" << encode(op.name) << '\n';
        if (op.technique != TimingTechnique::Unknown)
            out << "timing\t" << timing_technique_key(op.technique) << '\n';
        for (const auto& [index, name] : op.codelets)
            out << "codelet\t" << index << '\t' << encode(name) << '\n';
        for (const auto& [location, index] : op.decisions)
            out << "decision\t" << location << '\t' << index << '\n';
        for (const SearchMeasurement& s : op.search)
            out << "search\t" << s.location << '\t' << s.codelet << '\t' << s.number << '\t'
                << number(s.start) << '\t' << number(s.duration) << '\t' << number(s.wait) << '\n';
        for (const ProductionTotal& p : op.production)
            out << "production\t" << p.location << '\t' << p.codelet << '\t' << p.executions << '\t'
                << number(p.duration) << '\t' << number(p.wait) << '\n';
        if (op.unfinished) out << "unfinished\t" << op.unfinished << '\n';
    }
    return out.str();
}

CodeletMeasurements merge_measurement_parts(const std::vector<CodeletMeasurements>& parts) {
    if (parts.empty()) return {};
    CodeletMeasurements whole = parts.front();
    for (size_t k = 1; k < parts.size(); ++k) {
        const CodeletMeasurements& part = parts[k];
        whole.run_seconds = std::max(whole.run_seconds, part.run_seconds);
        if (part.operations.size() != whole.operations.size())
            throw std::logic_error("merge_measurement_parts: parts with different operations");
        for (size_t o = 0; o < part.operations.size(); ++o) {
            OperationMeasurements& into = whole.operations[o];
            const OperationMeasurements& from = part.operations[o];
            if (from.name != into.name)
                throw std::logic_error("merge_measurement_parts: parts with different operations");
            // Unknown: the part had no search execution. Behind a barrier only if every
            // execution was: one part without makes it no barrier.
            if (from.technique != TimingTechnique::Unknown &&
                (into.technique == TimingTechnique::Unknown ||
                 from.technique == TimingTechnique::NoBarrier))
                into.technique = from.technique;
            into.codelets.insert(from.codelets.begin(), from.codelets.end());
            into.decisions.insert(from.decisions.begin(), from.decisions.end());
            into.search.insert(into.search.end(), from.search.begin(), from.search.end());
            into.production.insert(into.production.end(), from.production.begin(),
                                   from.production.end());
            into.unfinished += from.unfinished;
        }
    }
    return whole;
}

CodeletMeasurements parse_codelet_measurements(const std::string& text) {
    CodeletMeasurements m;
    std::istringstream in(text);
    std::string line;
    std::size_t number = 0;
    bool header = false;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty()) continue;
        const LineParser p(split_tabs(line), number);
        if (!header) {
            if (p.keyword() != kHeader)
                p.fail("does not start with '" + std::string(kHeader) + "'");
            p.expect_fields(2);
            if (const int v = p.integer<int>(1); v < kOldestVersion || v > kVersion)
                p.fail("version " + std::to_string(p.integer<int>(1)) + " is not supported");
            header = true;
            continue;
        }
        if (p.keyword() == "run") {
            p.expect_fields(2);
            m.run_seconds = p.seconds(1);
            continue;
        }
        if (p.keyword() == "operation") {
            p.expect_fields(2);
            m.operations.push_back({});
            m.operations.back().name = p.name(1);
            continue;
        }
        if (m.operations.empty()) p.fail("'" + p.keyword() + "' before any 'operation'");
        OperationMeasurements& op = m.operations.back();
        if (p.keyword() == "codelet") {
            p.expect_fields(3);
            op.codelets[p.integer<int64_t>(1)] = p.name(2);
        } else if (p.keyword() == "timing") {
            p.expect_fields(2);
            const auto technique = parse_timing_technique(p.name(1));
            if (!technique) p.fail("unknown timing technique '" + p.name(1) + "'");
            op.technique = *technique;
        } else if (p.keyword() == "decision") {
            p.expect_fields(3);
            op.decisions[p.integer<uint32_t>(1)] = p.integer<int64_t>(2);
        } else if (p.keyword() == "search") {
            p.expect_fields(7);
            op.search.push_back({p.integer<uint32_t>(1), p.integer<int64_t>(2),
                                 p.integer<uint32_t>(3), p.seconds(4), p.seconds(5), p.seconds(6)});
        } else if (p.keyword() == "production") {
            p.expect_fields(6);
            op.production.push_back({p.integer<uint32_t>(1), p.integer<int64_t>(2),
                                     p.integer<uint64_t>(3), p.seconds(4), p.seconds(5)});
        } else if (p.keyword() == "unfinished") {
            p.expect_fields(2);
            op.unfinished = p.integer<uint64_t>(1);
        } else {
            p.fail("unknown record '" + p.keyword() + "'");
        }
    }
    if (!header) throw MeasurementsFormatError("codelet measurements: empty");
    return m;
}

} // namespace topolens::patterns
