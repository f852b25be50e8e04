"""Fixtures for the tests that drive real PostgreSQL servers.

Every test here runs against a private cluster started by `scripts/cluster`
for the version given with `--pg` (15, 16 or 18), with the extension already
installed into that PostgreSQL by `scripts/test`. Clients are real ones:
psycopg for SQL, and the server's own psql, pg_regress, pg_dump and pgbench.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
CLUSTER_ROOT = Path(os.environ.get("ULID_CLUSTER_ROOT", "/tmp/ulid-clusters"))


def pytest_addoption(parser):
    parser.addoption("--pg", default="15", help="PostgreSQL major version to test against")


class Cluster:
    """A private PostgreSQL cluster: `scripts/cluster` does the work."""

    def __init__(self, version: int, name: str, slot: int, settings: dict[str, str] | None = None):
        self.version = version
        self.name = name
        self.port = 54000 + 10 * version + slot
        self.settings = dict(settings or {})
        self.dir = CLUSTER_ROOT / f"{name}-{version}"
        config = self.pg_config(version)
        self.bindir = Path(subprocess.check_output([config, "--bindir"], text=True).strip())
        self.pkglibdir = Path(subprocess.check_output([config, "--pkglibdir"], text=True).strip())

    @staticmethod
    def pg_config(version: int) -> str:
        out = subprocess.check_output(
            ["bash", "-c", f'source "{SCRIPTS}/lib.sh"; pg_config_for {version}'], text=True
        )
        return out.strip()

    def _cluster(self, *args: str) -> None:
        subprocess.run(["bash", str(SCRIPTS / "cluster"), *args], check=True)

    def start(self, **settings: str) -> "Cluster":
        self.settings.update(settings)
        pairs = [f"{k}={v}" for k, v in self.settings.items()]
        self._cluster("start", str(self.version), self.name, str(self.port), *pairs)
        return self

    def stop(self, mode: str = "fast") -> None:
        self._cluster("stop", str(self.version), self.name, mode)

    def destroy(self) -> None:
        self._cluster("destroy", str(self.version), self.name)

    def conninfo(self, dbname: str = "postgres", **extra: str) -> str:
        parts = {"host": str(self.dir), "port": str(self.port), "user": "postgres", "dbname": dbname}
        parts.update(extra)
        return " ".join(f"{k}={v}" for k, v in parts.items())

    def tcp_conninfo(self, dbname: str = "postgres") -> str:
        """A TCP connection string, for replication and postgres_fdw."""
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname}"

    def connect(self, dbname: str = "postgres", autocommit: bool = True, **kw) -> psycopg.Connection:
        return psycopg.connect(self.conninfo(dbname), autocommit=autocommit, **kw)

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            PGHOST=str(self.dir), PGPORT=str(self.port), PGUSER="postgres", PGDATABASE="postgres"
        )
        return env

    def run(self, program: str, *args: str, check: bool = True, **kw) -> subprocess.CompletedProcess:
        """Runs one of this server's client programs (psql, pg_dump, pgbench...)."""
        return subprocess.run(
            [str(self.bindir / program), *args], env=self.env(), check=check, text=True,
            capture_output=True, **kw
        )

    def create_database(self, name: str, extension: bool = True) -> str:
        with self.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        if extension:
            with self.connect(name) as conn:
                conn.execute("CREATE EXTENSION ulid")
        return name

    def has_extension(self, name: str) -> bool:
        with self.connect() as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_available_extensions WHERE name = %s", [name]
            ).fetchone()
        return row[0] == 1

    def log_tail(self, lines: int = 50) -> str:
        log = self.dir / "server.log"
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""


@pytest.fixture(scope="session")
def pg_version(request) -> int:
    return int(request.config.getoption("--pg"))


@pytest.fixture(scope="session")
def cluster(pg_version):
    """The main test cluster, without the library preloaded."""
    c = Cluster(pg_version, "test", slot=1).start()
    yield c
    c.stop()


@pytest.fixture(scope="session")
def preloaded(pg_version):
    """A second cluster with ulid in shared_preload_libraries."""
    c = Cluster(pg_version, "preloaded", slot=2, settings={"shared_preload_libraries": "ulid"}).start()
    yield c
    c.stop()


@pytest.fixture
def db(cluster, request) -> str:
    """A fresh database with the extension created; yields its name."""
    name = "t_" + uuid.uuid4().hex[:12]
    cluster.create_database(name)
    yield name
    with cluster.connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def conn(cluster, db):
    with cluster.connect(db) as c:
        yield c
