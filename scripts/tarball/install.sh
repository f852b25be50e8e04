#!/bin/sh
# Installs this build of the ulid extension into PostgreSQL @PG_MAJOR@.
#   ./install.sh [PATH/TO/pg_config]      (default: pg_config on PATH)
# Run it as the user that owns PostgreSQL's library and extension
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
# Whoever may change pg_config decides what runs here, as root under sudo,
# and where the files go; whoever may write a target directory, or one
# above it, may put anything at any name there, a symbolic link most of
# all, or swap the directory itself for a link, at any moment, also while
# this runs. So before pg_config runs, and before anything is written, it
# refuses (saying what to do instead), trusting only files and directories
# owned by root or by the user running it:
#   - a pg_config that is not such a file (after symbolic links: the file
#     they lead to is judged, and run), or that group or others may write,
#     or any of whose directories up to / is owned by another user or is
#     writable by group or others without the sticky bit (in a sticky
#     directory, /tmp, nobody may rename or remove what is not theirs);
#   - a target directory (pkglibdir, sharedir/extension) that is a
#     symbolic link, or owned by another user, or writable by group or
#     others, sticky or not (anyone could add a name to it); any directory
#     above it, on the path pg_config gives and on the path after its
#     links, as for pg_config's; and, when mkdir -p has to make part of it,
#     the directory it makes that in, as a target directory.
# (`stat` shows an ACL's mask as the group's bits, and the mask caps what
# every user and group the ACL names may do: no group write bit, no writer
# by ACL.) A server built from source and owned by `postgres` is installed
# into by that user (sudo -u postgres ./install.sh ...), not by root.
#
# Even into directories that pass, nothing here writes or changes the mode
# of a file through a name in a target directory: cp, chmod and `>` follow
# a symbolic link found there (an earlier owner's, say) and would make root
# write or chmod any file the link names.
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

# inspect PATH: sets owner (a uid) and mode (st_mode, a number) of PATH
# itself, a symbolic link not followed; fails when nothing is there.
# (stat -c, as mv -T, is GNU coreutils')
inspect() {
    meta=$(stat -c '%u %f' -- "$1" 2>/dev/null) || return 1
    owner=${meta% *}
    mode=$((0x${meta#* }))
}

is_dir() { [ $((mode & 0170000)) -eq $((0040000)) ]; }
is_link() { [ $((mode & 0170000)) -eq $((0120000)) ]; }
is_file() { [ $((mode & 0170000)) -eq $((0100000)) ]; }

# untrusted [strict]: why another user may change what was inspected, or
# nothing: it is not root's nor ours, or group or others may write it (a
# directory with the sticky bit only when strict: there nobody renames or
# removes what is not theirs, but anyone may add a name)
untrusted() {
    if [ "$owner" != 0 ] && [ "$owner" != "$uid" ]; then
        who=$(id -nu "$owner" 2>/dev/null) || who=
        echo "it is owned by uid $owner${who:+ ($who)}, neither root nor the user running install.sh (uid $uid)"
    elif [ $((mode & 022)) -ne 0 ] && { [ -n "${1-}" ] || [ $((mode & 01000)) -eq 0 ]; }; then
        echo "group or others may write it (mode $(printf '%04o' $((mode & 07777))))"
    fi
}

# walk SUBJECT PATH FIX [target]: refuses, for SUBJECT, each directory of
# PATH from / down that another user may change (untrusted) and each
# symbolic link among them that is not root's or ours; with target, PATH
# itself as a target directory: untrusted strict and not a link, or, when
# it is missing, the directory mkdir -p would make its first missing part
# in. FIX says what to do instead.
walk() {
    at=/ up= rest=$2
    while :; do
        while :; do case $rest in /*) rest=${rest#/} ;; *) break ;; esac; done
        if ! inspect "$at"; then
            [ -n "${4-}" ] || die "$1: $at is missing"
            # through up's links, if any: the directory itself
            inspect "$up/." || die "$1: $up is missing"
            why=$(untrusted strict)
            [ -z "$why" ] || die "refusing $1: $at is missing, and $up, where mkdir -p would make it, is not safe: $why; $3"
            return 0
        fi
        if is_link; then
            if [ -z "$rest" ] && [ -n "${4-}" ]; then
                die "refusing $1: it is a symbolic link (to $(readlink -- "$at")), and install.sh writes into the directory pg_config names, not where a link leads; put the directory itself at $at, or give a pg_config that names the one the link leads to"
            fi
            # (a link's own mode means nothing: who may replace it is
            # decided by the directory it is in, walked already)
            why=$(mode=0 && untrusted)
        elif is_dir; then
            if [ -z "$rest" ] && [ -n "${4-}" ]; then why=$(untrusted strict); else why=$(untrusted); fi
        else
            die "refusing $1: $at is not a directory"
        fi
        if [ -n "$why" ]; then
            [ -n "$rest" ] || [ -z "${4-}" ] || die "refusing $1: $why; $3"
            die "refusing $1: $at, a directory on its path, is not safe: $why; $3"
        fi
        [ -n "$rest" ] || return 0
        up=$at at=${at%/}/${rest%%/*} rest=${rest#"${rest%%/*}"}
    done
}

# The pg_config to run: the file itself, after symbolic links. What runs
# is that file, by that path, so what led to it (a link in anyone's
# directory) no longer counts.
case $pg_config in
*/*) found=$pg_config ;;
*) found=$(command -v "$pg_config") || die "no $pg_config on PATH: give the server's pg_config, e.g. /usr/lib/postgresql/@PG_MAJOR@/bin/pg_config" ;;
esac
real=$(realpath -e -- "$found" 2>/dev/null) || die "$found: no such file: give the server's pg_config, e.g. /usr/lib/postgresql/@PG_MAJOR@/bin/pg_config"
[ "$real" = "$found" ] && shown=$real || shown="$real (where $found leads)"
fix="give the server's own pg_config, one that root owns in directories only root may write (chown root:root, chmod go-w), or run install.sh as the user that owns them"
inspect "$real" && is_file || die "refusing $shown as pg_config: it is not a regular file; $fix"
why=$(untrusted strict)
[ -z "$why" ] || die "refusing to run pg_config $shown: $why, and it would run as you; $fix"
walk "to run pg_config $shown" "${real%/*}" "$fix"

major=$("$real" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
if [ "$major" != "@PG_MAJOR@" ]; then
    echo "this package is built for PostgreSQL @PG_MAJOR@, but $pg_config is PostgreSQL ${major:-(unknown)}" >&2
    exit 1
fi
libdir=$("$real" --pkglibdir)
sharedir=$("$real" --sharedir)
for d in "pkglibdir:$libdir" "sharedir:$sharedir"; do
    case ${d#*:} in
    *"$nl"*) die "$pg_config --${d%%:*} gave more than one line: refusing to install" ;;
    /*) ;;
    *) die "$pg_config --${d%%:*} gave '${d#*:}', not an absolute directory: refusing to install" ;;
    esac
done
extdir=$sharedir/extension
# each target directory checked as pg_config gives it and after its links,
# then again once mkdir -p has made what was missing of it
targets() {
    for t in "pkglibdir:$libdir" "sharedir/extension:$extdir"; do
        what="to install into ${t#*:} (pg_config --${t%%:*})"
        fix="run install.sh as the user that owns it (sudo -u USER $0 PG_CONFIG), or make it and the directories above it root's and writable by root alone (chown root:root, chmod go-w)"
        walk "$what" "${t#*:}" "$fix" target
        resolved=$(realpath -m -- "${t#*:}") || die "$what: realpath cannot resolve it"
        walk "$what" "$resolved" "$fix" target
    done
}
targets
mkdir -p "$libdir" "$extdir"
targets

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
