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
