# Shared by the integration test scripts (sourced). CMake passes, in the environment:
#   TL_MPIEXEC      mpirun
#   TL_BIN          directory of the sample programs
#   TL_MEASURE_LIB  libtopolens-measure.so (for LD_PRELOAD)
#   TL_TRACE_CHECK  the trace_check program
#   TL_OTF2_PRINT   otf2-print
#   TL_TOPOLENS     the topolens command line (may be unset when not built)
#   TL_WORK         a directory for the tests' output
set -euo pipefail

tl_fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# A fresh output directory for one test: tl_workdir NAME
tl_workdir() {
    local dir="$TL_WORK/$1"
    rm -rf "$dir"
    mkdir -p "$dir"
    echo "$dir"
}

# tl_mpirun NP [VAR=VALUE ...] -- PROGRAM [ARGS ...]
# Runs PROGRAM on NP processes with the variables exported to every rank. 2-core
# machines, often as root: oversubscription and root must be allowed explicitly.
tl_mpirun() {
    local np="$1"
    shift
    local exports=()
    while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
        exports+=(-x "$1")
        shift
    done
    [ "$#" -gt 0 ] || tl_fail "tl_mpirun: missing -- before the program"
    shift
    "$TL_MPIEXEC" --allow-run-as-root --oversubscribe -np "$np" "${exports[@]}" "$@"
}

# The archive rank 0 reported in TOPOLENS_REPORT_PATH_FILE: tl_reported_trace FILE
tl_reported_trace() {
    [ -s "$1" ] || tl_fail "the measurement library wrote no trace path to $1"
    local path
    path="$(head -n 1 "$1")"
    [ -f "$path/traces.otf2" ] || tl_fail "reported trace $path has no traces.otf2"
    echo "$path"
}

# Number of records of one kind in otf2-print output: tl_count_records FILE RECORD
tl_count_records() {
    awk -v r="$2" '$1 == r { n++ } END { print n + 0 }' "$1"
}

# Sum of one per-rank field of an --expect file: tl_expect_sum FILE FIELD
tl_expect_sum() {
    awk -v f="$2" '$1 == "rank" { for (i = 3; i < NF; i += 2) if ($i == f) s += $(i + 1) }
                   END { print s + 0 }' "$1"
}

# An awk function shared by the scripts that read `topolens values --format csv`:
# csv_split(line, out) splits one CSV line into out[1..n] (quoted fields, "" escapes) and
# returns n. Use it as: awk "$TL_AWK_CSV"'  { n = csv_split($0, field) ... }'
TL_AWK_CSV='
        function csv_split(line, out,    n, i, c, field, quoted) {
            n = 0; field = ""; quoted = 0
            for (i = 1; i <= length(line); i++) {
                c = substr(line, i, 1)
                if (quoted) {
                    if (c != "\"") field = field c
                    else if (substr(line, i + 1, 1) == "\"") { field = field c; i++ }
                    else quoted = 0
                } else if (c == "\"") quoted = 1
                else if (c == ",") { out[++n] = field; field = "" }
                else field = field c
            }
            out[++n] = field
            return n
        }
'

# The codelet audit's scenario of samples/autotune_halo, shared by check_audit.sh and
# check_verification.sh. Synthetic costs far above the scheduling noise of 8 ranks on 2 shared
# cores: with two busy processes beside them (and other MPI jobs on the machine, load average
# 10-30) an execution's MPI exchange took 10-30 ms typically and 100-300 ms in bursts, beyond
# its synthetic cost. Codelet 3 (40 ms) stays best by 60 ms per execution, codelet 4 (100 ms)
# second by 30 ms, and the heuristic's 3x-the-fastest threshold (~110 ms at codelet 3) lies
# ~65 ms above its typical execution. Measured figures: samples/autotune_halo/README.md.
TL_AUDIT_COSTS=130000,130000,130000,40000,100000,130000,130000,130000,130000,130000,130000
# Blocks of 12^3: a face (1152 bytes) goes eagerly through Open MPI's shared memory (limit
# 4 KB) and needs no rendezvous with a receiver that waits for a core; the default 24^3
# (4.6 KB faces) made codelet 3's exchange under load twice as slow and twice as noisy.
TL_AUDIT_BLOCK=12
# Real codelets vary from one execution to the next; a synthetic sleep hardly does, and then
# IQR's fences sit within 0.1 ms of the typical time and flag every scheduling hiccup.
TL_AUDIT_JITTER=0.1

# tl_expectations_then_options SCRIPT NAME NP [EXPECTATIONS ...] -- [OPTIONS ...]: sets name,
# np, the array expectations and the array options (what follows --).
tl_expectations_then_options() {
    local script="$1"
    shift
    [ "$#" -ge 3 ] || tl_fail "usage: $script NAME NP [EXPECTATIONS ...] -- [OPTIONS ...]"
    name="$1" np="$2"
    shift 2
    expectations=()
    while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
        expectations+=("$1")
        shift
    done
    [ "$#" -gt 0 ] || tl_fail "missing -- before the sample's options"
    shift
    options=("$@")
}
