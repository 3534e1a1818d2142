// Compiler instrumentation (-finstrument-functions): the program's functions as regions
// (role FUNCTION, paradigm COMPILER, as Score-P defines them). The hooks
// __cyg_profile_func_enter/exit record on the thread that loaded the library (the main
// thread) only. Calls made before MPI_Init (main itself) are kept and written when the
// trace opens; those still open at MPI_Finalize end with the program. A filter file
// (TOPOLENS_FILTER) leaves functions out, decided once per function address.
#pragma once

#include "clock.h"

namespace topolens::measure {

struct RecorderState;

// At MPI_Init, once the archive is open, after ProgramBegin and before MPI_Init's Enter:
// writes the calls made so far, their times kept within [program_start, init_time].
void functions_begin_recording(RecorderState& s, Timestamp program_start, Timestamp init_time);
// At the end of MPI_Init, measured or not: the hooks record from now on when the trace is
// being written, else they stay off for good. Rank 0 says here what was wrong with the filter.
void functions_after_start(RecorderState& s);
// At MPI_Finalize, before ProgramEnd: the functions still open end at `time`; the hooks
// record nothing afterwards.
void functions_end_recording(RecorderState& s, Timestamp time);
// At MPI_Finalize, before the definitions are sent: the source file and first line of every
// function region, from the objects' debug information.
void functions_add_sources(RecorderState& s);

} // namespace topolens::measure
