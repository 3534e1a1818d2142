#include "analyzer/parallel/mpi_exchange.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace topolens::parallel {

namespace {

// MPI counts are ints: buffers travel in pieces of at most this many bytes.
constexpr size_t kPiece = size_t{1} << 30;
constexpr int kTag = 24;

void check(int rc, const char* what) {
    if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

} // namespace

bool started_by_mpirun() {
    for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
        if (std::getenv(variable)) return true;
    return false;
}

MpiSession::MpiSession() {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    // Errors come back as codes, so a failed exchange is an exception, not an abort.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

MpiSession::~MpiSession() {
    MPI_Finalize();
}

MpiExchange::MpiExchange() {
    int rank = 0, size = 1;
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
    rank_ = static_cast<unsigned>(rank);
    size_ = static_cast<unsigned>(size);
}

std::vector<trace::Bytes> MpiExchange::transfer(std::vector<trace::Bytes> out) {
    std::vector<uint64_t> sizes(size_), incoming(size_);
    for (unsigned r = 0; r < size_; ++r) sizes[r] = out[r].size();
    check(MPI_Alltoall(sizes.data(), 1, MPI_UINT64_T, incoming.data(), 1, MPI_UINT64_T,
                       MPI_COMM_WORLD),
          "MPI_Alltoall");
    std::vector<trace::Bytes> in(size_);
    in[rank_] = std::move(out[rank_]);
    std::vector<MPI_Request> requests;
    for (unsigned r = 0; r < size_; ++r) {
        if (r == rank_) continue;
        in[r].resize(incoming[r]);
        for (size_t at = 0; at < incoming[r]; at += kPiece) {
            requests.emplace_back();
            check(MPI_Irecv(in[r].data() + at, static_cast<int>(std::min(kPiece, incoming[r] - at)),
                            MPI_BYTE, static_cast<int>(r), kTag, MPI_COMM_WORLD, &requests.back()),
                  "MPI_Irecv");
        }
    }
    for (unsigned r = 0; r < size_; ++r) {
        if (r == rank_) continue;
        for (size_t at = 0; at < out[r].size(); at += kPiece) {
            requests.emplace_back();
            check(MPI_Isend(out[r].data() + at,
                            static_cast<int>(std::min(kPiece, out[r].size() - at)), MPI_BYTE,
                            static_cast<int>(r), kTag, MPI_COMM_WORLD, &requests.back()),
                  "MPI_Isend");
        }
    }
    check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
          "MPI_Waitall");
    return in;
}

} // namespace topolens::parallel
