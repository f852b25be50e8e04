"""From Debian 12's PostgreSQL 15 to Debian's own PostgreSQL 18, as
docs/upgrading.md tells it: pg_upgrade fails for every database, ulid or
not, because Debian's 15.20 stores a column option, pg_attver, on every
column and 18 refuses it; a dump and restore moves the data, its only
errors the pg_attver lines, and leaves a fresh install's catalog.

Debian's 18 is the 18 build: sid's postgresql-18 18.6-3, unpacked by
setup with the sid libraries it needs (ulidtools.debian_builds), into
which the 18 run has installed this checkout's ulid. Debian's 15 is a copy
of the system's /usr/lib/postgresql/15 and /usr/share/postgresql/15, so
that nothing is written into the system's own, with ulid as
scripts/install stages it for build 15.

Runs in the 18 session. Costs about half a minute when 15's stage is up
to date, as it is after scripts/install has run for 15.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import psycopg
import pytest

from harness.pgcluster import CLUSTER_ROOT, build_of, cluster_port
from harness.upgrading import catalog, catalog_diff, check_works, fill, snapshot
from ulidtools import package

pytestmark = pytest.mark.builds("18")

class Server:
    """A private cluster of a PostgreSQL that is not one of the builds:
    its programs, a data directory with the socket in it, a port."""

    def __init__(self, bindir: Path, directory: Path, port: int):
        self.bindir, self.dir, self.port = bindir, directory, port

    def as_postgres(self, *command: str, **kw) -> subprocess.CompletedProcess:
        return subprocess.run(["runuser", "-u", "postgres", "--", *command], capture_output=True, text=True, **kw)

    def initdb(self, *options: str) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True, mode=0o700)
        subprocess.run(["chown", "postgres:", str(self.dir)], check=True)
        self.as_postgres(str(self.bindir / "initdb"), "-D", str(self.dir), "-U", "postgres", "--auth=trust",
                         "--no-locale", "-E", "UTF8", "--no-sync", *options, check=True)

    def start(self) -> None:
        self.as_postgres(str(self.bindir / "pg_ctl"), "-D", str(self.dir), "-l", str(self.dir / "server.log"),
                         "-w", "-t", "60", "-o", f"-p {self.port} -k {self.dir} -c listen_addresses=''",
                         "start", check=True)

    def stop(self) -> None:
        if (self.dir / "postmaster.pid").exists():
            self.as_postgres(str(self.bindir / "pg_ctl"), "-D", str(self.dir), "-m", "fast", "-w", "stop")

    def connect(self, dbname: str = "postgres") -> psycopg.Connection:
        return psycopg.connect(host=str(self.dir), port=self.port, user="postgres", dbname=dbname, autocommit=True)

    def has_extension(self, name: str) -> bool:
        with self.connect() as conn:
            return conn.execute("SELECT count(*) FROM pg_available_extensions WHERE name = %s",
                                [name]).fetchone() == (1,)

    def version(self) -> str:
        with self.connect() as conn:
            return conn.execute("SELECT version()").fetchone()[0]


def with_staged_ulid(build: str, root: Path, major: int) -> None:
    """This checkout's ulid for BUILD, as scripts/install stages it, copied
    into the tree of a Debian PostgreSQL MAJOR unpacked or copied at ROOT."""
    stage = package.stage_extension(build, "debug")
    libdir, extdir = build_of(build).pkglibdir, build_of(build).extdir
    shutil.copy2(stage / str(libdir).lstrip("/") / "ulid.so", root / f"usr/lib/postgresql/{major}/lib/ulid.so")
    for f in (stage / str(extdir).lstrip("/")).glob("ulid*"):
        shutil.copy2(f, root / f"usr/share/postgresql/{major}/extension" / f.name)
    subprocess.run(["chmod", "-R", "a+rX", str(root)], check=True)


@pytest.fixture(scope="module")
def debian_18() -> Path:
    """Debian's PostgreSQL 18, with ulid: the 18 build's bin directory."""
    assert build_of("18").origin == "debian-binary", "the 18 build is not Debian's package"
    bindir = build_of("18").bindir
    assert (build_of("18").pkglibdir / "ulid.so").is_file(), "ulid is not installed into the 18 build"
    return bindir


@pytest.fixture(scope="module")
def debian_15() -> Path:
    """A copy of Debian 12's PostgreSQL 15, with ulid; its bin directory."""
    root = CLUSTER_ROOT / "debian-15"
    shutil.rmtree(root, ignore_errors=True)
    for part in ("usr/lib/postgresql/15", "usr/share/postgresql/15"):
        (root / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(Path("/") / part, root / part, symlinks=True)
    with_staged_ulid("15", root, 15)
    return root / "usr/lib/postgresql/15/bin"


def test_debian_15_to_debians_18_by_dump_and_restore_not_pg_upgrade(debian_15, debian_18):
    old = Server(debian_15, CLUSTER_ROOT / "debian-upgrade-old", cluster_port("15", 44))
    new = Server(debian_18, CLUSTER_ROOT / "debian-upgrade-new", cluster_port("18", 44))
    fresh = Server(debian_18, CLUSTER_ROOT / "debian-upgrade-fresh", cluster_port("18", 45))
    work = CLUSTER_ROOT / "debian-upgrade-work"
    try:
        old.initdb()
        old.start()
        assert f"PostgreSQL {build_of('15').version} (Debian " in old.version()
        with old.connect() as conn:
            conn.execute("CREATE DATABASE app TEMPLATE template0")
            conn.execute("CREATE DATABASE plain TEMPLATE template0")
        with old.connect("plain") as conn:
            conn.execute("CREATE TABLE t (a integer); INSERT INTO t VALUES (1)")
        with old.connect("app") as conn:
            conn.execute("CREATE EXTENSION ulid")
            fill(conn, 15, rows=2000)
            before = snapshot(conn)
            (columns,) = conn.execute("""SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                                         WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
                                           AND a.attnum > 0 AND NOT a.attisdropped
                                           AND a.attoptions::text LIKE '%pg_attver%'""").fetchone()
        old.stop()

        # pg_upgrade: the schema of the first database it restores stops it
        new.initdb("--no-data-checksums")
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        subprocess.run(["chown", "postgres:", str(work)], check=True)
        run = new.as_postgres(str(debian_18 / "pg_upgrade"), "-b", str(debian_15), "-B", str(debian_18),
                              "-d", str(old.dir), "-D", str(new.dir), "-p", str(old.port), "-P", str(new.port),
                              "-s", str(work), "-U", "postgres", "--copy", cwd=work)
        assert run.returncode != 0, run.stdout[-2000:]
        assert "Restoring database schemas in the new cluster" in run.stdout
        logs = "".join(p.read_text(errors="replace") for p in new.dir.glob("pg_upgrade_output.d/**/*.log"))
        assert 'ERROR:  unrecognized parameter "pg_attver"' in logs

        # dump and restore, with Debian's 18's own programs
        old.start()
        new.initdb("--no-data-checksums")
        new.start()
        assert "18.6 (Debian 18.6-3)" in new.version()
        dump = new.as_postgres(str(debian_18 / "pg_dumpall"), "-h", str(old.dir), "-p", str(old.port),
                               "-U", "postgres", check=True).stdout
        restore = new.as_postgres(str(debian_18 / "psql"), "-X", "-q", "-h", str(new.dir), "-p", str(new.port),
                                  "-U", "postgres", "-d", "postgres", input=dump)
        errors = [line for line in restore.stderr.splitlines() if "ERROR:" in line]
        refused = [e for e in errors if e.endswith('ERROR:  unrecognized parameter "pg_attver"')]
        others = [e for e in errors if e not in refused]
        # the role the new cluster was made with, and one option per column of every table
        assert len(others) == 1 and others[0].endswith('ERROR:  role "postgres" already exists'), errors
        assert len(refused) == columns + 1, (len(refused), columns)

        fresh.initdb("--no-data-checksums")
        fresh.start()
        with fresh.connect() as conn:
            conn.execute("CREATE DATABASE f TEMPLATE template0")
        with fresh.connect("f") as conn:
            conn.execute("CREATE EXTENSION ulid")
            fresh_catalog = catalog(conn)
        with new.connect("plain") as conn:
            assert conn.execute("SELECT a FROM t").fetchall() == [(1,)]
        with new.connect("app") as conn:
            assert snapshot(conn) == before
            restored = catalog(conn)
            assert restored == fresh_catalog, catalog_diff(restored, fresh_catalog, "restored on Debian's 18",
                                                           "fresh install on Debian's 18")
            check_works(conn, new, 15)
    finally:
        for server in (fresh, new, old):
            server.stop()
            shutil.rmtree(server.dir, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
