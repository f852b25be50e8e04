"""Where and how the extension and the command-line tool are compiled: the cargo target directory every
checkout shares and its build lock, pgrx's environment for each build, and a release build's (Zig links
against glibc 2.28; arm64 is cross-compiled)."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ulidtools import builds, manifest, project
from ulidtools.base import ToolError, tools

GLIBC_FLOOR = "2.28"  # every library and program of a release asks for no glibc newer than this
# a release's architectures, as Debian names them: Rust's target (its first part: uname -m's machine)
ARCHES = {"amd64": "x86_64-unknown-linux-gnu", "arm64": "aarch64-unknown-linux-gnu"}


class BuildError(ToolError):
    """What stops a build."""


def cargo_home() -> Path:
    return Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")


def cargo_target() -> Path:
    return Path(os.environ.get("ULID_CARGO_TARGET") or Path.home() / ".cache" / "ulid" / "target")


def native_release_target() -> Path:
    """Release builds for this machine (scripts/install --release, the from-source test): not in
    cargo_target(), where another checkout's claim would forget their fingerprints."""
    return Path(f"{cargo_target()}-native-release")


def crate_bin(name: str) -> Path:
    return tools() / f"{name}-{manifest.one('crate', name).version}" / "bin"


def tool_dirs() -> list[Path]:
    """The tools' directories, first in PATH for every build: cargo-pgrx's, the links to rustc-web, cargo-fuzz's."""
    return [crate_bin("cargo-pgrx"), tools() / "rust-web" / "bin", crate_bin("cargo-fuzz")]


def tool_path() -> str:
    first = [str(d) for d in tool_dirs()]
    rest = [d for d in os.environ.get("PATH", "").split(":") if d and d not in first]
    return ":".join(first + rest)


def pgrx_home() -> Path:
    return Path(os.environ.get("ULID_PGRX_HOME") or Path.home() / ".pgrx")


def rust_target(arch: str) -> str:
    if arch not in ARCHES:
        raise BuildError(f"no architecture {arch}")
    return ARCHES[arch]


def machine_of(arch: str) -> str:
    return rust_target(arch).partition("-")[0]


def zig() -> Path:
    return tools() / f"zig-{manifest.one('pypi', 'ziglang').version}" / "ziglang" / "zig"


def zig_cc(arch: str) -> Path:
    """ARCH's C compiler and linker: a script, written by setup, running Zig for GLIBC_FLOOR."""
    return tools() / "zig-cc" / f"{machine_of(arch)}-linux-gnu.{GLIBC_FLOOR}-cc"


def arm64_root() -> Path:
    """arm64's Rust standard library, C and ICU headers, and pgMAJOR/bin/pg_config naming the server's."""
    return tools() / "arm64"


def release_pg_config(arch: str, major: int | str) -> Path:
    if arch == "amd64":
        return builds.build_of(major).pg_config
    return arm64_root() / f"pg{major}" / "bin" / "pg_config"


def release_builds() -> list[str]:
    """The builds a release is made for: one per major version, never 18-assert."""
    return [name for name, b in builds.BUILDS.items() if name == str(b.major)]


def pgrx_env(build: str) -> dict[str, str]:
    """pgrx knows one server per major version: a second build of one (18-assert) gets a PGRX_HOME of its own.
    pgrx's build script runs again when the headers of PGRX_PG_CONFIG_PATH change (not PGRX_HOME), so 18 and
    18-assert share every dependency in one target directory. CARGO_PGRX: what pgrx-tests runs."""
    record = builds.build_of(build)
    home = pgrx_home() if build == str(record.major) else Path(f"{pgrx_home()}-{build}")
    return {"PATH": tool_path(), "CARGO_PGRX": str(crate_bin("cargo-pgrx") / "cargo-pgrx"), "PGRX_HOME": str(home),
            "PGRX_PG_CONFIG_PATH": str(record.pg_config), "CARGO_TARGET_DIR": str(cargo_target())}


def release_env(arch: str, major: int | str | None = None) -> dict[str, str]:
    """Zig links (on amd64 too: a symbol newer than the floor would not link); on arm64 it compiles C too. For
    the same bytes from any machine or checkout, CARGO_HOME and the target directory (pgrx's bindings and C shim,
    named by panics and __FILE__; our crates' paths are relative already) become /cargo and /target for rustc
    and C, with flags the same for every checkout, so that none rebuilds what another compiled."""
    target = rust_target(arch).replace("-", "_")
    crates = str(cargo_home())
    rustflags = f"--remap-path-prefix={crates}=/cargo --remap-path-prefix={cargo_target()}=/target"
    env = {"CARGO_ZIGBUILD_ZIG_PATH": str(zig()), f"CARGO_TARGET_{target.upper()}_LINKER": str(zig_cc(arch)),
           f"CFLAGS_{target}": f"-ffile-prefix-map={crates}=/cargo -ffile-prefix-map={cargo_target()}=/target"}
    if arch == "arm64":
        env[f"CC_{target}"] = str(zig_cc(arch))
        rustflags = f"--sysroot={arm64_root()}/usr {rustflags}"
        if major is not None:
            env["PGRX_PG_CONFIG_PATH"] = str(release_pg_config(arch, major))
    env[f"CARGO_TARGET_{target.upper()}_RUSTFLAGS"] = rustflags
    return env


@contextmanager
def build_lock(checkout: Path | str, target: Path | None = None) -> Iterator[None]:
    """The build lock of TARGET or cargo_target() (why: docs/development.md, "Running the tests"), claimed for
    CHECKOUT: cargo judges our crates by the times of their sources at absolute paths, so when the checkout
    changes their builds are forgotten (the dependencies' stay)."""
    target = target or cargo_target()
    target.mkdir(parents=True, exist_ok=True)
    with open(target / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = target / ".checkout"
        claimed = marker.read_text().strip() if marker.exists() else None
        if claimed != str(checkout):
            # our crates' .fingerprint/NAME-HASH (debug/, TRIPLE/release/); not the Rust client tests' (built
            # here without this lock) nor a nested target directory's (with its .rustc_info.json, its own lock)
            own = re.compile(rf"({'|'.join(map(re.escape, project.CRATES))})-[0-9a-f]+")
            for depth in ("", "*/", "*/*/"):
                for found in target.glob(f"{depth}.fingerprint/ulid*"):
                    if found.is_dir() and own.fullmatch(found.name) and not any(
                            (parent / ".rustc_info.json").exists()
                            for parent in found.parents if parent != target and target in parent.parents):
                        shutil.rmtree(found, ignore_errors=True)
            marker.write_text(f"{checkout}\n")
        yield


def claim(checkout: Path | str) -> None:
    with build_lock(checkout):
        pass


def run_locked(checkout: Path | str, command: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Under the build lock of its env's target directory, which its children (a server) do not inherit."""
    target = (kwargs.get("env") or os.environ).get("CARGO_TARGET_DIR")
    with build_lock(checkout, Path(target) if target else None):
        return subprocess.run(command, close_fds=True, **kwargs)
