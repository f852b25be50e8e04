"""Fixtures for the tests that drive real PostgreSQL servers.

Every test here runs against a private cluster (ulidtools.clusters, which
`scripts/cluster` runs too)
for the build given with `--build` (a `build` line of inputs.manifest: 15,
18-assert...), with the extension already installed into that PostgreSQL
by `scripts/test`. Clients are real ones:
psycopg for SQL, and the server's own psql, pg_regress, pg_dump and pgbench.

The tests live in one folder per kind (pg_regress, server, operations,
upgrades, packaging, security, clients, citus...); the fixtures here serve
every folder. A module that is not for every build says so with a marker,
handled below for all modules alike:
- `pytestmark = pytest.mark.builds("15", "19")`: collected on those builds
  only, deselected on the others;
- `pytestmark = pytest.mark.same_on_every_version`: what the test checks
  is the same on every PostgreSQL version (no code of ours under a version
  `#[cfg]`, no server behaviour that changed between the versions): it runs
  on the oldest and the newest build of a run and on its builds with
  assertions (harness.pgcluster.sample_of_run), deselected on the others.
  Whatever differs between versions (the type's SQL, the shared state, the
  hooks, errors, indexes, pg_dump, pg_upgrade, replication) has no marker
  and runs on every major version: on every build, but where a run has a
  build with assertions of a version (18-assert), there and not on the
  version's other build (18), which runs what names it (Debian's packages
  for 18) (harness.pgcluster.assertions_build_for);
- `pytestmark = pytest.mark.once_per_run`: not about a server build at all;
  left out of a run over folders (which scripts/test makes once per build),
  run when its file or its own folder is named (as scripts/test does, once
  per run);
- `pytest.mark.extensions("postgres_fdw")`: needs extensions that some
  builds do not have (a build without contrib); skipped, with the reason,
  on a build whose extension directory lacks one.

Together they say on which builds a test runs (`builds_of`), which the
table of what is tested where (docs/versions.md) is made from:
`pytest --collect-only tests --builds-report FILE` writes it for every test.

pytest imports test modules by file name, with their folder on sys.path
(tests/ too, for the harness package), so each file name is used once
across the folders: a second test_generators.py anywhere would clash.
"""

from __future__ import annotations

import json
import uuid

import pytest

from ulidtools.debian_servers import System, build_deb
from harness.pgcluster import (BUILDS, ROOT, TIMESERIES_BUILD, Cluster, assertions_build_for, cluster_port,
                               has_extension, major_version, sample_of_run)
from harness.upgrading import InstalledRelease


def pytest_addoption(parser):
    parser.addoption("--build", default="15", choices=list(BUILDS),
                     help="PostgreSQL build to test against (a build line of inputs.manifest)")
    parser.addoption("--builds-report", metavar="FILE",
                     help="write to FILE, as JSON, the builds each collected test runs on (builds_of)")
    parser.addoption("--ran-report", metavar="FILE",
                     help="write to FILE, as JSON, what became of each test run (passed, failed, or "
                          "skipped with its reason; tested.rows_not_run reads it) and its seconds")


def on_assertions_build(item, build: str) -> bool:
    """Whether ITEM, a test with neither a `builds` nor a `same_on_every_version`
    marker, runs on the run's build with assertions of BUILD's version instead of
    on BUILD: when the run has one that has the extensions ITEM needs."""
    if item.get_closest_marker("builds") is not None or item.get_closest_marker("same_on_every_version") is not None:
        return False
    instead = assertions_build_for(build)
    extensions = item.get_closest_marker("extensions")
    return instead is not None and all(has_extension(instead, e) for e in (extensions.args if extensions else ()))


def builds_of(item) -> list[str]:
    """The builds ITEM runs on: those its `builds` marker names (all of them
    without one, each version once (on_assertions_build); those of sample_of_run
    with `same_on_every_version`) that have the extensions its `extensions`
    marker names."""
    names = [name for name in BUILDS if not on_assertions_build(item, name)]
    builds = item.get_closest_marker("builds")
    if builds is not None:
        names = [name for name in names if name in builds.args]
    if item.get_closest_marker("same_on_every_version") is not None:
        names = [name for name in names if name in sample_of_run()]
    extensions = item.get_closest_marker("extensions")
    if extensions is not None:
        names = [name for name in names if all(has_extension(name, e) for e in extensions.args)]
    return names


def pytest_runtest_setup(item):
    extensions = item.get_closest_marker("extensions")
    if extensions is not None:
        build = item.config.getoption("--build")
        missing = [e for e in extensions.args if not has_extension(build, e)]
        if missing:
            pytest.skip(f"PostgreSQL {build} here has no {' or '.join(missing)} (this build does not ship it); "
                        f"the builds that have it run this test (docs/versions.md, what is tested where)")


def pytest_collection_modifyitems(config, items):
    report = config.getoption("--builds-report")
    if report:
        with open(report, "w") as out:
            json.dump({item.nodeid: {"builds": builds_of(item),
                                     "once_per_run": item.get_closest_marker("once_per_run") is not None}
                       for item in items}, out, indent=1)
    build = config.getoption("--build")
    here = config.invocation_params.dir
    named = {(here / arg.split("::")[0]).resolve() for arg in config.args}

    def wanted(item) -> bool:
        if on_assertions_build(item, build):
            return False
        builds = item.get_closest_marker("builds")
        if builds is not None and build not in builds.args:
            return False
        if item.get_closest_marker("same_on_every_version") and build not in sample_of_run():
            return False
        if item.get_closest_marker("once_per_run") and not {item.path.resolve(), item.path.parent.resolve()} & named:
            return False
        return True

    deselected = [item for item in items if not wanted(item)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if wanted(item)]


# Commits do not wait for the disk: many tests commit thousands of times.
# The crash tests, which need durable commits, run their own clusters.
FAST_COMMITS = {"synchronous_commit": "off"}


@pytest.fixture(scope="session")
def build(request) -> str:
    """The build's name, as scripts/lib.sh names it: "15", "18-assert"."""
    return request.config.getoption("--build")


@pytest.fixture(scope="session")
def major(build) -> int:
    """The build's major version."""
    return major_version(build)


@pytest.fixture(scope="session")
def cluster(build):
    """The main test cluster, without the library preloaded."""
    c = Cluster(build, "test", slot=1, settings=FAST_COMMITS).start()
    yield c
    c.stop()


@pytest.fixture(scope="session")
def preloaded(build):
    """A second cluster with ulid in shared_preload_libraries."""
    c = Cluster(build, "preloaded", slot=2,
                settings={"shared_preload_libraries": "ulid", **FAST_COMMITS}).start()
    yield c
    c.stop()


TIMESERIES_CLUSTER = "ulid-timeseries"


@pytest.fixture(scope="session")
def timeseries(build):
    """A cluster of Debian sid's PostgreSQL 18 with TimescaleDB and
    pg_partman installed with apt, and ulid's Debian package for 18
    installed beside them with apt; timescaledb and ulid preloaded."""
    if build != TIMESERIES_BUILD:
        pytest.skip(f"TimescaleDB and pg_partman come from Debian's packages for PostgreSQL "
                    f"{TIMESERIES_BUILD}: they run in the {TIMESERIES_BUILD} run")
    system = System.of(TIMESERIES_BUILD)
    system.drop_cluster(TIMESERIES_CLUSTER)
    system.purge()
    system.install_deb(build_deb(TIMESERIES_BUILD, system))
    server = system.create_cluster(
        TIMESERIES_CLUSTER, cluster_port(TIMESERIES_BUILD, 13),
        {"shared_preload_libraries": "timescaledb,ulid", "timescaledb.telemetry_level": "off",
         **FAST_COMMITS})
    try:
        yield server
    finally:
        server.drop()
        system.purge()


@pytest.fixture(scope="module")
def swap(build, tmp_path_factory):
    """The build's installed ulid files, put back exactly after the module."""
    files = InstalledRelease(build, tmp_path_factory.mktemp("installed"))
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


# What became of each test of the run (--ran-report): the table of what is
# tested where says a test runs on a build; a run that skipped every test
# of a row on a build it marks did not test that row there.
_RAN: dict[str, dict] = {}
# each test's seconds, setup, call and teardown together
_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report):
    _SECONDS[report.nodeid] = _SECONDS.get(report.nodeid, 0.0) + report.duration
    if report.when == "call" or report.outcome != "passed":
        entry = {"outcome": report.outcome}
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            entry["reason"] = reason.removeprefix("Skipped: ")
        if report.when == "call" or report.nodeid not in _RAN or report.outcome == "failed":
            _RAN[report.nodeid] = entry


def pytest_sessionfinish(session):
    report = session.config.getoption("--ran-report", None)
    if report:
        # node ids from the checkout's root, as the table's rows name them,
        # wherever pytest took its own root
        def from_root(node: str) -> str:
            path, _, rest = node.partition("::")
            path = (session.config.rootpath / path).resolve().relative_to(ROOT).as_posix()
            return f"{path}::{rest}" if rest else path

        with open(report, "w") as out:
            json.dump({from_root(node): {**entry, "seconds": round(_SECONDS.get(node, 0.0), 2)}
                       for node, entry in _RAN.items()}, out, indent=1)

