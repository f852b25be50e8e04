"""Private PostgreSQL clusters for the tests: the tooling's
(ulidtools.clusters, which the benchmarks share), and what only the tests
ask of them (the builds at the ends of a run, whether a build has an
extension installed).

A build is named as the `build` lines of inputs.manifest name it
(`ulidtools.builds`): a major version ("15") or a second build of one ("18-assert").
`Cluster.version` is the major version as an int, for comparisons;
`Cluster.build` is the name.
"""

from __future__ import annotations

from functools import cache

from ulidtools.base import ROOT
from ulidtools.builds import (BUILDS, asked, build_of, cluster_port, cluster_root,  # noqa: F401
                             ends_of_run, major_version, pg_config_for)  # (the harness's names)
from ulidtools.clusters import Cluster, bindir_of, install_dirs  # noqa: F401

SCRIPTS = ROOT / "scripts"
# (a run with ports of its own has its own directory)
CLUSTER_ROOT = cluster_root()


def sample_of_run() -> tuple[str, ...]:
    """The builds a test of what is the same on every PostgreSQL version
    runs on (the `same_on_every_version` marker, tests/conftest.py): the
    oldest and the newest build of this run (ends_of_run), which stand on
    both sides of every version split of the code, and the run's builds
    with assertions, where an assertion of the server's own checks what the
    test makes the extension do."""
    return tuple(dict.fromkeys([*ends_of_run(), *(name for name in asked() if BUILDS[name].assertions)]))


@cache
def has_extension(build: str, name: str) -> bool:
    """Whether BUILD has the extension NAME installed (its control file)."""
    return (install_dirs(build)[1] / f"{name}.control").is_file()
