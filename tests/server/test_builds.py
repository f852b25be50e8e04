"""Each PostgreSQL build is what inputs.manifest declares: the version its
line names, and assertions on exactly in the assert-enabled builds (an
assertion failure there kills the backend, so every other test doubles as
a check that no assertion fires)."""

from __future__ import annotations

from harness.pgcluster import build_of


def test_server_is_the_declared_build(cluster, pg_build, pg_version):
    with cluster.connect() as conn:
        (version_num,) = conn.execute("SELECT current_setting('server_version_num')::int").fetchone()
        (version,) = conn.execute("SHOW server_version").fetchone()
        (assertions,) = conn.execute("SHOW debug_assertions").fetchone()
    build = build_of(pg_build)
    assert version_num // 10000 == pg_version == build.major
    # "15.20 (Debian 15.20-0+deb12u1)", "19rc1 (Debian 19~rc1-1)"
    assert version.split()[0] == build.version, (version, build)
    assert assertions == ("on" if build.assertions else "off")
