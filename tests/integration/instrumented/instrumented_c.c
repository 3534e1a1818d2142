/* A C program compiled with topolens-cc: main -> compute x 3 -> MPI_Allreduce. */
#include <mpi.h>
#include <stdio.h>

__attribute__((noinline)) static int compute(int value) {
    int total = 0;
    MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, total = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 3; ++i) total += compute(rank + i);
    if (rank == 0) printf("total=%d\n", total);
    MPI_Finalize();
    return 0;
}
