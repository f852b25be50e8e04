"""Fixtures for the tests that drive real PostgreSQL servers.

Every test here runs against a private cluster started by `scripts/cluster`
for the build given with `--pg` (13, 15, 16, 17, 18, 18-assert or 19), with the extension already
installed into that PostgreSQL by `scripts/test`. Clients are real ones:
psycopg for SQL, and the server's own psql, pg_regress, pg_dump and pgbench.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from harness.pgcluster import Cluster, major_version
from harness.upgrading import InstalledRelease


def pytest_addoption(parser):
    parser.addoption("--pg", default="15", help="PostgreSQL build to test against (15, 18-assert...)")


def pytest_ignore_collect(collection_path, config):
    if collection_path.name == "test_fetch_debian.py":
        # about setup, not a server: run once, when named (scripts/test does)
        return not any(collection_path.samefile(arg.split("::")[0]) for arg in config.args
                       if Path(arg.split("::")[0]).is_file())
    if collection_path.name == "test_debian_package.py":
        # Debian's own PostgreSQL: 15 on this system, 19 in the sid system
        # scripts/debian-system makes
        return config.getoption("--pg") not in ("15", "19")
    if collection_path.name == "test_pg_upgrade.py":
        # from the older builds to 18 and to 19, in their sessions
        return config.getoption("--pg") not in ("18", "19")
    return None


# Commits do not wait for the disk: many tests commit thousands of times.
# The crash tests, which need durable commits, run their own clusters.
FAST_COMMITS = {"synchronous_commit": "off"}


@pytest.fixture(scope="session")
def pg_build(request) -> str:
    """The build's name, as scripts/lib.sh names it: "15", "18-assert"."""
    return request.config.getoption("--pg")


@pytest.fixture(scope="session")
def pg_version(pg_build) -> int:
    """The build's major version."""
    return major_version(pg_build)


@pytest.fixture(scope="session")
def cluster(pg_build):
    """The main test cluster, without the library preloaded."""
    c = Cluster(pg_build, "test", slot=1, settings=FAST_COMMITS).start()
    yield c
    c.stop()


@pytest.fixture(scope="session")
def preloaded(pg_build):
    """A second cluster with ulid in shared_preload_libraries."""
    c = Cluster(pg_build, "preloaded", slot=2,
                settings={"shared_preload_libraries": "ulid", **FAST_COMMITS}).start()
    yield c
    c.stop()


@pytest.fixture(scope="module")
def swap(pg_build, tmp_path_factory):
    """The build's installed ulid files, put back exactly after the module."""
    files = InstalledRelease(pg_build, tmp_path_factory.mktemp("installed"))
    try:
        yield files
    finally:
        files.restore()


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
