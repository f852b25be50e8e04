"""Earlier releases of ulid, built again for the upgrade tests (scripts/build-release): a version from the
commit sql/RELEASES records for it, staged as `cargo pgrx package` lays it out, kept under ~/.cache/ulid/releases
(ULID_RELEASE_CACHE) per version, commit and pgrx. It is built with this tree's pgrx, as cargo-pgrx builds only
against its own pgrx and an older one may not know the server (0.1.0's pgrx 0.18 has no PostgreSQL 19); the SQL
it installs is its own either way (pgrx 0.18 and 0.19 generate the same install script from the same code).
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ulidtools import builds, cargo_env, project
from ulidtools.base import ROOT, ToolError, log


def _source(commit: str, version: str, src: Path) -> None:
    """The release's tree in SRC, moved to this tree's pgrx, with a feature for every PostgreSQL this tree knows."""
    if subprocess.run(["git", "-C", ROOT, "cat-file", "-e", f"{commit}^{{commit}}"],
                      stderr=subprocess.DEVNULL).returncode != 0:
        log(f"fetching {commit} (ulid {version}) from origin")
        if subprocess.run(["git", "-C", ROOT, "fetch", "--quiet", "origin", commit]).returncode != 0:
            raise ToolError(f"commit {commit} of ulid {version} is not in this clone; fetch its history "
                            "(git fetch --unshallow)")
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    # (git's own tar, unpacked by tar: Debian 12's Python 3.11.2 has no extraction filters)
    archive = subprocess.run(["git", "-C", ROOT, "archive", commit], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", src], input=archive, check=True)
    text = (src / "Cargo.toml").read_text()
    text = re.sub(r'^(pgrx(?:-tests)?) = "=.*"$', rf'\1 = "={project.PGRX}"', text, flags=re.M)
    for feature in re.findall(r"^pg\d+ = .*$", (ROOT / "Cargo.toml").read_text(), re.M):
        if not re.search(rf"^{feature.split()[0]} = ", text, re.M):
            text = re.sub(r"^pg_test = ", f"{feature}\npg_test = ", text, count=1, flags=re.M)
    (src / "Cargo.toml").write_text(text)
    if subprocess.run(["cargo", "update", "--quiet", "-p", "pgrx", "-p", "pgrx-tests"], cwd=src,
                      env={**os.environ, "PATH": cargo_env.tool_path()}).returncode != 0:
        raise ToolError(f"could not move ulid {version} to pgrx {project.PGRX}")


def build(version: str, build: str) -> Path:
    """Made one at a time (two builds' tests may ask at once; the source is unpacked once for all). A build that has
    moved into other directories (as 13 did, from a source build to Debian's) is built again."""
    commit = project.RELEASE_COMMITS.get(version)
    if commit is None:
        raise ToolError(f"sql/RELEASES has no version {version}")
    record = builds.build_of(build)
    cache = Path(os.environ.get("ULID_RELEASE_CACHE") or Path.home() / ".cache" / "ulid" / "releases")
    home = cache / f"{version}-{commit}-pgrx{project.PGRX}"
    stage = home / f"pg{build}"
    done = Path(f"{stage}.done")
    home.mkdir(parents=True, exist_ok=True)
    with open(f"{home}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.is_file() and (stage / str(record.pkglibdir).lstrip("/") / "ulid.so").is_file():
            return stage
        src = home / "src"
        if not (src / "Cargo.toml").is_file():
            _source(commit, version, src)
        log(f"building ulid {version} ({commit}) for PostgreSQL {build}")
        shutil.rmtree(stage, ignore_errors=True)
        log_file = Path(f"{stage}.log")
        # into the same cargo directory with this tree's debug profile, reusing its dependencies
        profile = {f"CARGO_PROFILE_DEV_{key.upper().replace('-', '_')}": str(value)
                   for key, value in project.cargo()["profile"]["dev"].items()}
        with log_file.open("w") as out:
            built = cargo_env.run_locked(src, ["cargo", "pgrx", "package", "--debug", "--pg-config",
                                               str(record.pg_config), "--out-dir", str(stage)], cwd=src,
                                         env={**os.environ, **cargo_env.pgrx_env(build), **profile}, stdout=out,
                                         stderr=subprocess.STDOUT)
        if built.returncode != 0:
            sys.stderr.write(log_file.read_text())
            raise ToolError(f"building ulid {version} for PostgreSQL {build} failed")
        done.touch()
        return stage
