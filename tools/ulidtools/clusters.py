"""Private PostgreSQL clusters for the demo, the tests and the benchmarks (scripts/cluster), each with its own
data directory (CLUSTER_ROOT/NAME-BUILD), port (builds.cluster_port) and Unix socket; no system service is touched.
As root, the server runs as ULID_PG_USER (postgres). A start reuses an existing directory and writes its settings
again into ulid.conf. Only `connect` imports psycopg, so the command runs without the virtualenv.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import time
from pathlib import Path

from ulidtools import builds
from ulidtools.base import ToolError


class ClusterError(ToolError):
    """A cluster that could not be made, started or read."""


def pg_user() -> str:
    return os.environ.get("ULID_PG_USER") or "postgres"


def as_pg(command: list) -> list[str]:
    """COMMAND as the clusters' owner when we are root (initdb, pg_ctl and postgres refuse root)."""
    command = [str(c) for c in command]
    return ["runuser", "-u", pg_user(), "--", *command] if os.geteuid() == 0 else command


def own(path: Path) -> None:
    if os.geteuid() == 0:
        owner = pwd.getpwnam(pg_user())
        os.chown(path, owner.pw_uid, owner.pw_gid)


def _quoted(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


class Cluster:
    def __init__(self, build: int | str, name: str, slot: int = 0, settings: dict[str, str] | None = None):
        self.build = str(build)
        self.version = builds.major_version(self.build)
        self.name = name
        self.port = builds.cluster_port(self.build, slot)
        self.settings = dict(settings or {})
        self.root = builds.cluster_root()
        self.dir = self.root / f"{name}-{self.build}"
        build_record = builds.build_of(self.build)
        self.bindir, self.pkglibdir = build_record.bindir, build_record.pkglibdir

    def start(self, **settings: str) -> "Cluster":
        self.settings.update(settings)
        if not (self.dir / "PG_VERSION").is_file():
            self._initdb()
        self.stop()
        conf = self.dir / "postgresql.conf"
        include = "include_if_exists = 'ulid.conf'"
        if include not in conf.read_text():
            with conf.open("a") as f:
                f.write(include + "\n")
        lines = [f"port = {self.port}", "listen_addresses = '127.0.0.1'",
                 f"unix_socket_directories = {_quoted(str(self.dir))}", "max_connections = 40",
                 "log_min_messages = warning"]
        lines += [f"{key} = {_quoted(str(value))}" for key, value in self.settings.items()]
        (self.dir / "ulid.conf").write_text("\n".join(lines) + "\n")
        own(self.dir / "ulid.conf")
        started = subprocess.run(as_pg([self.bindir / "pg_ctl", "-D", self.dir, "-l", self.dir / "server.log",
                                         "-w", "-t", "60", "start"]), stdout=subprocess.DEVNULL)
        if started.returncode != 0:
            raise ClusterError(f"PostgreSQL {self.build} ({self.name}) did not start:\n{self.log_tail(20)}")
        return self

    def stop(self, mode: str = "fast") -> None:
        if (self.dir / "postmaster.pid").exists():
            subprocess.run(as_pg([self.bindir / "pg_ctl", "-D", self.dir, "-m", mode, "-w", "-t", "60", "stop"]),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def destroy(self, wait: bool = True) -> None:
        """Without WAIT, the directory is moved aside and removed by a process of its own while the caller goes on
        (a thousand databases take most of a minute to remove, on the disk more than the processor)."""
        self.stop("immediate")
        if self.dir.exists() and wait:
            shutil.rmtree(self.dir)
        elif self.dir.exists():
            aside = self.dir.with_name(f"{self.dir.name}.removed-{os.getpid()}-{time.monotonic_ns()}")
            self.dir.rename(aside)
            subprocess.Popen(["rm", "-rf", "--", aside], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        Path(f"{self.dir}.initdb.log").unlink(missing_ok=True)

    def start_empty(self, **settings: str) -> "Cluster":
        self.destroy()
        return self.start(**settings)

    def _initdb(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir()
        own(self.dir)
        log = Path(f"{self.dir}.initdb.log")
        with log.open("w") as out:
            made = subprocess.run(as_pg([self.bindir / "initdb", "-D", self.dir, "-U", "postgres", "--auth=trust",
                                          "--no-locale", "-E", "UTF8", "--no-sync"]),
                                  stdout=out, stderr=subprocess.STDOUT)
        if made.returncode != 0:
            raise ClusterError(f"initdb of PostgreSQL {self.build} ({self.name}) failed:\n{log.read_text()}")

    def conninfo(self, dbname: str = "postgres", **extra: str) -> str:
        parts = {"host": str(self.dir), "port": str(self.port), "user": "postgres", "dbname": dbname, **extra}
        return " ".join(f"{k}={v}" for k, v in parts.items())

    def tcp_conninfo(self, dbname: str = "postgres") -> str:
        """For replication and postgres_fdw."""
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname}"

    def connect(self, dbname: str = "postgres", autocommit: bool = True, **kw):
        import psycopg

        return psycopg.connect(self.conninfo(dbname), autocommit=autocommit, **kw)

    def connect_when_up(self, dbname: str = "postgres", timeout: float = 60):
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.connect(dbname)
            except psycopg.OperationalError:
                assert time.monotonic() < deadline, self.log_tail()
                time.sleep(0.2)

    def env(self) -> dict[str, str]:
        return dict(os.environ, PGHOST=str(self.dir), PGPORT=str(self.port), PGUSER="postgres", PGDATABASE="postgres")

    def exports(self) -> str:
        return (f"export PGHOST={self.dir} PGPORT={self.port} PGUSER=postgres PGDATABASE=postgres "
                f"PATH={self.bindir}:$PATH\n")

    def run(self, program: str, *args: str, check: bool = True, **kw) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.bindir / program), *args], env=self.env(), check=check, text=True,
                              capture_output=True, **kw)

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
            row = conn.execute("SELECT count(*) FROM pg_available_extensions WHERE name = %s", [name]).fetchone()
        return row[0] == 1

    def wait_for_log(self, text: str, timeout: float = 60) -> None:
        log = self.dir / "server.log"
        deadline = time.monotonic() + timeout
        while not (log.exists() and text in log.read_text(errors="replace")):
            assert time.monotonic() < deadline, f"no {text!r} in the log:\n{self.log_tail()}"
            time.sleep(0.1)

    def log_tail(self, lines: int = 50) -> str:
        log = self.dir / "server.log"
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""
