// An MPI program compiled with topolens-cxx (every function instrumented) for the
// integration test check_instrumented.sh. What it calls, and how often, is fixed:
//   main -> app::parse_steps (before MPI_Init) -> app::tiny
//        -> MPI_Init
//        -> app::Solver::solve -> app::Solver::step x STEPS -> app::tiny x 10
//                                                            -> app::exchange -> MPI_Sendrecv
//                                                            -> grid::smooth (shared library)
//                                                                  -> (anonymous)::average x 2
//                              -> app::scale<double> -> MPI_Allreduce
//        -> MPI_Finalize
#include "smooth.h"

#include <cstdio>
#include <cstdlib>
#include <mpi.h>
#include <vector>

namespace app {

__attribute__((noinline)) int tiny(int x) {
    return x * 3 + 1;
}

__attribute__((noinline)) int parse_steps(int argc, char** argv) {
    const int steps = argc > 1 ? std::atoi(argv[1]) : 5;
    return tiny(steps) > 0 ? steps : 0;
}

__attribute__((noinline)) void exchange(int rank, int size, std::vector<double>& values) {
    double out = values.front(), in = 0;
    MPI_Sendrecv(&out, 1, MPI_DOUBLE, (rank + 1) % size, 0, &in, 1, MPI_DOUBLE,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    values.back() = in;
}

template <typename T> __attribute__((noinline)) T scale(T value) {
    T total = 0;
    MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

class Solver {
  public:
    Solver(int rank, int size) : rank_(rank), size_(size), values_(8, rank) {}
    __attribute__((noinline)) double solve(int steps) {
        double change = 0;
        for (int s = 0; s < steps; ++s) change += step();
        return scale<double>(change);
    }

  private:
    __attribute__((noinline)) double step() {
        int sum = 0;
        for (int i = 0; i < 10; ++i) sum += tiny(i);
        values_[1] += sum * 1e-9;
        exchange(rank_, size_, values_);
        return grid::smooth(values_);
    }
    int rank_, size_;
    std::vector<double> values_;
};

} // namespace app

int main(int argc, char** argv) {
    const int steps = app::parse_steps(argc, argv);
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    app::Solver solver(rank, size);
    const double total = solver.solve(steps);
    if (rank == 0) std::printf("steps=%d total=%g\n", steps, total);
    MPI_Finalize();
    return 0;
}
