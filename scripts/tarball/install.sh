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
# replace rather than overwrite: a running server keeps the file it mapped
for f in "$here"/lib/*; do rm -f "$libdir/${f##*/}"; cp "$f" "$libdir/"; chmod 644 "$libdir/${f##*/}"; done
for f in "$here"/extension/*; do rm -f "$extdir/${f##*/}"; cp "$f" "$extdir/"; chmod 644 "$extdir/${f##*/}"; done
echo "installed ulid into $libdir and $extdir"
