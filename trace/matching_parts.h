// What the matching's files share (trace/matching.cpp, trace/shared_collectives.cpp): a
// location's warnings, its collective records and communicator ranks. Internal to the
// matching, not part of its interface (trace/matching.h).
#pragma once

#include "trace/bytes.h"
#include "trace/matching.h"
#include "trace/model.h"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace topolens::trace::detail {

constexpr size_t kMaxWarningsPerKind = 20; // enough to diagnose, not enough to drown

class Warnings {
  public:
    explicit Warnings(std::vector<std::string>& out) : out_(out) {}
    void add(const std::string& kind, const std::string& message) {
        const size_t n = ++counts_[kind];
        if (n <= kMaxWarningsPerKind) out_.push_back(message);
        if (n == kMaxWarningsPerKind + 1) out_.push_back(kind + ": further cases not listed");
    }

  private:
    std::vector<std::string>& out_;
    std::unordered_map<std::string, size_t> counts_;
};

// One location's warnings, found in a parallel pass and handed to Warnings later in
// location order; keeps enough per kind for Warnings to say that there were more.
class LocationWarnings {
  public:
    void add(const std::string& kind, const std::string& message) {
        if (++counts_[kind] <= kMaxWarningsPerKind + 1) kept_.push_back({kind, message});
    }
    void hand_to(Warnings& warnings) {
        for (const auto& [kind, message] : kept_) warnings.add(kind, message);
        kept_.clear();
        counts_.clear();
    }
    // To the rank that hands them over (the kept ones are all it needs).
    void write(ByteWriter& out) const {
        out.put<uint64_t>(kept_.size());
        for (const auto& [kind, message] : kept_) {
            out.put_string(kind);
            out.put_string(message);
        }
    }
    void read(ByteReader& in) {
        for (auto n = in.get<uint64_t>(); n > 0; --n) {
            std::string kind = in.get_string();
            kept_.push_back({std::move(kind), in.get_string()});
        }
    }

  private:
    std::vector<std::pair<std::string, std::string>> kept_;
    std::unordered_map<std::string, size_t> counts_;
};

inline std::string where(const Trace& trace, uint32_t location, uint32_t event) {
    return "location " + std::to_string(location) + " (rank " +
           std::to_string(trace.defs.locations[location].rank) + "), event " +
           std::to_string(event);
}

// ---------------------------------------------------------------- ranks

// Per communicator: world rank -> communicator rank, built on first use.
class CommRanks {
  public:
    explicit CommRanks(const Trace& trace)
        : trace_(trace), maps_(trace.defs.communicators.size()) {}
    // Communicator rank of `location` in `comm`, kNone if it is not a member.
    uint32_t rank_of(Ref comm, uint32_t location) {
        const Communicator& c = trace_.defs.communicators[comm];
        if (c.is_self) return 0;
        auto& map = maps_[comm];
        if (map.empty())
            for (uint32_t r = 0; r < c.members.size(); ++r) map.emplace(c.members[r], r);
        auto found = map.find(trace_.defs.locations[location].rank);
        return found == map.end() ? kNone : found->second;
    }

  private:
    const Trace& trace_;
    std::vector<std::unordered_map<uint32_t, uint32_t>> maps_;
};

// ---------------------------------------------------------------- messages
// A location's MpiCollectiveEnd record, as the merge of collectives needs it (also of a
// location another analyzer rank read).
struct CollectiveEnd {
    uint32_t event;
    Ref comm;
    uint32_t root; // a rank of comm, or kNone
    CollectiveOp op;
    Time time;
};

// A collective member's part spans its MpiCollectiveBegin and MpiCollectiveEnd records,
// where the trace has them (between the call's enter and the end record).
inline void collective_records(const std::vector<Event>& events, uint32_t enter, uint32_t end,
                               CallSummary& call) {
    for (uint32_t i = end; i-- > enter + 1;)
        if (events[i].kind == EventKind::MpiCollectiveBegin) {
            call.enter = events[i].time;
            call.leave = events[end].time;
            return;
        }
}

} // namespace topolens::trace::detail
