// The ranks of an MPI-parallel analysis, as the matching and the replay talk to each other:
// each rank holds a share of the trace's locations and exchanges, in bulk, what the other
// ranks' locations need. Implemented over MPI by the analyzer (analyzer/parallel/) and by
// threads of one process for tests (trace/thread_exchange.h); the trace library itself
// knows nothing of MPI.
//
// Failure: a rank that cannot go on (a damaged file, an error in a pattern) must not leave
// the others waiting in an exchange. It takes part in one more exchange, saying why it stops
// (fail); every rank that meets that exchange, whichever it is waiting in, throws
// ExchangeFailed with the reason of the lowest rank that failed, so all stop with one line.
// run_agreed wraps a rank's whole part of the work in that rule.
#pragma once

#include "trace/bytes.h"

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace topolens::trace {

// What every rank throws once a rank failed: that rank's reason (the lowest rank's, if
// several failed in the same exchange).
class ExchangeFailed : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class Exchange {
  public:
    virtual ~Exchange() = default;
    virtual unsigned rank() const = 0;
    virtual unsigned size() const = 0;
    // Collective: every rank gives one buffer per rank (`out[r]` goes to rank r) and gets
    // the buffers the others gave it, by source rank (its own included). Throws
    // ExchangeFailed if a rank failed instead.
    std::vector<Bytes> all_to_all(std::vector<Bytes> out);
    // Collective: every rank's buffer, by rank.
    std::vector<Bytes> all_gather(Bytes mine);

    // Collective: the error of the lowest rank that has one, on every rank, so that all
    // stop with the same line (and none waits in a collective for one that stopped).
    std::optional<std::string> first_error(const std::optional<std::string>& mine);

    // This rank stops for `why`: its last exchange, matching whichever the others are in.
    // Throws ExchangeFailed (the lowest failing rank's reason).
    [[noreturn]] void fail(const std::string& why);

    // Runs `body`, this rank's part of a collective job: an exception from it (other than
    // ExchangeFailed) fails the exchange, so every rank stops with it; a closing exchange
    // after it keeps a rank that is done from leaving one that fails later waiting.
    void run_agreed(const std::function<void()>& body);

  protected:
    // The backend's all-to-all of raw buffers: `out[r]` to rank r, by source rank.
    virtual std::vector<Bytes> transfer(std::vector<Bytes> out) = 0;
    // The same with one buffer for every rank; a backend that can send it as it is (without
    // a copy per rank) overrides it. Must match `transfer` on the other ranks (a rank that
    // fails sends its reason through `transfer` while others gather).
    virtual std::vector<Bytes> transfer_to_all(Bytes mine) {
        return transfer(std::vector<Bytes>(size(), mine));
    }
};

} // namespace topolens::trace
