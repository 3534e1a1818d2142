// A process grid read from the program's communicators: transposes and FFTs split their
// processes with MPI_Comm_split into row and column communicators (in 3D: the lines along
// three axes) and exchange only by collectives on them, so no topology is recorded and no
// point-to-point message shows the grid. See comm_grid.cpp for the rules.
#pragma once

#include "trace/model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace topolens::analysis {

// One axis of a grid found from communicators: its lines, one communicator each (the
// lowest-numbered of those with the same members), ascending. A process's coordinate along
// the axis is its rank in its line, as MPI_Cart_sub would number it.
struct CommunicatorAxis {
    std::vector<trace::Ref> lines;
    uint32_t size = 0; // processes per line = the axis's size
};

struct CommunicatorGrid {
    std::vector<CommunicatorAxis> axes;        // axis 0 first: the last axis varies fastest in rank
    std::vector<std::vector<uint32_t>> coords; // per process (index into the ranks given)
    uint64_t collectives = 0;                  // collective operations on the lines' communicators
    uint64_t messages = 0;                     // point-to-point messages on them
    std::vector<uint32_t> dims() const;
};

struct CommunicatorGridSearch {
    std::optional<CommunicatorGrid> grid;
    // Without a grid: why the communicators give none ("the communicators divide the 16
    // processes only one way: ..."); empty when no communicator could be a grid line.
    std::string why_not;
};

// Per communicator (index into the trace's communicators): collective operations and
// messages on it. Used to prefer grids the program used and to say how much it did.
struct CommunicatorUse {
    std::vector<uint64_t> collectives, messages;
};

// The grid whose lines along every axis are communicators: families of disjoint
// communicators of equal size covering all processes (`ranks`: the trace's distinct world
// ranks, ascending), two or three of them whose sizes multiply to the process count, in
// which every process's ranks in its lines are coordinates of one grid: processes in one
// line agree on every other coordinate, and no two processes share all of them.
CommunicatorGridSearch find_communicator_grid(const std::vector<trace::Communicator>& comms,
                                              const std::vector<uint32_t>& ranks,
                                              const CommunicatorUse& use);

// How the explanation names a set of communicators: "MPI_Comm_split 1,5-7" when their names
// are one word and a number, else their names ("rows, cols"; ", ... (12 in all)" after 4),
// or "communicators #2,7-9" where they have none.
std::string communicators_text(const std::vector<trace::Communicator>& comms,
                               const std::vector<trace::Ref>& which);

} // namespace topolens::analysis
