"""Where and how the extension and the command-line tool are compiled: the cargo target
directory every checkout shares and its build lock, pgrx's environment for each build,
and a release build's (Zig links against glibc 2.28; arm64 is cross-compiled).
"""

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

# every library and program of a release asks for no glibc newer than this
GLIBC_FLOOR = "2.28"
# a release's architectures, as Debian names them: Rust's target (its first part: uname -m's machine)
ARCHES = {"amd64": "x86_64-unknown-linux-gnu", "arm64": "aarch64-unknown-linux-gnu"}


class BuildError(ToolError):
    """What stops a build."""


def _home(variable: str, default: Path) -> Path:
    return Path(os.environ.get(variable) or default)


def cargo_home() -> Path:
    """Cargo's own directory: its registry and the crates' sources (CARGO_HOME)."""
    return _home("CARGO_HOME", Path.home() / ".cargo")


def cargo_target() -> Path:
    """Cargo's output (ULID_CARGO_TARGET), outside the checkout so a fresh clone reuses it."""
    return _home("ULID_CARGO_TARGET", Path.home() / ".cache" / "ulid" / "target")


def native_release_target() -> Path:
    """Where release builds for this machine compile: scripts/install --release (scripts/demo)
    and the from-source test run the same cargo command, so either reuses the other's work.
    Beside cargo_target(), where another checkout's claim would forget its fingerprints."""
    return Path(f"{cargo_target()}-native-release")


def crate_bin(name: str) -> Path:
    """$ULID_TOOLS/NAME-VERSION/bin, where setup installs the `crate NAME` tool."""
    return tools() / f"{name}-{manifest.one('crate', name).version}" / "bin"


def tool_dirs() -> list[Path]:
    """The tools' directories, first in PATH for every build: cargo-pgrx's, the links to
    Debian 12's pinned rustc-web (pgrx 0.19 asks for rustc 1.96), cargo-fuzz's."""
    return [crate_bin("cargo-pgrx"), tools() / "rust-web" / "bin", crate_bin("cargo-fuzz")]


def tool_path() -> str:
    """PATH with tool_dirs first, each once."""
    first = [str(d) for d in tool_dirs()]
    rest = [d for d in os.environ.get("PATH", "").split(":") if d and d not in first]
    return ":".join(first + rest)


def pgrx_home() -> Path:
    return _home("ULID_PGRX_HOME", Path.home() / ".pgrx")


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
    """arm64's Rust standard library, C and ICU headers, and per major version the server's
    headers with a pg_config naming them (pgMAJOR/bin/pg_config)."""
    return tools() / "arm64"


def release_pg_config(arch: str, major: int | str) -> Path:
    """The pg_config a release build for ARCH and MAJOR reads its headers from."""
    if arch == "amd64":
        return builds.build_of(major).pg_config
    return arm64_root() / f"pg{major}" / "bin" / "pg_config"


def release_builds() -> list[str]:
    """The builds a release is made for: one per major version, never 18-assert."""
    return [name for name, b in builds.BUILDS.items() if name == str(b.major)]


def pgrx_env(build: str) -> dict[str, str]:
    """A pgrx build's environment for BUILD: tool_path, CARGO_PGRX (which pgrx-tests runs),
    PGRX_HOME, PGRX_PG_CONFIG_PATH and CARGO_TARGET_DIR. pgrx knows one server per major
    version, so a second build of one (18-assert) gets a PGRX_HOME of its own. Every build
    compiles into one target directory: pgrx's build script reads the headers of the
    pg_config PGRX_PG_CONFIG_PATH names and runs again when it changes (not when PGRX_HOME
    does), so 18 and 18-assert each get their own bindings, made again when the other
    built last, and share every dependency."""
    record = builds.build_of(build)
    home = pgrx_home() if build == str(record.major) else Path(f"{pgrx_home()}-{build}")
    return {"PATH": tool_path(), "CARGO_PGRX": str(crate_bin("cargo-pgrx") / "cargo-pgrx"),
            "PGRX_HOME": str(home), "PGRX_PG_CONFIG_PATH": str(record.pg_config),
            "CARGO_TARGET_DIR": str(cargo_target())}


def release_env(arch: str, major: int | str | None = None) -> dict[str, str]:
    """A release build's environment for ARCH (and MAJOR, for the headers): Zig links; for
    arm64 it compiles C too, the standard library comes from the arm64 root and pgrx reads
    that major version's pg_config there. (On amd64, C built with this machine's compiler
    is linked by Zig too: a symbol newer than the floor would not link.) So that two
    machines or checkouts make the same bytes, CARGO_HOME and the target directory (pgrx's
    bindings and C shim, named by panics and __FILE__) become /cargo and /target for rustc
    and the C compiler; our crates' paths are already relative to the checkout. The flags
    are the same for every checkout, so none rebuilds what another compiled."""
    target = rust_target(arch)
    var = target.upper().replace("-", "_")
    crates = str(cargo_home())
    rustflags = f"--remap-path-prefix={crates}=/cargo --remap-path-prefix={cargo_target()}=/target"
    env = {
        "CARGO_ZIGBUILD_ZIG_PATH": str(zig()),
        f"CARGO_TARGET_{var}_LINKER": str(zig_cc(arch)),
        f"CFLAGS_{target.replace('-', '_')}":
            f"-ffile-prefix-map={crates}=/cargo -ffile-prefix-map={cargo_target()}=/target",
    }
    if arch == "arm64":
        env[f"CC_{target.replace('-', '_')}"] = str(zig_cc(arch))
        rustflags = f"--sysroot={arm64_root()}/usr {rustflags}"
        if major is not None:
            env["PGRX_PG_CONFIG_PATH"] = str(release_pg_config(arch, major))
    env[f"CARGO_TARGET_{var}_RUSTFLAGS"] = rustflags
    return env


def _nested_target(target: Path, found: Path) -> bool:
    """Whether FOUND lies in a target directory (with .rustc_info.json) nested in TARGET."""
    return any((parent / ".rustc_info.json").exists()
               for parent in found.parents if parent != target and target in parent.parents)


@contextmanager
def build_lock(checkout: Path | str, target: Path | None = None) -> Iterator[None]:
    """Holds the build lock (flock on .build.lock) of a cargo target directory, TARGET or
    cargo_target(), claimed for CHECKOUT; a build into a directory of its own waits for no
    other. Cargo locks the directory only while it compiles; `cargo pgrx` then
    copies the library and runs the schema generator, and another build (scripts/test readies
    the next while tests run) could replace them. Cargo judges our crates by the times of
    their sources at absolute paths, so when the checkout changes their builds are
    forgotten (the dependencies' stay) and cargo rebuilds them."""
    target = target or cargo_target()
    target.mkdir(parents=True, exist_ok=True)
    with open(target / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = target / ".checkout"
        claimed = marker.read_text().strip() if marker.exists() else None
        if claimed != str(checkout):
            # our crates' .fingerprint/NAME-HASH (debug/, TRIPLE/release/), not those of what
            # builds here without this lock (the Rust client tests') nor of a nested target
            # directory (pgrx_env), which its own lock guards
            own = re.compile(rf"({'|'.join(map(re.escape, project.CRATES))})-[0-9a-f]+")
            for depth in ("", "*/", "*/*/"):
                for found in target.glob(f"{depth}.fingerprint/ulid*"):
                    if found.is_dir() and own.fullmatch(found.name) and not _nested_target(target, found):
                        shutil.rmtree(found, ignore_errors=True)
            marker.write_text(f"{checkout}\n")
        yield


def claim(checkout: Path | str) -> None:
    """Claims the cargo target directory for CHECKOUT (build_lock) before anything builds."""
    with build_lock(checkout):
        pass


def run_locked(checkout: Path | str, command: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Runs COMMAND, a build into the target directory its env names (or cargo_target()),
    holding that directory's build lock, which its children (a server) do not inherit."""
    target = (kwargs.get("env") or os.environ).get("CARGO_TARGET_DIR")
    with build_lock(checkout, Path(target) if target else None):
        return subprocess.run(command, close_fds=True, **kwargs)
