# shellcheck shell=bash
# Reading `topolens values --format csv|json` output on a process grid (sourced by
# check_wavefront.sh and check_cg3d.sh after common.sh).

# tl_values_table CSV: one line per location, "rank value role c0 [c1 [c2]]", from the CSV
# of `topolens values` (columns found by their header names; fields may be quoted). The
# role is "-" and there are no coordinates for a location outside the grid. Fails on a
# header without rank, value or coords, a non-numeric value or an empty file.
tl_values_table() {
    awk -v file="$1" "$TL_AWK_CSV"'
        { sub(/\r$/, "") }
        NR == 1 {
            n = csv_split($0, head)
            for (i = 1; i <= n; i++) col[head[i]] = i
            if (!("rank" in col) || !("value" in col) || !("coords" in col)) {
                printf "FAIL: %s: header \"%s\" lacks rank, coords or value\n", file, $0 > "/dev/stderr"
                bad = 1; exit 1
            }
            next
        }
        $0 != "" {
            csv_split($0, f)
            r = f[col["rank"]]; v = f[col["value"]]
            role = ("role" in col) && f[col["role"]] != "" ? f[col["role"]] : "-"
            if (r !~ /^[0-9]+$/ || v !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) {
                printf "FAIL: %s line %d: rank \"%s\", value \"%s\"\n", file, NR, r, v > "/dev/stderr"
                bad = 1; exit 1
            }
            print r + 0, v, role, f[col["coords"]]
        }
        END { if (NR < 2 && !bad) { print "FAIL: " file " has no locations" > "/dev/stderr"; exit 1 } }
    ' "$1"
}

# tl_json_string JSON KEY: the value of the first top-level-looking "KEY": "..." in the
# output of `topolens values --format json` (enough for grid_source and names).
tl_json_string() {
    grep -o "\"$2\": *\"[^\"]*\"" "$1" | head -n 1 | sed -E 's/.*: *"([^"]*)"$/\1/'
}

# tl_metric_total REPORT METRIC CSV: the metric's total over all processes (the sum of the
# per-location values of `topolens values`; the CSV is kept in file CSV). Fails when the
# metric cannot be read.
tl_metric_total() {
    "$TL_TOPOLENS" values "$1" --metric "$2" --format csv >"$3" ||
        tl_fail "topolens values --metric '$2' failed"
    tl_values_table "$3" >"$3.table" || tl_fail "cannot read the values of '$2'"
    awk '{ s += $2 } END { printf "%.9f\n", s }' "$3.table"
}

# tl_wavefront_metrics SUMMARY: the display names of the "Wavefront from X" metrics in the
# metric tree of `topolens summary` output, one per line.
tl_wavefront_metrics() {
    sed -nE 's/^ +(Wavefront from [^ ]+) .*/\1/p' "$1"
}
