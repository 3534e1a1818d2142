#include "report_sample.h"

namespace topolens::test {

using namespace topolens::report;

namespace {

int metric(Report& r, int parent, const char* unique, const char* display, const char* unit) {
    Metric m;
    m.unique_name = unique;
    m.display_name = display;
    m.description = std::string("Description of ") + display + ".";
    m.unit = unit;
    m.url = std::string("https://example.org/metrics#") + unique;
    m.parent = parent;
    return r.add_metric(m);
}

int region(Report& r, const char* name, const char* file, const char* paradigm, const char* role,
           int begin, int end) {
    Region g;
    g.name = name;
    g.canonical_name = std::string("_") + name;
    g.description = std::string("the ") + name + " region";
    g.source_file = file;
    g.paradigm = paradigm;
    g.role = role;
    g.begin_line = begin;
    g.end_line = end;
    return r.add_region(g);
}

void values(Report& r, int m, int c, std::vector<double> v) {
    for (int l = 0; l < static_cast<int>(v.size()); ++l) r.set_value(m, c, l, v[l]);
}

} // namespace

Report sample_report() {
    Report r;
    const int time = metric(r, -1, "time", "Time", "sec");
    const int mpi = metric(r, time, "mpi", "MPI", "sec");
    const int ls = metric(r, mpi, "mpi_latesender", "Late Sender", "sec");
    const int wo = metric(r, ls, "mpi_latesender_wo", "Late Sender, wrong order", "sec");
    const int coll = metric(r, mpi, "mpi_collective", "Collective", "sec");
    const int nxn = metric(r, coll, "mpi_wait_nxn", "Wait at NxN", "sec");
    const int visits = metric(r, -1, "visits", "Visits", "occ");
    const int clock = metric(r, -1, "clock_violations", "Clock condition violations", "occ");

    const int program = region(r, "program", "", "user", "artificial", -1, -1);
    const int main = region(r, "main", "app.c", "user", "function", 10, 90);
    const int solver = region(r, "solver", "app.c", "user", "function", 100, 180);
    const int allreduce = region(r, "MPI_Allreduce", "MPI", "mpi", "collective", -1, -1);
    const int recv = region(r, "MPI_Recv", "MPI", "mpi", "point2point", -1, -1);
    const int send = region(r, "MPI_Send", "MPI", "mpi", "point2point", -1, -1);

    const int c_program = r.add_callpath(program, -1);
    const int c_main = r.add_callpath(main, c_program);
    const int c_solver = r.add_callpath(solver, c_main);
    const int c_allreduce = r.add_callpath(allreduce, c_main);
    const int c_recv = r.add_callpath(recv, c_solver);
    const int c_send = r.add_callpath(send, c_solver);

    for (int rank = 0; rank < 4; ++rank) {
        Location l;
        l.name = "Master thread";
        l.host = rank < 2 ? "nodeA" : "nodeB";
        l.process = "MPI Rank " + std::to_string(rank);
        l.rank = rank;
        l.thread = 0;
        r.add_location(l);
    }

    CartTopology grid;
    grid.name = "grid";
    grid.dim_names = {"x", "y"};
    grid.sizes = {2, 2};
    grid.periodic = {true, false};
    for (uint32_t rank = 0; rank < 4; ++rank) grid.coords.push_back({rank % 2, rank / 2});
    r.topologies.push_back(grid);
    CartTopology line;
    line.name = "line";
    line.sizes = {4};
    line.periodic = {false};
    line.coords = {{0}, {}, {}, {3}};
    r.topologies.push_back(line);

    r.attributes["topolens.trace"] = "/data/run1/traces.otf2";
    r.attributes["topolens.topology_source"] = "MPI_Cart_create";
    r.attributes["note"] = "a<b & \"c\" > d";

    values(r, time, c_program, {1, 1, 1, 1});
    values(r, time, c_solver, {2, 2, 2, 2});
    values(r, mpi, c_allreduce, {.5, .5, .5, .5});
    values(r, mpi, c_recv, {.25, .5, 0, 0});
    values(r, mpi, c_send, {.125, 0, 0, .125});
    values(r, ls, c_recv, {.5, 1, 0, 0});
    values(r, wo, c_recv, {0, .25, 0, 0});
    values(r, nxn, c_allreduce, {0, .125, .25, .375});
    values(r, visits, c_program, {1, 1, 1, 1});
    values(r, visits, c_allreduce, {5, 5, 5, 5});
    values(r, visits, c_recv, {10, 10, 0, 0});
    values(r, clock, c_recv, {0, 2, 0, 0});
    return r;
}

} // namespace topolens::test
