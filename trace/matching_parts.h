// What the matching's files share (trace/matching.cpp, trace/shared_collectives.cpp): a
// location's warnings, communicator ranks, its collective records, their numbering and
// warnings. Internal to the matching, not part of its interface (trace/matching.h).
#pragma once

#include "trace/bytes.h"
#include "trace/matching.h"
#include "trace/model.h"

#include <algorithm>
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

// ---------------------------------------------------------------- collectives

// A location's MpiCollectiveEnd record, as the matching of collectives takes it (on the
// rank that read the location: only trace/shared_collectives.cpp's WireEnd travels).
struct CollectiveEnd {
    uint32_t event;
    Ref comm;
    uint32_t root; // a rank of comm, or kNone
    CollectiveOp op;
    Time time;
};

// One collective end of a process, at the location (thread) that recorded it.
using ProcessEnd = std::pair<uint32_t, const CollectiveEnd*>;

// The root of `end`, recorded by `location`, as a world rank (kNone if rootless).
inline uint32_t collective_root(const Trace& trace, uint32_t location, const CollectiveEnd& end) {
    return world_rank(trace, end.comm, end.root, location);
}

// A process's collectives numbered per communicator: its k-th on a communicator is its part
// of the communicator's k-th collective. Restarted for each process.
class CollectiveSequence {
  public:
    struct Place {
        uint32_t rank;     // of the location in the communicator
        uint32_t instance; // the process's how-manieth there
    };
    explicit CollectiveSequence(size_t communicators) : next_(communicators, 0) {}
    void restart() { std::fill(next_.begin(), next_.end(), 0); }
    // `end`'s place; both kNone if `location` is not a member of its communicator, or the
    // communicator is unknown (which the reader rejects).
    Place take(CommRanks& ranks, uint32_t location, const CollectiveEnd& end) {
        if (end.comm >= next_.size()) return {kNone, kNone};
        const uint32_t rank = ranks.rank_of(end.comm, location);
        if (rank == kNone) return {kNone, kNone};
        return {rank, next_[end.comm]++};
    }
    // How many collectives the process reached on `comm` so far.
    uint32_t reached(Ref comm) const { return next_[comm]; }

  private:
    std::vector<uint32_t> next_; // per communicator
};

// The members of `c` that never reached it.
inline uint64_t missing_members(const CollectiveMatch& c) {
    return static_cast<uint64_t>(std::count_if(
        c.members.begin(), c.members.end(), [](const EventRef& m) { return m.location == kNone; }));
}

// The warnings about a collective end, by kind (the serial and the shared matching say the
// same, see MatcherImpl::collective and SharedCollectives::assemble_collectives).
template <class Sink>
void warn_outside_communicator(Sink& warnings, const Trace& trace, uint32_t location,
                               uint32_t event) {
    warnings.add("collective outside communicator",
                 where(trace, location, event) + ": collective on a communicator it is not in");
}

template <class Sink>
void warn_collective_mismatch(Sink& warnings, const Trace& trace, uint32_t location, uint32_t event,
                              uint32_t instance) {
    warnings.add("collective mismatch",
                 where(trace, location, event) + ": collective " + std::to_string(instance) +
                     " on this communicator differs from the other members' (operation or root)");
}

// Ids are 32 bits, kNone reserved: more `what` (messages, collectives, collective ends on
// one rank) than that is a trace too large for the analysis.
[[noreturn]] inline void throw_more_than_numbered(const Trace& trace, const std::string& what) {
    throw TraceError(trace.path + ": more than " + std::to_string(kNone - 1) + " " + what +
                     ": more than the analysis can number");
}

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
