# Shared by tests/run.sh and samples/demo.sh (sourced, not executed):
# installs the Debian packages topolens needs when missing, then configures and builds.

TOPOLENS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOPOLENS_BUILD="${TOPOLENS_BUILD:-$TOPOLENS_ROOT/build}"

# Everything the build, the samples and the tests use. Named explicitly because
# --no-install-recommends leaves out what is only recommended.
TOPOLENS_PACKAGES=(
    build-essential cmake pkg-config gfortran ccache
    libopenmpi-dev openmpi-bin
    libotf2-trace-dev otf2-tools
    libpugixml-dev
    libgtest-dev libgmock-dev
    clang libclang-rt-14-dev
    xvfb xauth
    qt6-base-dev libqt6opengl6-dev qt6-charts-dev libvtk9-dev
)

topolens_install_missing() {
    local missing=()
    local pkg
    for pkg in "${TOPOLENS_PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$pkg")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return 0
    fi
    echo "topolens: installing missing packages: ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# A compiler cache kept between runs, shared by every clone on the machine: a fresh
# clone's three builds (tests/run.sh) reuse what earlier runs compiled. Paths inside the
# clone are hashed relative to it (CCACHE_BASEDIR, CCACHE_NOHASHDIR), so clones at other
# paths hit too. Takes effect when a build directory is first configured (CMake reads the
# launcher variables then). TOPOLENS_CCACHE=0 turns it off; TOPOLENS_CCACHE_DIR moves it.
topolens_compiler_cache() {
    [ "${TOPOLENS_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null || return 0
    export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
    export CCACHE_DIR="${TOPOLENS_CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/topolens-ccache}"
    export CCACHE_BASEDIR="$TOPOLENS_ROOT" CCACHE_NOHASHDIR=true
    export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-8G}"
}

topolens_build() {
    cmake -S "$TOPOLENS_ROOT" -B "$TOPOLENS_BUILD" -DCMAKE_BUILD_TYPE="${TOPOLENS_BUILD_TYPE:-RelWithDebInfo}" "$@" &&
        cmake --build "$TOPOLENS_BUILD" -j "$(nproc)"
}

# mpirun as root on small machines needs these (see README, "Running MPI as root").
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
