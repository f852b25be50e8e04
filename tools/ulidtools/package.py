"""The tarball and the Debian package of each artifact, the extension for a PostgreSQL build or the command-line
tool (cli), each built, checked and made the same bytes from the same files: docs/development.md, "A file of a
release" and "Packages". `install` puts the extension into a build.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ulidtools import builds, cargo_env, debian_package, project
from ulidtools.base import ROOT, as_root, log, sha256_hex, stamp_is
from ulidtools.cargo_env import BuildError

# e_machine of an ELF file, by architecture
ELF_MACHINE = {"amd64": 62, "arm64": 183}
# what the extension's files are built from
SOURCES = ("src", "sql", "crates/ulid-core", "Cargo.toml", "Cargo.lock", "build.rs", "ulid.control", ".cargo")


def _fingerprint(config: Path, env: dict[str, str], command: list[str]) -> str | None:
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "-co", "--exclude-standard", "--", *SOURCES],
                           capture_output=True)
    if files.returncode != 0:
        return None
    parts = []
    for name in sorted(set(files.stdout.split(b"\0")) - {b""}):
        path = ROOT / os.fsdecode(name)
        parts += [name, path.read_bytes() if path.is_file() else b""]
    rustc = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, env=env).stdout
    settings = sorted((k, v) for k, v in env.items() if re.match(r"(CARGO|RUST|PGRX|CC_|CFLAGS)", k))
    parts.append(repr((str(config), config.stat().st_mtime_ns, rustc, settings, command)).encode())
    return sha256_hex(b"\0".join(parts))


def stage_extension(build: str, profile: str, arch: str | None = None) -> Path:
    """Every file it installs, laid out from /; a stage of the same _fingerprint (STAGE.source) is kept without
    taking the build lock (cargo_env.run_locked), which another build's tests may hold."""
    stage = ROOT / "target" / "stage" / f"pg{build}-{arch or 'native'}-{profile}"
    config = builds.build_of(build).pg_config
    env = {**os.environ, **cargo_env.pgrx_env(build)}
    if profile == "release" and not arch:
        # where the from-source test compiles the same build, as a user's clone does, with pgrx's configuration
        # and no PGRX_PG_CONFIG_PATH: each reuses the other's work (a test-only build keeps its own)
        env["CARGO_TARGET_DIR"] = str(cargo_env.native_release_target())
        if build == str(builds.major_version(build)):
            del env["PGRX_PG_CONFIG_PATH"]
    if arch:
        major = builds.major_version(build)
        config = cargo_env.release_pg_config(arch, major)
        env.update(cargo_env.release_env(arch, major))
    command = ["cargo", "pgrx", "package", "--pg-config", str(config), "--out-dir", str(stage),
               *(["--debug"] if profile == "debug" else []),
               *(["--target", cargo_env.rust_target(arch)] if arch else [])]
    stage.parent.mkdir(parents=True, exist_ok=True)
    stamp = Path(f"{stage}.source")
    with open(f"{stage}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        fingerprint = _fingerprint(config, env, command)
        if fingerprint and stage.is_dir() and stamp_is(stamp, fingerprint):
            log(f"PostgreSQL {build}: the extension staged in {stage.relative_to(ROOT)} is current")
            return stage
        stamp.unlink(missing_ok=True)
        shutil.rmtree(stage, ignore_errors=True)
        log_file = Path(f"{stage}.log")
        with open(log_file, "w") as out:
            done = cargo_env.run_locked(ROOT, command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        if done.returncode != 0:
            sys.stderr.write(log_file.read_text())
            raise BuildError(f"build for PostgreSQL {build}{f' ({arch})' if arch else ''} failed")
        if fingerprint:
            stamp.write_text(fingerprint)
    return stage


def install(build: str, profile: str = "debug") -> None:
    """Each file replaces the installed one as a new file, never written over it, so that a server with the old
    library mapped does not crash; scripts (ulid--*.sql) the stage lacks would offer versions it cannot install."""
    stage = stage_extension(build, profile)
    for old in sorted(builds.build_of(build).extdir.glob("ulid--*.sql")):
        if not (stage / old.relative_to("/")).exists():
            as_root(["rm", "-f", old])
    for file in sorted(f for f in stage.rglob("*") if f.is_file()):
        target = Path("/") / file.relative_to(stage)
        as_root(["mkdir", "-p", target.parent])
        as_root(["cp", "--remove-destination", file, target])
        as_root(["chmod", "644", target])
    log(f"installed ulid ({profile}) into PostgreSQL {build}")


def check_binary(path: Path, arch: str, profile: str) -> None:
    header = path.read_bytes()[:20]
    if header[:4] != b"\x7fELF" or int.from_bytes(header[18:20], "little") != ELF_MACHINE[arch]:
        kind = subprocess.run(["file", "-b", str(path)], capture_output=True, text=True).stdout.strip()
        raise BuildError(f"{path} is not for {arch}: {kind}")
    needed = debian_package.glibc_needed(path) if profile == "release" else ""
    if needed and tuple(map(int, needed.split("."))) > tuple(map(int, cargo_env.GLIBC_FLOOR.split("."))):
        raise BuildError(f"{path} asks for glibc {needed}, newer than {cargo_env.GLIBC_FLOOR}")


def tarball(directory: Path, name: str, out: Path) -> None:
    """OUT, a tarball of DIRECTORY/NAME that is the same bytes wherever made from the same files."""
    epoch = debian_package.source_date_epoch()
    tar = subprocess.run(["tar", "-C", str(directory), "--format=gnu", "--sort=name", "--owner=0", "--group=0",
                          "--numeric-owner", f"--mtime=@{epoch}", "--mode=u=rwX,go=rX", "-c", name],
                         stdout=subprocess.PIPE)
    if tar.returncode != 0:
        raise BuildError(f"could not make {out}")
    out.write_bytes(debian_package.gzip_bytes(tar.stdout))


@dataclass
class Artifact:
    """The extension for a build, or the command-line tool ("cli"), for ARCH."""
    what: str
    arch: str
    profile: str

    @property
    def name(self) -> str:
        machine = cargo_env.machine_of(self.arch)
        if self.what == "cli":
            return f"ulid-tool-{project.CLI_VERSION}-linux-{machine}"
        return f"ulid-{project.VERSION}-pg{self.what}-linux-{machine}"

    def _extension_tree(self, tree: Path) -> None:
        build = self.what
        major = str(builds.major_version(build))
        if build != major:
            raise BuildError(f"PostgreSQL {build} is a test-only build: "
                             f"a package of it would install into any PostgreSQL {major}")
        arch = None if self.profile == "debug" and self.arch == "amd64" else self.arch
        stage = stage_extension(build, self.profile, arch)
        # (tree.sh lays it out for install-from-source too, which users run)
        subprocess.run(["sh", str(ROOT / "scripts" / "tarball" / "tree.sh"), str(stage), str(tree), build], check=True)
        check_binary(tree / "lib" / "ulid.so", self.arch, self.profile)

    def _build_cli(self, arch: str) -> Path:
        target = cargo_env.rust_target(arch)
        env = dict(os.environ, CARGO_TARGET_DIR=str(cargo_env.cargo_target()))
        if not (self.profile == "debug" and arch == "amd64"):
            env.update(cargo_env.release_env(arch))
        command = ["cargo", "build", "--quiet", "--locked", "-p", "ulid-tool", "--target", target,
                   *(["--release"] if self.profile == "release" else [])]
        if cargo_env.run_locked(ROOT, command, cwd=ROOT, env=env, stdout=sys.stderr).returncode != 0:
            raise BuildError(f"building the command-line tool for {arch} failed")
        return cargo_env.cargo_target() / target / self.profile / "ulid-tool"

    def _cli_tree(self, tree: Path) -> None:
        """The man page and completions come from the amd64 build, which runs here."""
        program = self._build_cli(self.arch)
        check_binary(program, self.arch, self.profile)
        host = program if self.arch == "amd64" else self._build_cli("amd64")
        shutil.rmtree(tree, ignore_errors=True)
        (tree / "completions").mkdir(parents=True)
        shutil.copyfile(program, tree / "ulid-tool")
        (tree / "ulid-tool").chmod(0o755)
        debian_package.strip_library(tree / "ulid-tool")
        for what, path in (("man", "ulid-tool.1"), ("complete-bash", "completions/ulid-tool.bash"),
                           ("complete-zsh", "completions/_ulid-tool"), ("complete-fish", "completions/ulid-tool.fish")):
            with open(tree / path, "wb") as out:
                subprocess.run([str(host), "--generate", what], stdout=out, check=True)
        shutil.copyfile(ROOT / "LICENSE", tree / "LICENSE")

    def make(self, out: Path) -> list[Path]:
        # a folder per profile: a debug and a release package may be made at once
        tree = ROOT / "target" / "package" / self.profile / self.name
        if self.what == "cli":
            self._cli_tree(tree)
        else:
            self._extension_tree(tree)
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{self.name}.tar.gz"
        tarball(tree.parent, self.name, path)
        log(str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path))
        return [path, debian_package.make(out, self.arch, self.what, tree)]


def make_all(whats: list[str], arch: str, profile: str, out: Path) -> None:
    """Every name of WHATS checked before anything is built."""
    cargo_env.rust_target(arch)
    for what in whats:
        if what != "cli":
            builds.build_of(what)
    for what in whats:
        Artifact(what, arch, profile).make(out)
