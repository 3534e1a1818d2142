// Sweep3D-like pipelined wavefront on a 2D process grid (see README.md).
//
// Each iteration sweeps the grid from the four corners in turn (SW, NE, NW, SE), two
// octants per corner as a discrete-ordinates code does (k up, then k down: on a 2D process
// grid both travel the same way). In an octant every process receives one block face from
// its upstream neighbour along x and one along y, computes, and sends its faces downstream,
// once per angle block and k-block; the wave of blocks travels diagonally from the origin
// corner to the opposite corner. No barrier between octants: a process starts the next
// one as soon as it is done, so several waves are in flight.
#include <mpi.h>

#include "topolens.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// Weak references: the plain binary runs with or without libtopolens-measure (LD_PRELOAD);
// the API is then reached only when the library is present. The linked binary resolves
// them at link time.
extern "C" {
int topolens_cart_create(const char* name, int ndims, const int dims[], const int periods[])
    __attribute__((weak));
int topolens_cart_coords(int topology, const int coords[]) __attribute__((weak));
}

namespace {

const char* const kUsage =
    "usage: wavefront2d [--px P --py Q] [--k-blocks K] [--angle-blocks A] [--iterations N]\n"
    "                   [--work-us US] [--face DOUBLES] [--receive waitall|xy|yx]\n"
    "                   [--sweep-barrier] [--no-cart [--user-topology]] [--expect FILE]\n";

struct Options {
    int px = 0, py = 0;   // 0: chosen by MPI_Dims_create
    int k_blocks = 5;     // per angle block (--blocks is an alias)
    int angle_blocks = 1; // per octant
    int iterations = 2;
    int work_us = 200;
    int face = 64; // doubles per block face message
    bool no_cart = false;
    bool user_topology = false;
    // The inflow faces: both posted with MPI_Irecv and taken as they arrive (MPI_Waitall),
    // or MPI_Recv from the x-upstream neighbour, then the y-upstream one (Sweep3D's order:
    // when the y face is sent first, the wait for x is a Late Sender in the wrong order),
    // or y first, then x.
    enum class Receive { Waitall, XY, YX } receive = Receive::Waitall;
    // MPI_Barrier before each corner's two octants: the sweeps of different corners no
    // longer overlap, so no message of the next one can overtake the last one of a sweep
    // (which Scalasca's rule counts as a Late Sender in the wrong order), and each corner's
    // waits are its pipeline fill alone.
    bool sweep_barrier = false;
    std::string expect;
};

// Sweep directions in Sweep3D order; (sx, sy) is the direction the wave travels.
struct Direction {
    const char* origin;
    int sx, sy;
};
constexpr Direction kDirections[4] = {
    {"SW", +1, +1}, {"NE", -1, -1}, {"NW", +1, -1}, {"SE", -1, +1}};
constexpr int kOctantsPerCorner = 2; // k up, then k down
constexpr int kTagBase = 100;        // tag = kTagBase + octant index (SW: 100, 101; NE: 102, ...)

// Returns an error message, empty when the options are valid.
std::string parse_options(int argc, char** argv, Options& o) {
    auto number = [&](int& i, int& out, int min) -> std::string {
        if (i + 1 >= argc) return std::string(argv[i]) + " needs a value";
        char* end = nullptr;
        long v = std::strtol(argv[i + 1], &end, 10);
        if (*argv[i + 1] == '\0' || *end != '\0' || v < min || v > 1000000000)
            return std::string(argv[i]) + ": bad value '" + argv[i + 1] + "'";
        out = static_cast<int>(v);
        ++i;
        return {};
    };
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i], err;
        if (a == "--px")
            err = number(i, o.px, 1);
        else if (a == "--py")
            err = number(i, o.py, 1);
        else if (a == "--k-blocks" || a == "--blocks")
            err = number(i, o.k_blocks, 1);
        else if (a == "--angle-blocks")
            err = number(i, o.angle_blocks, 1);
        else if (a == "--iterations")
            err = number(i, o.iterations, 1);
        else if (a == "--work-us")
            err = number(i, o.work_us, 0);
        else if (a == "--face")
            err = number(i, o.face, 1);
        else if (a == "--receive") {
            if (i + 1 >= argc) return "--receive needs a value (waitall, xy or yx)";
            const std::string v = argv[++i];
            // "blocking": the name of xy before yx existed.
            if (v == "waitall")
                o.receive = Options::Receive::Waitall;
            else if (v == "xy" || v == "blocking")
                o.receive = Options::Receive::XY;
            else if (v == "yx")
                o.receive = Options::Receive::YX;
            else
                return "--receive: bad value '" + v + "' (waitall, xy or yx)";
        } else if (a == "--sweep-barrier")
            o.sweep_barrier = true;
        else if (a == "--no-cart")
            o.no_cart = true;
        else if (a == "--user-topology")
            o.user_topology = true;
        else if (a == "--expect") {
            if (i + 1 >= argc) return "--expect needs a file name";
            o.expect = argv[++i];
        } else if (a == "--help" || a == "-h")
            return "help";
        else
            return "unknown option '" + a + "'";
        if (!err.empty()) return err;
    }
    if (o.user_topology && !o.no_cart) return "--user-topology needs --no-cart";
    if (static_cast<long>(o.k_blocks) * o.angle_blocks > 1000000000L)
        return "--k-blocks times --angle-blocks is too large";
    return {};
}

// Busy computation for `us` microseconds of wall-clock time: a real loop, not a sleep, so
// the process is busy as in a transport sweep. Relaxes the outgoing faces towards the
// mean of the incoming ones; returns the largest change of the first pass, i.e. how far
// the new inflow moved the block (the quantity the convergence check watches).
double compute_block(int us, const std::vector<double>& in_x, const std::vector<double>& in_y,
                     std::vector<double>& out_x, std::vector<double>& out_y) {
    using clock = std::chrono::steady_clock;
    const auto until = clock::now() + std::chrono::microseconds(us);
    double first_change = -1.0;
    do {
        double change = 0.0;
        for (size_t k = 0; k < out_x.size(); ++k) {
            const double target = 0.5 * (in_x[k] + in_y[k]) + 1.0;
            const double nx = 0.5 * (out_x[k] + target);
            const double ny = 0.5 * (out_y[k] + target);
            change = std::max(change, std::abs(nx - out_x[k]) + std::abs(ny - out_y[k]));
            out_x[k] = nx;
            out_y[k] = ny;
        }
        if (first_change < 0.0) first_change = change;
    } while (clock::now() < until);
    return first_change;
}

struct Grid {
    MPI_Comm comm = MPI_COMM_WORLD;
    int dims[2] = {0, 0};
    int periods[2] = {0, 0};
    int coords[2] = {0, 0};
    int topo_rank = 0; // rank in the topology's communicator
    std::string topology = "none";

    // Rank of the process at (x, y) in `comm`, MPI_PROC_NULL outside the (non-periodic) grid.
    int rank_of(int x, int y, bool cart) const {
        if (x < 0 || y < 0 || x >= dims[0] || y >= dims[1]) return MPI_PROC_NULL;
        if (!cart) return x + dims[0] * y; // Sweep3D's numbering
        int c[2] = {x, y}, r = MPI_PROC_NULL;
        MPI_Cart_rank(comm, c, &r);
        return r;
    }
};

struct Counts {
    int sends = 0, recvs = 0, collectives = 0;
};

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int world_rank = 0, world_size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    // Every rank parses the same arguments, so every rank reaches the same verdict.
    Options opt;
    std::string err = parse_options(argc, argv, opt);
    Grid g;
    if (err.empty()) {
        g.dims[0] = opt.px;
        g.dims[1] = opt.py;
        if ((opt.px && world_size % opt.px) || (opt.py && world_size % opt.py) ||
            (opt.px && opt.py && opt.px * opt.py != world_size))
            err = "--px/--py do not fit " + std::to_string(world_size) + " processes";
        else
            MPI_Dims_create(world_size, 2, g.dims);
    }
    if (!err.empty()) {
        if (world_rank == 0) {
            if (err != "help") std::fprintf(stderr, "wavefront2d: %s\n", err.c_str());
            std::fputs(kUsage, err == "help" ? stdout : stderr);
        }
        MPI_Finalize();
        return err == "help" ? 0 : 2;
    }

    const bool cart = !opt.no_cart;
    if (cart) {
        MPI_Cart_create(MPI_COMM_WORLD, 2, g.dims, g.periods, /*reorder=*/1, &g.comm);
        MPI_Comm_rank(g.comm, &g.topo_rank);
        MPI_Cart_coords(g.comm, g.topo_rank, 2, g.coords);
        g.topology = "MPI_Cart_create 1"; // the measurement library's name for it
    } else {
        g.topo_rank = world_rank;
        g.coords[0] = world_rank % g.dims[0];
        g.coords[1] = world_rank / g.dims[0];
        if (opt.user_topology) {
            // Like KOJAK's elg_cart_create/elg_cart_coords in a hand-made grid code.
            int topo = 0;
            if (topolens_cart_create && topolens_cart_coords) {
                topo = topolens_cart_create("wavefront2d", 2, g.dims, g.periods);
                if (topo > 0) topolens_cart_coords(topo, g.coords);
            }
            if (topo > 0)
                g.topology = "wavefront2d";
            else if (world_rank == 0)
                std::fprintf(stderr, "wavefront2d: measurement inactive, topology not recorded\n");
        }
    }
    const int x = g.coords[0], y = g.coords[1];

    Counts n;
    std::vector<double> in_x(opt.face, 0.0), in_y(opt.face, 0.0);
    std::vector<double> out_x(opt.face, 0.0), out_y(opt.face, 0.0);
    double residual = 0.0;
    const double t0 = MPI_Wtime();
    for (int it = 0; it < opt.iterations; ++it) {
        double local_change = 0.0;
        for (int d = 0; d < 4; ++d) {
            const Direction& dir = kDirections[d];
            const int x_up = g.rank_of(x - dir.sx, y, cart);
            const int y_up = g.rank_of(x, y - dir.sy, cart);
            const int x_down = g.rank_of(x + dir.sx, y, cart);
            const int y_down = g.rank_of(x, y + dir.sy, cart);
            if (opt.sweep_barrier) {
                MPI_Barrier(g.comm);
                ++n.collectives;
            }
            // k up, then k down: the k-blocks lie inside the process, so both octants send
            // the same way on the process grid.
            for (int octant = 0; octant < kOctantsPerCorner; ++octant) {
                const int tag = kTagBase + kOctantsPerCorner * d + octant;
                for (int b = 0; b < opt.angle_blocks * opt.k_blocks; ++b) {
                    // Boundary faces (no upstream neighbour) carry the inflow condition 0.
                    if (x_up == MPI_PROC_NULL) std::fill(in_x.begin(), in_x.end(), 0.0);
                    if (y_up == MPI_PROC_NULL) std::fill(in_y.begin(), in_y.end(), 0.0);
                    n.recvs += (x_up != MPI_PROC_NULL) + (y_up != MPI_PROC_NULL);
                    auto recv = [&](std::vector<double>& face, int from) {
                        if (from != MPI_PROC_NULL)
                            MPI_Recv(face.data(), opt.face, MPI_DOUBLE, from, tag, g.comm,
                                     MPI_STATUS_IGNORE);
                    };
                    if (opt.receive == Options::Receive::XY) {
                        recv(in_x, x_up);
                        recv(in_y, y_up);
                    } else if (opt.receive == Options::Receive::YX) {
                        recv(in_y, y_up);
                        recv(in_x, x_up);
                    } else if (x_up != MPI_PROC_NULL || y_up != MPI_PROC_NULL) {
                        MPI_Request inflow[2];
                        MPI_Irecv(in_x.data(), opt.face, MPI_DOUBLE, x_up, tag, g.comm, &inflow[0]);
                        MPI_Irecv(in_y.data(), opt.face, MPI_DOUBLE, y_up, tag, g.comm, &inflow[1]);
                        MPI_Waitall(2, inflow, MPI_STATUSES_IGNORE);
                    }
                    local_change = std::max(local_change,
                                            compute_block(opt.work_us, in_x, in_y, out_x, out_y));
                    if (x_down != MPI_PROC_NULL) {
                        MPI_Send(out_x.data(), opt.face, MPI_DOUBLE, x_down, tag, g.comm);
                        ++n.sends;
                    }
                    if (y_down != MPI_PROC_NULL) {
                        MPI_Send(out_y.data(), opt.face, MPI_DOUBLE, y_down, tag, g.comm);
                        ++n.sends;
                    }
                }
            }
        }
        // Convergence check, as after each Sweep3D iteration.
        MPI_Allreduce(&local_change, &residual, 1, MPI_DOUBLE, MPI_MAX, g.comm);
        ++n.collectives;
    }
    const double elapsed = MPI_Wtime() - t0;

    if (!opt.expect.empty()) {
        // The gather is itself a traced collective: count it before sending the counts.
        ++n.collectives;
        constexpr int kFields = 7;
        const int mine[kFields] = {world_rank,    g.topo_rank, n.sends,    n.recvs,
                                   n.collectives, g.coords[0], g.coords[1]};
        std::vector<int> all(world_rank == 0 ? kFields * world_size : 0);
        MPI_Gather(mine, kFields, MPI_INT, all.data(), kFields, MPI_INT, 0, MPI_COMM_WORLD);
        if (world_rank == 0) {
            FILE* f = std::fopen(opt.expect.c_str(), "w");
            if (!f) {
                std::perror(opt.expect.c_str());
            } else {
                std::fprintf(f, "# topolens expected trace content\n");
                std::fprintf(f, "sample wavefront2d\nranks %d\n", world_size);
                std::fprintf(f, "topology %s\n", g.topology.c_str());
                if (g.topology != "none")
                    std::fprintf(f, "ndims 2\ndims %d %d\nperiods %d %d\n", g.dims[0], g.dims[1],
                                 g.periods[0], g.periods[1]);
                for (int r = 0; r < world_size; ++r) {
                    const int* v = &all[kFields * r];
                    std::fprintf(f, "rank %d topo_rank %d sends %d recvs %d collectives %d", v[0],
                                 v[1], v[2], v[3], v[4]);
                    if (g.topology != "none") std::fprintf(f, " coords %d %d", v[5], v[6]);
                    std::fputc('\n', f);
                }
                std::fclose(f);
            }
        }
    }

    if (world_rank == 0)
        std::printf("wavefront2d: %dx%d grid (%s), %d iterations x %d octants x %d blocks "
                    "(%d angle x %d k), receive %s, %d us/block, residual %.3g, %.3f s\n",
                    g.dims[0], g.dims[1],
                    cart ? "MPI_Cart_create"
                         : (g.topology != "none" ? "user topology" : "no topology"),
                    opt.iterations, 4 * kOctantsPerCorner, opt.angle_blocks * opt.k_blocks,
                    opt.angle_blocks, opt.k_blocks,
                    opt.receive == Options::Receive::Waitall ? "waitall"
                    : opt.receive == Options::Receive::XY    ? "xy"
                                                             : "yx",
                    opt.work_us, residual, elapsed);
    if (cart) MPI_Comm_free(&g.comm);
    MPI_Finalize();
    return 0;
}
