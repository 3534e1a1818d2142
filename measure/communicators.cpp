#include "communicators.h"

namespace topolens::measure {

void Communicators::start(int world_rank) {
    world_rank_ = world_rank;
    ids_.clear();
    keys_ = {kWorldKey, kSelfKey};
    ids_[MPI_COMM_WORLD] = 0;
    ids_[MPI_COMM_SELF] = 1;
    owned_.clear();
}

uint32_t Communicators::add(MPI_Comm created, MPI_Comm parent, const char* how, std::mutex* guard) {
    auto lock = [guard] {
        return guard ? std::unique_lock<std::mutex>(*guard) : std::unique_lock<std::mutex>();
    };
    if (created == MPI_COMM_NULL) return kUnknown;
    int is_inter = 0;
    PMPI_Comm_test_inter(created, &is_inter);
    if (is_inter) return kUnknown; // intercommunicators are not described in OTF2 terms here

    int rank = 0;
    PMPI_Comm_rank(created, &rank);
    uint64_t key = 0;
    if (rank == 0) {
        auto locked = lock();
        key = (static_cast<uint64_t>(world_rank_) + 2) << 32 | created_here_++;
    }
    PMPI_Bcast(&key, 1, MPI_UINT64_T, 0, created);

    auto locked = lock();
    const uint32_t parent_id = local_id(parent);
    const uint32_t id = static_cast<uint32_t>(keys_.size());
    keys_.push_back(key);
    ids_[created] = id;
    const uint64_t parent_key = parent_id == kUnknown ? kWorldKey : keys_[parent_id];
    locked = {};

    if (rank == 0) {
        MPI_Group group, world_group;
        PMPI_Comm_group(created, &group);
        PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
        int size = 0;
        PMPI_Group_size(group, &size);
        std::vector<int> ranks(size), world_ranks(size);
        for (int r = 0; r < size; ++r) ranks[r] = r;
        PMPI_Group_translate_ranks(group, size, ranks.data(), world_group, world_ranks.data());
        PMPI_Group_free(&group);
        PMPI_Group_free(&world_group);
        CommDefinition def;
        def.key = key;
        def.parent_key = parent_key;
        def.how = how;
        def.members.assign(world_ranks.begin(), world_ranks.end());
        locked = lock();
        owned_.push_back(std::move(def));
    }
    return id;
}

void Communicators::remove(MPI_Comm comm) {
    // The local id stays valid for events already recorded; only the handle is forgotten,
    // because MPI may hand the same handle value to a later communicator.
    if (comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF) ids_.erase(comm);
}

} // namespace topolens::measure
