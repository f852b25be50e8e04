"""pg_upgrade to PostgreSQL 14 from 13, to 17 from 13, 15 and 16, to 18 from
13, 14 and 16, and to 19 from 18 (the `upgrade` lines of inputs.manifest; Debian's 15.20 and
17.12 keep a column option 18.6 and 19rc1 refuse), in copy and link modes, of a cluster with two databases: one
made by the previous release and one by this one. Afterwards the data is
identical, the indexes pass amcheck and serve index scans, the generators
work, and one command per database (`ALTER EXTENSION ulid UPDATE`, or the
re-synchronising command for a database already on this release) makes its
catalog a fresh install's on the new server. Runs in the sessions of the
new servers, `--build 14`, `--build 17`, `--build 18` and `--build 19` (the builds marker
below)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ulidtools.builds import UPGRADES
from harness.pgcluster import CLUSTER_ROOT, ROOT, Cluster
from harness.upgrading import (RELEASES, RESYNC, VERSION, InstalledRelease, catalog, catalog_diff,
                       check_works, fill, snapshot)

# The new server of each session that runs this file, and the older builds
# upgraded to it: the `upgrade` lines of inputs.manifest. Debian's 15.20
# and 17.12 store a column option, pg_attver, that 18.6 and 19rc1 refuse:
# they cannot be upgraded to those at all, Debian's own 18 included
# (docs/upgrading.md; test_pg_upgrade_debian.py).
pytestmark = pytest.mark.builds(*UPGRADES)
ATTVER_BUILDS = ["15", "17"]


def pytest_generate_tests(metafunc):
    build = metafunc.config.getoption("--build")
    if "old_build" in metafunc.fixturenames:
        # (none on the other builds, which deselect this module)
        metafunc.parametrize("old_build", UPGRADES.get(build, []), indirect=True, scope="module")
    if "attver_build" in metafunc.fixturenames:
        # the builds with pg_attver that are older than this one and not
        # upgraded to it: the ones it refuses
        refused = [b for b in ATTVER_BUILDS
                   if b not in UPGRADES.get(build, []) and int(b) < int(build.split("-")[0])]
        metafunc.parametrize("attver_build", refused)


@pytest.fixture(scope="module")
def new_fresh(build):
    """A fresh install's catalog on the new server."""
    c = Cluster(build, "pg-upgrade-fresh", slot=33).start_empty()
    try:
        with c.connect(c.create_database("fresh")) as conn:
            yield catalog(conn)
    finally:
        c.destroy()


@pytest.fixture(scope="module")
def old_build(request):
    """An older build with this release installed, as its own test session
    leaves it (installed again here, for a run of the new build's session
    alone)."""
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


def pg_upgrade(old: Cluster, new_build: str, mode: str) -> tuple[Cluster, subprocess.CompletedProcess]:
    """Runs the new build's pg_upgrade from the stopped cluster `old` into a new one."""
    new = Cluster(new_build, "pg-upgrade-new", slot=32)
    # data checksums as the old cluster has them: initdb turns them on by
    # default from 18 on
    initdb(new, *(["--no-data-checksums"] if new.version >= 18 and old.version < 18 else []))
    # pg_upgrade's sockets, reachable by postgres; one directory for each
    # new build, whose tests may run beside another's (scripts/test)
    work = CLUSTER_ROOT / f"pg-upgrade-work-{new_build}"
    shutil.rmtree(work, ignore_errors=True)
    as_postgres_dir(work)
    # copying is the default mode; pg_upgrade names it (--copy) from 16 on
    chosen = [] if mode == "copy" and new.version < 16 else [f"--{mode}"]
    run = subprocess.run(
        ["runuser", "-u", "postgres", "--", str(new.bindir / "pg_upgrade"),
         "-b", str(old.bindir), "-B", str(new.bindir), "-d", str(old.dir), "-D", str(new.dir),
         "-p", str(old.port), "-P", str(new.port), "-s", str(work), "-U", "postgres", *chosen],
        cwd=work, capture_output=True, text=True)
    return new, run


def test_debian_builds_with_pg_attver_cannot_be_upgraded_even_without_ulid(build, attver_build):
    """Why 15 and 17 are not among the old builds of 18 and 19: Debian's
    15.20 and 17.12 store a column option, pg_attver, that 18.6 and 19rc1
    refuse when pg_upgrade restores the schema, for any table (17.12
    knows it, and 15 is upgraded to 17). When this fails, pg_upgrade from
    that build works: add it to the `upgrade` line."""
    # (a name and a port of its own: the tests of that build, or the
    # pg_upgrade tests of another build, may be using its slot 31)
    old = Cluster(attver_build, "pg-upgrade-refused", slot=35).start_empty()
    with old.connect(old.create_database("plain", extension=False)) as conn:
        conn.execute("CREATE TABLE t (a integer)")
        assert conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'ulid'").fetchone() == (0,)
    old.stop()
    new, run = pg_upgrade(old, build, "copy")
    try:
        assert run.returncode != 0
        logs = "".join(p.read_text(errors="replace") for p in new.dir.glob("pg_upgrade_output.d/**/*.log"))
        assert 'unrecognized parameter "pg_attver"' in logs
    finally:
        new.destroy()
        old.destroy()


@pytest.mark.parametrize("mode", ["copy", "link"])
def test_pg_upgrade(old_build, build, mode, new_fresh, tmp_path):
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

    new, run = pg_upgrade(old, build, mode)
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
                                                      f"fresh install on {build}")
            check_works(conn, new, old_version)

        with new.connect("on_current") as conn:
            assert conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() == (VERSION,)
            assert snapshot(conn) == before["on_current"]
            carried = catalog(conn)
            # what the old server lacked: skip support (18), minmax-multi and
            # bloom (14); 19 adds nothing
            missing = {line for line in new_fresh if line not in carried}
            new_version = new.version
            lacked = {"ulid_skipsupport": old_version < 18 <= new_version,
                      "ulid_bloom_ops": old_version < 14 <= new_version}
            for name, expected in lacked.items():
                assert any(name in line for line in missing) == expected, (name, missing)
            assert (carried != new_fresh) == any(lacked.values())
            conn.execute(RESYNC)
            resynced = catalog(conn)
            assert resynced == new_fresh, catalog_diff(resynced, new_fresh, f"{VERSION} on {old_build}, resynced",
                                                       f"fresh install on {build}")
            check_works(conn, new, old_version)
    finally:
        new.destroy()
        old.destroy()
