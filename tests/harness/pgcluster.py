"""Private PostgreSQL clusters for tests and benchmarks.

A thin layer over `scripts/cluster`, which does the work: one data
directory, port and socket per cluster, the server run as `postgres` when
we are root. Ports are those of `cluster_port` in scripts/lib.sh.

A build is named as the `build` lines of inputs.manifest name it
(`ulidtools.builds`): a major version ("15") or a second build of one ("18-assert").
`Cluster.version` is the major version as an int, for comparisons;
`Cluster.build` is the name.
"""

from __future__ import annotations

import os
import subprocess
import time
from functools import cache
from pathlib import Path

import psycopg

from ulidtools.builds import (BUILDS, Build, asked, build_of, cluster_port, cluster_root,  # noqa: F401
                             major_version, pg_config_for)  # (the harness's names)

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
# (a run with ports of its own has its own directory)
CLUSTER_ROOT = cluster_root()


def ends_of_run(oldest_major: int = 0) -> tuple[str, str]:
    """The oldest and the newest build of this run: of ULID_VERSIONS (which
    scripts/test sets to the builds it tests), else of every build; with
    OLDEST_MAJOR, of those of that major version or newer. Tests that need
    not run on every build run on these two."""
    builds = asked()
    builds = [name for name in builds if BUILDS[name].major >= oldest_major] or builds
    return builds[0], builds[-1]


def install_dirs(build: int | str) -> tuple[Path, Path]:
    """Where a build keeps extension libraries, and extension scripts."""
    config = Cluster.pg_config(build)
    libdir = Path(subprocess.check_output([config, "--pkglibdir"], text=True).strip())
    extdir = Path(subprocess.check_output([config, "--sharedir"], text=True).strip()) / "extension"
    return libdir, extdir


@cache
def has_extension(build: str, name: str) -> bool:
    """Whether BUILD has the extension NAME installed (its control file)."""
    return (install_dirs(build)[1] / f"{name}.control").is_file()


class Cluster:
    """A private PostgreSQL cluster: `scripts/cluster` does the work."""

    def __init__(self, build: int | str, name: str, slot: int, settings: dict[str, str] | None = None):
        self.build = str(build)
        self.version = major_version(self.build)
        self.name = name
        self.port = cluster_port(self.build, slot)
        self.settings = dict(settings or {})
        self.dir = CLUSTER_ROOT / f"{name}-{self.build}"
        config = self.pg_config(self.build)
        self.bindir = Path(subprocess.check_output([config, "--bindir"], text=True).strip())
        self.pkglibdir = Path(subprocess.check_output([config, "--pkglibdir"], text=True).strip())

    @staticmethod
    def bindir_of(build: int | str) -> Path:
        """Where a build keeps its programs (psql, pg_dump...)."""
        config = Cluster.pg_config(build)
        return Path(subprocess.check_output([config, "--bindir"], text=True).strip())

    @staticmethod
    def pg_config(build: int | str) -> str:
        return str(pg_config_for(build))

    def _cluster(self, *args: str) -> None:
        subprocess.run(["bash", str(SCRIPTS / "cluster"), *args], check=True)

    def start(self, **settings: str) -> "Cluster":
        self.settings.update(settings)
        pairs = [f"{k}={v}" for k, v in self.settings.items()]
        self._cluster("start", self.build, self.name, str(self.port), *pairs)
        return self

    def stop(self, mode: str = "fast") -> None:
        self._cluster("stop", self.build, self.name, mode)

    def destroy(self) -> None:
        self._cluster("destroy", self.build, self.name)

    def start_empty(self, **settings: str) -> "Cluster":
        """Starts the cluster made anew: whatever an earlier run left under
        this name is destroyed first."""
        self.destroy()
        return self.start(**settings)

    def conninfo(self, dbname: str = "postgres", **extra: str) -> str:
        parts = {"host": str(self.dir), "port": str(self.port), "user": "postgres", "dbname": dbname}
        parts.update(extra)
        return " ".join(f"{k}={v}" for k, v in parts.items())

    def tcp_conninfo(self, dbname: str = "postgres") -> str:
        """A TCP connection string, for replication and postgres_fdw."""
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname}"

    def connect(self, dbname: str = "postgres", autocommit: bool = True, **kw) -> psycopg.Connection:
        return psycopg.connect(self.conninfo(dbname), autocommit=autocommit, **kw)

    def connect_when_up(self, dbname: str = "postgres", timeout: float = 60) -> psycopg.Connection:
        """A connection once the server accepts one again (after a crash
        restart, say), failing with its log's tail after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.connect(dbname)
            except psycopg.OperationalError:
                assert time.monotonic() < deadline, self.log_tail()
                time.sleep(0.2)

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

    def wait_for_log(self, text: str, timeout: float = 60) -> None:
        """Waits until the server's log holds TEXT, failing with its tail
        after `timeout` seconds."""
        log = self.dir / "server.log"
        deadline = time.monotonic() + timeout
        while not (log.exists() and text in log.read_text(errors="replace")):
            assert time.monotonic() < deadline, f"no {text!r} in the log:\n{self.log_tail()}"
            time.sleep(0.1)

    def log_tail(self, lines: int = 50) -> str:
        log = self.dir / "server.log"
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""
