#!/bin/sh
# Lays out the files that `cargo pgrx package` staged under STAGE (in the server's own directories) as the
# tree of a release tarball, which scripts/package tars and scripts/install-from-source installs:
#   TREE/lib/ulid.so
#   TREE/extension/ulid.control and every ulid--*.sql
#   TREE/install.sh, for PostgreSQL MAJOR (from install.sh beside this file), which installs those files only
#   TREE/LICENSE
#   tree.sh STAGE TREE MAJOR
set -eu
stage=${1:?usage: tree.sh STAGE TREE MAJOR}
tree=${2:?usage: tree.sh STAGE TREE MAJOR}
major=${3:?usage: tree.sh STAGE TREE MAJOR}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "tree.sh: $*" >&2; exit 1; }
lib=$(find "$stage" -type f -name ulid.so | head -1)
control=$(find "$stage" -type f -name ulid.control | head -1)
[ -n "$lib" ] && [ -n "$control" ] || fail "$stage holds no ulid.so and ulid.control"
rm -rf "$tree"
mkdir -p "$tree/lib" "$tree/extension"
cp "$lib" "$tree/lib/ulid.so"
cp "$control" "$(dirname "$control")"/ulid--*.sql "$tree/extension/"
# the files install.sh installs, by name: ulid.control and the SQL scripts have names of letters, digits, '.',
# '_' and '-' only, so that the list needs no quoting in install.sh nor in sed
files=lib/ulid.so
for f in "$tree"/extension/*; do
    name=${f##*/}
    case $name in
    ulid--*[!A-Za-z0-9._-]*.sql) fail "unexpected name of an SQL script: $name" ;;
    ulid.control | ulid--*.sql) ;;
    *) fail "unexpected file in the extension directory: $name" ;;
    esac
    files="$files extension/$name"
done
sed -e "s/@PG_MAJOR@/$major/g" -e "s|@FILES@|$files|" "$here/install.sh" >"$tree/install.sh"
chmod 755 "$tree/install.sh"
cp "$here/../../LICENSE" "$tree/LICENSE"
