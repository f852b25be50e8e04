# Shared helpers for the scripts in this directory. Source it, don't run it.
# The PostgreSQL builds are the `build` lines of inputs.manifest; a build's
# name is a major version, optionally with a suffix (18-assert). The rest of
# the tooling is Python, tools/ulidtools, which `ulidtools` runs.
set -euo pipefail

ULID_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ULID_PG_HOME=${ULID_PG_HOME:-/opt/ulid-postgres}
ULID_VENV=${ULID_VENV:-$ULID_ROOT/target/venv}
# the one place Python is told where the project's modules are (tools/:
# ulidtools; tests/: harness), for every program the scripts run
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
for ulid_input in "$ULID_ROOT/inputs.manifest" "$ULID_ROOT/Cargo.toml" "$ULID_ROOT/crates/ulid-tool/Cargo.toml" \
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
# Rust: pgrx 0.19 asks for rustc 1.96, so every build uses Debian 12's
# rustc-web and its tools (pinned), through links that setup makes, first in
# PATH, and cargo-pgrx, built with them, before them.
ULID_RUST_BIN=$ULID_TOOLS/rust-web/bin
ULID_CARGO_PGRX_ROOT=$ULID_TOOLS/cargo-pgrx-$ULID_CARGO_PGRX_VERSION
case ":$PATH:" in
    *":$ULID_CARGO_PGRX_ROOT/bin:$ULID_RUST_BIN:"*) ;;
    *) PATH=$ULID_CARGO_PGRX_ROOT/bin:$ULID_RUST_BIN:$PATH ;;
esac
# pgrx-tests runs the cargo-pgrx this names, not the first one in PATH
CARGO_PGRX=$ULID_CARGO_PGRX_ROOT/bin/cargo-pgrx
export PATH CARGO_PGRX
# Cargo's artifacts live outside the checkout, so that a fresh clone reuses
# them (per-checkout outputs stay under target/)
ULID_CARGO_TARGET=${ULID_CARGO_TARGET:-$HOME/.cache/ulid/target}
export ULID_CARGO_TARGET
# with_build_lock CHECKOUT COMMAND...: COMMAND, a build of CHECKOUT into
# ULID_CARGO_TARGET, holding its build lock (cargo_env.build_lock)
with_build_lock() { ulidtools with-build-lock "$@"; }
# Private clusters' data directories, one per port base (as
# ulidtools.builds.cluster_root; test_manifest.py checks they agree)
ULID_CLUSTER_ROOT=${ULID_CLUSTER_ROOT:-/tmp/ulid-clusters${ULID_PORT_BASE:+-$ULID_PORT_BASE}}
export ULID_CLUSTER_ROOT
# the unprivileged user that runs postgres when we are root
ULID_PG_USER=${ULID_PG_USER:-postgres}

# manifest KIND [KEY]: the fields of every line of KIND in inputs.manifest
# (whose first field is KEY), the kind left off (ulidtools.manifest)
manifest() { ulidtools manifest "$@"; }
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

# a command as root; a server-side one (initdb, pg_ctl) as the clusters'
# owner, since PostgreSQL refuses to run as root
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u "$ULID_PG_USER" -- "$@"; else "$@"; fi; }

# (as ulidtools.builds.pg_config_for; test_manifest.py checks they agree)
pg_config_for() {
    case "$(build_field "$1" from)" in
        debian) echo "/usr/lib/postgresql/$(build_field "$1" major)/bin/pg_config" ;;
        *) echo "$ULID_PG_HOME/$1/bin/pg_config" ;;
    esac
}

pg_bindir() { "$(pg_config_for "$1")" --bindir; }

# stage_extension BUILD STAGE debug|release [ARCH]: the extension built and
# its files staged as `cargo pgrx package` lays them out (package.py)
stage_extension() { ulidtools stage-extension "$@"; }
# the major version of a build: 18-assert -> 18
pg_major() { build_field "$1" major; }
# pgrx's environment for BUILD, as `export` lines to eval (cargo_env.py)
pgrx_env_for() { ulidtools pgrx-env "$1"; }

# The port of BUILD's cluster in SLOT (0: the demo): ULID_PORT_BASE (20000)
# + the build's port + SLOT, as ulidtools.builds.cluster_port, which also
# refuses a base whose ports reach the ephemeral range (scripts/test asks it).
cluster_port() {
    echo $((${ULID_PORT_BASE:-20000} + $(build_field "$1" port) + ${2:-0}))
}
