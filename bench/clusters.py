"""The servers the benchmarks run on.

Here: the clusters tuned for benchmarking (SETTINGS: the benchmark cluster
preloads ulid, a second one is identical but does not, and a case may start
more), the guard that stops a run when ulid is reinstalled under it, and the
description of the machine and build that goes into the results.

Not here: the cases (cases.py), timing (measure.py), reporting (report.py),
the command line (run.py).
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from contextlib import contextmanager
from pathlib import Path

from ulidtools import builds
from ulidtools.base import ROOT
from ulidtools.clusters import Cluster, install_dirs

# Settings of the benchmark cluster. fsync stays on; commits are
# asynchronous so that pgbench measures the server, not this machine's disk.
SETTINGS = {
    "shared_preload_libraries": "ulid",
    "shared_buffers": "2GB",
    "work_mem": "512MB",
    "maintenance_work_mem": "1GB",
    "max_wal_size": "16GB",
    "checkpoint_timeout": "1h",
    "synchronous_commit": "off",
    "max_parallel_workers_per_gather": "0",
    "max_parallel_maintenance_workers": "0",
    "jit": "off",
    "autovacuum": "off",
}
# The second cluster: gen_monotonic_ulid() keeps its state per session when
# ulid is not preloaded, and only a server started without it shows that.
SESSION_SETTINGS = {**SETTINGS, "shared_preload_libraries": ""}

# Port slots (see ulidtools.builds.cluster_port) of the benchmark clusters,
# and the first of those a case's other clusters take.
SLOT, SESSION_SLOT, OTHER_SLOTS = 5, 9, 10

# How often one version's run is started again when ulid is reinstalled under it.
ATTEMPTS = 4


class LibraryReplaced(RuntimeError):
    """The installed ulid library changed under a running benchmark."""


class LibraryGuard:
    """Others may reinstall ulid on this machine while a run goes on: then
    new backends load another build, and a library overwritten in place
    crashes the running ones. Either way the numbers would not be this
    build's, so the run checks the library after every step and stops."""

    def __init__(self, version: int):
        self.library = install_dirs(version)[0] / "ulid.so"
        self.installed = self.fingerprint()

    def fingerprint(self) -> tuple[int, int, int]:
        st = self.library.stat()
        return st.st_ino, st.st_size, st.st_mtime_ns

    def check(self, step: str, error: Exception | None = None) -> None:
        if self.fingerprint() != self.installed:
            raise LibraryReplaced(f"{self.library} was replaced by another install during {step}") from error


@contextmanager
def benchmark_clusters(version: int):
    """Starts the benchmark cluster and the one without ulid preloaded;
    yields them with a function that starts further clusters of this
    version (name, settings) for the cases that need one. Stops them all
    and removes them: their tables take gigabytes, and a run loads its own."""
    cluster = Cluster(version, "bench", slot=SLOT, settings=SETTINGS)
    session_cluster = Cluster(version, "bench-session", slot=SESSION_SLOT, settings=SESSION_SETTINGS)
    others: list[Cluster] = []

    def start_other(name: str, settings: dict[str, str]) -> Cluster:
        other = Cluster(version, f"bench-{name}", slot=OTHER_SLOTS + len(others), settings=settings)
        others.append(other)
        return other.start()

    try:
        cluster.start()
        session_cluster.start()
        yield cluster, session_cluster, start_other
    finally:
        for c in [*reversed(others), session_cluster, cluster]:
            c.stop()
            c.destroy()


# The Debian system's server for the TimescaleDB cases: Debian sid's
# PostgreSQL 18 with Debian's TimescaleDB, and ulid's Debian package (of
# the build this run measures) installed beside it with apt.
TIMESERIES_MAJOR = "18"
TIMESERIES_CLUSTER = "ulid-bench-timeseries"
TIMESERIES_SLOT = 14


@contextmanager
def timeseries_cluster(release: bool):
    """A cluster of Debian's PostgreSQL 18 in the sid system, with the
    benchmark settings and timescaledb and ulid preloaded; made anew,
    dropped afterwards, the package removed."""
    from ulidtools.debian_servers import System, build_deb

    system = System.of(TIMESERIES_MAJOR)
    system.drop_cluster(TIMESERIES_CLUSTER)
    system.purge()
    system.install_deb(build_deb(TIMESERIES_MAJOR, system, release=release))
    settings = {**SETTINGS, "shared_preload_libraries": "timescaledb,ulid", "timescaledb.telemetry_level": "off"}
    server = system.create_cluster(TIMESERIES_CLUSTER, builds.cluster_port(TIMESERIES_MAJOR, TIMESERIES_SLOT), settings)
    try:
        yield server
    finally:
        server.drop()
        system.purge()


def machine() -> str:
    cpu = "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = int(Path("/proc/meminfo").read_text().split()[1]) / 2**20
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, {platform.system()} {platform.release()}"


def random_bytes(version: int) -> str:
    """Where the server's gen_random_uuid() and uuidv7() take their random
    bytes, from how it was built (pg_config --configure): OpenSSL, as
    Debian's and PGDG's packages are built, or, built without it, reading
    /dev/urandom on every call."""
    configure = subprocess.run([str(builds.pg_config_for(version)), "--configure"], capture_output=True,
                               text=True, check=True).stdout
    if "--with-openssl" in configure or "--with-ssl=openssl" in configure:
        return "OpenSSL"
    return "/dev/urandom on every call (built without OpenSSL)"


def source_commit() -> str | None:
    """The commit the build was made from, marked when the checkout had changes."""
    try:
        commit = subprocess.check_output(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"],
                                         text=True, stderr=subprocess.DEVNULL).strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD", "--", "src", "crates",
                                "sql", "Cargo.toml", "Cargo.lock", "ulid.control"],
                               stderr=subprocess.DEVNULL).returncode != 0
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + (" with local changes" if dirty else "")


def today() -> str:
    return datetime.date.today().isoformat()
