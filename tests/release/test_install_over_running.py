"""Installing ulid over a running server that preloads it never harms the
server: the release tarball's install.sh replaces each file with a new one,
so the postmaster and every backend forked from it go on running the
library they mapped, and new sessions call every generator on a server that
never restarted. (The from-source command is checked the same way in a
clean Debian 12: test_from_source.py.)

The same check catches what writing into the loaded library does, as
`cargo pgrx install --sudo` (`sudo cp`) and a plain `cp` do: the server's next call into ulid
crashes it. That is why no documented way of installing does so.
"""

from __future__ import annotations

import subprocess
import tarfile
import time

import psycopg
import pytest

from harness.pgcluster import Cluster, build_of
from harness.preloaded import call_every_generator, crashes_in
from harness.upgrading import InstalledRelease

pytestmark = pytest.mark.once_per_run

BUILD = "13"


def postmaster_pid(cluster) -> int:
    return int((cluster.dir / "postmaster.pid").read_text().split()[0])


def test_install_sh_over_a_running_preloaded_server_then_writing_in_place(release, tmp_path):
    saved = InstalledRelease(BUILD, tmp_path / "installed")
    cluster = Cluster(BUILD, "overwrite", slot=24, settings={"shared_preload_libraries": "ulid"})
    try:
        cluster.start_empty()
        db = cluster.create_database("overwrite")
        call_every_generator(lambda: cluster.connect(db))
        pid = postmaster_pid(cluster)
        libdir = build_of(BUILD).pkglibdir
        library = libdir / "ulid.so"
        before = library.read_bytes()

        tarball = release.one(f"ulid-*-pg{BUILD}-linux-x86_64.tar.gz")
        with tarfile.open(tarball) as tar:
            tar.extractall(tmp_path)
        top = tmp_path / tarball.name.removesuffix(".tar.gz")
        subprocess.run([str(top / "install.sh"), str(build_of(BUILD).pg_config)], check=True, capture_output=True)
        assert library.read_bytes() != before, "the tarball holds another build"
        call_every_generator(lambda: cluster.connect(db))
        assert postmaster_pid(cluster) == pid
        assert not crashes_in(cluster.log_tail(10_000)), crashes_in(cluster.log_tail(10_000))

        # the running server still has the library it started with (the old
        # file, which install.sh replaced and did not touch): a restart loads
        # the new one. Then what `cargo pgrx install --sudo` does: another build
        # written into that loaded file itself (the same inode)
        cluster.start()
        call_every_generator(lambda: cluster.connect(db), sessions=1)
        inode = library.stat().st_ino
        with open(library, "r+b") as f:
            f.truncate(0)
            f.write(before)
        assert library.stat().st_ino == inode
        with pytest.raises(psycopg.OperationalError):
            call_every_generator(lambda: cluster.connect(db), sessions=1)
        # (the postmaster logs the crash when it reaps the backend, which can
        # be a moment after the client saw its connection close)
        deadline = time.monotonic() + 10
        while not crashes_in(cluster.log_tail(10_000)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert crashes_in(cluster.log_tail(10_000)), "a backend running the overwritten library should have crashed"
    finally:
        cluster.stop("immediate")
        saved.restore()
        cluster.destroy()
