// thread_levels: an MPI program with THREADS threads per process at a chosen thread level,
// for the measurement and analysis of threaded runs (tests/integration/check_threads.sh).
//
//   thread_levels LEVEL THREADS ITERATIONS [LATE_THREAD LATE_MS]
//
// LEVEL is single, funneled, serialized, multiple or sequential. Processes are paired (0-1, 2-3,
// ...; an even number of them). Every thread t has its own communicator (an MPI_Comm_dup of
// MPI_COMM_WORLD made by the main thread, in thread order) and does, per iteration, with
// the same thread of its partner: a blocking exchange (even rank: MPI_Send then MPI_Recv,
// odd rank: MPI_Recv then MPI_Send; in odd iterations MPI_Irecv, MPI_Isend, MPI_Waitall
// instead) and an MPI_Allreduce on its communicator.
//   single, funneled: only the main thread calls MPI; it does every thread's part in turn
//     (the other threads only compute), so the exchanges all run on one location.
//   serialized: the threads take turns (iteration by iteration, thread 0, 1, ...) under a
//     mutex: never two MPI calls at once, and both partners take the turns in one order.
//   multiple: the threads call MPI concurrently.
//   sequential: MPI_THREAD_MULTIPLE, but each thread starts when the one before has ended
//     (topolens then records them all on one location).
// With LATE_THREAD, rank 0's thread LATE_THREAD sleeps LATE_MS ms before its send in the
// middle iteration: its partner's same thread waits that long in MPI_Recv (a Late Sender).
// Every thread's middle iteration is a topolens user region "middle iteration" (when the
// measurement library is loaded), so the injected wait stands out from the small waits
// oversubscribed threads have in every iteration.
// At serialized and multiple, thread 1 also defines a tuned operation, which topolens
// records on the MPI_Init thread only: it must say so (once per process) and record nothing.
// Events per location (as recorded by topolens): see check_threads.sh.
#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// The topolens user API when the measurement library is preloaded, else null.
extern "C" int topolens_region_enter(const char* name) __attribute__((weak));
extern "C" int topolens_region_leave(const char* name) __attribute__((weak));
extern "C" int topolens_tuned_op_define(const char* name) __attribute__((weak));

namespace {

constexpr const char* kMiddle = "middle iteration";

struct Run {
    int rank = 0, size = 1;
    int threads = 1;
    int iterations = 1;
    int late_thread = -1;
    int late_ms = 0;
    std::vector<MPI_Comm> comms; // per thread
};

// One iteration of thread `t`'s part.
void exchange(const Run& run, int t, int iteration) {
    const bool middle = iteration == run.iterations / 2 && topolens_region_enter;
    if (middle) topolens_region_enter(kMiddle);
    const int partner = run.rank ^ 1;
    int out = run.rank * 1000 + t, in = -1;
    if (iteration % 2 == 1) { // nonblocking: the request table under concurrent threads
        MPI_Request requests[2];
        MPI_Irecv(&in, 1, MPI_INT, partner, t, run.comms[t], &requests[0]);
        MPI_Isend(&out, 1, MPI_INT, partner, t, run.comms[t], &requests[1]);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    } else if (run.rank % 2 == 0) {
        if (t == run.late_thread && run.rank == 0 && iteration == run.iterations / 2)
            std::this_thread::sleep_for(std::chrono::milliseconds(run.late_ms));
        MPI_Send(&out, 1, MPI_INT, partner, t, run.comms[t]);
        MPI_Recv(&in, 1, MPI_INT, partner, t, run.comms[t], MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&in, 1, MPI_INT, partner, t, run.comms[t], MPI_STATUS_IGNORE);
        MPI_Send(&out, 1, MPI_INT, partner, t, run.comms[t]);
    }
    if (in != partner * 1000 + t) {
        std::fprintf(stderr, "thread_levels: rank %d thread %d received %d\n", run.rank, t, in);
        std::exit(1);
    }
    int sum = 0;
    MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, run.comms[t]);
    if (middle) topolens_region_leave(kMiddle);
}

// Busy work for threads that do not call MPI.
void compute(int iterations) {
    volatile double x = 0;
    for (int i = 0; i < iterations * 1000; ++i) x = x + 1.0 / (i + 1);
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 4 && argc != 6) {
        std::fprintf(stderr,
                     "usage: thread_levels single|funneled|serialized|multiple|sequential THREADS "
                     "ITERATIONS [LATE_THREAD LATE_MS]\n");
        return 2;
    }
    const std::string level_name = argv[1];
    int required = -1;
    if (level_name == "single") required = MPI_THREAD_SINGLE;
    if (level_name == "funneled") required = MPI_THREAD_FUNNELED;
    if (level_name == "serialized") required = MPI_THREAD_SERIALIZED;
    if (level_name == "multiple" || level_name == "sequential") required = MPI_THREAD_MULTIPLE;
    Run run;
    run.threads = std::atoi(argv[2]);
    run.iterations = std::atoi(argv[3]);
    if (argc == 6) {
        run.late_thread = std::atoi(argv[4]);
        run.late_ms = std::atoi(argv[5]);
    }
    if (required < 0 || run.threads < 1 || run.iterations < 1) {
        std::fprintf(stderr, "thread_levels: bad arguments\n");
        return 2;
    }
    int provided = MPI_THREAD_SINGLE;
    if (required == MPI_THREAD_SINGLE) {
        MPI_Init(&argc, &argv);
        MPI_Query_thread(&provided);
    } else {
        MPI_Init_thread(&argc, &argv, required, &provided);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &run.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &run.size);
    if (provided < required || run.size % 2 != 0) {
        if (run.rank == 0)
            std::fprintf(stderr, "thread_levels: %s\n",
                         provided < required ? "thread level not provided"
                                             : "needs an even number of processes");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    run.comms.resize(static_cast<size_t>(run.threads));
    for (MPI_Comm& comm : run.comms) MPI_Comm_dup(MPI_COMM_WORLD, &comm);

    std::vector<std::thread> workers;
    // No worker ends before all are done: topolens would hand an ended thread's location
    // to a thread that starts later, and the test wants one location per thread.
    std::latch all_done(required >= MPI_THREAD_SERIALIZED ? run.threads : 0);
    if (required <= MPI_THREAD_FUNNELED) {
        for (int t = 1; t < run.threads; ++t)
            workers.emplace_back([&] { compute(run.iterations); });
        for (int i = 0; i < run.iterations; ++i)
            for (int t = 0; t < run.threads; ++t) exchange(run, t, i);
    } else if (required == MPI_THREAD_SERIALIZED) {
        std::mutex mutex;
        std::condition_variable turn_changed;
        int turn = 0; // iteration * threads + thread
        for (int t = 0; t < run.threads; ++t)
            workers.emplace_back([&, t] {
                for (int i = 0; i < run.iterations; ++i) {
                    std::unique_lock<std::mutex> lock(mutex);
                    turn_changed.wait(lock, [&] { return turn == i * run.threads + t; });
                    if (i == 0 && t == 1 && topolens_tuned_op_define)
                        topolens_tuned_op_define("not on this thread");
                    exchange(run, t, i);
                    ++turn;
                    turn_changed.notify_all();
                }
                all_done.arrive_and_wait();
            });
    } else if (level_name == "sequential") {
        for (int t = 0; t < run.threads; ++t)
            std::thread([&, t] {
                if (t == 1 && topolens_tuned_op_define)
                    topolens_tuned_op_define("not on this thread");
                for (int i = 0; i < run.iterations; ++i) exchange(run, t, i);
            }).join();
        all_done.count_down(run.threads);
    } else {
        for (int t = 0; t < run.threads; ++t)
            workers.emplace_back([&, t] {
                if (t == 1 && topolens_tuned_op_define)
                    topolens_tuned_op_define("not on this thread");
                for (int i = 0; i < run.iterations; ++i) exchange(run, t, i);
                all_done.arrive_and_wait();
            });
    }
    for (std::thread& worker : workers) worker.join();
    for (MPI_Comm& comm : run.comms) MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
