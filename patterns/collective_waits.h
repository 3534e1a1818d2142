// What a collective operation makes its members wait for, by its shape (Scalasca 2.6's
// rules): the one place the collective wait-state patterns and the root-cause analysis take
// it from.
//   Wait at Barrier / Wait at NxN   max_q e_q - e_p        (all-to-all operations)
//   Late Broadcast                  e_root - e_p           (1-to-N, non-root p)
//   Early Reduce                    max_{q!=root} e_q - e_root  (N-to-1, root)
// every wait clamped to the waiting call (patterns/waits.h).
#pragma once

#include "analyzer/engine/engine.h"

#include <cstddef>
#include <vector>

namespace topolens::patterns {

enum class CollectiveShape { AllToAll, Barrier, OneToAll, AllToOne, Other };

CollectiveShape collective_shape(trace::CollectiveOp op);

// The time `member` waited in `instance` (0 for a member that waits for nobody).
analysis::Time collective_wait(const analysis::CollectiveInstance& instance, size_t member);

// The member whose late arrival the others waited for: the latest entrant (lowest member on
// ties, as MPI_MAXLOC picks) of a Barrier or all-to-all operation and of the senders of an
// N-to-1 one, the root of a 1-to-N one; -1 for other operations.
int delaying_member(const analysis::CollectiveInstance& instance);

// A location's MPI_Init (the first MPI_Init* call it enters) and MPI_Finalize (its last
// MPI_Finalize), which synchronise all processes; region trace::kNone where it has none.
struct InitAndFinalizeCalls {
    trace::CallSummary init, finalize;
};
InitAndFinalizeCalls init_and_finalize_calls(const analysis::Context& c, uint32_t location);

} // namespace topolens::patterns
