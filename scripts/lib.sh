# Shared helpers for the scripts in this directory. Source it, don't run it.
#
# The PostgreSQL builds, where each comes from and its ports are the `build`
# lines of inputs.manifest (scripts/setup installs them); the functions
# below read them: builds, build_field, pg_major, pg_config_for, cluster_port.
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
# What the manifest and the crates say that the scripts need: the
# versions (ULID_VERSION, ULID_CLI_VERSION, ULID_PGRX_VERSION,
# ULID_CARGO_PGRX_VERSION), the builds (ULID_BUILDS) and their fields
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
# side never restart each other's servers (as ulidtools.builds.cluster_root;
# test_manifest.py checks they agree).
ULID_CLUSTER_ROOT=${ULID_CLUSTER_ROOT:-/tmp/ulid-clusters${ULID_PORT_BASE:+-$ULID_PORT_BASE}}
export ULID_CLUSTER_ROOT
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

pg_bindir() { "$(pg_config_for "$1")" --bindir; }

# Builds the extension for BUILD and stages every file it installs under
# STAGE, as `cargo pgrx package` lays them out (tools/ulidtools/package.py).
#   stage_extension BUILD STAGE debug|release [ARCH]
stage_extension() { ulidtools stage-extension "$@"; }

# The major version of a build: 18-assert -> 18.
pg_major() { build_field "$1" major; }

# pgrx's environment for BUILD, as `export` lines to eval
# (tools/ulidtools/cargo_env.py).
pgrx_env_for() { ulidtools pgrx-env "$1"; }

# Private clusters get ports BASE + PORT + SLOT, BASE being 20000 unless
# ULID_PORT_BASE says otherwise and PORT the build's (inputs.manifest): slot
# 0 for the demo, the others for tests and benchmarks
# (ulidtools.builds.cluster_port, which refuses a base whose ports reach
# the kernel's ephemeral ports; scripts/test asks it first).
cluster_port() {
    echo $((${ULID_PORT_BASE:-20000} + $(build_field "$1" port) + ${2:-0}))
}
