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

  protected:
    std::vector<Bytes> transfer(std::vector<Bytes> out) override;

  private:
    std::shared_ptr<ThreadExchangeHub> hub_;
    unsigned rank_;
};

// Runs `body` in `ranks` threads, each with its rank's exchange, as Exchange::run_agreed
// (an error on one rank stops every rank with it); rethrows the lowest rank's error.
void run_ranks_in_threads(unsigned ranks, const std::function<void(Exchange&)>& body);

} // namespace topolens::trace
