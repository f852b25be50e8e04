"""pg_upgrade to PostgreSQL 18 from every older server built here, in copy
and link modes, of a cluster with two databases: one made by the previous
release and one by this one. Afterwards the data is identical, the indexes
pass amcheck and serve index scans, the generators work, and one command
per database (`ALTER EXTENSION ulid UPDATE`, or the re-synchronising
command for a database already on this release) makes its catalog a fresh
install's on 18. Collected with `--pg 18` only (see conftest.py)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from pgcluster import CLUSTER_ROOT, ROOT, Cluster
from upgrading import (RELEASES, RESYNC, VERSION, InstalledRelease, catalog, catalog_diff,
                       check_works, fill, snapshot)

# Debian's 15.20 cannot be upgraded to 18 at all (see README.md, "Upgrading").
OLD_BUILDS = ["13", "16", "17"]
NEW_BUILD = "18"


@pytest.fixture(scope="module")
def new_fresh():
    """A fresh install's catalog on the new server."""
    c = Cluster(NEW_BUILD, "pg-upgrade-fresh", slot=33)
    c.destroy()
    c.start()
    try:
        with c.connect(c.create_database("fresh")) as conn:
            yield catalog(conn)
    finally:
        c.destroy()


@pytest.fixture(scope="module", params=OLD_BUILDS)
def old_build(request):
    """An older build with this release installed, as its own test session
    leaves it (installed again here, for a run of the 18 session alone)."""
    build = request.param
    subprocess.run([str(ROOT / "scripts" / "install"), build], check=True, capture_output=True)
    return build


def as_postgres_dir(path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["chown", "postgres:", str(path)], check=True)


def initdb(cluster: Cluster, *options: str) -> None:
    """An empty cluster made as scripts/cluster makes them, with options."""
    cluster.destroy()
    as_postgres_dir(cluster.dir)
    subprocess.run(["runuser", "-u", "postgres", "--", str(cluster.bindir / "initdb"), "-D", str(cluster.dir),
                    "-U", "postgres", "--auth=trust", "--no-locale", "-E", "UTF8", "--no-sync", *options],
                   check=True, capture_output=True)


def pg_upgrade(old: Cluster, mode: str) -> tuple[Cluster, subprocess.CompletedProcess]:
    """Runs 18's pg_upgrade from the stopped cluster `old` into a new one."""
    new = Cluster(NEW_BUILD, "pg-upgrade-new", slot=32)
    initdb(new, "--no-data-checksums")  # the old clusters have none; 18 turns them on by default
    work = CLUSTER_ROOT / "pg-upgrade-work"  # pg_upgrade's sockets, reachable by postgres
    shutil.rmtree(work, ignore_errors=True)
    as_postgres_dir(work)
    run = subprocess.run(
        ["runuser", "-u", "postgres", "--", str(new.bindir / "pg_upgrade"),
         "-b", str(old.bindir), "-B", str(new.bindir), "-d", str(old.dir), "-D", str(new.dir),
         "-p", str(old.port), "-P", str(new.port), "-s", str(work), "-U", "postgres", f"--{mode}"],
        cwd=work, capture_output=True, text=True)
    return new, run


def test_debian_15_cannot_be_upgraded_to_18_even_without_ulid():
    """Why 15 is not among the old builds: Debian's 15.20 stores a column
    option, pg_attver, that 18 refuses when pg_upgrade restores the schema,
    for any table. When this fails, pg_upgrade from 15 works: add 15 to
    OLD_BUILDS."""
    old = Cluster("15", "pg-upgrade-old", slot=31)
    old.destroy()
    old.start()
    with old.connect(old.create_database("plain", extension=False)) as conn:
        conn.execute("CREATE TABLE t (a integer)")
        assert conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'ulid'").fetchone() == (0,)
    old.stop()
    new, run = pg_upgrade(old, "copy")
    try:
        assert run.returncode != 0
        logs = "".join(p.read_text(errors="replace") for p in new.dir.glob("pg_upgrade_output.d/**/*.log"))
        assert 'unrecognized parameter "pg_attver"' in logs
    finally:
        new.destroy()
        old.destroy()


@pytest.mark.parametrize("mode", ["copy", "link"])
def test_pg_upgrade_to_18(old_build, mode, new_fresh, tmp_path):
    old_version = int(old_build)
    previous = RELEASES[-1]
    old = Cluster(old_build, "pg-upgrade-old", slot=31)
    old.destroy()
    files = InstalledRelease(old_build, tmp_path / "installed")
    try:
        files.install_release(previous)
        old.start()
        old.create_database("on_previous", extension=False)
        with old.connect("on_previous") as conn:
            conn.execute(f"CREATE EXTENSION ulid VERSION '{previous}'")
            fill(conn, old_version, rows=5000)
    finally:
        files.restore()
    old.start()  # a restart: this release's library from here on
    with old.connect(old.create_database("on_current")) as conn:
        fill(conn, old_version, rows=5000)
    before = {}
    for db in ("on_previous", "on_current"):
        with old.connect(db) as conn:
            before[db] = snapshot(conn)
    old.stop()

    new, run = pg_upgrade(old, mode)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "Upgrade Complete" in run.stdout

    new.start()
    try:
        with new.connect("on_previous") as conn:
            assert conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() == (previous,)
            assert snapshot(conn) == before["on_previous"]
            conn.execute("ALTER EXTENSION ulid UPDATE")
            updated = catalog(conn)
            assert updated == new_fresh, catalog_diff(updated, new_fresh, f"{previous} on {old_build}, updated",
                                                      "fresh install on 18")
            check_works(conn, new, old_version)

        with new.connect("on_current") as conn:
            assert conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() == (VERSION,)
            assert snapshot(conn) == before["on_current"]
            carried = catalog(conn)
            # what the old server had: no skip support (18), no minmax-multi or bloom (14)
            assert carried != new_fresh
            missing = {line for line in new_fresh if line not in carried}
            assert any("ulid_skipsupport" in line for line in missing)
            assert any("ulid_bloom_ops" in line for line in missing) == (old_version < 14)
            conn.execute(RESYNC)
            resynced = catalog(conn)
            assert resynced == new_fresh, catalog_diff(resynced, new_fresh, f"{VERSION} on {old_build}, resynced",
                                                       "fresh install on 18")
            check_works(conn, new, old_version)
    finally:
        new.destroy()
        old.destroy()
