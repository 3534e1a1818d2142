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
