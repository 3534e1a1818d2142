// The collectives of a matching shared out among analyzer ranks (Matcher::finish with an
// Exchange): each rank gathers how many collectives every process reached on each of its
// communicators, numbers the collectives as the serial matching does, and hears the ends
// of the collectives its locations take part in from the ranks of the other members.
#pragma once

#include "trace/bytes.h"
#include "trace/exchange.h"
#include "trace/location_shares.h"
#include "trace/matching.h"
#include "trace/matching_parts.h"
#include "trace/model.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace topolens::trace::detail {

// A collective with members missing, made by a process of some rank: warned about in the
// serial order (by id) once every rank's are known.
struct IncompleteCollective {
    uint32_t id;
    Ref comm;
    uint64_t missing;
};

// One rank's part of the shared collectives: add_process for each of its processes, the
// ranks gather counts(), then assemble() fills the matching's collectives.
class SharedCollectives {
  public:
    // `matching`: this rank's, its share's call path numbers leading into the rank's call
    // tree (the ends carry these); its collectives are filled by assemble().
    // `first_of_process`: per location of the trace, its process's first location.
    SharedCollectives(const Trace& trace, Matching& matching, CommRanks& ranks,
                      const std::vector<uint32_t>& first_of_process, LocationShare share);
    ~SharedCollectives();

    // Each of this rank's processes in location order (its first location), with its
    // collective ends in the order the matching takes them (its threads' by time).
    void add_process(uint32_t first, const std::vector<ProcessEnd>& ends);
    // Per process, how many collectives it reached on each communicator: what every rank
    // gathers (after its share) to number the collectives.
    const Bytes& counts() const { return counts_; }

    struct Found {
        // Per process of this rank (first location): the warnings of its collectives.
        std::vector<std::pair<uint32_t, LocationWarnings>> warnings;
        // Those this rank's processes made.
        std::vector<IncompleteCollective> incomplete;
    };
    // With every rank's share and counts (by rank; each a LocationShare, then the rank's
    // counts()), the matching's `shares` known: fills the matching's collectives,
    // member_calls, global_collective_ids and collectives_of (of the share), and the bytes
    // and ends received. Collective.
    // member_calls are left half done: each call path is a node of its member's rank's
    // tree, and the region is set for this rank's members only; the caller leads them into
    // the trace's tree once it is known, and sets each region from its call path
    // (MatcherImpl::complete_shared).
    Found assemble(Exchange& exchange, const std::vector<Bytes>& shares_and_counts);

  private:
    struct OwnEnd;
    struct SharedEnd;
    struct MakerRecord;
    // The ends of the collectives this rank takes part in, and what their makers tell.
    struct Received {
        std::vector<SharedEnd> ends;
        std::vector<MakerRecord> makers;
    };
    // Per communicator: (rank, the most collectives a process of that rank reaches there),
    // by rank.
    using Reach = std::vector<std::vector<std::pair<uint32_t, uint32_t>>>;

    Reach number_collectives(unsigned me, const std::vector<Bytes>& shares_and_counts);
    Received exchange_collective_ends(Exchange& exchange, const Reach& reach);
    void assemble_collectives(unsigned me, const Reach& reach, const Received& received,
                              Found& found);
    void number_made(std::vector<OwnEnd>& ends, const std::vector<uint32_t>& reached_before,
                     uint64_t first) const;
    SharedEnd shared_end(const OwnEnd& x) const;
    bool is_self(Ref comm) const;
    bool travels(const OwnEnd& x) const;
    bool is_local(uint32_t loc) const { return loc >= share_.first && loc < share_.last; }

    const Trace& trace_;
    Matching& m_;
    CommRanks& ranks_;
    const std::vector<uint32_t>& first_of_process_;
    const LocationShare share_;
    Bytes counts_;
    // This rank's processes (first locations) and their collective ends.
    std::vector<uint32_t> own_processes_;
    std::vector<std::vector<OwnEnd>> own_ends_;
};

} // namespace topolens::trace::detail
