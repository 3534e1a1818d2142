// An Exchange among threads of one process: the ranks of an MPI-parallel analysis without
// MPI, so that tests can run its distributed parts under the sanitizers, exactly.
#pragma once

#include "trace/exchange.h"

#include <barrier>
#include <functional>
#include <memory>

namespace topolens::trace {

class ThreadExchangeHub; // what the ranks of one group share

class ThreadExchange : public Exchange {
  public:
    ThreadExchange(std::shared_ptr<ThreadExchangeHub> hub, unsigned rank);
    unsigned rank() const override { return rank_; }
    unsigned size() const override;
    std::vector<Bytes> all_to_all(std::vector<Bytes> out) override;
    std::vector<Bytes> all_gather(Bytes mine) override;

  private:
    std::shared_ptr<ThreadExchangeHub> hub_;
    unsigned rank_;
};

// Runs `body` in `ranks` threads, each with its rank's exchange; rethrows the error of the
// lowest rank that threw (the others must then have stopped too, through first_error).
void run_ranks_in_threads(unsigned ranks, const std::function<void(Exchange&)>& body);

} // namespace topolens::trace
