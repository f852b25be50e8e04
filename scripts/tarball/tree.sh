#!/bin/sh
# Lays out the files that `cargo pgrx package` staged under STAGE (the
# library, the control file and the SQL scripts, in the server's own
# directories) as the tree of a release tarball:
#   TREE/lib/ulid.so
#   TREE/extension/ulid.control and every ulid--*.sql
#   TREE/install.sh, for PostgreSQL MAJOR (from install.sh beside this file),
#     with the list of those files, which it installs and nothing else
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
# the files install.sh installs, by name: ulid.so, ulid.control and the
# SQL scripts (names of letters, digits, '.', '_' and '-' only, so that
# the list needs no quoting in install.sh nor in sed)
files=lib/ulid.so
for f in "$tree"/extension/*; do
    name=${f##*/}
    case $name in
    ulid.control) ;;
    ulid--*.sql)
        case $name in *[!A-Za-z0-9._-]*)
            echo "tree.sh: unexpected name of an SQL script: $name" >&2
            exit 1
            ;;
        esac
        ;;
    *)
        echo "tree.sh: unexpected file in the extension directory: $name" >&2
        exit 1
        ;;
    esac
    files="$files extension/$name"
done
sed -e "s/@PG_MAJOR@/$major/g" -e "s|@FILES@|$files|" "$here/install.sh" >"$tree/install.sh"
chmod 755 "$tree/install.sh"
cp "$here/../../LICENSE" "$tree/LICENSE"
