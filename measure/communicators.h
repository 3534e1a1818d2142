// Which communicators this process knows, under which local id, and how they are
// identified across processes (a key agreed on by all members when the communicator is made).
#pragma once

#include "definitions.h"

#include <mpi.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace topolens::measure {

class Communicators {
  public:
    static constexpr uint32_t kUnknown = UINT32_MAX;

    void start(int world_rank);

    // Local id of `comm`, kUnknown for communicators created outside our view.
    uint32_t local_id(MPI_Comm comm) const {
        if (comm == MPI_COMM_WORLD) return 0;
        auto found = ids_.find(comm);
        return found == ids_.end() ? kUnknown : found->second;
    }

    // Collective over `created` (a no-op on MPI_COMM_NULL): agrees on a key, and the new
    // communicator's rank 0 keeps its definition. Returns the local id or kUnknown.
    // `guard` (threaded levels) is held around the table's changes, not the communication.
    uint32_t add(MPI_Comm created, MPI_Comm parent, const char* how, std::mutex* guard = nullptr);
    uint64_t key_of(uint32_t local_id) const { return keys_.at(local_id); }
    void remove(MPI_Comm comm);

    const std::vector<uint64_t>& keys() const { return keys_; }
    const std::vector<CommDefinition>& owned() const { return owned_; }

  private:
    int world_rank_ = 0;
    uint32_t created_here_ = 0;
    std::unordered_map<MPI_Comm, uint32_t> ids_;
    std::vector<uint64_t> keys_; // local id -> key
    std::vector<CommDefinition> owned_;
};

} // namespace topolens::measure
