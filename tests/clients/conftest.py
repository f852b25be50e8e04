"""The client tests run on the oldest and the newest build of a run only
(harness.pgcluster.ends_of_run); a driver that refuses old servers says
which is the oldest it takes (`OLDEST_MAJOR` in its test module), and runs
on the oldest build of the run it takes instead.

A driver sees the same ulid on every server: the type's text and binary
forms are one Rust codec, and the catalog rows a driver looks up (pg_type)
do not change between major versions. What does change is the protocol a
server speaks (3.2 from PostgreSQL 18 on), and the two ends of the builds
stand on both sides of that. The rest of the suite still runs on every build.

The programs a driver's test compiles (Go, JavaScript, Rust) are kept in one
directory under target/ for both ends; the ends of a short run may be
tested at the same time (scripts/test), so one client module runs at a time.
"""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

from harness.pgcluster import ROOT, ends_of_run

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module", autouse=True)
def one_client_module_at_a_time():
    """Holds target/clients.lock for the module, its own fixtures (which
    compile the programs) included: autouse fixtures of a scope come first."""
    lock = ROOT / "target" / "clients.lock"
    lock.parent.mkdir(exist_ok=True)
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Marks this folder's tests `builds(oldest, newest)`; tests/conftest.py
    deselects them on the other builds."""
    for item in items:
        if HERE in item.path.resolve().parents:
            oldest = getattr(item.module, "OLDEST_MAJOR", 0)
            item.add_marker(pytest.mark.builds(*ends_of_run(oldest)))
