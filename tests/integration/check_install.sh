#!/usr/bin/env bash
# An installed topolens is usable on its own: `cmake --install` into a fresh prefix puts every
# program, library, header, Fortran module, CMake package and pkg-config file in place;
# programs build against it (find_package(topolens) in C and Fortran, pkg-config in C); the
# installed `topolens run` traces them with the installed library and `topolens info` reads
# the trace.
#
# usage: check_install.sh   (environment: TL_BUILD, TL_INSTALL_LIBDIR, TL_INSTALL_INCLUDEDIR,
#                            TL_WORK)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

work="$(tl_workdir install)"
prefix="$work/prefix"
libdir="$prefix/$TL_INSTALL_LIBDIR"
includedir="$prefix/$TL_INSTALL_INCLUDEDIR"
# Nothing may come from the build tree: the installed topolens must find its own library.
unset TOPOLENS_MEASURE_LIB TOPOLENS_GUI TOPOLENS_COMPLETE LD_PRELOAD

echo "== cmake --install $TL_BUILD --prefix $prefix"
cmake --install "$TL_BUILD" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; tl_fail "cmake --install failed"; }

echo "== installed files"
(cd "$prefix" && find . -type f -o -type l | sort) | tee "$work/files.txt"
for f in bin/topolens bin/topolens-gui bin/topolens-complete bin/topolens-adcl-flags \
    bin/topolens-cc bin/topolens-cxx bin/topolens-fc; do
    [ -x "$prefix/$f" ] || tl_fail "no program $f in the install"
done
for f in libtopolens-measure.so libtopolens-measure-fortran.so libtopolens-adcl.a \
    cmake/topolens/topolensConfig.cmake cmake/topolens/topolensConfigVersion.cmake \
    cmake/topolens/topolensTargets.cmake pkgconfig/topolens.pc pkgconfig/topolens-fortran.pc; do
    [ -f "$libdir/$f" ] || tl_fail "no $TL_INSTALL_LIBDIR/$f in the install"
done
for f in topolens.h topolens.mod; do
    [ -f "$includedir/$f" ] || tl_fail "no $TL_INSTALL_INCLUDEDIR/$f in the install"
done
# Programs only: the samples and the test programs stay in the build tree.
extra="$(find "$prefix/bin" -mindepth 1 -printf '%f\n' | grep -vxE 'topolens|topolens-gui|topolens-complete|topolens-adcl-flags|topolens-(cc|cxx|fc)' || true)"
[ -z "$extra" ] || tl_fail "the install holds programs that are not topolens': $extra"

# A C program using the API (a region and a 2x1 user topology) and a Fortran one (use
# topolens); each says whether it was traced.
mkdir -p "$work/app"
cat >"$work/app/app.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <topolens.h>
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int dims[2] = {size, 1}, periods[2] = {0, 0}, coords[2] = {rank, 0};
    topolens_cart_coords(topolens_cart_create("installed grid", 2, dims, periods), coords);
    topolens_region_enter("installed_region");
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    topolens_region_leave("installed_region");
    if (rank == 0) printf("active=%d sum=%d\n", topolens_is_active(), sum);
    MPI_Finalize();
    return 0;
}
EOF
cat >"$work/app/app_fortran.f90" <<'EOF'
program app_fortran
    use mpi
    use topolens
    implicit none
    integer :: ierr, rank, total
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    ierr = topolens_region_enter('installed_fortran_region')
    call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    ierr = topolens_region_leave('installed_fortran_region')
    if (rank == 0) print '(a,i0)', 'active=', topolens_is_active()
    call MPI_Finalize(ierr)
end program app_fortran
EOF
cat >"$work/app/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(installed_app LANGUAGES C Fortran)
find_package(topolens 0.1 REQUIRED)
find_package(MPI REQUIRED COMPONENTS C Fortran)
add_executable(app app.c)
target_link_libraries(app PRIVATE topolens::measure)
add_executable(app_fortran app_fortran.f90)
target_link_libraries(app_fortran PRIVATE topolens::measure_fortran MPI::MPI_Fortran)
EOF

echo "== find_package(topolens): C and Fortran"
cmake -S "$work/app" -B "$work/app/build" -DCMAKE_PREFIX_PATH="$prefix" \
    >"$work/app_configure.log" 2>&1 ||
    { cat "$work/app_configure.log"; tl_fail "configuring a project with find_package(topolens) failed"; }
grep -q "topolens_DIR:PATH=$libdir/cmake/topolens" "$work/app/build/CMakeCache.txt" ||
    tl_fail "find_package(topolens) did not find the install: $(grep topolens_DIR "$work/app/build/CMakeCache.txt")"
cmake --build "$work/app/build" >"$work/app_build.log" 2>&1 ||
    { cat "$work/app_build.log"; tl_fail "building against topolens::measure(_fortran) failed"; }

echo "== pkg-config: C and Fortran"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# Each file names this install's library folder, never the build tree.
for pc in topolens topolens-fortran; do
    flags="$(pkg-config --cflags --libs "$pc")" || tl_fail "pkg-config $pc failed"
    echo "$pc: $flags"
    ! grep -qE "$TL_BUILD/(lib|fortran_modules)( |/|$)" <<<"$flags" ||
        tl_fail "pkg-config $pc names the build tree: $flags"
    named="$(tr ' ' '\n' <<<"$flags" | sed -n 's/^-L//p' | head -n 1)"
    [ -n "$named" ] && [ "$(readlink -f "$named")" = "$(readlink -f "$libdir")" ] ||
        tl_fail "pkg-config $pc does not name the installed library folder: $flags"
done
# shellcheck disable=SC2046
mpicc "$work/app/app.c" $(pkg-config --cflags --libs topolens) \
    -Wl,-rpath,"$(pkg-config --variable=libdir topolens)" -o "$work/app/app_pc" ||
    tl_fail "mpicc with pkg-config topolens failed"
# shellcheck disable=SC2046
(cd "$work/app" && mpifort app_fortran.f90 $(pkg-config --cflags --libs topolens-fortran) \
    -Wl,-rpath,"$(pkg-config --variable=libdir topolens)" -o app_fortran_pc) ||
    tl_fail "mpifort with pkg-config topolens-fortran failed"
for exe in app/build/app app/build/app_fortran app/app_pc; do
    lib="$(ldd "$work/$exe" | awk '$1 == "libtopolens-measure.so" { print $3 }')"
    [ "$(readlink -f "$lib")" = "$(readlink -f "$libdir/libtopolens-measure.so")" ] ||
        tl_fail "$exe loads libtopolens-measure.so from '$lib', not from the install"
done

# The installed topolens run preloads the installed library (found relative to itself).
topolens="$prefix/bin/topolens"
dry="$(cd "$work" && "$topolens" run -np 2 --dry-run -- "$work/app/app_pc")" ||
    tl_fail "installed topolens run --dry-run failed"
preloaded="$(tr ' ' '\n' <<<"$dry" | sed -n 's/^LD_PRELOAD=//p')"
[ -n "$preloaded" ] &&
    [ "$(readlink -f "$preloaded")" = "$(readlink -f "$libdir/libtopolens-measure.so")" ] ||
    tl_fail "the installed topolens run does not preload the installed library: $dry"

for exe in app/app_pc app/build/app_fortran; do
    name="${exe##*/}"
    echo "== $topolens run -np 2 -- $exe"
    (cd "$work" && "$topolens" run -np 2 --trace-dir "$work/trace_$name" -- "$work/$exe") \
        >"$work/run_$name.txt" 2>&1 || { cat "$work/run_$name.txt"; tl_fail "topolens run $exe failed"; }
    cat "$work/run_$name.txt"
    grep -q "^active=1" "$work/run_$name.txt" || tl_fail "$exe was not traced (topolens_is_active)"
    [ -f "$work/trace_$name/traces.otf2" ] || tl_fail "no trace written for $exe"
    "$topolens" info "$work/trace_$name" >"$work/info_$name.txt" 2>&1 ||
        { cat "$work/info_$name.txt"; tl_fail "installed topolens info cannot read the trace of $exe"; }
done
cat "$work/info_app_pc.txt"
row="$(grep -F "installed grid" "$work/info_app_pc.txt" || true)"
grep -qE "(^|[[:space:]])2x1([[:space:]]|$)" <<<"$row" ||
    tl_fail "topolens info shows no 2x1 topology 'installed grid': $row"
grep -qE "^ *user regions: .*installed_region" "$work/info_app_pc.txt" ||
    tl_fail "topolens info shows no user region installed_region in the C trace"
grep -qE "^ *user regions: .*installed_fortran_region" "$work/info_app_fortran.txt" ||
    tl_fail "topolens info shows no user region installed_fortran_region in the Fortran trace"

# The installed topolens-adcl-flags names the installed adapter and library.
mkdir -p "$work/adcl" && : >"$work/adcl/libadcl.a"
adcl_flags="$("$prefix/bin/topolens-adcl-flags" "$work/adcl")" || tl_fail "topolens-adcl-flags failed"
echo "topolens-adcl-flags: $adcl_flags"
adapter="$(tr ' ' '\n' <<<"$adcl_flags" | grep 'libtopolens-adcl\.a$')"
[ "$(readlink -f "$adapter")" = "$(readlink -f "$libdir/libtopolens-adcl.a")" ] ||
    tl_fail "topolens-adcl-flags names the adapter '$adapter', not the installed one"
measure_dir="$(tr ' ' '\n' <<<"$adcl_flags" | sed -n 's/^-L//p')"
[ "$(readlink -f "$measure_dir")" = "$(readlink -f "$libdir")" ] ||
    tl_fail "topolens-adcl-flags links the library in '$measure_dir', not in the install"
# The installed compiler wrappers instrument and link the installed library; the program's
# functions are in its trace (docs/instrumentation.md).
cat >"$work/app/instrumented.c" <<'EOF'
#include <mpi.h>
__attribute__((noinline)) static int installed_function(int x) { return x + 1; }
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int r = installed_function(argc);
    MPI_Finalize();
    return r == 0;
}
EOF
"$prefix/bin/topolens-cc" "$work/app/instrumented.c" -o "$work/app/instrumented" ||
    tl_fail "the installed topolens-cc failed"
lib="$(ldd "$work/app/instrumented" | awk '$1 == "libtopolens-measure.so" { print $3 }')"
[ "$(readlink -f "$lib")" = "$(readlink -f "$libdir/libtopolens-measure.so")" ] ||
    tl_fail "topolens-cc links libtopolens-measure.so from '$lib', not from the install"
(cd "$work" && "$topolens" run -np 2 --trace-dir "$work/trace_instrumented" -- \
    "$work/app/instrumented") >"$work/run_instrumented.txt" 2>&1 ||
    { cat "$work/run_instrumented.txt"; tl_fail "topolens run of the instrumented program failed"; }
"$topolens" info "$work/trace_instrumented" >"$work/info_instrumented.txt" 2>&1 ||
    tl_fail "topolens info cannot read the instrumented program's trace"
grep -q "installed_function" "$work/info_instrumented.txt" ||
    { cat "$work/info_instrumented.txt"; tl_fail "the instrumented function is not in the trace"; }
echo "PASS: install"
