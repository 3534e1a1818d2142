// Profile mode (TOPOLENS_MODE=profile): instead of (or beside) the trace, each location
// sums what happens per call path in a call-path tree, as Score-P's profiling does. A node
// is made the first time a call path is entered, never per visit, so the memory grows with
// the number of distinct call paths and not with the length of the run. At MPI_Finalize the
// trees go to rank 0, which writes them as one CUBE4 report (measure/profile_report.h).
#pragma once

#include "clock.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace topolens::measure {

// What a call path counts besides time and visits: the bytes and messages of the MPI
// calls made there, attributed as the trace's records are (a send to the call that sends,
// a nonblocking receive to the call that completes it, a collective to its call).
enum class Counter : uint8_t {
    BytesSent,          // point-to-point bytes sent
    BytesReceived,      // point-to-point bytes received
    BytesCollectiveOut, // bytes a collective sent
    BytesCollectiveIn,  // bytes a collective received
    SendsWithData,      // point-to-point sends of more than 0 bytes
    ReceivesWithData,   // point-to-point receives of more than 0 bytes
    SendsEmpty,         // point-to-point sends of 0 bytes (synchronisations)
    ReceivesEmpty,      // point-to-point receives of 0 bytes
    CollectiveExchange, // collectives that sent and received data
    CollectiveSource,   // collectives that only sent data
    CollectiveDest,     // collectives that only received data
    CollectiveSync,     // collectives that moved no data
    Count
};
inline constexpr size_t kCounters = static_cast<size_t>(Counter::Count);

struct CallNode {
    static constexpr uint32_t kNone = UINT32_MAX;
    uint32_t region = kNone; // local region id; kNone for the tree's root (above every region)
    uint32_t parent = kNone;
    uint32_t first_child = kNone;
    uint32_t next_sibling = kNone;
    uint64_t visits = 0;
    Timestamp inclusive = 0; // ticks from enter to leave, summed over visits
    Timestamp children = 0;  // of those, ticks spent in child call paths
    std::array<uint64_t, kCounters> counters{};
    Timestamp exclusive() const { return inclusive > children ? inclusive - children : 0; }
};

// One location's call-path tree. Not thread-safe: each location has its own.
class CallTree {
  public:
    CallTree();
    void enter(uint32_t region, Timestamp time);
    // Leaves the innermost open call path (a leave without an enter is ignored).
    void leave(Timestamp time);
    void count(Counter counter, uint64_t amount = 1) {
        nodes_[current_].counters[static_cast<size_t>(counter)] += amount;
    }
    // Point-to-point and collective records, as the trace has them.
    void sent(uint64_t bytes);
    void received(uint64_t bytes);
    void collective(uint64_t bytes_sent, uint64_t bytes_received);

    // nodes()[0] is the root; every other node's parent comes before it.
    const std::vector<CallNode>& nodes() const { return nodes_; }
    size_t open_calls() const { return stack_.size(); }

  private:
    struct Open {
        uint32_t node;
        Timestamp enter;
    };
    std::vector<CallNode> nodes_;
    std::vector<Open> stack_;
    uint32_t current_ = 0;
};

} // namespace topolens::measure
