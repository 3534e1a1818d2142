// 2D FFT-style transpose on an R x C process grid made of row and column communicators
// (MPI_Comm_split), optionally with one slow row (see README.md).
//
// Each iteration: a local computation (the FFTs along the first axis), MPI_Alltoall on the
// row communicator, a local computation (the FFTs along the second axis), MPI_Alltoall on
// the column communicator. No MPI_Cart_create and no point-to-point message: the grid lives
// only in the communicators, as in many transpose and FFT codes. The processes of a slow row
// compute longer before the row exchange; every other process of each column then waits for
// its slow-row process in the column exchange (Wait at N×N), and the slow row waits least.
#include "../common/sample_args.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* const kUsage =
    "usage: transpose2d [--dims RxC] [--iterations N] [--work-us US] [--slow-row K]\n"
    "                   [--slow-us US] [--compute busy|sleep] [--block DOUBLES]\n";

struct Options {
    int rows = 0, columns = 0; // 0: chosen by MPI_Dims_create
    int iterations = 20;
    int work_us = 2000; // each of the two computations per iteration
    int slow_row = -1;  // -1: none
    int slow_us = 5000; // extra computation of the slow row per iteration
    bool sleep = true;  // --compute busy spins instead
    int block = 64;     // doubles sent to each process of the row or column
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
        else if (a == "--slow-row")
            number = &o.slow_row;
        else if (a == "--slow-us")
            number = &o.slow_us;
        else if (a == "--block")
            number = &o.block, min = 1;
        if (number) {
            const char* v = value(i);
            if (!v) return a + " needs a value";
            if (!parse_int(v, min, *number)) return a + ": bad value '" + v + "'";
        } else if (a == "--dims") {
            const char* v = value(i);
            if (!v) return "--dims needs a value";
            // RxC; 0 leaves a side to MPI_Dims_create.
            const std::string text = v, bad = "--dims: bad value '" + text + "' (want RxC)";
            const size_t x = text.find('x');
            if (x == std::string::npos || !parse_int(text.substr(0, x).c_str(), 0, o.rows) ||
                !parse_int(text.substr(x + 1).c_str(), 0, o.columns))
                return bad;
        } else if (a == "--compute") {
            if (std::string err = topolens::samples::parse_compute(value(i), o.sleep); !err.empty())
                return err;
        } else if (a == "--help" || a == "-h") {
            return "help";
        } else {
            return "unknown option '" + a + "'";
        }
    }
    return {};
}

// The local FFTs for `us` microseconds of wall-clock time: passes over the local pencil that
// mix in the received blocks, a real loop, or one pass and a sleep until the deadline
// (`sleep`: on an oversubscribed machine a spinning process waits for the scheduler at its
// deadline; a sleeping one leaves the cores to the others and is woken on time).
void compute(long long us, bool sleep, const std::vector<double>& received,
             std::vector<double>& pencil) {
    using clock = std::chrono::steady_clock;
    const auto until = clock::now() + std::chrono::microseconds(us);
    do {
        for (size_t k = 0; k < pencil.size(); ++k)
            pencil[k] = 0.5 * pencil[k] + 0.5 * std::cos(received[k % received.size()] + k);
        if (sleep) std::this_thread::sleep_until(until);
    } while (clock::now() < until);
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
    int dims[2] = {opt.rows, opt.columns};
    if (err.empty()) {
        const long long fixed =
            static_cast<long long>(dims[0] ? dims[0] : 1) * (dims[1] ? dims[1] : 1);
        if (world_size % fixed != 0 || (dims[0] && dims[1] && fixed != world_size))
            err = "--dims " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
                  " does not fit " + std::to_string(world_size) + " processes";
        else
            MPI_Dims_create(world_size, 2, dims);
        if (err.empty() && opt.slow_row >= dims[0])
            err = "--slow-row " + std::to_string(opt.slow_row) + " is not one of the " +
                  std::to_string(dims[0]) + " rows";
    }
    if (!err.empty()) {
        if (world_rank == 0) {
            if (err != "help") std::fprintf(stderr, "transpose2d: %s\n", err.c_str());
            std::fputs(kUsage, err == "help" ? stdout : stderr);
        }
        MPI_Finalize();
        return err == "help" ? 0 : 2;
    }
    const int rows = dims[0], columns = dims[1];

    // Process (i, j) with rank = i*C + j: row i holds the C processes (i, *) ranked by j,
    // column j the R processes (*, j) ranked by i (what MPI_Cart_sub would give).
    const int i = world_rank / columns, j = world_rank % columns;
    MPI_Comm row = MPI_COMM_NULL, column = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, i, j, &row);
    MPI_Comm_split(MPI_COMM_WORLD, j, i, &column);

    const size_t pencil_size = static_cast<size_t>(opt.block) * std::max(rows, columns);
    std::vector<double> pencil(pencil_size), send(pencil_size), received(pencil_size, 0.0);
    for (size_t k = 0; k < pencil.size(); ++k)
        pencil[k] = 1.0 + 1e-3 * static_cast<double>((world_rank * 31 + k) % 97);
    const bool slow = i == opt.slow_row;
    const double t0 = MPI_Wtime();
    for (int it = 0; it < opt.iterations; ++it) {
        // FFTs along the first axis, then the transpose within the row.
        compute(static_cast<long long>(opt.work_us) + (slow ? opt.slow_us : 0), opt.sleep, received,
                pencil);
        send = pencil;
        MPI_Alltoall(send.data(), opt.block, MPI_DOUBLE, received.data(), opt.block, MPI_DOUBLE,
                     row);
        // FFTs along the second axis, then the transpose within the column.
        compute(opt.work_us, opt.sleep, received, pencil);
        send = pencil;
        MPI_Alltoall(send.data(), opt.block, MPI_DOUBLE, received.data(), opt.block, MPI_DOUBLE,
                     column);
    }
    const double elapsed = MPI_Wtime() - t0;

    if (world_rank == 0) {
        double checksum = 0.0;
        for (double v : pencil) checksum += v;
        std::printf("transpose2d: %dx%d grid from MPI_Comm_split (%d rows, %d columns), %d "
                    "iterations, Alltoall of %d doubles per pair on rows then columns, %d us per "
                    "computation (%s)",
                    rows, columns, rows, columns, opt.iterations, opt.block, opt.work_us,
                    opt.sleep ? "sleep" : "busy");
        if (opt.slow_row >= 0) std::printf(", row %d %d us slower", opt.slow_row, opt.slow_us);
        std::printf(", checksum %.6g, %.3f s\n", checksum, elapsed);
    }
    MPI_Comm_free(&column);
    MPI_Comm_free(&row);
    MPI_Finalize();
    return 0;
}
