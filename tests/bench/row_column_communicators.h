// The row and column communicators of a P x Q process grid (rank = x + P * y), for the
// benchmark traces of collectives on them.
#pragma once

#include "trace/builder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace topolens::bench {

struct RowsAndColumns {
    std::vector<trace::Ref> rows;    // by y: the processes x + P * y
    std::vector<trace::Ref> columns; // by x
};

inline RowsAndColumns row_column_communicators(trace::TraceBuilder& b, uint32_t P, uint32_t Q) {
    RowsAndColumns grid;
    for (uint32_t y = 0; y < Q; ++y) {
        std::vector<uint32_t> members;
        for (uint32_t x = 0; x < P; ++x) members.push_back(x + P * y);
        grid.rows.push_back(b.communicator("row " + std::to_string(y), members, b.world()));
    }
    for (uint32_t x = 0; x < P; ++x) {
        std::vector<uint32_t> members;
        for (uint32_t y = 0; y < Q; ++y) members.push_back(x + P * y);
        grid.columns.push_back(b.communicator("column " + std::to_string(x), members, b.world()));
    }
    return grid;
}

} // namespace topolens::bench
