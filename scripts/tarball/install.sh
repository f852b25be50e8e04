#!/bin/sh
# Installs this build of the ulid extension into PostgreSQL @PG_MAJOR@.
#   ./install.sh [PATH/TO/pg_config]      (default: pg_config on PATH)
# Run it as a user that may write PostgreSQL's library and extension
# directories (usually root). Then, in a database: CREATE EXTENSION ulid;
set -eu
pg_config=${1:-pg_config}
here=$(cd "$(dirname "$0")" && pwd)
major=$("$pg_config" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
if [ "$major" != "@PG_MAJOR@" ]; then
    echo "this package is built for PostgreSQL @PG_MAJOR@, but $pg_config is PostgreSQL $major" >&2
    exit 1
fi
libdir=$("$pg_config" --pkglibdir)
extdir=$("$pg_config" --sharedir)/extension
mkdir -p "$libdir" "$extdir"
# Each file is written beside its old one under a temporary name, then
# renamed over it: a new file, never the old one written over, so a running
# server that has the old library mapped keeps running on it (writing into
# a loaded library crashes the server), and no session ever finds the file
# missing or half written.
place() {
    tmp="$2/.${1##*/}.new.$$"
    cp "$1" "$tmp"
    chmod 644 "$tmp"
    mv -f "$tmp" "$2/${1##*/}"
}
for f in "$here"/lib/*; do place "$f" "$libdir"; done
for f in "$here"/extension/*; do place "$f" "$extdir"; done
echo "installed ulid into $libdir and $extdir"
