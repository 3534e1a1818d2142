// The instance Late Sender publishes, for patterns that refine it (wavefront directions).
#pragma once

#include "analyzer/engine.h"

namespace topolens::patterns {

struct LateSenderInstance {
    analysis::MessageInstance message;
    analysis::Time wait = 0; // clamped to the receiving call, in ticks
    // Sub-patterns partition their parent: a subscriber that counts this instance under
    // its own metric sets `claimed`, and Late Sender's other refinements (LS, Wrong Order)
    // leave it alone.
    mutable bool claimed = false;
};

} // namespace topolens::patterns
