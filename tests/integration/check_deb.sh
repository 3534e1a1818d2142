#!/usr/bin/env bash
# `cpack -G DEB` makes a Debian package that holds topolens in /usr and works where it is
# unpacked: dpkg -x into a scratch root, then that root's `topolens run` traces a program
# with the packaged library and its `topolens info` reads the trace.
#
# cpack first builds everything not yet built (its preinstall step): run after a full build.
#
# usage: check_deb.sh   (environment: TL_BUILD, TL_BIN, TL_WORK)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

work="$(tl_workdir deb)"
unset TOPOLENS_MEASURE_LIB TOPOLENS_GUI TOPOLENS_COMPLETE LD_PRELOAD

echo "== cpack -G DEB"
(cd "$work" && cpack -G DEB --config "$TL_BUILD/CPackConfig.cmake" -B "$work/package") \
    >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; tl_fail "cpack -G DEB failed"; }
debs=("$work"/package/topolens_*.deb)
[ -f "${debs[0]}" ] || { cat "$work/cpack.log"; tl_fail "cpack wrote no topolens_*.deb"; }
deb="${debs[0]}"
dpkg-deb --info "$deb" | tee "$work/info.txt"
depends="$(dpkg-deb --field "$deb" Depends)"
# The shared libraries' packages (dpkg-shlibdeps: MPI's and OTF2's) and mpirun's.
for dependency in openmpi-bin libopenmpi 'libopen-trace-format|libotf2'; do
    grep -qE "(^|, )($dependency)" <<<"$depends" ||
        tl_fail "the package does not depend on $dependency: $depends"
done

echo "== dpkg -x into $work/root"
dpkg -x "$deb" "$work/root" || tl_fail "dpkg -x failed"
(cd "$work/root" && find . -type f | sort) | tee "$work/files.txt"
for f in usr/bin/topolens usr/bin/topolens-gui usr/bin/topolens-complete usr/bin/topolens-adcl-flags \
    usr/bin/topolens-cc usr/bin/topolens-cxx usr/bin/topolens-fc; do
    [ -x "$work/root/$f" ] || tl_fail "the package has no program /$f"
done
for f in libtopolens-measure.so topolens.h topolens.mod topolensConfig.cmake topolens.pc \
    topolens-fortran.pc; do
    grep -q "/$f\$" "$work/files.txt" || tl_fail "the package has no $f"
done

topolens="$work/root/usr/bin/topolens"
echo "== $topolens run -np 2 -- compute_loop 2 10"
(cd "$work" && "$topolens" run -np 2 --trace-dir "$work/trace" -- "$TL_BIN/compute_loop" 2 10) \
    >"$work/run.txt" 2>&1 || { cat "$work/run.txt"; tl_fail "the packaged topolens run failed"; }
cat "$work/run.txt"
dry="$("$topolens" run -np 2 --dry-run -- "$TL_BIN/compute_loop" 2 10)"
grep -qF "LD_PRELOAD=$work/root/usr/" <<<"$dry" ||
    tl_fail "the packaged topolens run does not preload the packaged library: $dry"
[ -f "$work/trace/traces.otf2" ] || tl_fail "the packaged topolens run wrote no trace"
"$topolens" info "$work/trace" >"$work/trace_info.txt" 2>&1 ||
    { cat "$work/trace_info.txt"; tl_fail "the packaged topolens info cannot read the trace"; }
cat "$work/trace_info.txt"
echo "PASS: deb"
