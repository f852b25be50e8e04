"""Private PostgreSQL clusters for the tests (ulidtools.clusters, which the benchmarks share) and the builds a
test runs on, named as inputs.manifest's `build` lines name them ("15", "18-assert")."""

from __future__ import annotations

from functools import cache

from ulidtools.base import ROOT
from ulidtools.builds import (BUILDS, asked, build_of, cluster_port, cluster_root,  # noqa: F401
                             ends_of_run, major_version)  # (the harness's names)
from ulidtools.clusters import Cluster  # noqa: F401

SCRIPTS = ROOT / "scripts"
# Debian's TimescaleDB and pg_partman are built for its PostgreSQL 18: the tests and pages that use them run
# in this build's run (tests/conftest.py's `timeseries`), on sid's postgresql-18, with ulid's package for it
TIMESERIES_BUILD = "18"
CLUSTER_ROOT = cluster_root()


def sample_of_run() -> tuple[str, ...]:
    """The builds a `same_on_every_version` test (tests/conftest.py) runs on: the oldest and newest of the
    run, on both sides of every version split in the code, and the run's builds with assertions."""
    return tuple(dict.fromkeys([*ends_of_run(), *(name for name in asked() if BUILDS[name].assertions)]))


def assertions_build_for(build: str, names: list[str] | None = None) -> str | None:
    """The run's build (of NAMES, else asked()) with assertions of BUILD's major version, when BUILD has none
    (18-assert for 18): the same code and server version, with the server's own assertions. Else None."""
    if BUILDS[build].assertions:
        return None
    return next((name for name in (asked() if names is None else names)
                 if BUILDS[name].assertions and BUILDS[name].major == BUILDS[build].major), None)


@cache
def has_extension(build: str, name: str) -> bool:
    return (build_of(build).extdir / f"{name}.control").is_file()
