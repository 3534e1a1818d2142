// The one rule every wait state follows: waiting lasts until `waited_until`, but never
// less than zero and never longer than the waiting call itself.
#pragma once

#include "analyzer/engine/engine.h"

#include <algorithm>

namespace topolens::patterns {

inline analysis::Time wait_in_call(analysis::Time waited_until, const analysis::CallInfo& call) {
    if (waited_until <= call.enter) return 0;
    return std::min(waited_until, call.leave) - call.enter;
}

} // namespace topolens::patterns
