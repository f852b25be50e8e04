"""The client tests run on the oldest and the newest build of a run only
(harness.pgcluster.ends_of_run); a driver that refuses old servers says
which is the oldest it takes (`OLDEST_MAJOR` in its test module), and runs
on the oldest build of the run it takes instead.

A driver sees the same ulid on every server: the type's text and binary
forms are one Rust codec, and the catalog rows a driver looks up (pg_type)
do not change between major versions. What does change is the protocol a
server speaks (3.2 from PostgreSQL 18 on), and the two ends of the builds
stand on both sides of that. The rest of the suite still runs on every build.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.pgcluster import ends_of_run

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Marks this folder's tests `builds(oldest, newest)`; tests/conftest.py
    deselects them on the other builds."""
    for item in items:
        if HERE in item.path.resolve().parents:
            oldest = getattr(item.module, "OLDEST_MAJOR", 0)
            item.add_marker(pytest.mark.builds(*ends_of_run(oldest)))
