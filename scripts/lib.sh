# Shared helpers for the scripts in this directory: source it, don't run it. The PostgreSQL builds are the
# `build` lines of inputs.manifest (15, 18-assert), which only tools/ulidtools reads (`ulidtools`).
set -euo pipefail

ULID_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ULID_VENV=${ULID_VENV:-$ULID_ROOT/target/venv}
# the one place Python is told where the project's packages are, for Debian's python3 before the tests'
# virtualenv exists (docs/development.md, "Where things live")
export PYTHONPATH=$ULID_ROOT/tools:$ULID_ROOT/tests:$ULID_ROOT${PYTHONPATH:+:$PYTHONPATH}
# the scripts need Python from their first line; a fresh Debian 12 may not have it yet
if ! command -v python3 >/dev/null; then
    echo "lib.sh: installing python3 (Debian 12's), which reads inputs.manifest" >&2
    sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends python3 >/dev/null
fi
# -S: nothing it needs is in the site packages
ulidtools() { python3 -S -m ulidtools "$@"; }
# the builds (ULID_ALL_BUILDS) and the builds' tools (ULID_TOOL_DIRS, CARGO_PGRX)
ulid_shell=$(ulidtools shell) || { echo "lib.sh: inputs.manifest cannot be read" >&2; exit 1; }
eval "$ulid_shell"
unset ulid_shell
# the builds' tools first in PATH; pgrx-tests runs the cargo-pgrx CARGO_PGRX names, not the first in PATH
[[ ":$PATH:" == *":$ULID_TOOL_DIRS:"* ]] || PATH=$ULID_TOOL_DIRS:$PATH
export PATH CARGO_PGRX

# With -h or --help first, print the script's opening comment and exit; otherwise stop, before anything is
# done, on an argument that names no build.
help_or_builds() {
    case "${1:-}" in
        -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    esac
    local b
    for b in "$@"; do
        case "$b" in -*) die "unknown option $b (try $0 --help)" ;; esac
        # builds.build_of's check, and its error line
        ulidtools build-dir "$b" pg_config >/dev/null || exit 1
    done
}

log() { printf '\033[1;34m==>\033[0m %s %s\n' "$(date +%T)" "$*" >&2; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

# the user that runs postgres when we are root, as PostgreSQL refuses to run as root (ulidtools.clusters.pg_user)
ULID_PG_USER=${ULID_PG_USER:-postgres}
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u "$ULID_PG_USER" -- "$@"; else "$@"; fi; }

# build_dir BUILD pg_config|bindir|pkglibdir|extdir
build_dir() { ulidtools build-dir "$@"; }
# cluster_port BUILD SLOT (0: the demo)
cluster_port() { ulidtools cluster-port "$@"; }
