// The codelets of the 3D halo exchange (see halo.h and README.md).
#include "halo.h"

namespace halo {

namespace {

constexpr int kTag = 20;

const char* const kNames[] = {
    "aao_isend_irecv_ddt",  "aao_isend_irecv_pack", "aao_send_irecv_ddt",
    "pair_isend_irecv_ddt", "pair_isend_irecv_pack", "pair_send_irecv_ddt",
    "pair_send_recv_ddt",   "pair_send_recv_pack",   "pair_sendrecv_ddt",
    "pair_sendrecv_pack",   "put_fence_ddt",
};
constexpr int kCount = int(sizeof(kNames) / sizeof(kNames[0]));

int tag(int d, int s) { return kTag + 2 * d + s; }

} // namespace

int Exchange::codelet_count() { return kCount; }

const char* Exchange::codelet_name(int c) { return c >= 0 && c < kCount ? kNames[c] : "?"; }

Exchange::Exchange(int block, bool periodic) : n_(block) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, kDims, dims_);
    int periods[kDims];
    for (int d = 0; d < kDims; ++d) periods[d] = periodic ? 1 : 0;
    MPI_Cart_create(MPI_COMM_WORLD, kDims, dims_, periods, 0, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Cart_coords(comm_, rank_, kDims, coords_);
    for (int d = 0; d < kDims; ++d) MPI_Cart_shift(comm_, d, 1, &nbr_[d][0], &nbr_[d][1]);

    const int full = n_ + 2;
    a_.assign(std::size_t(full) * full * full, -1.0);
    const int sizes[kDims] = {full, full, full};
    for (int d = 0; d < kDims; ++d) {
        for (int s = 0; s < 2; ++s) {
            int sub[kDims], send_start[kDims], halo_start[kDims];
            for (int e = 0; e < kDims; ++e) sub[e] = n_, send_start[e] = halo_start[e] = 1;
            sub[d] = 1;
            send_start[d] = s == 0 ? 1 : n_;      // the interior layer next to side s
            halo_start[d] = s == 0 ? 0 : n_ + 1;  // the halo layer on side s
            MPI_Type_create_subarray(kDims, sizes, sub, send_start, MPI_ORDER_C, MPI_DOUBLE,
                                     &send_type_[d][s]);
            MPI_Type_commit(&send_type_[d][s]);
            MPI_Type_create_subarray(kDims, sizes, sub, halo_start, MPI_ORDER_C, MPI_DOUBLE,
                                     &halo_type_[d][s]);
            MPI_Type_commit(&halo_type_[d][s]);
        }
    }
    MPI_Pack_size(1, send_type_[0][0], comm_, &pack_size_);
    for (int d = 0; d < kDims; ++d)
        for (int s = 0; s < 2; ++s) {
            send_buf_[d][s].assign(std::size_t(pack_size_), 0);
            recv_buf_[d][s].assign(std::size_t(pack_size_), 0);
        }
    MPI_Win_create(a_.data(), MPI_Aint(a_.size() * sizeof(double)), int(sizeof(double)),
                   MPI_INFO_NULL, comm_, &win_);
}

Exchange::~Exchange() {
    MPI_Win_free(&win_);
    for (int d = 0; d < kDims; ++d)
        for (int s = 0; s < 2; ++s) {
            MPI_Type_free(&send_type_[d][s]);
            MPI_Type_free(&halo_type_[d][s]);
        }
    MPI_Comm_free(&comm_);
}

double Exchange::value(int owner, int x, int y, int z) const {
    return double(owner) * 1e8 + double(index(x, y, z));
}

void Exchange::reset() {
    for (int x = 0; x < n_ + 2; ++x)
        for (int y = 0; y < n_ + 2; ++y)
            for (int z = 0; z < n_ + 2; ++z) {
                const bool interior = x >= 1 && x <= n_ && y >= 1 && y <= n_ && z >= 1 && z <= n_;
                a_[std::size_t(index(x, y, z))] = interior ? value(rank_, x, y, z) : -1.0;
            }
}

long Exchange::check() const {
    long bad = 0;
    for (int d = 0; d < kDims; ++d)
        for (int s = 0; s < 2; ++s) {
            const int from = nbr_[d][s]; // the halo on side s holds this neighbour's layer
            for (int u = 1; u <= n_; ++u)
                for (int v = 1; v <= n_; ++v) {
                    int c[kDims], src[kDims];
                    for (int e = 0, k = 0; e < kDims; ++e) {
                        if (e == d) continue;
                        c[e] = src[e] = k++ == 0 ? u : v;
                    }
                    c[d] = s == 0 ? 0 : n_ + 1;
                    src[d] = s == 0 ? n_ : 1; // the neighbour's interior layer facing us
                    const double want =
                        from == MPI_PROC_NULL ? -1.0 : value(from, src[0], src[1], src[2]);
                    if (a_[std::size_t(index(c[0], c[1], c[2]))] != want) ++bad;
                }
        }
    return bad;
}

void Exchange::post_recv(int d, int s, bool packed, MPI_Request* r) {
    if (packed)
        MPI_Irecv(recv_buf_[d][s].data(), pack_size_, MPI_PACKED, nbr_[d][1 - s], tag(d, s),
                  comm_, r);
    else
        MPI_Irecv(a_.data(), 1, halo_type_[d][1 - s], nbr_[d][1 - s], tag(d, s), comm_, r);
}

void Exchange::start_send(int d, int s, bool packed, MPI_Request* r) {
    if (packed) {
        pack(d, s);
        MPI_Isend(send_buf_[d][s].data(), pack_size_, MPI_PACKED, nbr_[d][s], tag(d, s), comm_,
                  r);
    } else {
        MPI_Isend(a_.data(), 1, send_type_[d][s], nbr_[d][s], tag(d, s), comm_, r);
    }
}

void Exchange::unpack(int d, int s) {
    if (nbr_[d][1 - s] == MPI_PROC_NULL) return;
    int pos = 0;
    MPI_Unpack(recv_buf_[d][s].data(), pack_size_, &pos, a_.data(), 1, halo_type_[d][1 - s],
               comm_);
}

void Exchange::pack(int d, int s) {
    int pos = 0;
    MPI_Pack(a_.data(), 1, send_type_[d][s], send_buf_[d][s].data(), pack_size_, &pos, comm_);
}

// All six faces at once: 6 Irecv, 6 Isend, one Waitall.
void Exchange::aao_isend_irecv(bool packed) {
    MPI_Request req[4 * kDims];
    int k = 0;
    for (int d = 0; d < kDims; ++d)
        for (int s = 0; s < 2; ++s) post_recv(d, s, packed, &req[k++]);
    for (int d = 0; d < kDims; ++d)
        for (int s = 0; s < 2; ++s) start_send(d, s, packed, &req[k++]);
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    if (packed)
        for (int d = 0; d < kDims; ++d)
            for (int s = 0; s < 2; ++s) unpack(d, s);
}

// All six receives posted, then six blocking sends (safe: every peer posted its receives).
void Exchange::aao_send_irecv() {
    MPI_Request req[2 * kDims];
    int k = 0;
    for (int d = 0; d < kDims; ++d)
        for (int s = 0; s < 2; ++s) post_recv(d, s, false, &req[k++]);
    for (int d = 0; d < kDims; ++d)
        for (int s = 0; s < 2; ++s)
            MPI_Send(a_.data(), 1, send_type_[d][s], nbr_[d][s], tag(d, s), comm_);
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
}

// One dimension after the other, each with Irecv/Isend and a Waitall.
void Exchange::pair_isend_irecv(bool packed) {
    for (int d = 0; d < kDims; ++d) {
        MPI_Request req[4];
        int k = 0;
        for (int s = 0; s < 2; ++s) post_recv(d, s, packed, &req[k++]);
        for (int s = 0; s < 2; ++s) start_send(d, s, packed, &req[k++]);
        MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        if (packed)
            for (int s = 0; s < 2; ++s) unpack(d, s);
    }
}

// Per dimension: two Irecv, two blocking Send, Waitall.
void Exchange::pair_send_irecv() {
    for (int d = 0; d < kDims; ++d) {
        MPI_Request req[2];
        for (int s = 0; s < 2; ++s) post_recv(d, s, false, &req[s]);
        for (int s = 0; s < 2; ++s)
            MPI_Send(a_.data(), 1, send_type_[d][s], nbr_[d][s], tag(d, s), comm_);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
}

// Per dimension and direction, blocking Send and Recv ordered by coordinate parity: even
// processes send first, odd ones receive first (deadlock-free on chains and rings of any
// length). A process that is its own neighbour (periodic dimension of size 1) uses
// MPI_Sendrecv for that face.
void Exchange::pair_send_recv(bool packed) {
    for (int d = 0; d < kDims; ++d) {
        const bool even = coords_[d] % 2 == 0;
        for (int s = 0; s < 2; ++s) {
            const int to = nbr_[d][s], from = nbr_[d][1 - s];
            if (packed) pack(d, s);
            const void* sbuf = packed ? static_cast<const void*>(send_buf_[d][s].data())
                                      : static_cast<const void*>(a_.data());
            const int scount = packed ? pack_size_ : 1;
            const MPI_Datatype stype = packed ? MPI_PACKED : send_type_[d][s];
            void* rbuf = packed ? static_cast<void*>(recv_buf_[d][s].data())
                                : static_cast<void*>(a_.data());
            const int rcount = packed ? pack_size_ : 1;
            const MPI_Datatype rtype = packed ? MPI_PACKED : halo_type_[d][1 - s];
            if (to == rank_) {
                MPI_Sendrecv(sbuf, scount, stype, to, tag(d, s), rbuf, rcount, rtype, from,
                             tag(d, s), comm_, MPI_STATUS_IGNORE);
            } else if (even) {
                MPI_Send(sbuf, scount, stype, to, tag(d, s), comm_);
                MPI_Recv(rbuf, rcount, rtype, from, tag(d, s), comm_, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rbuf, rcount, rtype, from, tag(d, s), comm_, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, scount, stype, to, tag(d, s), comm_);
            }
            if (packed) unpack(d, s);
        }
    }
}

// Per dimension and direction, one MPI_Sendrecv.
void Exchange::pair_sendrecv(bool packed) {
    for (int d = 0; d < kDims; ++d)
        for (int s = 0; s < 2; ++s) {
            if (packed) {
                pack(d, s);
                MPI_Sendrecv(send_buf_[d][s].data(), pack_size_, MPI_PACKED, nbr_[d][s],
                             tag(d, s), recv_buf_[d][s].data(), pack_size_, MPI_PACKED,
                             nbr_[d][1 - s], tag(d, s), comm_, MPI_STATUS_IGNORE);
                unpack(d, s);
            } else {
                MPI_Sendrecv(a_.data(), 1, send_type_[d][s], nbr_[d][s], tag(d, s), a_.data(),
                             1, halo_type_[d][1 - s], nbr_[d][1 - s], tag(d, s), comm_,
                             MPI_STATUS_IGNORE);
            }
        }
}

// One-sided: each face put straight into the neighbour's halo, between two fences.
void Exchange::put_fence() {
    MPI_Win_fence(0, win_);
    for (int d = 0; d < kDims; ++d)
        for (int s = 0; s < 2; ++s)
            MPI_Put(a_.data(), 1, send_type_[d][s], nbr_[d][s], 0, 1, halo_type_[d][1 - s],
                    win_);
    MPI_Win_fence(0, win_);
}

void Exchange::run(int c) {
    switch (c) {
    case 0: aao_isend_irecv(false); break;
    case 1: aao_isend_irecv(true); break;
    case 2: aao_send_irecv(); break;
    case 3: pair_isend_irecv(false); break;
    case 4: pair_isend_irecv(true); break;
    case 5: pair_send_irecv(); break;
    case 6: pair_send_recv(false); break;
    case 7: pair_send_recv(true); break;
    case 8: pair_sendrecv(false); break;
    case 9: pair_sendrecv(true); break;
    default: put_fence(); break;
    }
}

} // namespace halo
