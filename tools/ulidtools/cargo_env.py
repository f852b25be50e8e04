"""Where and how the extension and the command-line tool are compiled: the
cargo target directory every checkout shares and its build lock, pgrx's
environment for each build, and a release build's environment (Zig links against
glibc 2.28's symbols; arm64 is cross-compiled).
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
# a release's architectures, as Debian names them: Rust's target, and the
# machine as the kernel (uname -m) names it
ARCHES = {"amd64": ("x86_64-unknown-linux-gnu", "x86_64"),
          "arm64": ("aarch64-unknown-linux-gnu", "aarch64")}


class BuildError(ToolError):
    """What stops a build."""


def _home(variable: str, default: Path) -> Path:
    return Path(os.environ.get(variable) or default)


def cargo_home() -> Path:
    """Cargo's own directory: its registry and the crates' sources (CARGO_HOME)."""
    return _home("CARGO_HOME", Path.home() / ".cargo")


def cargo_target() -> Path:
    """Cargo's compiled artifacts, outside the checkout so that a fresh
    clone reuses what earlier runs compiled (ULID_CARGO_TARGET)."""
    return _home("ULID_CARGO_TARGET", Path.home() / ".cache" / "ulid" / "target")


def native_release_target() -> Path:
    """Where a release-mode build for this machine is compiled and kept:
    scripts/install --release (which scripts/demo runs) and the from-source
    test's scripts/install-from-source run the same cargo command with the
    same settings, so that either finds what the other compiled. Beside
    cargo_target(), not in it, where a claim of that directory for another
    checkout would forget its fingerprints while it builds."""
    return Path(f"{cargo_target()}-native-release")


def crate_bin(name: str) -> Path:
    """Where setup installs the tool of the manifest's `crate NAME` line:
    $ULID_TOOLS/NAME-VERSION/bin."""
    return tools() / f"{name}-{manifest.one('crate', name).version}" / "bin"


def tool_dirs() -> list[Path]:
    """The directories every build takes its tools from, first in PATH:
    cargo-pgrx's, built with Debian 12's Rust, then that Rust's links
    (rustc-web and its tools, pinned: pgrx 0.19 asks for rustc 1.96), and
    cargo-fuzz's (fuzz/run.sh), as setup installs them."""
    return [crate_bin("cargo-pgrx"), tools() / "rust-web" / "bin", crate_bin("cargo-fuzz")]


def tool_path(path: str | None = None) -> str:
    """PATH (ours unless given) with tool_dirs first, each once."""
    first = [str(d) for d in tool_dirs()]
    rest = [d for d in (os.environ.get("PATH", "") if path is None else path).split(":") if d and d not in first]
    return ":".join(first + rest)


def pgrx_home() -> Path:
    """pgrx's configuration of the builds (ULID_PGRX_HOME)."""
    return _home("ULID_PGRX_HOME", Path.home() / ".pgrx")


def rust_target(arch: str) -> str:
    if arch not in ARCHES:
        raise BuildError(f"no architecture {arch}")
    return ARCHES[arch][0]


def machine_of(arch: str) -> str:
    if arch not in ARCHES:
        raise BuildError(f"no architecture {arch}")
    return ARCHES[arch][1]


def zig() -> Path:
    return tools() / f"zig-{manifest.one('pypi', 'ziglang').version}" / "ziglang" / "zig"


def zig_cc(arch: str) -> Path:
    """The C compiler and linker of ARCH: Zig, for glibc GLIBC_FLOOR
    (a script scripts/setup writes)."""
    return tools() / "zig-cc" / f"{machine_of(arch)}-linux-gnu.{GLIBC_FLOOR}-cc"


def arm64_root() -> Path:
    """The Rust standard library and the C library's and ICU's headers for
    arm64, and per major version the server's headers with a pg_config that
    names them (pgMAJOR/bin/pg_config)."""
    return tools() / "arm64"


def release_pg_config(arch: str, major: int | str) -> Path:
    """The pg_config a release build for ARCH and MAJOR reads its headers
    from."""
    if arch == "amd64":
        return builds.pg_config_for(major)
    return arm64_root() / f"pg{major}" / "bin" / "pg_config"


def release_builds() -> list[str]:
    """The builds a release is made for: one per major version, never a
    second, test-only build of one (18-assert)."""
    return [name for name, b in builds.BUILDS.items() if name == str(b.major)]


def pgrx_env(build: str) -> dict[str, str]:
    """The environment of a pgrx build for BUILD: the tools in PATH
    (tool_path; CARGO_PGRX, the cargo-pgrx pgrx-tests runs), pgrx's
    configuration and the cargo target directory. pgrx knows one server per
    major version, so a second build of a major version (18-assert) gets a
    pgrx configuration and a cargo target directory of its own (its
    bindings differ)."""
    tools = {"PATH": tool_path(), "CARGO_PGRX": str(crate_bin("cargo-pgrx") / "cargo-pgrx")}
    if build == str(builds.build_of(build).major):
        return {**tools, "PGRX_HOME": str(pgrx_home()), "CARGO_TARGET_DIR": str(cargo_target())}
    return {**tools, "PGRX_HOME": f"{pgrx_home()}-{build}", "CARGO_TARGET_DIR": f"{cargo_target()}/build-{build}"}


def release_env(arch: str, major: int | str | None = None) -> dict[str, str]:
    """The environment of a release build for ARCH (and MAJOR, for the
    headers): Zig links for that architecture; for arm64 it compiles C too,
    the standard library comes from the arm64 root, and pgrx takes its
    headers from that major version's pg_config there. (On amd64 the C that
    pgrx compiles, with this machine's compiler and headers, is linked by
    Zig like the rest: a symbol newer than the floor would not link.)

    No path of this machine goes into what a release build makes, so that
    two machines or checkouts make the same bytes: the crates' sources
    under CARGO_HOME and the code generated into the cargo target directory
    (pgrx's bindings, which panic messages name, and its C shim, whose
    __FILE__ PostgreSQL's error macros keep) are renamed to /cargo and
    /target, for rustc and for the C compiler. Our own crates' sources need
    no renaming: cargo hands rustc their paths relative to the checkout.
    The flags are the same for every checkout, so that no checkout rebuilds
    what another one compiled into the same target directory."""
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
    """Whether FOUND lies in another cargo target directory inside TARGET
    (cargo writes .rustc_info.json at the top of every target directory)."""
    return any((parent / ".rustc_info.json").exists()
               for parent in found.parents if parent != target and target in parent.parents)


@contextmanager
def build_lock(checkout: Path | str, target: Path | None = None) -> Iterator[None]:
    """Holds the build lock of a cargo target directory (TARGET, or
    cargo_target()), claimed for CHECKOUT first: one lock a directory, so
    that a build with a target directory of its own (18-assert) waits for
    no other.

    Cargo locks the directory while it compiles, but `cargo pgrx` then
    copies the library it built, and runs the schema generator, after cargo
    has let go: a build for another major version (or of another checkout)
    in that window would replace them. scripts/test makes the next build
    ready while one build's tests run, and those tests package their build
    and build earlier releases, so every such build takes this lock (flock
    on .build.lock, as lib.sh's with_build_lock always did).

    Cargo decides whether a crate of ours is up to date from the
    modification times of the source files it was last built from, by
    their absolute paths: after a build from another checkout it would
    judge this one's sources by that checkout's files. So when the
    checkout changes, how our own crates were built is forgotten (the
    dependencies' builds stay) and cargo rebuilds them."""
    target = target or cargo_target()
    target.mkdir(parents=True, exist_ok=True)
    with open(target / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = target / ".checkout"
        claimed = marker.read_text().strip() if marker.exists() else None
        if claimed != str(checkout):
            # (the .fingerprint directories of the workspace's crates, NAME-HASH,
            # up to 4 levels down: debug/.fingerprint/, TRIPLE/release/.fingerprint/;
            # never those of what else builds here without this lock, such as
            # the Rust client tests' ulid-rust-client-check, nor those of a
            # target directory of its own inside this one, such as a build's
            # (pgrx_env), which its own lock guards while it compiles)
            own = re.compile(rf"({'|'.join(map(re.escape, project.CRATES))})-[0-9a-f]+")
            for depth in ("", "*/", "*/*/"):
                for found in target.glob(f"{depth}.fingerprint/ulid*"):
                    if found.is_dir() and own.fullmatch(found.name) and not _nested_target(target, found):
                        shutil.rmtree(found, ignore_errors=True)
            marker.write_text(f"{checkout}\n")
        yield


def claim(checkout: Path | str) -> None:
    """Claims the cargo target directory for CHECKOUT (build_lock), before
    anything is built, so that a run starts from what this checkout built."""
    with build_lock(checkout):
        pass


def run_locked(checkout: Path | str, command: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Runs COMMAND (a build of CHECKOUT's sources into the cargo target
    directory its environment names, or cargo_target()) holding that
    directory's build lock. Its children (a server `cargo pgrx test`
    starts) do not inherit the lock's descriptor."""
    target = (kwargs.get("env") or os.environ).get("CARGO_TARGET_DIR")
    with build_lock(checkout, Path(target) if target else None):
        return subprocess.run(command, close_fds=True, **kwargs)
