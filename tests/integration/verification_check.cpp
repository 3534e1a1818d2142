// Checks the "verification" object of one operation in `topolens audit --format json` against
// a scenario's expectations (check_verification.sh). Prints what it compared; exits 1 naming
// the first expectation that does not hold, 2 on bad usage.
//
// usage: verification_check AUDIT.json OPERATION [EXPECTATIONS ...]
//   --runs N                 N verification runs of the operation
//   --best C                 the best verified codelet (lowest mean of its runs)
//   --tuner C                the tuner's choice; with penalty 0 when C is also --best
//   --unverified LIST        the codelets searched but not verified, e.g. 1,2,5,6
//   --time RUN C SECONDS TOL run RUN (0-based, as given) ran codelet C and took SECONDS +- TOL
//   --worst-has C            C is in the worst set and not in the winner set
//   --ordered LIST           the verified codelets' means ascend in this order, e.g. 3,4,0
//   --technique KEY          the tuned run's timing technique (barrier, no-barrier, ...)
//   --no-false-orderings     the search ranked no two separate codelets the other way round
//   --false-ordering F S     the search ranked S before F although the verification runs put
//                            F first with ranges apart, weighed 0 < e_min <= e_avg <= e_max
#include "../unit/json_check.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using topolens::test::JsonValue;

namespace {

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "verification_check: %s\n", what.c_str());
    std::exit(1);
}

std::vector<long> list(const std::string& text) {
    std::vector<long> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) out.push_back(std::stol(item));
    return out;
}

const JsonValue& codelet(const JsonValue& v, long index) {
    for (const JsonValue& c : v["codelets"].array)
        if (long(c["index"].num()) == index) return c;
    fail("codelet " + std::to_string(index) + " was not verified");
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: verification_check AUDIT.json OPERATION [EXPECTATIONS ...]\n");
        return 2;
    }
    std::ifstream file(argv[1]);
    std::stringstream text;
    text << file.rdbuf();
    const JsonValue doc = topolens::test::parse_json(text.str());
    const JsonValue* op = nullptr;
    for (const JsonValue& o : doc["operations"].array)
        if (o["name"].str() == argv[2]) op = &o;
    if (!op) fail(std::string("no operation ") + argv[2]);
    const JsonValue& v = (*op)["verification"];
    for (int i = 3; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) fail(a + " needs a value");
            return argv[++i];
        };
        if (a == "--runs") {
            const long want = std::stol(next());
            std::printf("runs: %zu (expected %ld)\n", v["runs"].size(), want);
            if (long(v["runs"].size()) != want) fail("wrong number of runs");
        } else if (a == "--best") {
            const long want = std::stol(next());
            std::printf(
                "best: %s (expected %ld)\n",
                v["best"].is_null() ? "null" : std::to_string(long(v["best"].num())).c_str(), want);
            if (v["best"].is_null() || long(v["best"].num()) != want) fail("wrong best");
            if (!codelet(v, want)["winner_set"].boolean_value()) fail("best not in winner set");
        } else if (a == "--tuner") {
            const long want = std::stol(next());
            if (v["tuner_choice"].is_null() || long(v["tuner_choice"].num()) != want)
                fail("tuner's choice is not " + std::to_string(want));
            const JsonValue& penalty = v["tuner_penalty_percent"];
            std::printf("tuner's choice %ld, penalty %s%%\n", want,
                        penalty.is_null() ? "null" : std::to_string(penalty.num()).c_str());
            if (penalty.is_null()) fail("no penalty for a verified choice");
            const bool best = !v["best"].is_null() && long(v["best"].num()) == want;
            if (best ? penalty.num() != 0 : !(penalty.num() > 0))
                fail("penalty " + std::to_string(penalty.num()) + " for that choice");
        } else if (a == "--unverified") {
            const std::vector<long> want = list(next());
            std::vector<long> got;
            for (const JsonValue& u : v["unverified"].array) got.push_back(long(u.num()));
            if (got != want) fail("unverified codelets differ");
            std::printf("unverified: as expected (%zu)\n", got.size());
        } else if (a == "--time") {
            const long run = std::stol(next()), c = std::stol(next());
            const double want = std::stod(next()), tol = std::stod(next());
            const JsonValue& vc = codelet(v, c);
            bool found = false;
            for (std::size_t k = 0; k < vc["runs"].size(); ++k) {
                if (long(vc["runs"][k].num()) != run) continue;
                const double got = vc["times"][k].num();
                std::printf("run %ld, codelet %ld: %.6f s (expected %.6f +- %.6f)\n", run, c, got,
                            want, tol);
                if (!(std::fabs(got - want) <= tol)) fail("run time out of tolerance");
                found = true;
            }
            if (!found)
                fail("run " + std::to_string(run) + " is not codelet " + std::to_string(c) + "'s");
        } else if (a == "--worst-has") {
            const long c = std::stol(next());
            const JsonValue& vc = codelet(v, c);
            if (!vc["worst_set"].boolean_value() || vc["winner_set"].boolean_value())
                fail("codelet " + std::to_string(c) + " is not in the worst set alone");
            std::printf("worst set has %ld\n", c);
        } else if (a == "--ordered") {
            const std::vector<long> order = list(next());
            for (std::size_t k = 1; k < order.size(); ++k) {
                const JsonValue &a1 = codelet(v, order[k - 1]), &b1 = codelet(v, order[k]);
                std::printf("mean %ld %.6f < mean %ld %.6f, ranges [%.6f, %.6f] [%.6f, %.6f]\n",
                            order[k - 1], a1["mean"].num(), order[k], b1["mean"].num(),
                            a1["range"][0].num(), a1["range"][1].num(), b1["range"][0].num(),
                            b1["range"][1].num());
                if (!(a1["mean"].num() < b1["mean"].num())) fail("means not in that order");
            }
        } else if (a == "--false-ordering") {
            const long faster = std::stol(next()), slower = std::stol(next());
            const JsonValue& e = v["ranking_error"];
            if (e.is_null()) fail("no ranking error computed");
            bool found = false;
            for (const JsonValue& f : e["false_orderings"].array) {
                if (long(f["faster"].num()) != faster || long(f["slower"].num()) != slower)
                    continue;
                found = true;
                std::printf("false ordering %ld before %ld: e_min %g%%, e_avg %g%%, e_max %g%%\n",
                            faster, slower, f["e_min"].num(), f["e_avg"].num(), f["e_max"].num());
                if (!(f["e_avg"].num() > 0 && f["e_min"].num() <= f["e_avg"].num() &&
                      f["e_avg"].num() <= f["e_max"].num()))
                    fail("its weights are not 0 < e_min <= e_avg <= e_max");
                if (!(e["max_avg_percent"].num() >= f["e_avg"].num())) fail("max e_avg below it");
            }
            if (!found)
                fail("no false ordering of " + std::to_string(faster) + " and " +
                     std::to_string(slower));
        } else if (a == "--technique") {
            const std::string want = next();
            std::printf("technique: %s (expected %s)\n", v["technique"].str().c_str(),
                        want.c_str());
            if (v["technique"].str() != want) fail("another timing technique");
        } else if (a == "--no-false-orderings") {
            const JsonValue& e = v["ranking_error"];
            if (e.is_null()) fail("no ranking error computed");
            std::printf("ranking error: %zu false orderings, max e_avg %g%%\n",
                        e["false_orderings"].size(), e["max_avg_percent"].num());
            if (e["false_orderings"].size() != 0 || e["max_avg_percent"].num() != 0)
                fail("the search ranked separate codelets the other way round");
        } else {
            std::fprintf(stderr, "verification_check: unknown expectation '%s'\n", a.c_str());
            return 2;
        }
    }
    return 0;
}
