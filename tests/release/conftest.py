"""The files of a release, made by scripts/release and checked where users
install them.

The files are those in ULID_RELEASE_DIST: what scripts/release-check made
there (scripts/test: 13's and 15's for x86-64, whose tarball Debian 11
and whose package Debian 12 take, the package from the apt repository;
scripts/test-release: every file of a release, arm64 too), with the apt
repository signed by a key made for the run. Without it, the session runs
scripts/release-check itself. These run once per run (scripts/test's run names their files: tools/ulidtools/testrun.py), not on
every build; the tests marked `slow` run only in scripts/test-release.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.pgcluster import ROOT

@dataclass
class Release:
    dir: Path
    keyring: Path | None  # the public key the apt repository is signed with

    def files(self, pattern: str) -> list[Path]:
        return sorted(self.dir.glob(pattern))

    def has(self, pattern: str) -> bool:
        return bool(self.files(pattern))

    def one(self, pattern: str) -> Path:
        found = self.files(pattern)
        assert len(found) == 1, f"{pattern} in {self.dir}: {[p.name for p in found]}"
        return found[0]


@pytest.fixture(scope="session")
def release(tmp_path_factory) -> Release:
    given = os.environ.get("ULID_RELEASE_DIST")
    if given:
        directory = Path(given).resolve()
    else:
        directory = ROOT / "target" / "release-check"
        subprocess.run([str(ROOT / "scripts" / "release-check"), "--out", str(directory)], check=True)
    keyring = directory / "apt" / "ulid-archive-keyring.gpg"
    return Release(directory, keyring if keyring.exists() else None)
