// The instance every wait-state pattern publishes (Late Sender, Late Receiver, Wait at N×N,
// Wait at Barrier, Late Broadcast, Early Reduce): time a call lost waiting for another
// process. Subscribers use it to tell time a process spent itself from time it waited, e.g.
// the codelet audit separating an outlier's cause from the processes that waited for it.
#pragma once

#include "analyzer/engine/engine.h"

namespace topolens::patterns {

struct WaitStateInstance {
    analysis::CallInfo call; // the waiting call
    analysis::Time wait = 0; // clamped to the call (patterns/waits.h), in ticks, > 0
};

} // namespace topolens::patterns
