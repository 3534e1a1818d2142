#!/usr/bin/env bash
# Compiler instrumentation (docs/instrumentation.md): programs built with the compiler
# wrappers of the build tree, traced on NP ranks, analyzed; their call trees must be exactly
# the expected ones (calltree_dump: every call path, its visits on every rank, its region's
# file:line).
#   cxx      instrumented.cpp with a shared library of its own (smooth.cpp), built by
#            topolens-cxx (compiling and linking apart); then filters: by name, by source
#            file, through `topolens run --filter`, everything (the MPI calls stay), and a
#            malformed one (one line on stderr, the program runs on unfiltered).
#   clang    the same C++ program built by topolens-cxx with Clang (OMPI_CXX=clang++), which
#            instruments after inlining: Solver's inline constructor is not in the tree.
#   c        instrumented_c.c built by topolens-cc.
#   fortran  instrumented_fortran.f90 built by topolens-fc.
#
# usage: check_instrumented.sh cxx|clang|c|fortran NAME NP
#        (environment: TL_WRAPPERS the wrappers' folder, TL_CALLTREE_DUMP)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$#" = 3 ] || tl_fail "usage: check_instrumented.sh cxx|clang|c|fortran NAME NP"
language="$1" name="$2" np="$3"
[ -n "${TL_TOPOLENS:-}" ] || tl_fail "TL_TOPOLENS is not set: the topolens program was not built"
sources="$(cd "$(dirname "${BASH_SOURCE[0]}")/instrumented" && pwd)"
work="$(tl_workdir "$name")"
unset TOPOLENS_FILTER LD_PRELOAD

# line_of FILE TEXT: the number of the first line of FILE holding TEXT.
line_of() {
    local n
    n="$(grep -nF -m 1 -- "$2" "$sources/$1" | cut -d: -f1)"
    [ -n "$n" ] || tl_fail "no '$2' in $1"
    echo "$n"
}

# trace_and_dump TAG [VAR=VALUE ...]: runs $program on NP ranks (linked with the library by
# the wrapper, no preload), analyzes the trace and writes its call tree to $work/TAG.tree
# (sorted), stderr to $work/TAG.stderr.
trace_and_dump() {
    local tag="$1"
    shift
    local rc=0
    tl_mpirun "$np" TOPOLENS_TRACE_DIR="$work/$tag.trace" \
        TOPOLENS_REPORT_PATH_FILE="$work/$tag.path" "$@" -- "$work/$program" "${arguments[@]}" \
        >"$work/$tag.stdout" 2>"$work/$tag.stderr" || rc=$?
    cat "$work/$tag.stdout" "$work/$tag.stderr"
    [ "$rc" = 0 ] || tl_fail "$program ($tag) exited with status $rc"
    analyze_and_dump "$tag" "$(tl_reported_trace "$work/$tag.path")"
}

analyze_and_dump() {
    local tag="$1" trace="$2"
    "$TL_TOPOLENS" analyze "$trace" -o "$work/$tag.cubex" --quiet ||
        tl_fail "topolens analyze ($tag) failed"
    "$TL_CALLTREE_DUMP" "$work/$tag.cubex" | LC_ALL=C sort >"$work/$tag.tree" ||
        tl_fail "calltree_dump ($tag) failed"
}

# same_tree EXPECTED ACTUAL WHAT
same_tree() {
    if ! diff -u "$1" "$2"; then
        tl_fail "$3: the call tree differs from the expected one (diff above: - expected)"
    fi
    echo "ok: $3"
}

# times N: N visits on every rank ("N,N,N,N")
times() { local v=""; for _ in $(seq "$np"); do v="$v$1,"; done; echo "${v%,}"; }
all="$(times 1)"
wrappers="$TL_WRAPPERS"
cd "$work"

case "$language" in
cxx | clang)
    if [ "$language" = clang ]; then
        command -v clang++ >/dev/null || tl_fail "clang++ is not installed"
        export OMPI_CXX=clang++ MPICH_CXX=clang++
        "$wrappers/topolens-cxx" --version | grep -i clang >/dev/null ||
            tl_fail "topolens-cxx does not compile with clang++ under OMPI_CXX"
    fi
    echo "== build with topolens-cxx: libsmooth.so, instrumented.o, instrumented"
    "$wrappers/topolens-cxx" -O2 -fPIC -shared "$sources/smooth.cpp" -o libsmooth.so ||
        tl_fail "topolens-cxx cannot build the shared library"
    # Without the MPI C++ bindings: their static initializer would be a call before main.
    "$wrappers/topolens-cxx" -O2 -DOMPI_SKIP_MPICXX -c "$sources/instrumented.cpp" -o instrumented.o ||
        tl_fail "topolens-cxx -c failed"
    nm instrumented.o | grep ' U __cyg_profile_func_enter' >/dev/null ||
        tl_fail "topolens-cxx did not instrument instrumented.o"
    "$wrappers/topolens-cxx" instrumented.o -L. -lsmooth -Wl,-rpath,"$work" -o instrumented ||
        tl_fail "topolens-cxx cannot link"
    ldd instrumented | grep libtopolens-measure.so >/dev/null ||
        tl_fail "topolens-cxx did not link libtopolens-measure.so"
    program=instrumented arguments=(5)
    trace_and_dump plain

    main="instrumented/main"
    solve="$main/app::Solver::solve(int)"
    step="$solve/app::Solver::step()"
    vec="std::vector<double, std::allocator<double> >&"
    exchange="$step/app::exchange(int, int, $vec)"
    smooth="$step/grid::smooth($vec)"
    average="$smooth/grid::(anonymous namespace)::average(double, double)"
    parse="$main/app::parse_steps(int, char**)"
    scale="$solve/double app::scale<double>(double)"
    src="$sources/instrumented.cpp"
    lib="$sources/smooth.cpp"
    cat >expected.tree <<END
instrumented	$all	:
$main	$all	$src:$(line_of instrumented.cpp 'int main(')
$main/MPI_Finalize	$all	MPI:
$main/MPI_Init	$all	MPI:
$main/app::Solver::Solver(int, int)	$all	$src:$(line_of instrumented.cpp 'Solver(int rank, int size)')
$solve	$all	$src:$(line_of instrumented.cpp 'double solve(int steps)')
$step	$(times 5)	$src:$(line_of instrumented.cpp 'double step()')
$step/app::tiny(int)	$(times 50)	$src:$(line_of instrumented.cpp 'int tiny(int x)')
$exchange	$(times 5)	$src:$(line_of instrumented.cpp 'void exchange(int rank')
$exchange/MPI_Sendrecv	$(times 5)	MPI:
$smooth	$(times 5)	$lib:$(line_of smooth.cpp 'double smooth(std::vector')
$average	$(times 10)	$lib:$(line_of smooth.cpp 'double average(double left')
$scale	$all	$src:$(line_of instrumented.cpp 'T scale(T value)')
$scale/MPI_Allreduce	$all	MPI:
$parse	$all	$src:$(line_of instrumented.cpp 'int parse_steps(int argc')
$parse/app::tiny(int)	$all	$src:$(line_of instrumented.cpp 'int tiny(int x)')
END
    if [ "$language" = clang ]; then
        grep -v -F '/app::Solver::Solver(int, int)	' expected.tree >expected.clang
        mv expected.clang expected.tree
    fi
    LC_ALL=C sort -o expected.tree expected.tree
    same_tree expected.tree plain.tree "instrumented C++ program ($language)"
    [ "$language" = cxx ] || { echo "PASS"; exit 0; } # the filters: once is enough

    echo "== filter by region name (TOPOLENS_FILTER)"
    cat >names.filter <<'END'
# the tiny frequent function, and one by its mangled name
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE app::tiny*
  EXCLUDE MANGLED *7average*
SCOREP_REGION_NAMES_END
END
    trace_and_dump names TOPOLENS_FILTER="$work/names.filter"
    grep -v -e '/app::tiny(int)	' -e '::average(double, double)	' plain.tree >expected.names
    [ "$(wc -l <expected.names)" = "$(($(wc -l <plain.tree) - 3))" ] ||
        tl_fail "the name filter's expectation should drop 3 call paths"
    same_tree expected.names names.tree "filter by name removes exactly tiny and average"

    echo "== topolens score: the trace the name filter leaves, predicted from the unfiltered one"
    "$TL_TOPOLENS" score "$(tl_reported_trace "$work/plain.path")" --filter names.filter \
        >score.txt || tl_fail "topolens score --filter failed"
    grep "regions removed" score.txt
    predicted="$(sed -n 's/.* regions removed, saving .*: \([0-9,]*\) bytes in all.*/\1/p' score.txt | tr -d ,)"
    [ -n "$predicted" ] || tl_fail "no filtered size in score's output"
    filtered="$(stat -c %s "$(tl_reported_trace "$work/names.path")"/traces/*.evt | awk '{ s += $1 } END { print s + 0 }')"
    awk -v p="$predicted" -v r="$filtered" 'BEGIN { exit !(p >= 0.95 * r && p <= 1.05 * r) }' ||
        tl_fail "score predicted $predicted bytes with the filter, the filtered run wrote $filtered (not within 5%)"
    echo "ok: score predicted $predicted bytes with the filter, the filtered run wrote $filtered"

    echo "== profile mode holds the functions too (TOPOLENS_MODE=trace,profile)"
    trace_and_dump both TOPOLENS_MODE=trace,profile
    profile="$(tl_reported_trace "$work/both.path")/profile.cubex"
    [ -f "$profile" ] || tl_fail "no profile in $(tl_reported_trace "$work/both.path")"
    "$TL_PROFILE_CHECK" "$profile" both.cubex || tl_fail "the profile differs from the trace analysis"
    "$TL_CALLTREE_DUMP" "$profile" | cut -f1,2 | LC_ALL=C sort >profile.paths ||
        tl_fail "calltree_dump of the profile failed"
    cut -f1,2 plain.tree >plain.paths
    same_tree plain.paths profile.paths "the profile's call paths and visits are the trace's"

    echo "== filter by source file (topolens run --filter)"
    cat >files.filter <<'END'
SCOREP_FILE_NAMES_BEGIN
  EXCLUDE */smooth.cpp
SCOREP_FILE_NAMES_END
END
    TOPOLENS_MEASURE_LIB="$TL_MEASURE_LIB" "$TL_TOPOLENS" run -np "$np" --trace-dir "$work/files.trace" \
        --filter files.filter -- "$work/instrumented" 5 >files.stdout 2>files.stderr ||
        { cat files.stdout files.stderr; tl_fail "topolens run --filter failed"; }
    cat files.stdout files.stderr
    analyze_and_dump files "$work/files.trace"
    grep -v -F -e '/grid::smooth(' plain.tree >expected.files
    same_tree expected.files files.tree "filter by file removes exactly smooth.cpp's functions"

    echo "== a filter that excludes everything: MPI functions are never filtered"
    printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\nSCOREP_REGION_NAMES_END\n' >all.filter
    trace_and_dump all TOPOLENS_FILTER="$work/all.filter"
    cat >expected.all <<END
instrumented	$all	:
instrumented/MPI_Allreduce	$all	MPI:
instrumented/MPI_Finalize	$all	MPI:
instrumented/MPI_Init	$all	MPI:
instrumented/MPI_Sendrecv	$(times 5)	MPI:
END
    same_tree expected.all all.tree "EXCLUDE * leaves the MPI calls"

    echo "== a malformed filter file"
    # An unclosed bracket on line 3, column 11.
    printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE app::tiny*\n  EXCLUDE [average\nSCOREP_REGION_NAMES_END\n' \
        >bad.filter
    trace_and_dump bad TOPOLENS_FILTER="$work/bad.filter"
    grep '^topolens: ' bad.stderr >bad.lines || true
    [ "$(wc -l <bad.lines)" = 1 ] || tl_fail "a malformed filter should give one line, not: $(cat bad.lines)"
    grep -E "^topolens: $work/bad.filter:3:11: " bad.lines >/dev/null ||
        tl_fail "the line should name the file, line 3 and column 11: $(cat bad.lines)"
    same_tree plain.tree bad.tree "a malformed filter leaves the run unfiltered"
    ;;
c)
    echo "== build with topolens-cc"
    "$wrappers/topolens-cc" -O2 "$sources/instrumented_c.c" -o instrumented_c ||
        tl_fail "topolens-cc failed"
    program=instrumented_c arguments=()
    trace_and_dump plain
    src="$sources/instrumented_c.c"
    main="instrumented_c/main"
    cat >expected.tree <<END
instrumented_c	$all	:
$main	$all	$src:$(line_of instrumented_c.c 'int main(')
$main/MPI_Finalize	$all	MPI:
$main/MPI_Init	$all	MPI:
$main/compute	$(times 3)	$src:$(line_of instrumented_c.c 'int compute(int value)')
$main/compute/MPI_Allreduce	$(times 3)	MPI:
END
    LC_ALL=C sort -o expected.tree expected.tree
    same_tree expected.tree plain.tree "instrumented C program"
    ;;
fortran)
    echo "== build with topolens-fc"
    "$wrappers/topolens-fc" -O2 "$sources/instrumented_fortran.f90" -o instrumented_fortran ||
        tl_fail "topolens-fc failed"
    program=instrumented_fortran arguments=()
    trace_and_dump plain
    src="$sources/instrumented_fortran.f90"
    main="instrumented_fortran/main/MAIN__"
    program_line="$(line_of instrumented_fortran.f90 'program instrumented_fortran')"
    # gfortran's generated C main: the line after the program statement.
    cat >expected.tree <<END
instrumented_fortran	$all	:
instrumented_fortran/main	$all	$src:$((program_line + 1))
$main	$all	$src:$program_line
$main/MPI_Finalize	$all	MPI:
$main/MPI_Init	$all	MPI:
$main/__work_MOD_compute	$(times 3)	$src:$(line_of instrumented_fortran.f90 'integer function compute')
$main/__work_MOD_compute/MPI_Allreduce	$(times 3)	MPI:
END
    LC_ALL=C sort -o expected.tree expected.tree
    same_tree expected.tree plain.tree "instrumented Fortran program"
    ;;
*) tl_fail "unknown language '$language'" ;;
esac
echo "PASS"
