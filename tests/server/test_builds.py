"""Each PostgreSQL build is what its name says: the major version, and
assertions on exactly in the assert-enabled builds (an assertion failure
there kills the backend, so every other test doubles as a check that no
assertion fires)."""

from __future__ import annotations


def test_server_is_the_named_build(cluster, pg_build, pg_version):
    with cluster.connect() as conn:
        (version_num,) = conn.execute("SELECT current_setting('server_version_num')::int").fetchone()
        (assertions,) = conn.execute("SHOW debug_assertions").fetchone()
    assert version_num // 10000 == pg_version
    assert assertions == ("on" if pg_build.endswith("-assert") else "off")
