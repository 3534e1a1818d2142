// The 3D halo exchange of samples/autotune_halo and its codelets (see README.md).
//
// Every process owns an n x n x n block stored with a one-cell halo, (n+2)^3 doubles,
// index (x * (n+2) + y) * (n+2) + z. A codelet exchanges the six faces with the face
// neighbours of an MPI_Cart_create grid (MPI_PROC_NULL at the border of a non-periodic
// grid); edges and corners are not exchanged.
#ifndef AUTOTUNE_HALO_HALO_H
#define AUTOTUNE_HALO_HALO_H

#include <mpi.h>

#include <string>
#include <vector>

namespace halo {

constexpr int kDims = 3;

// The grid and the local block with everything the codelets need, built once.
class Exchange {
public:
    // Builds the periodic or non-periodic Cartesian grid over MPI_COMM_WORLD (collective).
    Exchange(int block, bool periodic);
    ~Exchange();
    Exchange(const Exchange&) = delete;
    Exchange& operator=(const Exchange&) = delete;

    static int codelet_count();
    static const char* codelet_name(int c);

    // One execution of codelet `c`: all six faces exchanged (collective over the grid).
    void run(int c);

    // Interior set to known values, halo to -1 (outside any timing).
    void reset();
    // Number of halo cells that differ from what the neighbours' interiors imply.
    long check() const;

    MPI_Comm comm() const { return comm_; }
    int rank() const { return rank_; }
    const int* dims() const { return dims_; }

private:
    double value(int owner, int x, int y, int z) const;
    long index(int x, int y, int z) const { return (long(x) * (n_ + 2) + y) * (n_ + 2) + z; }
    // Neighbour of this process on side s (0 = minus, 1 = plus) of dimension d.
    int neighbour(int d, int s) const { return nbr_[d][s]; }

    // Message of face (d, s): sent to neighbour(d, s) with tag kTag + 2d + s, received from
    // neighbour(d, 1 - s) with the same tag into the halo on side 1 - s.
    // Packed: through the face's MPI_PACKED buffers; else straight with the derived types.
    void post_recv(int d, int s, bool packed, MPI_Request* r);
    void start_send(int d, int s, bool packed, MPI_Request* r); // packs first if packed
    void unpack(int d, int s);
    void pack(int d, int s);
    void aao_isend_irecv(bool packed);
    void aao_send_irecv();
    void pair_isend_irecv(bool packed);
    void pair_send_irecv();
    void pair_send_recv(bool packed);
    void pair_sendrecv(bool packed);
    void put_fence();

    int n_;
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0;
    int dims_[kDims] = {0, 0, 0};
    int coords_[kDims] = {0, 0, 0};
    int nbr_[kDims][2];
    std::vector<double> a_;
    // Subarray types per dimension and side: the interior layer sent, the halo received.
    MPI_Datatype send_type_[kDims][2];
    MPI_Datatype halo_type_[kDims][2];
    // Pack buffers per face, for sending (by send side) and receiving (by send side).
    std::vector<char> send_buf_[kDims][2];
    std::vector<char> recv_buf_[kDims][2];
    int pack_size_ = 0;
    MPI_Win win_ = MPI_WIN_NULL;
};

} // namespace halo

#endif
