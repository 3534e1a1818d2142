// 2D halo exchange on an MPI_Cart_create grid, optionally with one slow rank (see README.md).
//
// Each iteration: a local computation (a busy loop for a wall-clock time), the exchange of
// the four faces with the grid neighbours — blocking MPI_Sendrecv per direction, or
// MPI_Irecv/MPI_Isend/MPI_Waitall — and an MPI_Allreduce, the convergence check. A slow
// rank computes longer: its neighbours wait for its faces (Late Sender). Nothing travels as
// a pipeline here, so no wait is a wavefront's.
#include "../common/sample_args.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* const kUsage =
    "usage: halo2d [--dims PxQ] [--periodic] [--exchange sendrecv|nonblocking]\n"
    "              [--iterations N] [--work-us US] [--slow-rank R] [--slow-us US]\n"
    "              [--compute busy|sleep] [--face DOUBLES] [--expect FILE]\n";

constexpr int kDims = 2;
constexpr int kTagBase = 10; // tag of a face message: kTagBase + 2 * axis + (1 if it travels -)

enum class Exchange { Sendrecv, Nonblocking };

struct Options {
    int dims[kDims] = {0, 0}; // 0: chosen by MPI_Dims_create
    bool periodic = false;
    Exchange exchange = Exchange::Sendrecv;
    int iterations = 20;
    int work_us = 2000;
    int slow_rank = -1; // world rank; -1: none
    int slow_us = 20000;
    bool sleep = false; // --compute sleep: sleep_until the deadline instead of spinning
    // Doubles per face message: 128 bytes, which MPI sends at once. Open MPI's shared-memory
    // transport completes a blocking send of more than 256 bytes only once the receiver
    // enters MPI, which would hold the slow rank's senders in their sends (README.md).
    int face = 16;
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
        else if (a == "--slow-rank")
            number = &o.slow_rank;
        else if (a == "--slow-us")
            number = &o.slow_us;
        else if (a == "--face")
            number = &o.face, min = 1;
        if (number) {
            const char* v = value(i);
            if (!v) return a + " needs a value";
            if (!parse_int(v, min, *number)) return a + ": bad value '" + v + "'";
        } else if (a == "--dims") {
            const char* v = value(i);
            if (!v) return "--dims needs a value";
            // PxQ; 0 leaves an axis to MPI_Dims_create.
            const std::string text = v, bad = "--dims: bad value '" + text + "' (want PxQ)";
            const size_t x = text.find('x');
            if (x == std::string::npos || !parse_int(text.substr(0, x).c_str(), 0, o.dims[0]) ||
                !parse_int(text.substr(x + 1).c_str(), 0, o.dims[1]))
                return bad;
        } else if (a == "--exchange") {
            const char* v = value(i);
            if (!v) return "--exchange needs a value";
            if (std::strcmp(v, "sendrecv") == 0)
                o.exchange = Exchange::Sendrecv;
            else if (std::strcmp(v, "nonblocking") == 0)
                o.exchange = Exchange::Nonblocking;
            else
                return std::string("--exchange: bad value '") + v + "' (sendrecv or nonblocking)";
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

// The local work for `us` microseconds of wall-clock time: Jacobi sweeps over the local
// vector with the mean of the received faces as boundary value, a real loop as in
// wavefront2d, or one sweep and a sleep until the deadline (`sleep`: on an oversubscribed
// machine a spinning process waits for the scheduler at its deadline, up to ~20 ms with 12
// processes on 2 cores; a sleeping one leaves the cores to the others and is woken on time).
// Wall-clock, not CPU time: the cost stays what the options say. Returns the largest change
// of the first sweep (the residual).
double compute(long long us, bool sleep, double boundary, std::vector<double>& u) {
    using clock = std::chrono::steady_clock;
    const auto until = clock::now() + std::chrono::microseconds(us);
    double first_change = -1.0;
    do {
        double change = 0.0, left = boundary;
        for (size_t k = 0; k < u.size(); ++k) {
            const double right = k + 1 < u.size() ? u[k + 1] : boundary;
            const double next = 0.25 * (left + right) + 0.5 * u[k];
            change = std::max(change, std::abs(next - u[k]));
            left = u[k];
            u[k] = next;
        }
        if (first_change < 0.0) first_change = change;
        if (sleep) std::this_thread::sleep_until(until);
    } while (clock::now() < until);
    return first_change;
}

// One direction of the exchange: the face goes to `to` and comes from `from` (ranks in the
// Cartesian communicator, MPI_PROC_NULL where the grid ends), tagged by the direction.
struct Shift {
    int to = MPI_PROC_NULL, from = MPI_PROC_NULL;
    int tag = 0;
};

struct PerRank {
    int world_rank = 0, topo_rank = 0;
    int coords[kDims] = {0, 0};
    int neighbours[2 * kDims] = {-1, -1, -1, -1}; // topology ranks, -1: none
    int sends = 0, recvs = 0, collectives = 0;
    double inside_exchange = 0.0; // seconds, MPI_Wtime around the exchange
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
    int dims[kDims] = {opt.dims[0], opt.dims[1]};
    if (err.empty()) {
        const long long fixed = static_cast<long long>(std::max(dims[0], 1)) * std::max(dims[1], 1);
        if (world_size % fixed != 0 || (dims[0] && dims[1] && fixed != world_size))
            err = "--dims " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
                  " does not fit " + std::to_string(world_size) + " processes";
        else if (opt.slow_rank >= world_size)
            err = "--slow-rank " + std::to_string(opt.slow_rank) + " is not one of the " +
                  std::to_string(world_size) + " ranks";
        else
            MPI_Dims_create(world_size, kDims, dims);
    }
    if (!err.empty()) {
        if (world_rank == 0) {
            if (err != "help") std::fprintf(stderr, "halo2d: %s\n", err.c_str());
            std::fputs(kUsage, err == "help" ? stdout : stderr);
        }
        MPI_Finalize();
        return err == "help" ? 0 : 2;
    }

    int periods[kDims] = {opt.periodic ? 1 : 0, opt.periodic ? 1 : 0};
    MPI_Comm cart = MPI_COMM_NULL;
    MPI_Cart_create(MPI_COMM_WORLD, kDims, dims, periods, /*reorder=*/1, &cart);
    PerRank me;
    me.world_rank = world_rank;
    MPI_Comm_rank(cart, &me.topo_rank);
    MPI_Cart_coords(cart, me.topo_rank, kDims, me.coords);

    // Per axis the face travelling + (to the upper neighbour, from the lower one), then the
    // one travelling -. A periodic axis of size 1 would make the process its own neighbour:
    // no halo there.
    std::vector<Shift> shifts;
    for (int d = 0; d < kDims; ++d) {
        int lower = MPI_PROC_NULL, upper = MPI_PROC_NULL;
        MPI_Cart_shift(cart, d, 1, &lower, &upper);
        if (lower == me.topo_rank) continue;
        me.neighbours[2 * d] = lower == MPI_PROC_NULL ? -1 : lower;
        me.neighbours[2 * d + 1] = upper == MPI_PROC_NULL ? -1 : upper;
        shifts.push_back({upper, lower, kTagBase + 2 * d});
        shifts.push_back({lower, upper, kTagBase + 2 * d + 1});
    }

    std::vector<double> u(4096);
    for (size_t k = 0; k < u.size(); ++k) u[k] = 1.0 + 1e-3 * static_cast<double>(k % 97);
    std::vector<std::vector<double>> out(shifts.size(), std::vector<double>(opt.face));
    std::vector<std::vector<double>> in(shifts.size(), std::vector<double>(opt.face, 0.0));
    std::vector<MPI_Request> requests;
    const bool slow = world_rank == opt.slow_rank;
    double residual = 0.0;
    const double t0 = MPI_Wtime();
    for (int it = 0; it < opt.iterations; ++it) {
        double boundary = 0.0;
        int faces = 0;
        for (size_t k = 0; k < shifts.size(); ++k)
            if (shifts[k].from != MPI_PROC_NULL) boundary += in[k][0], ++faces;
        if (faces) boundary /= faces;
        const double change = compute(
            static_cast<long long>(opt.work_us) + (slow ? opt.slow_us : 0), opt.sleep, boundary, u);
        for (auto& face : out)
            std::copy_n(u.begin(), std::min(u.size(), face.size()), face.begin());

        const double before = MPI_Wtime();
        if (opt.exchange == Exchange::Sendrecv) {
            // One direction after the other: +x, -x, +y, -y.
            for (size_t k = 0; k < shifts.size(); ++k) {
                const Shift& s = shifts[k];
                MPI_Sendrecv(out[k].data(), opt.face, MPI_DOUBLE, s.to, s.tag, in[k].data(),
                             opt.face, MPI_DOUBLE, s.from, s.tag, cart, MPI_STATUS_IGNORE);
            }
        } else {
            // Receives first, so no face waits for its receive to be posted.
            requests.assign(2 * shifts.size(), MPI_REQUEST_NULL);
            for (size_t k = 0; k < shifts.size(); ++k)
                if (shifts[k].from != MPI_PROC_NULL)
                    MPI_Irecv(in[k].data(), opt.face, MPI_DOUBLE, shifts[k].from, shifts[k].tag,
                              cart, &requests[k]);
            for (size_t k = 0; k < shifts.size(); ++k)
                if (shifts[k].to != MPI_PROC_NULL)
                    MPI_Isend(out[k].data(), opt.face, MPI_DOUBLE, shifts[k].to, shifts[k].tag,
                              cart, &requests[shifts.size() + k]);
            MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
        }
        me.inside_exchange += MPI_Wtime() - before;
        for (const Shift& s : shifts) {
            me.sends += s.to != MPI_PROC_NULL;
            me.recvs += s.from != MPI_PROC_NULL;
        }

        // Convergence check: the largest change any process saw.
        MPI_Allreduce(&change, &residual, 1, MPI_DOUBLE, MPI_MAX, cart);
        ++me.collectives;
    }
    const double elapsed = MPI_Wtime() - t0;

    if (!opt.expect.empty()) {
        // The gather is itself a traced collective: count it before sending the counts.
        ++me.collectives;
        std::vector<PerRank> all(world_rank == 0 ? world_size : 0);
        MPI_Gather(&me, sizeof me, MPI_BYTE, all.data(), sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (world_rank == 0) {
            std::vector<int> world_of_topo(world_size, -1);
            for (const PerRank& r : all) world_of_topo[r.topo_rank] = r.world_rank;
            FILE* f = std::fopen(opt.expect.c_str(), "w");
            if (!f) {
                std::perror(opt.expect.c_str());
            } else {
                std::fprintf(f, "# topolens expected trace content and halo neighbours (halo2d)\n");
                std::fprintf(f, "sample halo2d\nranks %d\n", world_size);
                std::fprintf(f, "topology MPI_Cart_create 1\nndims 2\n");
                std::fprintf(f, "dims %d %d\nperiods %d %d\n", dims[0], dims[1], periods[0],
                             periods[1]);
                std::fprintf(f, "exchange %s\ncompute %s\niterations %d\nwork_us %d\n",
                             opt.exchange == Exchange::Sendrecv ? "sendrecv" : "nonblocking",
                             opt.sleep ? "sleep" : "busy", opt.iterations, opt.work_us);
                std::fprintf(f, "slow_rank %d\nslow_us %d\n", opt.slow_rank,
                             opt.slow_rank >= 0 ? opt.slow_us : 0);
                for (const PerRank& r : all)
                    std::fprintf(f,
                                 "rank %d topo_rank %d sends %d recvs %d collectives %d "
                                 "coords %d %d\n",
                                 r.world_rank, r.topo_rank, r.sends, r.recvs, r.collectives,
                                 r.coords[0], r.coords[1]);
                // World ranks of the face neighbours, each once (a periodic axis of size 2
                // has the same process on both sides), ascending.
                for (const PerRank& r : all) {
                    std::vector<int> ranks;
                    for (int t : r.neighbours)
                        if (t >= 0) ranks.push_back(world_of_topo[t]);
                    std::sort(ranks.begin(), ranks.end());
                    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
                    std::fprintf(f, "neighbours %d", r.world_rank);
                    for (int n : ranks) std::fprintf(f, " %d", n);
                    std::fputc('\n', f);
                }
                for (const PerRank& r : all)
                    std::fprintf(f, "inside %d exchange %.6f\n", r.world_rank, r.inside_exchange);
                std::fclose(f);
            }
        }
    }

    if (world_rank == 0) {
        std::printf("halo2d: %dx%d grid (%s), %s exchange, %d iterations, %d us/iteration (%s)",
                    dims[0], dims[1], opt.periodic ? "periodic" : "non-periodic",
                    opt.exchange == Exchange::Sendrecv ? "sendrecv" : "nonblocking", opt.iterations,
                    opt.work_us, opt.sleep ? "sleep" : "busy");
        if (opt.slow_rank >= 0) std::printf(", rank %d %d us slower", opt.slow_rank, opt.slow_us);
        std::printf(", residual %.3g, %.3f s\n", residual, elapsed);
    }
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
