// The autotuner encoding in OTF2 (measure/TRACE_FORMAT.md, "Tuned operations and codelets"),
// spelled once: the measurement library writes with it (measure/user_api.cpp), the trace
// builder and the reconstruction (trace/tuned.*) and the codelet patterns read with it.
// Header-only, no OTF2 and no MPI, so that the measurement library can include it.
//
// For a tuned operation OP:
//   the operation            region, canonical name  topolens.tuned:OP
//   codelet i named C        region, canonical name  topolens.codelet:OP:i:C
//   switch to codelet i      ParameterInt    (topolens.codelet:OP, i)     INT64
//   phase change             ParameterString (topolens.phase:OP, "search" | "decision" |
//                                             "production")                STRING
//   final decision           ParameterInt    (topolens.decision:OP, i)    INT64
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace topolens::trace {

// Canonical-name prefix of an operation's region.
inline constexpr std::string_view kTunedPrefix = "topolens.tuned:";
// Canonical-name prefix of a codelet's region, and name prefix of the switch parameter.
inline constexpr std::string_view kCodeletPrefix = "topolens.codelet:";
// Name prefixes of the phase and the decision parameters.
inline constexpr std::string_view kPhasePrefix = "topolens.phase:";
inline constexpr std::string_view kDecisionPrefix = "topolens.decision:";
// Description prefix of an operation's region when each execution is timed by a timer object
// spanning several operations (ADCL_Timer_start .. ADCL_Timer_stop), not one operation.
inline constexpr std::string_view kTimerObjectDescription = "timer object";
// Between OP, i and C in a codelet's canonical name.
inline constexpr char kCodeletSeparator = ':';

enum class TuningPhase : uint8_t { Search, Decision, Production, Unknown };

// The phase parameter's values: "search", "decision", "production" ("unknown" is never
// written; it names what a third-party tuner may record instead).
constexpr std::string_view tuning_phase_name(TuningPhase phase) {
    switch (phase) {
    case TuningPhase::Search:
        return "search";
    case TuningPhase::Decision:
        return "decision";
    case TuningPhase::Production:
        return "production";
    case TuningPhase::Unknown:
        return "unknown";
    }
    return "unknown";
}

// "search" | "decision" | "production" -> phase; anything else -> Unknown.
constexpr TuningPhase parse_tuning_phase(std::string_view text) {
    for (TuningPhase p : {TuningPhase::Search, TuningPhase::Decision, TuningPhase::Production})
        if (text == tuning_phase_name(p)) return p;
    return TuningPhase::Unknown;
}

// ---------------------------------------------------------------- writing

inline std::string tuned_op_canonical_name(std::string_view op) { // topolens.tuned:OP
    return std::string(kTunedPrefix).append(op);
}

inline std::string codelet_canonical_name(std::string_view op, int64_t index,
                                          std::string_view codelet) { // topolens.codelet:OP:i:C
    return std::string(kCodeletPrefix)
        .append(op)
        .append(1, kCodeletSeparator)
        .append(std::to_string(index))
        .append(1, kCodeletSeparator)
        .append(codelet);
}

inline std::string codelet_parameter_name(std::string_view op) { // topolens.codelet:OP
    return std::string(kCodeletPrefix).append(op);
}

inline std::string phase_parameter_name(std::string_view op) { // topolens.phase:OP
    return std::string(kPhasePrefix).append(op);
}

inline std::string decision_parameter_name(std::string_view op) { // topolens.decision:OP
    return std::string(kDecisionPrefix).append(op);
}

// ---------------------------------------------------------------- reading
// The names parsed out are views into the text given.

namespace tuned_encoding_detail {

constexpr bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// "i:C" (what follows "topolens.codelet:OP:") -> index i >= 0 and name C.
inline bool parse_index_and_name(std::string_view rest, int64_t& index, std::string_view& name) {
    const std::size_t colon = rest.find(kCodeletSeparator);
    if (colon == 0 || colon == std::string_view::npos) return false;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + colon, index);
    if (ec != std::errc() || end != rest.data() + colon || index < 0) return false;
    name = rest.substr(colon + 1);
    return true;
}

} // namespace tuned_encoding_detail

// "topolens.tuned:OP" -> OP; other names -> nothing.
inline std::optional<std::string_view> parse_tuned_op_canonical_name(std::string_view canonical) {
    if (!tuned_encoding_detail::starts_with(canonical, kTunedPrefix)) return std::nullopt;
    return canonical.substr(kTunedPrefix.size());
}

enum class TunedParameterRole : uint8_t { Switch, Phase, Decision };

struct TunedParameterName {
    TunedParameterRole role;
    std::string_view op;
};

// "topolens.codelet:OP" | "topolens.phase:OP" | "topolens.decision:OP" -> role and OP.
inline std::optional<TunedParameterName> parse_tuned_parameter_name(std::string_view name) {
    using tuned_encoding_detail::starts_with;
    if (starts_with(name, kCodeletPrefix))
        return TunedParameterName{TunedParameterRole::Switch, name.substr(kCodeletPrefix.size())};
    if (starts_with(name, kPhasePrefix))
        return TunedParameterName{TunedParameterRole::Phase, name.substr(kPhasePrefix.size())};
    if (starts_with(name, kDecisionPrefix))
        return TunedParameterName{TunedParameterRole::Decision,
                                  name.substr(kDecisionPrefix.size())};
    return std::nullopt;
}

struct CodeletCanonicalName {
    std::string_view op;
    int64_t index = -1;
    std::string_view codelet;
};

// "topolens.codelet:OP:i:C" -> OP, i, C. Operation and codelet names may contain ':' (and
// ":<digits>:") themselves, so the longest of the operations known from elsewhere (operation
// regions, parameters) that fits is taken; failing that, OP ends before the first ":<i>:".
inline std::optional<CodeletCanonicalName>
parse_codelet_canonical_name(std::string_view canonical,
                             const std::vector<std::string>& known_ops) {
    using tuned_encoding_detail::parse_index_and_name;
    using tuned_encoding_detail::starts_with;
    if (!starts_with(canonical, kCodeletPrefix)) return std::nullopt;
    const std::string_view body = canonical.substr(kCodeletPrefix.size());
    CodeletCanonicalName c;
    bool found = false;
    for (const std::string& op : known_ops) {
        CodeletCanonicalName candidate;
        if ((!found || op.size() > c.op.size()) && body.size() > op.size() &&
            starts_with(body, op) && body[op.size()] == kCodeletSeparator &&
            parse_index_and_name(body.substr(op.size() + 1), candidate.index, candidate.codelet)) {
            candidate.op = body.substr(0, op.size());
            c = candidate;
            found = true;
        }
    }
    if (found) return c;
    for (std::size_t colon = body.find(kCodeletSeparator); colon != std::string_view::npos;
         colon = body.find(kCodeletSeparator, colon + 1)) {
        if (colon > 0 && parse_index_and_name(body.substr(colon + 1), c.index, c.codelet)) {
            c.op = body.substr(0, colon);
            return c;
        }
    }
    return std::nullopt;
}

} // namespace topolens::trace
