// TRACE-like conjugate-gradient skeleton on a 3D process grid (see README.md).
//
// Each iteration: a halo exchange with the up to six face neighbours (MPI_Isend/MPI_Irecv/
// MPI_Waitall), a local computation whose cost grows with the number of neighbours (each
// halo face is work), then an MPI_Allreduce, the CG dot product. Processes with fewer
// neighbours — corners of a non-periodic grid — reach the Allreduce first and wait there
// longest: the "Wait at N×N by grid role" finding of Bhatia et al. 2005 on TRACE.
#include "../common/sample_args.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* const kUsage =
    "usage: cg3d [--dims X,Y,Z] [--periodic] [--iterations N] [--work-us US] [--base-us US]\n"
    "            [--jitter-us US] [--compute busy|sleep] [--face DOUBLES] [--expect FILE]\n";

constexpr int kDims = 3;
constexpr int kTagBase = 10; // tag of a halo message: kTagBase + 2 * axis + (1 if it travels -)

struct Options {
    int dims[kDims] = {0, 0, 0}; // 0: chosen by MPI_Dims_create
    bool periodic = false;
    int iterations = 20;
    int work_us = 2000; // per neighbour
    int base_us = 1000; // every process
    int jitter_us = -1; // extra per process and iteration in [0, jitter); -1: 6 x work_us
    bool sleep = true;  // --compute busy spins instead
    int face = 256;     // doubles per halo message
    std::string expect;
};

using topolens::samples::parse_int;

// Returns an error message, empty when the options are valid ("help" for --help).
std::string parse_options(int argc, char** argv, Options& o) {
    auto value = [&](int& i) -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        int* number = nullptr;
        int min = 0;
        if (a == "--iterations")
            number = &o.iterations, min = 1;
        else if (a == "--work-us")
            number = &o.work_us;
        else if (a == "--base-us")
            number = &o.base_us;
        else if (a == "--jitter-us")
            number = &o.jitter_us;
        else if (a == "--face")
            number = &o.face, min = 1;
        if (number) {
            const char* v = value(i);
            if (!v) return a + " needs a value";
            if (!parse_int(v, min, *number)) return a + ": bad value '" + v + "'";
        } else if (a == "--dims") {
            const char* v = value(i);
            if (!v) return "--dims needs a value";
            // X,Y,Z; 0 leaves an axis to MPI_Dims_create.
            const std::string bad = std::string("--dims: bad value '") + v + "' (want X,Y,Z)";
            std::string rest = v;
            for (int d = 0; d < kDims; ++d) {
                const size_t comma = rest.find(',');
                if ((comma == std::string::npos) != (d == kDims - 1)) return bad;
                if (!parse_int(rest.substr(0, comma).c_str(), 0, o.dims[d])) return bad;
                rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
            }
        } else if (a == "--compute") {
            if (std::string err = topolens::samples::parse_compute(value(i), o.sleep); !err.empty())
                return err;
        } else if (a == "--periodic") {
            o.periodic = true;
        } else if (a == "--expect") {
            const char* v = value(i);
            if (!v) return "--expect needs a file name";
            o.expect = v;
        } else if (a == "--help" || a == "-h") {
            return "help";
        } else {
            return "unknown option '" + a + "'";
        }
    }
    return {};
}

// splitmix64: a reproducible pseudo-random number per (rank, iteration), so a run's load
// imbalance can be recomputed and does not depend on any library's generator.
uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

int jitter_us(int max_us, int rank, int iteration) {
    if (max_us <= 0) return 0;
    const uint64_t h = mix((static_cast<uint64_t>(rank) << 32) ^ static_cast<uint32_t>(iteration));
    return static_cast<int>(h % static_cast<uint64_t>(max_us));
}

// The local work for `us` microseconds of wall-clock time: Jacobi sweeps over the local
// vector with the halo faces as boundary values, a real loop (not a sleep) unless `sleep`.
// Wall-clock, not CPU time: on an oversubscribed machine the cost stays what the options say.
void compute(long long us, bool sleep, const std::vector<std::vector<double>>& halos,
             std::vector<double>& u) {
    using clock = std::chrono::steady_clock;
    const auto until = clock::now() + std::chrono::microseconds(us);
    double boundary = 0.0;
    size_t faces = 0;
    for (const auto& h : halos)
        if (!h.empty()) boundary += h[0] + h[h.size() / 2], faces += 2;
    if (faces) boundary /= static_cast<double>(faces);
    if (sleep) {
        std::this_thread::sleep_until(until);
        u[0] = 0.5 * (u[0] + boundary);
        return;
    }
    do {
        double left = boundary;
        for (size_t k = 0; k < u.size(); ++k) {
            const double right = k + 1 < u.size() ? u[k + 1] : boundary;
            const double next = 0.25 * (left + right) + 0.5 * u[k];
            left = u[k];
            u[k] = next;
        }
    } while (clock::now() < until);
}

struct Neighbour {
    int rank = MPI_PROC_NULL; // in the Cartesian communicator
    int send_tag = 0, recv_tag = 0;
};

struct PerRank {
    int world_rank = 0, topo_rank = 0;
    int coords[kDims] = {0, 0, 0};
    int neighbours = 0, role = 0;
    int sends = 0, recvs = 0, collectives = 0;
    double inside_allreduce = 0.0; // seconds, MPI_Wtime around the calls
};

constexpr const char* kRoleNames[] = {"corner", "edge", "face", "interior"};

// The process's topological role as DESIGN's grid roles define it: b = number of axes on
// which it lies on a boundary (axes of size 1 and periodic axes have none), n = axes of
// size > 1; b = 0 interior, b = n corner, else edge (n = 3, b = 2 or n = 2, b = 1) or face.
int role_of(const int dims[kDims], const int periods[kDims], const int coords[kDims]) {
    int n = 0, b = 0;
    for (int d = 0; d < kDims; ++d) {
        if (dims[d] <= 1) continue;
        ++n;
        if (!periods[d] && (coords[d] == 0 || coords[d] == dims[d] - 1)) ++b;
    }
    if (b == 0) return 3;
    if (b == n) return 0;
    return (n == 3 && b == 1) ? 2 : 1;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int world_rank = 0, world_size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    // Every rank parses the same arguments, so every rank reaches the same verdict.
    Options opt;
    std::string err = parse_options(argc, argv, opt);
    int dims[kDims] = {opt.dims[0], opt.dims[1], opt.dims[2]};
    if (err.empty() && opt.jitter_us < 0) opt.jitter_us = 6 * opt.work_us;
    if (err.empty()) {
        // The product of the given sizes must divide the process count (equal it when all
        // are given); compared step by step so that huge sizes cannot overflow it.
        int fixed = 1;
        bool fits = true, all_fixed = true;
        for (int d : dims) {
            if (d == 0)
                all_fixed = false;
            else if (fixed > world_size / d)
                fits = false;
            else
                fixed *= d;
        }
        if (!fits || world_size % fixed != 0 || (all_fixed && fixed != world_size))
            err = "--dims " + std::to_string(dims[0]) + "," + std::to_string(dims[1]) + "," +
                  std::to_string(dims[2]) + " does not fit " + std::to_string(world_size) +
                  " processes";
        else
            MPI_Dims_create(world_size, kDims, dims);
    }
    if (!err.empty()) {
        if (world_rank == 0) {
            if (err != "help") std::fprintf(stderr, "cg3d: %s\n", err.c_str());
            std::fputs(kUsage, err == "help" ? stdout : stderr);
        }
        MPI_Finalize();
        return err == "help" ? 0 : 2;
    }

    int periods[kDims];
    for (int& p : periods) p = opt.periodic ? 1 : 0;
    MPI_Comm cart = MPI_COMM_NULL;
    MPI_Cart_create(MPI_COMM_WORLD, kDims, dims, periods, /*reorder=*/1, &cart);
    PerRank me;
    me.world_rank = world_rank;
    MPI_Comm_rank(cart, &me.topo_rank);
    MPI_Cart_coords(cart, me.topo_rank, kDims, me.coords);
    me.role = role_of(dims, periods, me.coords);

    // Face neighbours: per axis the lower (source of the message travelling +) and the upper
    // one. A periodic axis of size 1 would make the process its own neighbour: no halo there.
    std::vector<Neighbour> neighbours;
    for (int d = 0; d < kDims; ++d) {
        int lower = MPI_PROC_NULL, upper = MPI_PROC_NULL;
        MPI_Cart_shift(cart, d, 1, &lower, &upper);
        const int plus = kTagBase + 2 * d, minus = plus + 1;
        // Towards the upper neighbour travels +, what comes back from it travels -.
        if (upper != MPI_PROC_NULL && upper != me.topo_rank)
            neighbours.push_back({upper, plus, minus});
        if (lower != MPI_PROC_NULL && lower != me.topo_rank)
            neighbours.push_back({lower, minus, plus});
    }
    me.neighbours = static_cast<int>(neighbours.size());

    std::vector<double> u(4096);
    for (size_t k = 0; k < u.size(); ++k) u[k] = 1.0 + 1e-3 * static_cast<double>(k % 97);
    std::vector<std::vector<double>> out(neighbours.size(), std::vector<double>(opt.face));
    std::vector<std::vector<double>> halos(neighbours.size(), std::vector<double>(opt.face));
    std::vector<MPI_Request> requests(2 * neighbours.size());
    double dot = 0.0;
    const double t0 = MPI_Wtime();
    for (int it = 0; it < opt.iterations; ++it) {
        // Halo exchange: receives first, so no message waits for a matching receive.
        for (size_t k = 0; k < neighbours.size(); ++k) {
            MPI_Irecv(halos[k].data(), opt.face, MPI_DOUBLE, neighbours[k].rank,
                      neighbours[k].recv_tag, cart, &requests[k]);
            ++me.recvs;
        }
        for (size_t k = 0; k < neighbours.size(); ++k) {
            std::copy_n(u.begin(), std::min(u.size(), out[k].size()), out[k].begin());
            MPI_Isend(out[k].data(), opt.face, MPI_DOUBLE, neighbours[k].rank,
                      neighbours[k].send_tag, cart, &requests[neighbours.size() + k]);
            ++me.sends;
        }
        MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);

        // Work grows with the halo faces to process; the jitter is load imbalance that has
        // nothing to do with the grid, so that the interior waits too now and then.
        const int us =
            opt.base_us + opt.work_us * me.neighbours + jitter_us(opt.jitter_us, world_rank, it);
        compute(us, opt.sleep, halos, u);

        // The CG dot product: every process needs the global value before going on.
        double local = 0.0;
        for (double v : u) local += v * v;
        const double before = MPI_Wtime();
        MPI_Allreduce(&local, &dot, 1, MPI_DOUBLE, MPI_SUM, cart);
        me.inside_allreduce += MPI_Wtime() - before;
        ++me.collectives;
    }
    const double elapsed = MPI_Wtime() - t0;

    if (!opt.expect.empty()) {
        // The gather is itself a traced collective: count it before sending the counts.
        ++me.collectives;
        std::vector<PerRank> all(world_rank == 0 ? world_size : 0);
        MPI_Gather(&me, sizeof me, MPI_BYTE, all.data(), sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (world_rank == 0) {
            FILE* f = std::fopen(opt.expect.c_str(), "w");
            if (!f) {
                std::perror(opt.expect.c_str());
            } else {
                std::fprintf(f, "# topolens expected trace content and grid roles (cg3d)\n");
                std::fprintf(f, "sample cg3d\nranks %d\n", world_size);
                std::fprintf(f, "topology MPI_Cart_create 1\nndims 3\n");
                std::fprintf(f, "dims %d %d %d\nperiods %d %d %d\n", dims[0], dims[1], dims[2],
                             periods[0], periods[1], periods[2]);
                std::fprintf(f, "iterations %d\nwork_us %d\nbase_us %d\njitter_us %d\n",
                             opt.iterations, opt.work_us, opt.base_us, opt.jitter_us);
                for (const PerRank& r : all)
                    std::fprintf(f,
                                 "rank %d topo_rank %d sends %d recvs %d collectives %d "
                                 "coords %d %d %d\n",
                                 r.world_rank, r.topo_rank, r.sends, r.recvs, r.collectives,
                                 r.coords[0], r.coords[1], r.coords[2]);
                for (const PerRank& r : all)
                    std::fprintf(f, "role %d %s neighbours %d\n", r.world_rank, kRoleNames[r.role],
                                 r.neighbours);
                for (const PerRank& r : all)
                    std::fprintf(f, "inside %d MPI_Allreduce %.6f\n", r.world_rank,
                                 r.inside_allreduce);
                std::fclose(f);
            }
        }
    }

    if (world_rank == 0)
        std::printf("cg3d: %dx%dx%d grid (%s), %d iterations, %d us + %d us/neighbour "
                    "+ jitter < %d us (%s), dot %.6g, %.3f s\n",
                    dims[0], dims[1], dims[2], opt.periodic ? "periodic" : "non-periodic",
                    opt.iterations, opt.base_us, opt.work_us, opt.jitter_us,
                    opt.sleep ? "sleep" : "busy", dot, elapsed);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
