#include "patterns/audit/verification_json.h"

#include "analyzer/report/json.h"

#include <stdexcept>

namespace topolens::patterns {

namespace {

void indices(json::Writer& w, const char* key, const std::vector<int64_t>& values) {
    w.key(key).begin_packed_array();
    for (int64_t i : values) w.value(static_cast<long long>(i));
    w.end_array();
}

void ranking_error(json::Writer& w, const RankingError& e) {
    w.begin_object();
    w.key("estimate").value("consensus");
    indices(w, "codelets", e.codelets);
    w.key("max_avg_percent").value(e.max_avg);
    w.key("sum_avg_percent").value(e.sum_avg);
    w.key("max_min_percent").value(e.max_min);
    w.key("max_max_percent").value(e.max_max);
    w.key("flips").value(e.flips);
    w.key("false_orderings").begin_array();
    for (const FalseOrdering& f : e.false_orderings) {
        w.begin_inline_object();
        w.key("faster").value(static_cast<long long>(f.faster));
        w.key("slower").value(static_cast<long long>(f.slower));
        w.key("e_min").value(f.e_min).key("e_avg").value(f.e_avg).key("e_max").value(f.e_max);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

void codelet(json::Writer& w, const VerifiedCodelet& c) {
    w.begin_object();
    w.key("index").value(static_cast<long long>(c.index));
    w.key("name").value(c.name);
    w.key("runs").begin_packed_array();
    for (std::size_t r : c.runs) w.value(static_cast<unsigned long long>(r));
    w.end_array();
    w.key("times").numbers(c.times);
    w.key("range").numbers(std::vector<double>{c.lo, c.hi});
    w.key("mean").value(c.mean);
    indices(w, "overlaps", c.overlaps);
    w.key("instability").value(c.instability);
    w.key("stability").value(c.stability);
    w.key("winner_set").value(c.winner_set);
    w.key("worst_set").value(c.worst_set);
    w.end_object();
}

// Where each operation object of the audit document ends (the index of its closing brace),
// and its name: a scan that knows strings and nesting, nothing else of JSON.
struct OperationEnds {
    std::vector<std::size_t> ends;
    std::vector<std::string> names;
};

OperationEnds operation_ends(const std::string& text) {
    OperationEnds out;
    std::vector<char> open; // '{' or '['
    std::string string, last_string, key;
    bool in_string = false, escaped = false, after_colon = false, in_operations = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (in_string) {
            if (escaped)
                escaped = false, string += ch;
            else if (ch == '\\')
                escaped = true, string += ch;
            else if (ch == '"') {
                in_string = false;
                last_string = string;
                if (after_colon && in_operations && open.size() == 3 && key == "name")
                    out.names.push_back(string);
                after_colon = false;
            } else
                string += ch;
            continue;
        }
        switch (ch) {
        case '"':
            in_string = true;
            string.clear();
            break;
        case ':':
            key = last_string;
            after_colon = true;
            break;
        case '[':
            if (open.size() == 1 && after_colon && key == "operations") in_operations = true;
            open.push_back(ch);
            after_colon = false;
            break;
        case '{':
            open.push_back(ch);
            after_colon = false;
            break;
        case '}':
        case ']':
            if (in_operations && ch == '}' && open.size() == 3) out.ends.push_back(i);
            if (in_operations && ch == ']' && open.size() == 2) in_operations = false;
            if (!open.empty()) open.pop_back();
            after_colon = false;
            break;
        case ' ':
        case '\n':
        case '\t':
        case '\r':
            break;
        default:
            after_colon = false; // a number, true, false or null
        }
    }
    return out;
}

} // namespace

std::string to_json(const OperationVerification& v) {
    json::Writer w;
    w.begin_object();
    w.key("runs").begin_array();
    for (const std::string& path : v.runs) w.value(path);
    w.end_array();
    auto index = [&](const std::optional<int64_t>& i) {
        if (i)
            w.value(static_cast<long long>(*i));
        else
            w.null();
    };
    w.key("best");
    index(v.best);
    w.key("worst");
    index(v.worst);
    w.key("tuner_choice");
    index(v.tuner_choice);
    w.key("tuner_penalty_percent").value(v.tuner_penalty_percent);
    w.key("technique").value(timing_technique_key(v.technique));
    w.key("ranking_error");
    if (v.ranking_error)
        ranking_error(w, *v.ranking_error);
    else
        w.null();
    w.key("codelets").begin_array();
    for (const VerifiedCodelet& c : v.codelets) codelet(w, c);
    w.end_array();
    indices(w, "unverified", v.unverified);
    w.end_object();
    return w.text();
}

std::string with_verification(const std::string& audit_json, const Verification& v) {
    const OperationEnds found = operation_ends(audit_json);
    if (found.ends.size() != v.operations.size() || found.names.size() != v.operations.size())
        throw std::invalid_argument(
            "with_verification: the audit has " + std::to_string(found.ends.size()) +
            " operation(s), the verification " + std::to_string(v.operations.size()));
    for (std::size_t k = 0; k < found.names.size(); ++k) {
        const std::string quoted = json::string(v.operations[k].name); // as the scan saw it
        if (found.names[k] != quoted.substr(1, quoted.size() - 2))
            throw std::invalid_argument("with_verification: operation " + std::to_string(k) +
                                        " of the audit is not " + v.operations[k].name);
    }
    std::string out = audit_json;
    for (std::size_t k = found.ends.size(); k-- > 0;) {
        const std::size_t brace = found.ends[k];
        std::size_t last = brace; // just after the operation's last member
        while (last > 0 && (out[last - 1] == ' ' || out[last - 1] == '\n')) --last;
        const std::size_t line = out.rfind('\n', brace);
        const std::size_t indent = line == std::string::npos ? 0 : brace - line - 1;
        const std::string member_indent(indent + 2, ' ');
        std::string object;
        for (char ch : to_json(v.operations[k])) {
            object += ch;
            if (ch == '\n') object += member_indent;
        }
        const bool empty = out[last - 1] == '{';
        out.insert(last, std::string(empty ? "" : ",") + "\n" + member_indent +
                             "\"verification\": " + object);
    }
    return out;
}

} // namespace topolens::patterns
