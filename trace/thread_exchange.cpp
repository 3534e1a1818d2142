#include "trace/thread_exchange.h"

#include <exception>
#include <thread>

namespace topolens::trace {

class ThreadExchangeHub {
  public:
    explicit ThreadExchangeHub(unsigned ranks)
        : ranks(ranks), mail(ranks, std::vector<Bytes>(ranks)), sync(ranks) {}
    const unsigned ranks;
    std::vector<std::vector<Bytes>> mail; // [from][to]
    std::barrier<> sync;
};

ThreadExchange::ThreadExchange(std::shared_ptr<ThreadExchangeHub> hub, unsigned rank)
    : hub_(std::move(hub)), rank_(rank) {}

unsigned ThreadExchange::size() const {
    return hub_->ranks;
}

std::vector<Bytes> ThreadExchange::transfer(std::vector<Bytes> out) {
    for (unsigned to = 0; to < hub_->ranks; ++to) hub_->mail[rank_][to] = std::move(out[to]);
    hub_->sync.arrive_and_wait(); // every rank has posted
    std::vector<Bytes> in(hub_->ranks);
    for (unsigned from = 0; from < hub_->ranks; ++from)
        in[from] = std::move(hub_->mail[from][rank_]);
    hub_->sync.arrive_and_wait(); // every rank has taken its mail: the slots are free again
    return in;
}

void run_ranks_in_threads(unsigned ranks, const std::function<void(Exchange&)>& body) {
    auto hub = std::make_shared<ThreadExchangeHub>(ranks);
    std::vector<std::exception_ptr> errors(ranks);
    {
        std::vector<std::jthread> threads;
        for (unsigned r = 0; r < ranks; ++r)
            threads.emplace_back([&, r] {
                ThreadExchange exchange(hub, r);
                try {
                    exchange.run_agreed([&] { body(exchange); });
                } catch (...) {
                    errors[r] = std::current_exception();
                }
            });
    }
    for (const std::exception_ptr& error : errors)
        if (error) std::rethrow_exception(error);
}

} // namespace topolens::trace
