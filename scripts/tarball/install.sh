#!/bin/sh
# Installs this build of the ulid extension into PostgreSQL @PG_MAJOR@.
#   ./install.sh [PATH/TO/pg_config]      (default: pg_config on PATH)
# Run it as a user that may write PostgreSQL's library and extension
# directories (usually root). Then, in a database: CREATE EXTENSION ulid;
#
# It installs this release's files only, by name (the list below, written
# by tree.sh when it laid out the tree): lib/ulid.so into
# `pg_config --pkglibdir`, extension/ulid.control and the ulid--*.sql
# scripts into `pg_config --sharedir`/extension; anything else in the tree
# is left alone. It prints each file it installed, and whether it replaced
# one.
#
# Each file is written under a temporary name, then renamed over the old
# one: a new file, never the old one written over, so a running server
# that has the old library mapped keeps running on it (writing into a
# loaded library crashes the server), and no session ever finds the file
# missing or half written.
#
# The target directories may be writable by another user (a server built
# from source and owned by `postgres`), who can put anything, a symbolic
# link most of all, at any name in them at any moment, also while this
# runs. So nothing here writes or changes the mode of a file through a
# name in a target directory: cp, chmod and `>` follow a symbolic link
# found there, and would make root write or chmod any file the link names.
# Instead, in each target directory:
#   - `mktemp -d` makes a private directory (mkdir(2): it never follows or
#     reuses an existing name, and makes a directory of mode 0700 owned by
#     the user running this, which nobody else may add names to or rename
#     out of the target directory);
#   - `cd` into it, then checks that what it entered is that directory
#     (ours, mode 0700, empty, its parent the target directory by inode
#     and by path): the name could have been swapped for a link before the
#     cd, but once checked the current directory is pinned and no longer
#     looked up by name;
#   - the files are written and chmod'ed there, by names nobody else can
#     touch, then renamed to ../NAME with `mv -f -T`: rename(2) replaces
#     whatever is at the final name, a symbolic link included, and never
#     follows it (-T, of GNU coreutils: a link to a directory, or a
#     directory, at the final name is not moved into but refused; an mv
#     without -T fails, installing nothing); source and destination are on
#     one filesystem (a directory and its parent), so mv never falls back
#     to copying.
# Every file of both directories is written before any is renamed, so a
# failure while writing (a read-only or full directory, a missing file)
# changes nothing installed; on any failure or signal the private
# directories and what they hold are removed.
set -eu
umask 022
unset CDPATH
pg_config=${1:-pg_config}
here=$(cd "$(dirname "$0")" && pwd -P)
uid=$(id -u)
# this release's files, relative to the tree (written by tree.sh)
files='@FILES@'
nl='
'

die() {
    echo "install.sh: $*" >&2
    exit 1
}

set -f # $files is split on spaces, never globbed
for f in $files; do
    case $f in
    lib/ulid.so | extension/ulid.control) ;;
    extension/ulid--*.sql)
        case ${f#extension/} in *[!A-Za-z0-9._-]*) die "not a file of ulid's: $f" ;; esac
        ;;
    *) die "not a file of ulid's: $f" ;;
    esac
    if [ ! -f "$here/$f" ] || [ -L "$here/$f" ]; then
        die "$here/$f is missing or not a regular file: this tree is incomplete"
    fi
done
case " $files " in *" lib/ulid.so "*) ;; *) die "this tree lists no lib/ulid.so" ;; esac
case " $files " in *" extension/ulid.control "*) ;; *) die "this tree lists no extension/ulid.control" ;; esac
set +f
for f in "$here"/lib/* "$here"/lib/.[!.]* "$here"/extension/* "$here"/extension/.[!.]*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    case " $files " in *" ${f#"$here"/} "*) ;; *) echo "install.sh: ignored ${f#"$here"/}: not a file of this release" >&2 ;; esac
done

major=$("$pg_config" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
if [ "$major" != "@PG_MAJOR@" ]; then
    echo "this package is built for PostgreSQL @PG_MAJOR@, but $pg_config is PostgreSQL ${major:-(unknown)}" >&2
    exit 1
fi
libdir=$("$pg_config" --pkglibdir)
sharedir=$("$pg_config" --sharedir)
for d in "pkglibdir:$libdir" "sharedir:$sharedir"; do
    case ${d#*:} in
    *"$nl"*) die "$pg_config --${d%%:*} gave more than one line: refusing to install" ;;
    /*) ;;
    *) die "$pg_config --${d%%:*} gave '${d#*:}', not an absolute directory: refusing to install" ;;
    esac
done
extdir=$sharedir/extension
mkdir -p "$libdir" "$extdir"

inode() {
    set -- $(ls -di -- "$1")
    echo "$1"
}

# enter DIR INODE TMP [fresh]: makes the private directory TMP in DIR (the
# physical path of a target directory, whose inode is INODE) the current
# directory, or fails if what TMP names now is not it: a directory owned
# by us, of mode 0700 (a '.' or '+' after the mode is an SELinux context or
# an ACL: a default ACL of the target directory is inherited masked by the
# mode's group bits, 0, so it grants nobody anything), whose parent is DIR
# by inode and by path; empty when just made (fresh).
enter() {
    cd -P -- "$1" 2>/dev/null && cd -P -- "$3" 2>/dev/null || return 1
    set -- "$1" "$2" "$3" "${4-}" $(ls -ldn .)
    case $5 in drwx------*) ;; *) return 1 ;; esac
    [ "$7" = "$uid" ] || return 1
    [ "$(inode ..)" = "$2" ] || return 1
    [ "$(cd -P .. && pwd -P)" = "$1" ] || return 1
    [ -z "$4" ] || [ -z "$(ls -A)" ] || return 1
}

# The private directories made so far: made_lib and made_extension (lib
# and extension, the prefixes of their files in the tree), each
# INODE:TMP:DIR (DIR last: it may hold a ':'), emptied once its files are
# renamed into place and it is removed.
made_lib=
made_extension=

cleanup() {
    set +e
    for key in lib extension; do
        eval "entry=\$made_$key"
        [ -n "$entry" ] || continue
        ino=${entry%%:*} rest=${entry#*:}
        tmp=${rest%%:*} dir=${rest#*:}
        if enter "$dir" "$ino" "$tmp"; then
            set -f
            for f in $files; do
                case $f in "$key"/*) rm -f -- "${f#"$key"/}" ;; esac
            done
            set +f
        fi
        if ! { cd -P -- "$dir" && [ "$(inode .)" = "$ino" ] && rmdir -- "$tmp"; } 2>/dev/null; then
            echo "install.sh: could not remove the temporary directory $dir/$tmp" >&2
        fi
    done
}
trap 'status=$?; trap - EXIT; cleanup; exit $status' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# write KEY DIR: makes a private directory in DIR and writes KEY's files
# into it, mode 0644
write() {
    cd -P -- "$2"
    dir=$(pwd -P)
    ino=$(inode .)
    tmp=$(mktemp -d ./.ulid-install.XXXXXXXXXX)
    tmp=${tmp#./}
    eval "made_$1=\$ino:\$tmp:\$dir"
    enter "$dir" "$ino" "$tmp" fresh || die "$dir/$tmp is not the directory just made there: someone else writes into $dir"
    set -f
    for f in $files; do
        case $f in
        "$1"/*)
            name=${f#"$1"/}
            cat -- "$here/$f" >"$name"
            chmod 644 -- "$name"
            ;;
        esac
    done
    set +f
}

# move KEY: renames each of KEY's files from its private directory over
# the one in the target directory, then removes the private directory
move() {
    eval "entry=\$made_$1"
    ino=${entry%%:*} rest=${entry#*:}
    tmp=${rest%%:*} dir=${rest#*:}
    enter "$dir" "$ino" "$tmp" || die "$dir/$tmp is no longer the directory made there: someone else writes into $dir"
    set -f
    for f in $files; do
        case $f in
        "$1"/*)
            name=${f#"$1"/}
            if [ -L "../$name" ]; then
                was="replaced a symbolic link, not followed"
            elif [ -e "../$name" ]; then
                was="replaced the one there"
            else
                was="new"
            fi
            mv -f -T -- "$name" "../$name"
            echo "$dir/$name: $was"
            ;;
        esac
    done
    set +f
    cd -P ..
    rmdir -- "$tmp"
    eval "made_$1="
}

write lib "$libdir"
write extension "$extdir"
move lib
move extension
echo "installed ulid into $libdir and $extdir"
