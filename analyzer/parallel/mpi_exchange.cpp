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

// Both transfers speak one protocol, so that a rank that fails (sending its reason through
// `transfer`) meets the others in whichever they are: the sizes by MPI_Alltoall, then the
// bytes point to point, in pieces.
std::vector<trace::Bytes> MpiExchange::exchange(const std::vector<const trace::Bytes*>& out,
                                                trace::Bytes* kept) {
    std::vector<uint64_t> sizes(size_), incoming(size_);
    for (unsigned r = 0; r < size_; ++r) sizes[r] = out[r]->size();
    check(MPI_Alltoall(sizes.data(), 1, MPI_UINT64_T, incoming.data(), 1, MPI_UINT64_T,
                       MPI_COMM_WORLD),
          "MPI_Alltoall");
    std::vector<trace::Bytes> in(size_);
    std::vector<MPI_Request> requests;
    auto piecewise = [&](auto* data, size_t bytes, unsigned r, auto start) {
        for (size_t at = 0; at < bytes; at += kPiece) {
            requests.emplace_back();
            check(start(data + at, static_cast<int>(std::min(kPiece, bytes - at)),
                        static_cast<int>(r), &requests.back()),
                  "MPI point-to-point");
        }
    };
    for (unsigned r = 0; r < size_; ++r) {
        if (r == rank_) continue;
        in[r].resize(incoming[r]);
        piecewise(in[r].data(), incoming[r], r, [](std::byte* at, int n, int from, MPI_Request* q) {
            return MPI_Irecv(at, n, MPI_BYTE, from, kTag, MPI_COMM_WORLD, q);
        });
    }
    for (unsigned r = 0; r < size_; ++r) {
        if (r == rank_) continue;
        piecewise(out[r]->data(), out[r]->size(), r,
                  [](const std::byte* at, int n, int to, MPI_Request* q) {
                      return MPI_Isend(at, n, MPI_BYTE, to, kTag, MPI_COMM_WORLD, q);
                  });
    }
    check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
          "MPI_Waitall");
    in[rank_] = std::move(*kept);
    return in;
}

std::vector<trace::Bytes> MpiExchange::transfer(std::vector<trace::Bytes> out) {
    std::vector<const trace::Bytes*> each(size_);
    for (unsigned r = 0; r < size_; ++r) each[r] = &out[r];
    return exchange(each, &out[rank_]);
}

// Every rank is sent the same buffer: it is not copied per rank.
std::vector<trace::Bytes> MpiExchange::transfer_to_all(trace::Bytes mine) {
    return exchange(std::vector<const trace::Bytes*>(size_, &mine), &mine);
}

} // namespace topolens::parallel
