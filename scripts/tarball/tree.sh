#!/bin/sh
# Lays out the files that `cargo pgrx package` staged under STAGE (the
# library, the control file and the SQL scripts, in the server's own
# directories) as the tree of a release tarball:
#   TREE/lib/ulid.so
#   TREE/extension/ulid.control and every ulid--*.sql
#   TREE/install.sh, for PostgreSQL MAJOR (from install.sh beside this file)
#   TREE/LICENSE
# scripts/package tars such a tree; scripts/install-from-source runs its
# install.sh, so that both install the same way.
#   tree.sh STAGE TREE MAJOR
set -eu
stage=${1:?usage: tree.sh STAGE TREE MAJOR}
tree=${2:?usage: tree.sh STAGE TREE MAJOR}
major=${3:?usage: tree.sh STAGE TREE MAJOR}
here=$(cd "$(dirname "$0")" && pwd)
lib=$(find "$stage" -type f -name ulid.so | head -1)
control=$(find "$stage" -type f -name ulid.control | head -1)
if [ -z "$lib" ] || [ -z "$control" ]; then
    echo "tree.sh: $stage holds no ulid.so and ulid.control" >&2
    exit 1
fi
rm -rf "$tree"
mkdir -p "$tree/lib" "$tree/extension"
cp "$lib" "$tree/lib/ulid.so"
cp "$control" "$(dirname "$control")"/ulid--*.sql "$tree/extension/"
sed "s/@PG_MAJOR@/$major/g" "$here/install.sh" >"$tree/install.sh"
chmod 755 "$tree/install.sh"
cp "$here/../../LICENSE" "$tree/LICENSE"
