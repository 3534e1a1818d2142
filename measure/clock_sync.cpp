#include "clock_sync.h"

#include <cstring>
#include <limits>

namespace topolens::measure {

namespace {
constexpr int kRounds = 10; // the round trip with the least delay gives the estimate
constexpr int kTag = 7301;
} // namespace

std::vector<bool> shares_reference_clock(MPI_Comm comm) {
    int size = 1;
    PMPI_Comm_size(comm, &size);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    PMPI_Get_processor_name(name, &length);
    std::vector<char> all(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
    PMPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                   MPI_CHAR, comm);
    std::vector<bool> same(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r)
        same[r] = std::strncmp(all.data() + static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME,
                               all.data(), MPI_MAX_PROCESSOR_NAME) == 0;
    return same;
}

ClockSample measure_clock_offset(MPI_Comm comm, const std::vector<bool>& same_clock) {
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    ClockSample sample;
    if (rank == 0) {
        // Serve every process on another host in turn: answer each ping with our time.
        for (int peer = 1; peer < size; ++peer)
            for (int round = 0; round < kRounds && !same_clock[peer]; ++round) {
                char ping = 0;
                PMPI_Recv(&ping, 1, MPI_CHAR, peer, kTag, comm, MPI_STATUS_IGNORE);
                Timestamp reference = now();
                PMPI_Send(&reference, 1, MPI_UINT64_T, peer, kTag, comm);
            }
        sample.local_time = now();
        return sample;
    }
    if (same_clock[rank]) {
        sample.local_time = now();
        return sample;
    }
    uint64_t best_round_trip = std::numeric_limits<uint64_t>::max();
    for (int round = 0; round < kRounds; ++round) {
        char ping = 0;
        Timestamp reference = 0;
        const Timestamp sent = now();
        PMPI_Send(&ping, 1, MPI_CHAR, 0, kTag, comm);
        PMPI_Recv(&reference, 1, MPI_UINT64_T, 0, kTag, comm, MPI_STATUS_IGNORE);
        const Timestamp received = now();
        if (received - sent < best_round_trip) {
            best_round_trip = received - sent;
            sample.local_time = sent + (received - sent) / 2;
            sample.offset =
                static_cast<int64_t>(reference) - static_cast<int64_t>(sample.local_time);
            sample.deviation = static_cast<double>(best_round_trip) / 2.0;
        }
    }
    return sample;
}

} // namespace topolens::measure
