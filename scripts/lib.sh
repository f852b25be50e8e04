# Shared helpers for the scripts in this directory. Source it, don't run it.
#
# The PostgreSQL builds, where each comes from and its ports are the `build`
# lines of inputs.manifest (scripts/setup installs them); the functions
# below read them: builds, pg_major, pg_config_for, pg_origin, cluster_port.
# A build name is a major version, optionally with a suffix (18-assert); the
# major version picks pgrx's feature flag (pgNN).
set -euo pipefail

ULID_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ULID_PG_HOME=${ULID_PG_HOME:-/opt/ulid-postgres}
ULID_VENV=${ULID_VENV:-$ULID_ROOT/target/venv}
# the one place Python is told where the project's own modules are: `import
# ulidtools` (tools/: the manifest, the builds) and `import harness` (tests/:
# what the tests share) work in every program the scripts run (the scripts'
# own Python, bench/, the tests)
export PYTHONPATH=$ULID_ROOT/tools:$ULID_ROOT/tests${PYTHONPATH:+:$PYTHONPATH}
# inputs.manifest is read by tools/ulidtools alone, so the scripts need
# Python from their first line; a fresh Debian 12 may not have it yet
if ! command -v python3 >/dev/null; then
    echo "lib.sh: installing python3 (Debian 12's), which reads inputs.manifest" >&2
    sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends python3 >/dev/null
fi
# tools/ulidtools, without the site packages (-S: nothing it needs is there)
ulidtools() { python3 -S -m ulidtools "$@"; }
# What the manifest and the crates say that every script needs: the
# versions (ULID_VERSION, ULID_CLI_VERSION, ULID_PGRX_VERSION, and the
# tools': ULID_CARGO_PGRX_VERSION, ULID_CARGO_ZIGBUILD_VERSION,
# ULID_ZIG_VERSION), the builds (ULID_BUILDS) and their fields
# (build_field). Scripts source this file some thousands of times in a test
# run, so the assignments are kept in target/ and made again only when a
# file they come from is newer.
ulid_shell_cache=$ULID_ROOT/target/ulidtools-shell.sh
ulid_shell_fresh=1
for ulid_input in "$ULID_ROOT/inputs.manifest" "$ULID_ROOT/Cargo.toml" "$ULID_ROOT/crates/ulid-cli/Cargo.toml" \
    "$ULID_ROOT"/tools/ulidtools/*.py; do
    [ "$ulid_shell_cache" -nt "$ulid_input" ] || { ulid_shell_fresh=0; break; }
done
if [ $ulid_shell_fresh = 1 ]; then
    source "$ulid_shell_cache"
else
    # (the cache is dated before the files are read: one changed meanwhile
    # is newer, and read again next time)
    ulid_shell_read=$(date +%s.%N)
    ulid_shell=$(ulidtools shell) || { echo "lib.sh: inputs.manifest cannot be read" >&2; exit 1; }
    eval "$ulid_shell"
    # (a user who cannot write target/ reads the files every time)
    { mkdir -p "$ULID_ROOT/target" && printf '%s\n' "$ulid_shell" >"$ulid_shell_cache.$BASHPID" &&
        touch -d "@$ulid_shell_read" "$ulid_shell_cache.$BASHPID" &&
        mv -f "$ulid_shell_cache.$BASHPID" "$ulid_shell_cache"; } 2>/dev/null ||
        rm -f "$ulid_shell_cache.$BASHPID" 2>/dev/null || true
    unset ulid_shell ulid_shell_read
fi
unset ulid_shell_fresh ulid_input
ULID_TOOLS=${ULID_TOOLS:-/opt/ulid-tools}
# pgrx's configuration (one per build: see pgrx_env_for)
ULID_PGRX_HOME=${ULID_PGRX_HOME:-$HOME/.pgrx}
# Rust: pgrx 0.19 asks for rustc 1.96, newer than the machine's rustup
# toolchain, so every build uses Debian 12's rustc-web, cargo-web,
# rust-web-clippy and rustfmt-web (inputs.manifest pins them; they install
# into /usr/bin, behind rustup's in PATH): a directory of links to them goes
# first in PATH, and cargo-pgrx, built with them, before it.
ULID_RUST_BIN=$ULID_TOOLS/rust-web/bin
ULID_CARGO_PGRX_ROOT=$ULID_TOOLS/cargo-pgrx-$ULID_CARGO_PGRX_VERSION
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
# Claims under the build lock (with_build_lock, below).
claim_cargo_target() { with_build_lock "$1" true; }
# Runs COMMAND (a `cargo pgrx` build of CHECKOUT's sources into
# ULID_CARGO_TARGET) holding the directory's build lock, the directory
# claimed for CHECKOUT first. Cargo locks the directory while it compiles,
# but `cargo pgrx` then copies the library it built, and runs the schema
# generator, after cargo has let go: a build for another major version (or
# of another checkout) in that window would replace them. scripts/test
# makes the next build ready while one build's tests run, and those tests
# package their build and build earlier releases, so every such build
# takes this lock. COMMAND and its children (a server `cargo pgrx test`
# starts) do not inherit the lock's descriptor.
with_build_lock() {
    local checkout=$1
    shift
    mkdir -p "$ULID_CARGO_TARGET"
    {
        flock 9
        if [ "$(cat "$ULID_CARGO_TARGET/.checkout" 2>/dev/null)" != "$checkout" ]; then
            find "$ULID_CARGO_TARGET" -maxdepth 4 -type d -path '*/.fingerprint/ulid-*' -prune -exec rm -rf {} +
            echo "$checkout" >"$ULID_CARGO_TARGET/.checkout"
        fi
        "$@" 9>&-
    } 9>"$ULID_CARGO_TARGET/.build.lock"
}
# Private clusters' data directories; a run given ports of its own
# (ULID_PORT_BASE) gets a directory of its own too, so that two runs side by
# side never restart each other's servers.
ULID_CLUSTER_ROOT=${ULID_CLUSTER_ROOT:-/tmp/ulid-clusters${ULID_PORT_BASE:+-$ULID_PORT_BASE}}
export ULID_CLUSTER_ROOT
# Stops and removes every private cluster of BUILD under ULID_CLUSTER_ROOT
# (NAME-BUILD, a data directory): a test run's clusters hold gigabytes.
# Other directories there (a server unpacked for a test) stay.
destroy_clusters_of() {
    local build=$1 dir name
    for dir in "$ULID_CLUSTER_ROOT"/*-"$build"; do
        [ -f "$dir/PG_VERSION" ] || continue
        name=${dir##*/}
        "$ULID_ROOT/scripts/cluster" destroy "$build" "${name%-"$build"}"
    done
}
# Where scripts/fetch-debian keeps what it downloaded from Debian's archive
ULID_DOWNLOADS=${ULID_DOWNLOADS:-$HOME/.cache/ulid/downloads}
# PostgreSQL builds from Debian's binary packages of another suite
# (`debian-binary` builds): the server, its client, its headers and libpq5
# of the suite that has postgresql-MAJOR (13: bullseye-security, 19:
# experimental), with the libraries of that Debian release they need beyond
# Debian 12's, each pinned by a `debian-binary` line of inputs.manifest.
# Built for sid or trixie, they need its C library too (with its loader);
# built for bullseye, they run on Debian 12's, which is newer than theirs.
SID_LIBRARIES=(libc6 libgcc-s1 libstdc++6 libicu78 libxml2-16 libldap2 liburing2 libssl3t64)
# (libllvm19 and libz3-4: the JIT provider, llvmjit.so; libzstd1: libssl3t64's)
TRIXIE_LIBRARIES=(libc6 libgcc-s1 libstdc++6 libicu76 libldap2 liburing2 libssl3t64 libzstd1 libllvm19 libz3-4)
# (libllvm11 and libffi7: the JIT provider, llvmjit.so)
BULLSEYE_LIBRARIES=(libssl1.1 libldap-2.4-2 libicu67 libllvm11 libffi7)
# The Debian release of a suite: bullseye-security -> bullseye; experimental,
# built against sid -> sid.
debian_release() {
    case "$1" in
        experimental) echo sid ;;
        *) echo "${1%%-*}" ;;
    esac
}
# The release whose packages make the debian-binary build of MAJOR.
debian_binary_release() {
    local suite
    suite=$(manifest debian-binary | awk -v p="postgresql-$1" '$3 == p { print $2 }')
    [ -n "$suite" ] || die "inputs.manifest pins no debian-binary postgresql-$1"
    debian_release "$suite"
}
# The packages of the debian-binary build of MAJOR, one a line.
debian_binary_packages() {
    local release
    release=$(debian_binary_release "$1")
    printf '%s\n' "postgresql-$1" "postgresql-client-$1" "postgresql-server-dev-$1" libpq5
    case "$release" in
        sid) printf '%s\n' "${SID_LIBRARIES[@]}" ;;
        trixie) printf '%s\n' "${TRIXIE_LIBRARIES[@]}" ;;
        bullseye) printf '%s\n' "${BULLSEYE_LIBRARIES[@]}" ;;
        *) die "PostgreSQL $1 from Debian $release: lib.sh names no libraries of $release" ;;
    esac
}
# Their manifest lines (those of a suite of that release), the kind left
# off, in the manifest's order.
debian_binary_pins() {
    local release packages
    release=$(debian_binary_release "$1")
    packages=" $(debian_binary_packages "$1" | xargs) "
    manifest debian-binary | while read -r archive suite package rest; do
        if [[ "$packages" == *" $package "* ]] && [ "$(debian_release "$suite")" = "$release" ]; then
            echo "$archive $suite $package $rest"
        fi
    done
}
# Unpacks Debian packages of a PostgreSQL of another Debian release (.deb
# files: the server, its client, libpq5 and that release's libraries, as
# debian_binary_packages lists them) into ROOT, never into the system, and
# points every program of it (and the test drivers PGXS carries, when the
# server-dev package is among them) at the libraries unpacked beside it
# (an RPATH, which the libraries the server loads inherit), and, when the
# packages brought their release's C library (sid's, newer than Debian
# 12's), at that C library's loader; so that it runs here on Debian 12:
# `ROOT/usr/lib/postgresql/MAJOR/bin/postgres` then starts like any build.
# PostgreSQL's programs find their files relative to their own directory,
# wherever it is; Debian's pg_config of 13 does not (it reports the
# directories it was built for, /usr/...), so it is given a pg_config that
# reports them under ROOT.
#   unpack_debian_postgres ROOT MAJOR DEB...
unpack_debian_postgres() {
    local root=$1 major=$2 file elf dirs=() libdirs=() rpath interpreter=() bindir
    shift 2
    as_root rm -rf "$root"
    as_root mkdir -p "$root"
    for file in "$@"; do as_root dpkg-deb -x "$file" "$root"; done
    for file in bin lib/pgxs/src/test; do
        [ -d "$root/usr/lib/postgresql/$major/$file" ] && dirs+=("$root/usr/lib/postgresql/$major/$file")
    done
    # (a release before the /usr merge keeps some libraries in /lib)
    for file in usr/lib/x86_64-linux-gnu lib/x86_64-linux-gnu; do
        [ -d "$root/$file" ] && libdirs+=("$root/$file")
    done
    rpath=$(IFS=:; echo "${libdirs[*]}")
    [ ! -e "$root/usr/lib64/ld-linux-x86-64.so.2" ] ||
        interpreter=(--set-interpreter "$root/usr/lib64/ld-linux-x86-64.so.2")
    while read -r elf; do
        file -b "$elf" | grep -q '^ELF.*executable' || continue
        as_root patchelf "${interpreter[@]}" --force-rpath --set-rpath "$rpath" "$elf"
    done < <(find "${dirs[@]}" -type f)
    # A library with a RUNPATH of its own (bullseye's libLLVM-11, which
    # llvmjit.so needs) does not look in the programs' RPATH for what it
    # needs: it is given those directories too.
    while read -r elf; do
        readelf -d "$elf" 2>/dev/null | grep -q '(RUNPATH)' || continue
        as_root patchelf --add-rpath "$rpath" "$elf"
    done < <(find "${libdirs[@]}" -name '*.so*' -type f)
    bindir=$root/usr/lib/postgresql/$major/bin
    if [ -x "$bindir/pg_config" ] && [ "$("$bindir/pg_config" --bindir)" != "$bindir" ]; then
        as_root mv "$bindir/pg_config" "$bindir/pg_config.debian"
        local dirs_re='BINDIR|DOCDIR|HTMLDIR|INCLUDEDIR|PKGINCLUDEDIR|INCLUDEDIR-SERVER|LIBDIR|PKGLIBDIR|LOCALEDIR|MANDIR|SHAREDIR|SYSCONFDIR|PGXS'
        as_root tee "$bindir/pg_config" >/dev/null <<PG_CONFIG
#!/bin/sh
# Debian's pg_config of PostgreSQL $major (pg_config.debian) reports the
# directories it was built for; unpacked by scripts/lib.sh's
# unpack_debian_postgres, they are under $root.
# Every other answer is Debian's.
real=$bindir/pg_config.debian
if [ \$# = 0 ]; then
    "\$real" | sed -E 's#^($dirs_re) = /#\1 = $root/#'
    exit
fi
for option in "\$@"; do
    case "\$option" in
        --bindir | --docdir | --htmldir | --includedir | --pkgincludedir | --includedir-server | --libdir | \\
            --pkglibdir | --localedir | --mandir | --sharedir | --sysconfdir | --pgxs)
            echo "$root\$("\$real" "\$option")" ;;
        *) "\$real" "\$option" || exit ;;
    esac
done
PG_CONFIG
        as_root chmod 755 "$bindir/pg_config"
    fi
    as_root chmod -R a+rX "$root"
}

# the unprivileged user that runs postgres when we are root
ULID_PG_USER=${ULID_PG_USER:-postgres}

# The fields of every line of KIND in inputs.manifest, the manifest of all
# that comes from outside the repository, one line each, the kind left off;
# with a second argument, only the lines whose first field is that.
# tools/ulidtools/manifest.py is the file's one reader, and stops on a line
# that is not well formed.
manifest() {
    ulidtools manifest "$@"
}

# The PostgreSQL builds, in the manifest's order; with FROM, only those that
# come from there (debian, wheel, source, source+assert, debian-binary).
builds() {
    if [ $# -eq 0 ]; then printf '%s\n' $ULID_BUILDS; else ulidtools builds "$1"; fi
}
# One field of a build's line: major, version, from or port.
build_field() {
    local name="ULID_BUILD_${2^^}_${1//-/_}"
    [[ "$name" =~ ^ULID_BUILD_(MAJOR|VERSION|FROM|PORT)_[0-9A-Za-z_]+$ && -n "${!name:-}" ]] ||
        die "PostgreSQL $1 is not a build inputs.manifest declares (builds: $ULID_BUILDS), or has no field $2"
    echo "${!name}"
}
ULID_VERSIONS=${ULID_VERSIONS:-$ULID_BUILDS}

# For a script's command line: with -h or --help first, print the script's
# opening comment and exit; otherwise stop, before anything is done, on an
# argument that names no build.
help_or_builds() {
    case "${1:-}" in
        -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    esac
    local b
    for b in "$@"; do
        case "$b" in -*) die "unknown option $b (try $0 --help)" ;; esac
        build_field "$b" major >/dev/null
    done
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
    case "$(build_field "$1" from)" in
        debian) echo "/usr/lib/postgresql/$(build_field "$1" major)/bin/pg_config" ;;
        *) echo "$ULID_PG_HOME/$1/bin/pg_config" ;;
    esac
}

# Where a build comes from, as inputs.manifest pins it, for the logs.
pg_origin() {
    local major
    major=$(build_field "$1" major)
    case "$(build_field "$1" from)" in
        debian) echo "Debian 12's postgresql-$major $(dpkg-query -W -f='${Version}' "postgresql-$major" 2>/dev/null)" ;;
        wheel) manifest wheel "$1" | awk '{ print "the PyPI wheel " $2 " " $3 }' ;;
        debian-binary) manifest debian-binary | awk -v p="postgresql-$major" -v libc="$(debian_binary_packages "$major" | grep -qx libc6 &&
            echo "with $(debian_binary_release "$major")'s C library" || echo "on Debian 12's C library")" \
            '$3 == p { print "Debian " $2 "\x27s binary packages " $3 " " $4 ", " libc }' ;;
        source*) manifest debian-source | awk -v p="postgresql-$major" \
            '$3 == p { print "Debian " $2 "\x27s source " $3 " " $4 ", sha256 " substr($7, 1, 16) "..." }' ;;
    esac
}

pg_bindir() { "$(pg_config_for "$1")" --bindir; }

# Builds the extension for BUILD and stages every file it installs under
# STAGE, laid out from / as `cargo pgrx package` writes them: the library,
# the control file, the generated install script and the update scripts
# (rendered by build.rs). PROFILE is debug or release; the build's log is
# STAGE.log. With ARCH (amd64 or arm64), it is a release build for that
# architecture (release_env): linked by Zig, cross-compiled for arm64
# against that major version's arm64 headers.
#   stage_extension BUILD STAGE PROFILE [ARCH]
stage_extension() {
    local build=$1 stage=$2 profile=$3 arch=${4:-} config args
    config=$(pg_config_for "$build")
    [ -z "$arch" ] || config=$(release_pg_config "$arch" "$(pg_major "$build")")
    args=(--pg-config "$config" --out-dir "$stage")
    [ "$profile" = debug ] && args+=(--debug)
    [ -z "$arch" ] || args+=(--target "$(rust_target "$arch")")
    rm -rf "$stage"
    mkdir -p "$(dirname "$stage")"
    (
        eval "$(pgrx_env_for "$build")"
        [ -z "$arch" ] || eval "$(release_env "$arch" "$(pg_major "$build")")"
        cd "$ULID_ROOT" && with_build_lock "$ULID_ROOT" cargo pgrx package "${args[@]}"
    ) >"$stage.log" 2>&1 || { cat "$stage.log" >&2; die "build for PostgreSQL $build${arch:+ ($arch)} failed"; }
}

# The major version of a build: 18-assert -> 18.
pg_major() { build_field "$1" major; }

# The builds a release is made for: one per major version, never a second,
# test-only build of one (18-assert).
release_builds() {
    local b
    for b in $(builds); do
        [ "$b" = "$(pg_major "$b")" ] && echo "$b"
    done
    return 0
}

# Downloads the file of inputs.manifest's `pypi PROJECT` line into DIR
# (pip checks its sha256; the wheel's tags say for which platform it is) and
# prints its path.
pypi_download() {
    local project=$1 dir=$2 version file sha256 tags args=() requirements
    read -r _ version file sha256 < <(manifest pypi "$project") ||
        die "inputs.manifest pins no pypi $project"
    mkdir -p "$dir"
    if ! { [ -f "$dir/$file" ] && echo "$sha256  $dir/$file" | sha256sum -c --status; }; then
        # NAME-VERSION-PYTHON-ABI-PLATFORM.whl
        IFS=- read -ra tags <<<"${file%.whl}"
        case "${tags[2]}" in
            py3) ;; # any Python 3: this one
            cp3*) args+=(--python-version "3.${tags[2]#cp3}" --implementation cp) ;;
        esac
        [ "${tags[3]}" = none ] || args+=(--abi "${tags[3]}")
        for platform in ${tags[4]//./ }; do args+=(--platform "$platform"); done
        requirements=$(mktemp)
        echo "$project==$version --hash=sha256:$sha256" >"$requirements"
        python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
            --require-hashes "${args[@]}" -r "$requirements" -d "$dir" >&2 ||
            { rm -f "$requirements"; die "pip could not download $project $version"; }
        rm -f "$requirements"
        [ -f "$dir/$file" ] || die "pip downloaded $project $version, but not $file: change the pypi $project line of inputs.manifest"
    fi
    echo "$dir/$file"
}

# --- Release builds (scripts/package): every library and program is linked
# by Zig against the symbols of glibc ULID_GLIBC_FLOOR, so that it loads on
# every Linux with that glibc or a newer one, and arm64 is cross-compiled.
# scripts/setup installs the tools and the arm64 headers.
ULID_GLIBC_FLOOR=2.28
ULID_ZIG=$ULID_TOOLS/zig-$ULID_ZIG_VERSION/ziglang/zig
ULID_CARGO_ZIGBUILD=$ULID_TOOLS/cargo-zigbuild-$ULID_CARGO_ZIGBUILD_VERSION/bin/cargo-zigbuild
# the arm64 root: the Rust standard library and the C library's and ICU's
# headers (Debian's arm64 packages), and per major version the server
# headers with a pg_config that names them (pgMAJOR/bin/pg_config)
ULID_ARM64_ROOT=$ULID_TOOLS/arm64

# The architectures of a release, as Debian names them.
release_arches() { echo amd64 arm64; }
# An architecture as Rust's target, and as the kernel (uname -m) names it.
rust_target() {
    case "$1" in amd64) echo x86_64-unknown-linux-gnu ;; arm64) echo aarch64-unknown-linux-gnu ;; *) die "no architecture $1" ;; esac
}
machine_of() {
    case "$1" in amd64) echo x86_64 ;; arm64) echo aarch64 ;; *) die "no architecture $1" ;; esac
}
# The C compiler and linker for ARCH: Zig, for glibc ULID_GLIBC_FLOOR.
zig_cc() { echo "$ULID_TOOLS/zig-cc/$(machine_of "$1")-linux-gnu.$ULID_GLIBC_FLOOR-cc"; }

# The pg_config a release build for ARCH and MAJOR reads its headers from.
release_pg_config() {
    case "$1" in
        amd64) pg_config_for "$2" ;;
        arm64) echo "$ULID_ARM64_ROOT/pg$2/bin/pg_config" ;;
    esac
}

# The environment of a release build for ARCH (and MAJOR, for the headers),
# as `export` lines to eval: Zig links for that architecture; for arm64 it
# compiles C too, the standard library comes from the arm64 root, and pgrx
# takes its headers from that major version's pg_config there. (On amd64
# the C that pgrx compiles, with this machine's compiler and headers, is
# linked by Zig like the rest: a symbol newer than the floor would not link.)
#
# No path of this machine goes into what a release build makes, so that
# two machines or checkouts make the same bytes (scripts/release): the
# crates' sources under CARGO_HOME and the code generated into the cargo
# target directory (pgrx's bindings, which panic messages name, and its C
# shim, whose __FILE__ PostgreSQL's error macros keep) are renamed to
# /cargo and /target, for rustc and for the C compiler. Our own crates'
# sources need no renaming: cargo hands rustc their paths relative to the
# checkout. The flags are the same for every checkout, so that no checkout
# rebuilds what another one compiled into the same target directory.
release_env() {
    local arch=$1 major=${2:-} target var cargo_home rustflags
    target=$(rust_target "$arch")
    var=$(echo "$target" | tr 'a-z-' 'A-Z_')
    cargo_home=${CARGO_HOME:-$HOME/.cargo}
    rustflags="--remap-path-prefix=$cargo_home=/cargo --remap-path-prefix=$ULID_CARGO_TARGET=/target"
    echo "export CARGO_ZIGBUILD_ZIG_PATH=$ULID_ZIG"
    echo "export CARGO_TARGET_${var}_LINKER=$(zig_cc "$arch")"
    echo "export CFLAGS_${target//-/_}='-ffile-prefix-map=$cargo_home=/cargo -ffile-prefix-map=$ULID_CARGO_TARGET=/target'"
    if [ "$arch" = arm64 ]; then
        echo "export CC_${target//-/_}=$(zig_cc "$arch")"
        rustflags="--sysroot=$ULID_ARM64_ROOT/usr $rustflags"
        [ -z "$major" ] || echo "export PGRX_PG_CONFIG_PATH=$(release_pg_config arm64 "$major")"
    fi
    echo "export CARGO_TARGET_${var}_RUSTFLAGS='$rustflags'"
}

# The time a release's files carry (every file's time in the tarballs and
# packages, the date of changelog.Debian.gz): SOURCE_DATE_EPOCH when set,
# otherwise the time of the commit checked out, so that two builds of one
# commit make the same bytes (tools/ulidtools/deb.py, which makes the
# packages with it).
source_date_epoch() { ulidtools source-date-epoch; }

# Makes OUT, a gzipped tarball of DIR/NAME, the same bytes wherever it is
# made from the same files: members sorted by name, owned by 0:0 with no
# names, every time SOURCE_DATE_EPOCH's (source_date_epoch), modes 644, or
# 755 for directories and programs (whatever the umask), and no name or
# time in gzip's header.
#   release_tarball DIR NAME OUT
release_tarball() {
    local epoch
    epoch=$(source_date_epoch)
    tar -C "$1" --format=gnu --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
        --mode=u=rwX,go=rX -c "$2" | gzip -9n >"$3"
}

# The newest glibc symbol version an ELF file asks for (2.28), or nothing
# (deb.py, which writes the packages' Depends with it).
glibc_needed() { ulidtools glibc-needed "$1"; }

# Stops unless an ELF library or program is for ARCH and, in a release
# build, asks for no glibc newer than ULID_GLIBC_FLOOR.
#   check_binary FILE ARCH PROFILE
check_binary() {
    local needed
    file -b "$1" | grep -q "$(case $2 in amd64) echo x86-64 ;; arm64) echo aarch64 ;; esac)" ||
        die "$1 is not for $2: $(file -b "$1")"
    [ "$3" = release ] || return 0
    needed=$(glibc_needed "$1")
    [ "$(printf '%s\n%s\n' "$needed" "$ULID_GLIBC_FLOOR" | sort -V | tail -1)" = "$ULID_GLIBC_FLOOR" ] ||
        die "$1 asks for glibc $needed, newer than $ULID_GLIBC_FLOOR"
}

# Writes an apt repository's index of the .deb files under DIR/pool: for
# each ARCH, dists/SUITE/main/binary-ARCH/Packages and Packages.gz, and
# dists/SUITE/Release with their checksums (unsigned; callers that sign add
# InRelease and Release.gpg).
#   apt_index DIR SUITE ARCH...
apt_index() {
    local dir=$1 suite=$2 arch index file
    shift 2
    for arch in "$@"; do
        index=$dir/dists/$suite/main/binary-$arch
        mkdir -p "$index"
        (cd "$dir" && dpkg-scanpackages --arch "$arch" pool /dev/null 2>/dev/null) >"$index/Packages"
        gzip -9nkf "$index/Packages"
    done
    {
        echo "Origin: ulid"
        echo "Label: ulid"
        echo "Suite: $suite"
        echo "Codename: $suite"
        echo "Date: $(LC_ALL=C date -u -R)"
        echo "Architectures: $*"
        echo "Components: main"
        echo "SHA256:"
        for arch in "$@"; do
            for file in Packages Packages.gz; do
                index=$dir/dists/$suite/main/binary-$arch/$file
                printf ' %s %s main/binary-%s/%s\n' "$(sha256sum <"$index" | cut -c1-64)" "$(stat -c %s "$index")" "$arch" "$file"
            done
        done
    } >"$dir/dists/$suite/Release"
}

# Strips an ELF library or program as dh_strip does (the dynamic symbols
# PostgreSQL looks up stay), with binutils for x86-64 and LLVM's strip for
# other architectures, which this machine's binutils do not read (deb.py,
# which strips what goes into the packages).
strip_library() { ulidtools strip "$1"; }

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

# Private clusters get ports BASE + PORT + SLOT, BASE being 20000 unless
# ULID_PORT_BASE says otherwise and PORT the build's (inputs.manifest): slot
# 0 for the demo, the others for tests and benchmarks. Below 32768, so they
# never meet the kernel's ephemeral ports.
cluster_port() {
    echo $((${ULID_PORT_BASE:-20000} + $(build_field "$1" port) + ${2:-0}))
}
