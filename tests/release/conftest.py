"""The files of a release, made by scripts/release and checked where users
install them.

By default the session makes a few of them into target/release-check
(`CHECKED`: 13's for x86-64, whose tarball Debian 11 takes, and 15's for
arm64, whose package Debian 12 for arm64 takes from the apt repository),
signing the apt repository with a key made for the run. With
ULID_RELEASE_DIST=DIR it checks the files a full `scripts/release` made
there instead (scripts/test-release), every one the checks know how to
install. These run once per run (scripts/test names this folder), not on
every build; the tests marked `slow` run only in scripts/test-release.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.pgcluster import ROOT

CHECKED = ["13/amd64", "15/arm64"]


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


def make_key(home: Path) -> Path:
    """A signing key for this run only, exported to a file as a release
    manager's would be."""
    home.mkdir(mode=0o700)
    gpg = ["gpg", "--homedir", str(home), "--batch", "--quiet", "--passphrase", ""]
    subprocess.run([*gpg, "--quick-gen-key", "ulid release check <check@ulid.invalid>", "ed25519", "sign", "never"],
                   check=True, capture_output=True)
    key = home / "release-key.asc"
    key.write_bytes(subprocess.run([*gpg, "--armor", "--export-secret-keys"], check=True,
                                   capture_output=True).stdout)
    return key


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: run by scripts/test-release only (minutes of compiling)")


@pytest.fixture(scope="session")
def release(tmp_path_factory) -> Release:
    given = os.environ.get("ULID_RELEASE_DIST")
    if given:
        directory = Path(given).resolve()
    else:
        directory = ROOT / "target" / "release-check"
        key = make_key(tmp_path_factory.mktemp("gnupg") / "home")
        subprocess.run([str(ROOT / "scripts" / "release"), "--out", str(directory), "--only", ",".join(CHECKED),
                        "--sign", str(key)], check=True)
    keyring = directory / "apt" / "ulid-archive-keyring.gpg"
    return Release(directory, keyring if keyring.exists() else None)
