// The root causes `topolens synth --pattern delay` must show, by Scalasca 2.6's definitions
// (src/scout/generator/Delay.MPI.pattern, Waitstates.MPI.pattern, CriticalPath.pattern and
// src/scout/{DelayOps,MpiDelayOps,SynchpointHandler,TmapCacheHandler}.cpp), in closed form on
// the generator's schedule. Nothing here runs analysis code: each value follows from the
// timing model by the derivation in the comments.
//
// Schedule of one iteration (s = its start, when every rank left the previous barrier or
// MPI_Init; W work, D delay, L latency; P the grid's width; c the halo block's centre; the
// chain r_0 .. r_{P-1}; R = r_{P-1}):
//   halo rank p: work [s, s+W] (c: s+W+D), Irecv/Isend (0 ticks), Waitall until the last
//     message arrived: a neighbour of c leaves at s+W+D+L (Late Sender D), c at
//     s+W+max(D,L), every other halo rank at s+W+L;
//   r_0: work [s, s+W+D], MPI_Send; r_k: work [s, s+W], MPI_Recv [s+W, s+W+D+kL] (Late
//     Sender D+(k-1)L), MPI_Send (not R);
//   everyone enters MPI_Barrier when done; R last at E = s+W+D+(P-1)L (unique for P >= 3,
//     L >= 1); all leave at E+L. Rank p waits w_p = E - (its enter).
//
// Scalasca's building blocks as its code has them, and what they give here:
// - Synchronisation points: a receive with a Late Sender wait and the send it waited for;
//   every Barrier member; MPI_Init and MPI_Finalize. Receives without a wait are none, so
//   the halo's punctual messages synchronise nobody.
// - Time maps: exclusive time per call path, cut at each synchpoint *event*; the time of
//   the call holding the event (enter to the event) falls into the segment *after* it
//   (TmapCacheHandler credits time at enter/leave only). So a synchronisation interval
//   [prevSp, event] holds the whole prevSp call and nothing of the event's call.
// - Pruning: the waits of the synchpoints strictly inside the interval are taken off their
//   call paths; the prevSp call keeps only its completion time.
// - Every interval here starts at the previous barrier (or MPI_Init): pairs synchronise
//   once per iteration, and the barrier synchronises all. Every rank left it together, so
//   its completion time is the same on every rank (Barrier: leave - earliest leave = 0)
//   and it cancels in every difference of two time maps. Costs therefore never cross an
//   iteration: every delay metric is K times one iteration's value.
// - Completion time of a Late Sender receive (used where the interval of R's partner
//   r_{P-2} starts at R's receive): the receive's leave - the send's leave (MPI.pattern,
//   MPI_LATESENDER) = L here. Of a collective: leave - max(earliest leave, latest enter)
//   = 0 in a barrier everyone leaves together.
//
// Derivations (per iteration; "d" the delay sum, "w" the delayer's own waits inside the
// interval, scale = min(wait / (d + w), 1)):
// 1. Halo: neighbour n waits D for c. n's map: {work W}; c's map up to its Isend to n:
//    {work W+D}, no waits. d = D, scale 1: delay_latesender[c][main/work] += D per
//    neighbour. No propagation (c waited nowhere), no long-term costs (nobody waits for n).
// 2. Chain, r_k waits D+(k-1)L for r_{k-1}. r_k's map {work W}. r_0: {work W+D}, d = D,
//    w = 0. r_{k-1} (k >= 2): {work W, MPI_Recv D+(k-1)L} minus its own wait D+(k-2)L =
//    {work W, MPI_Recv L}: d = L, w = D+(k-2)L, d + w = the wait, scale 1.
//    delay_latesender: r_0 D at main/work; r_1 .. r_{P-2} L each at main/MPI_Recv.
//    Long-term (LS channel): r_{k-1}'s wait gets cost (scale + scale_c)·wait, scale_c =
//    (cost at r_k's receive) / (d + w). Starting with 0 at R, the ratio cost/wait at r_k is
//    P-1-k, so delay_latesender_longterm: r_0 (P-2)D at main/work, r_j (P-2-j)L at
//    main/MPI_Recv. Sum short + long = (P-1)D + (P-1)(P-2)L/2 = all the chain's Late Sender.
//    mpi_wait_propagating_ls: r_j (1..P-2) its whole wait D+(j-1)L (scale 1) at MPI_Recv.
//    mpi_wait_indirect_latesender: r_k (2..P-1) scale·w = D+(k-2)L at MPI_Recv.
// 3. Barrier, delayer R (latest entrant). R's group interval starts at the previous barrier,
//    with an intermediate synchpoint with r_{P-2} (its receive). R's map {work W, MPI_Recv
//    L}, its own wait w_R = D+(P-2)L. Member m's map since its previous synchpoint with R:
//    halo ranks and r_0 have no MPI_Recv, so delta_m = {MPI_Recv: L}, scale s_m = w_m /
//    (L + w_R); r_1 .. r_{P-3} have {MPI_Recv L}: delta = 0, s_m = w_m / w_R; r_{P-2} last
//    synchronised with R at its send: its share of R's map is R's receive after its event,
//    pruned to its completion L, with no own waits: delta = {MPI_Recv: L}, s = w / L.
//    delay_barrier[R][main/MPI_Recv] = L·A/(D+(P-1)L) + w_{r_{P-2}} (= L), A = the waits of
//    the halo ranks and r_0. The sum S of the scales of all members but r_{P-2} (it synchronised
//    after R's receive, so Scalasca's scale of that sub-interval leaves it out) goes onto R's
//    receive wait as BARRIER-channel cost S·w_R, and back along the chain with ratio S at
//    every hop (d + w = the wait each time): delay_barrier_longterm r_0 S·D at main/work,
//    r_1 .. r_{P-2} S·L at main/MPI_Recv. Sum short + long = all the barrier's waits.
//    Collective waits do not count as propagating or indirect (Scalasca 2.6 has those rules
//    commented out), so R's receive wait is not propagating.
// 4. Critical path (backward from MPI_Finalize on R, the latest entrant; the path at a
//    location ends at a synchpoint where it waited and continues at the partner's event):
//    R: runtimes(receive, Finalize) minus the wait = {MPI_Recv L, MPI_Barrier L, main 1};
//    r_{P-2} .. r_1: {MPI_Recv L} each; r_0: back to the previous barrier, where it waited:
//    {MPI_Barrier L (the barrier's time after its wait), work W+D}; there the path moves to
//    that barrier's latest entrant, R, whose segment ends at the barrier's enter: {MPI_Recv
//    L}; ... ; in the first iteration r_0 reaches MPI_Init: {MPI_Init 1000, work W+D}.
//    Sum = 1000 + K(W+D+PL) + 1 = R's MPI_Finalize enter: Scalasca counts from the first
//    event (MPI_Init's enter at 0) to the Finalize *enter* of its latest entrant; the
//    Finalize call itself is not on the path (its time falls after the path's last event).
// 5. From the path: G = its profile over all locations; T_p = p's time per call path minus
//    its synchpoints' waits (MPI_Finalize included). critical_path_activities =
//    min(G, T_p) where G > 0; non_critical_path_activities = max(T_p - G, 0);
//    critical_imbalance_impact: per p, excess = max(G - T_p, 0) scaled to sum to
//    sum(G) - sum(T_p) (negative when p waited less than MPI_Finalize lasts: Scalasca keeps
//    the sign), summed over p to I, and I given to the path's holders by their share of G.
#include "trace/synthetic.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

namespace topolens::trace {
namespace {

constexpr const char* kMain = "main";
constexpr const char* kInit = "main/MPI_Init";
constexpr const char* kFinalize = "main/MPI_Finalize";
constexpr const char* kWork = "main/work";
constexpr const char* kRecv = "main/MPI_Recv";
constexpr const char* kWaitall = "main/MPI_Waitall";
constexpr const char* kBarrier = "main/MPI_Barrier";

class RootCauses {
  public:
    explicit RootCauses(const SynthOptions& o)
        : g_(synth_delay_layout(o.grid)), n_(o.ranks), P_(g_.width), R_(g_.chain(P_ - 1)),
          K_(static_cast<double>(o.iterations)), W_(static_cast<double>(o.work_ticks)),
          D_(static_cast<double>(o.delay_ticks)), L_(static_cast<double>(o.latency_ticks)) {
        wait_ls_.assign(n_, 0);
        wait_barrier_.assign(n_, 0);
        // Late Sender per iteration (the schedule in the file comment).
        for (uint32_t nb : g_.halo_neighbours[g_.centre]) wait_ls_[nb] = D_;
        for (uint32_t k = 1; k < P_; ++k) wait_ls_[g_.chain(k)] = D_ + (k - 1) * L_;
        // Barrier enters relative to s; R enters last at E.
        const double E = W_ + D_ + (P_ - 1) * L_;
        for (uint32_t p = 0; p < g_.halo_ranks; ++p) {
            double enter = W_ + L_;
            if (p == g_.centre) enter = W_ + std::max(D_, L_);
            if (wait_ls_[p] > 0) enter = W_ + D_ + L_;
            wait_barrier_[p] = E - enter;
        }
        for (uint32_t k = 0; k < P_; ++k) wait_barrier_[g_.chain(k)] = E - (W_ + D_ + k * L_);
    }

    SynthRootCauses run() {
        for (const char* m :
             {"delay_latesender", "delay_latesender_longterm", "delay_barrier",
              "delay_barrier_longterm", "mpi_wait_propagating_ls", "mpi_wait_indirect_latesender",
              "critical_path", "critical_path_activities", "non_critical_path_activities",
              "critical_imbalance_impact"})
            x_.metrics[m].assign(n_, {});
        x_.zero_metrics = {"delay_latereceiver",
                           "delay_latereceiver_longterm",
                           "delay_n2n",
                           "delay_n2n_longterm",
                           "delay_12n",
                           "delay_12n_longterm",
                           "delay_n21",
                           "delay_n21_longterm",
                           "mpi_wait_propagating_lr",
                           "mpi_wait_indirect_latereceiver"};
        halo();
        chain();
        barrier();
        critical_path();
        edges();
        return std::move(x_);
    }

  private:
    void put(const char* metric, uint32_t loc, const char* callpath, double ticks) {
        if (ticks != 0) x_.metrics[metric][loc][callpath] += ticks;
    }
    uint32_t r(uint32_t k) const { return g_.chain(k); }

    // 1. Each neighbour of the centre waits D for it; the centre's extra work explains it all.
    void halo() {
        for ([[maybe_unused]] uint32_t nb : g_.halo_neighbours[g_.centre])
            put("delay_latesender", g_.centre, kWork, K_ * D_);
    }

    // 2. The chain (short and long term, propagating and indirect waits).
    void chain() {
        put("delay_latesender", r(0), kWork, K_ * D_);
        put("delay_latesender_longterm", r(0), kWork, K_ * (P_ - 2) * D_);
        for (uint32_t j = 1; j + 1 < P_; ++j) {
            put("delay_latesender", r(j), kRecv, K_ * L_);
            put("delay_latesender_longterm", r(j), kRecv, K_ * (P_ - 2 - j) * L_);
            put("mpi_wait_propagating_ls", r(j), kRecv, K_ * wait_ls_[r(j)]);
        }
        for (uint32_t k = 2; k < P_; ++k)
            put("mpi_wait_indirect_latesender", r(k), kRecv, K_ * wait_ls_[r(k - 1)]);
    }

    // 3. The barrier: short term on R, long term back along the chain.
    void barrier() {
        const double w_R = wait_ls_[R_];
        double A = wait_barrier_[r(0)], S = 0;
        for (uint32_t p = 0; p < g_.halo_ranks; ++p) A += wait_barrier_[p];
        S = A / (L_ + w_R);
        for (uint32_t k = 1; k + 2 < P_; ++k) S += wait_barrier_[r(k)] / w_R;
        put("delay_barrier", R_, kRecv, K_ * (L_ * A / (L_ + w_R) + wait_barrier_[r(P_ - 2)]));
        put("delay_barrier_longterm", r(0), kWork, K_ * S * D_);
        for (uint32_t j = 1; j + 1 < P_; ++j)
            put("delay_barrier_longterm", r(j), kRecv, K_ * S * L_);
    }

    // 4. and 5. The critical path, its profile, and the activities and imbalance from it.
    void critical_path() {
        const char* cp = "critical_path";
        put(cp, r(0), kInit, kSynthInitTicks);
        put(cp, r(0), kWork, K_ * (W_ + D_));
        put(cp, r(0), kBarrier, (K_ - 1) * L_);
        for (uint32_t j = 1; j < P_; ++j) put(cp, r(j), kRecv, K_ * L_);
        put(cp, R_, kBarrier, L_);
        put(cp, R_, kMain, 1);
        x_.critical_path_ticks =
            kSynthInitTicks + static_cast<uint64_t>(K_) * static_cast<uint64_t>(W_ + D_ + P_ * L_) +
            1;

        SynthCallpathTicks& G = x_.critical_path_profile;
        for (const SynthCallpathTicks& loc : x_.metrics[cp])
            for (const auto& [path, ticks] : loc) G[path] += ticks;

        // T_p: the time per call path minus the synchpoints' waits.
        std::vector<SynthCallpathTicks> T(n_);
        for (uint32_t p = 0; p < n_; ++p) {
            T[p][kInit] = kSynthInitTicks;
            T[p][kFinalize] = kSynthInitTicks;
            T[p][kBarrier] = K_ * L_; // each barrier lasts its wait + L
        }
        T[R_][kMain] = 1;
        for (uint32_t p = 0; p < g_.halo_ranks; ++p) {
            T[p][kWork] = K_ * (W_ + (p == g_.centre ? D_ : 0));
            // A neighbour's Waitall lasts D + L of which D is its wait; the centre's lasts
            // max(D, L) - D.
            T[p][kWaitall] = K_ * (p == g_.centre ? std::max(L_ - D_, 0.0) : L_);
        }
        T[r(0)][kWork] = K_ * (W_ + D_);
        for (uint32_t k = 1; k < P_; ++k) {
            T[r(k)][kWork] = K_ * W_;
            T[r(k)][kRecv] = K_ * L_; // D + kL long, D + (k-1)L of it waiting
        }

        double G_sum = 0;
        for (const auto& [path, ticks] : G) G_sum += ticks;
        SynthCallpathTicks I; // the imbalance costs summed over all locations
        for (uint32_t p = 0; p < n_; ++p) {
            double T_sum = 0, excess_sum = 0;
            for (const auto& [path, ticks] : T[p]) {
                T_sum += ticks;
                const auto g = G.find(path);
                const double on_path = g == G.end() ? 0 : g->second;
                if (on_path > 0)
                    put("critical_path_activities", p, path.c_str(), std::min(on_path, ticks));
                put("non_critical_path_activities", p, path.c_str(),
                    std::max(ticks - on_path, 0.0));
            }
            SynthCallpathTicks excess;
            for (const auto& [path, ticks] : G) {
                const auto t = T[p].find(path);
                excess[path] = std::max(ticks - (t == T[p].end() ? 0 : t->second), 0.0);
                excess_sum += excess[path];
            }
            if (excess_sum > 0) // always here: R lacks D of work, the others the tick in main
                for (const auto& [path, ticks] : excess)
                    I[path] += ticks * (G_sum - T_sum) / excess_sum;
        }
        for (uint32_t p = 0; p < n_; ++p)
            for (const auto& [path, ticks] : SynthCallpathTicks(x_.metrics[cp][p])) {
                const double impact = ticks / G[path] * I[path];
                if (impact > 0) put("critical_imbalance_impact", p, path.c_str(), impact);
            }
    }

    // Each wait's direct cause, and the sums the delays must explain.
    void edges() {
        const auto k = static_cast<uint64_t>(K_);
        for (uint32_t p = 0; p < n_; ++p) {
            const auto ls = static_cast<uint64_t>(wait_ls_[p]);
            const auto bw = static_cast<uint64_t>(wait_barrier_[p]);
            if (ls > 0) {
                const uint32_t cause = p < g_.halo_ranks ? g_.centre : p - 1;
                x_.edges.push_back({p, cause, "latesender", k * ls});
                x_.waits["latesender"] += k * ls;
            }
            if (bw > 0) {
                x_.edges.push_back({p, R_, "barrier", k * bw});
                x_.waits["barrier"] += k * bw;
            }
        }
        std::sort(x_.edges.begin(), x_.edges.end(), [](const SynthEdge& a, const SynthEdge& b) {
            return std::tie(a.waiting, a.causing, a.kind) < std::tie(b.waiting, b.causing, b.kind);
        });
        // Sections 1 to 3: every wait is explained (scales never cap, every chain ends at a
        // delay, and r_{P-2}'s barrier wait is covered by R's receive completion).
        x_.unexplained["latesender"] = 0;
        x_.unexplained["barrier"] = 0;
    }

    const SynthDelayLayout g_;
    const uint32_t n_, P_, R_;
    const double K_, W_, D_, L_;
    std::vector<double> wait_ls_, wait_barrier_; // per iteration and location
    SynthRootCauses x_;
};

} // namespace

SynthRootCauses synth_delay_root_causes(const SynthOptions& resolved) {
    return RootCauses(resolved).run();
}

} // namespace topolens::trace
