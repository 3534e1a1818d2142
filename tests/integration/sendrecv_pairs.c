/* Many small blocking Send/Recv pairs between ranks 0 and 1 (a ping-pong): about 80 bytes of
 * trace per pair and rank, so a trace fills a small disk quickly. Checks every value it
 * receives; rank 0 prints one line at the end. Exits non-zero on a wrong value.
 * PROBES extra MPI_Iprobe calls per pair on rank 1 (PROBES@0: on rank 0) give that rank a
 * larger trace than the other.
 * FREE: a file rank 0 deletes after the pairs (space freed on a full disk before MPI_Finalize).
 *   sendrecv_pairs PAIRS [PROBES [FREE]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long pairs = argc > 1 ? atol(argv[1]) : 100000;
    const long probes = argc > 2 ? atol(argv[2]) : 0;
    const char* at = argc > 2 ? strchr(argv[2], '@') : NULL;
    const int prober = at ? atoi(at + 1) : 1;
    if (size != 2 || pairs <= 0 || probes < 0) {
        if (rank == 0)
            fprintf(stderr, "sendrecv_pairs: needs 2 ranks, PAIRS > 0 and PROBES >= 0\n");
        MPI_Finalize();
        return 2;
    }
    long wrong = 0;
    for (long i = 0; i < pairs; ++i) {
        long value = i;
        if (rank == 0) {
            for (long p = 0; prober == 0 && p < probes; ++p) {
                int flag = 0;
                MPI_Iprobe(1, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            }
            MPI_Send(&value, 1, MPI_LONG, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(&value, 1, MPI_LONG, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (value != i + 1) ++wrong;
        } else {
            for (long p = 0; prober == 1 && p < probes; ++p) {
                int flag = 0;
                MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            }
            MPI_Recv(&value, 1, MPI_LONG, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (value != i) ++wrong;
            ++value;
            MPI_Send(&value, 1, MPI_LONG, 0, 8, MPI_COMM_WORLD);
        }
    }
    if (rank == 0 && argc > 3 && remove(argv[3]) != 0) perror("sendrecv_pairs: FREE");
    long all_wrong = 0;
    MPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("sendrecv_pairs: %ld pairs, %ld wrong values\n", pairs, all_wrong);
    MPI_Finalize();
    return all_wrong == 0 ? 0 : 1;
}
