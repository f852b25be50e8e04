"""A release's tarballs and packages built again from a second checkout of
the same commit are the same bytes: scripts/release run in a fresh clone
(another path, files of other times, the same cargo target directory, so
that our own crates are compiled again from the clone's sources, as
ulidtools.cargo_env.build_lock makes them) for 13 on amd64, 15 on arm64 and
the command-line tool, compared file by file with the release's.

Slow (the libraries and programs are compiled again, minutes): run by
scripts/test-release only. scripts/test checks the cheaper half, that the
same compiled files are packaged into the same bytes, and that no path of
the machine is in them (test_artifacts.py).
"""

from __future__ import annotations

import subprocess

import pytest

from harness.pgcluster import ROOT
from ulidtools.base import sha256_of

pytestmark = [pytest.mark.once_per_run, pytest.mark.slow]

PAIRS = ["13/amd64", "15/arm64"]


def test_a_second_checkout_makes_the_same_files(release, tmp_path):
    changed = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                             check=True, capture_output=True, text=True).stdout
    if changed:
        pytest.skip(f"the checkout has uncommitted changes, which a clone would not have:\n{changed}")
    pairs = [p for p in PAIRS if release.has(f"postgresql-{p.split('/')[0]}-ulid_*_{p.split('/')[1]}.deb")]
    assert pairs, f"the release has none of {PAIRS}"
    clone = tmp_path / "ulid"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
    again = tmp_path / "dist"
    made = subprocess.run([str(clone / "scripts" / "release"), "--out", str(again), "--only", ",".join(pairs)],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr[-6000:]
    files = sorted(p.name for p in again.iterdir() if p.name.endswith((".tar.gz", ".deb")))
    assert files
    differ = {name: (sha256_of(release.dir / name), sha256_of(again / name)) for name in files
              if sha256_of(release.dir / name) != sha256_of(again / name)}
    assert not differ, differ
    # and so SHA256SUMS's lines for them, and for ulid_portable.sql, which
    # every SHA256SUMS lists
    again_listed = (again / "SHA256SUMS").read_text().splitlines()
    named = {line.split()[1] for line in again_listed}
    assert named == {*files, "ulid_portable.sql"}, named
    listed = (release.dir / "SHA256SUMS").read_text().splitlines()
    assert sorted(again_listed) == sorted(line for line in listed if line.split()[1] in named)
