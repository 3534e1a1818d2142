// The instance Late Sender publishes, for patterns that refine it (wavefront directions).
#pragma once

#include "analyzer/engine.h"

namespace topolens::patterns {

struct LateSenderInstance {
    analysis::MessageInstance message;
    analysis::Time wait = 0;  // clamped to the receiving call, in ticks
    bool wrong_order = false; // already counted as LS, Wrong Order
};

} // namespace topolens::patterns
