#!/usr/bin/env bash
# Builds ADCL (a static lib/libadcl.a) and the objects of the ADCL examples the adapter's
# tests link, from ADCL's source archive, in the build tree (never in the repository).
# Usage: build_adcl.sh TARBALL OUTPUT_DIR MPI_INCLUDE_DIR MPI_LIBRARY_DIR
# The archive holds one folder: adcl-<commit> (ours) or ADCL-<commit> (GitHub's). ADCL's
# configure needs the MPI folders spelled out; binutils >= 2.40 refuses ADCL's `ar clr`, so
# AR_FLAGS becomes `cr`.
set -euo pipefail
tarball="$1" out="$2" mpi_inc="$3" mpi_lib="$4"
rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp"
tar xzf "$tarball" -C "$out.tmp"
top=("$out.tmp"/*)
[ "${#top[@]}" -eq 1 ] && [ -f "${top[0]}/configure" ] ||
    { echo "build_adcl: $tarball does not hold one folder with ADCL's configure" >&2; exit 1; }
mv "${top[0]}" "$out"
rmdir "$out.tmp"
cd "$out"
./configure --with-mpi-dir=/usr --with-mpi-inc-dir="$mpi_inc" --with-mpi-lib-dir="$mpi_lib" \
    --with-mpi-bin-dir="$(dirname "$(command -v mpicc)")" --with-mpi-cc=mpicc \
    --with-mpi-cxx=mpicxx --with-mpi-f90=mpif90 --disable-printf-tofile > configure.log 2>&1 ||
    { tail -20 configure.log >&2; echo "build_adcl: ADCL's configure failed ($out/configure.log)" >&2; exit 1; }
sed -i 's/^AR_FLAGS *= *clr/AR_FLAGS    = cr/' Makefile.defs
mkdir -p lib
make -j2 > make.log 2>&1 ||
    { tail -20 make.log >&2; echo "build_adcl: building ADCL failed ($out/make.log)" >&2; exit 1; }
# The examples the tests run: 2D and 3D neighbourhood exchanges, timer objects.
make -C test -j2 two-dim.o aux-data-2D.o three-dim.o aux-data-3D.o aux-data-4D.o \
    test-timerobject-onereq.o test-timerobject-tworeq.o >> make.log 2>&1 ||
    { tail -20 make.log >&2; echo "build_adcl: building ADCL's examples failed ($out/make.log)" >&2; exit 1; }
