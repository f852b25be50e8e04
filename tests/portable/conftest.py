"""Fixtures of the tests of the portable layer (portable/ulid_portable.sql).

The portable layer is plain SQL with one version split (SQL-standard
function bodies from PostgreSQL 14), which the oldest and the newest build
of a run stand on both sides of: its tests run there and on the builds with
assertions (same_on_every_version, tests/conftest.py).

The native extension is the oracle: a database of the test cluster holds
both, the extension in a schema of its own (`native`), the portable layer
in `ulid_portable`, and every test compares the two there. The tests that
need a server without ulid's files (test_portable_install.py) make their
own.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from portable_layer import install_portable

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Marks this folder's tests `same_on_every_version`; tests/conftest.py
    deselects them on the other builds."""
    for item in items:
        if HERE in item.path.resolve().parents:
            item.add_marker(pytest.mark.same_on_every_version)


@pytest.fixture(scope="module")
def both(cluster) -> str:
    """A database with the extension in schema `native` and the portable
    layer, one per test module; yields its name. Each test has sessions of
    its own (`pconn`), so settings, temporary tables and the monotonic
    state start afresh."""
    name = "p_" + uuid.uuid4().hex[:12]
    cluster.create_database(name, extension=False)
    with cluster.connect(name) as conn:
        conn.execute("CREATE SCHEMA native")
        conn.execute("CREATE EXTENSION ulid SCHEMA native")
    install_portable(cluster, name)
    yield name
    with cluster.connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pconn(cluster, both):
    with cluster.connect(both) as c:
        yield c
