"""The benchmark clusters, the guard against ulid reinstalled under a run, and the machine and build facts recorded."""

from __future__ import annotations

import os
import platform
import subprocess
from contextlib import contextmanager
from pathlib import Path

from ulidtools import builds
from ulidtools.base import ROOT, output, run
from ulidtools.clusters import Cluster

# The benchmark cluster's settings: fsync stays on; commits are asynchronous so that pgbench measures the
# server, not this machine's disk.
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
SESSION_SETTINGS = {**SETTINGS, "shared_preload_libraries": ""}  # the "not preloaded" variants' cluster

# Port slots (ulidtools.builds.cluster_port): benchmark, session, first of a case's other clusters, TimescaleDB's.
SLOT, SESSION_SLOT, OTHER_SLOTS, TIMESERIES_SLOT = 5, 9, 10, 14
ATTEMPTS = 4  # how often one version's run is started again when ulid is reinstalled under it


class LibraryReplaced(RuntimeError):
    """The installed ulid library changed under a running benchmark."""


class LibraryGuard:
    """Others may reinstall ulid on this machine during a run: new backends would load another build, and a
    library overwritten in place crashes the running ones. Checked after every step."""

    def __init__(self, version: int):
        self.library = builds.build_of(version).pkglibdir / "ulid.so"
        self.installed = self.fingerprint()

    def fingerprint(self) -> tuple[int, int, int]:
        st = self.library.stat()
        return st.st_ino, st.st_size, st.st_mtime_ns

    def check(self, step: str, error: Exception | None = None) -> None:
        if self.fingerprint() != self.installed:
            raise LibraryReplaced(f"{self.library} was replaced by another install during {step}") from error


@contextmanager
def benchmark_clusters(version: int):
    """Starts the benchmark cluster and the one without ulid preloaded; yields them with a function that starts
    more (name, settings). Stops and removes them all: their tables take gigabytes."""
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


TIMESERIES_MAJOR = "18"
TIMESERIES_CLUSTER = "ulid-bench-timeseries"


@contextmanager
def timeseries_cluster(release: bool):
    """The TimescaleDB case's server: a fresh cluster of Debian sid's PostgreSQL 18, with ulid's Debian package of
    the build this run measures, the benchmark settings and timescaledb and ulid preloaded; dropped afterwards."""
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
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "unknown CPU")
    mem = int(Path("/proc/meminfo").read_text().split()[1]) / 2**20
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, {platform.system()} {platform.release()}"


def random_bytes(version: int) -> str:
    """Where gen_random_uuid() and uuidv7() take their random bytes, from pg_config --configure."""
    configure = output([builds.build_of(version).pg_config, "--configure"], check=True)
    if "--with-openssl" in configure or "--with-ssl=openssl" in configure:
        return "OpenSSL"
    return "/dev/urandom on every call (built without OpenSSL)"


def source_commit() -> str | None:
    """The commit the build was made from, marked when the checkout had changes."""
    try:
        commit = output(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"], check=True)
        dirty = run(["git", "-C", ROOT, "diff", "--quiet", "HEAD", "--", "src", "crates", "sql", "Cargo.toml",
                     "Cargo.lock", "ulid.control"], stderr=subprocess.DEVNULL).returncode != 0
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + (" with local changes" if dirty else "")
