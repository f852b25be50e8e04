"""Updating the extension in place, on a running server: a database made
by an earlier release (built from its commit in sql/RELEASES), the new
release's files installed over it, then `ALTER EXTENSION ulid UPDATE`. The
result must be a fresh install's catalog, with the data untouched."""

from __future__ import annotations

import re

import psycopg
import pytest

from harness.ordering import client_serialized, order_of
from harness.pgcluster import Cluster, build_of
from harness.upgrading import (RESYNC, VERSION, c_symbols, catalog, earlier_releases,
                       catalog_diff, check_works, fill, snapshot)


@pytest.fixture(scope="module")
def server(build):
    c = Cluster(build, "upgrade", slot=30).start_empty()
    yield c
    c.stop()


@pytest.fixture(scope="module")
def fresh(server):
    """The catalog of a fresh install of this release on this server."""
    db = server.create_database("fresh")
    with server.connect(db) as conn:
        assert conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() == (VERSION,)
        return catalog(conn)


def extversion(conn) -> str:
    return conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone()[0]


@pytest.mark.parametrize("old", earlier_releases())
def test_update_from_an_earlier_release(old, swap, server, fresh, build, major):
    swap.install_release(old)
    db = server.create_database(f"from_{old}", extension=False)
    with server.connect(db) as conn:
        conn.execute(f"CREATE EXTENSION ulid VERSION '{old}'")
        fill(conn, major)
        before = snapshot(conn)
    old_symbols = set(re.findall(r"'MODULE_PATHNAME', '(\w+)'",
                                 (build_of(build).extdir / f"ulid--{old}.sql").read_text()))
    assert len(old_symbols) >= 20, old_symbols

    # The new release's files, the server still running. A new session
    # loads the new library under the old catalog.
    swap.restore()
    assert old_symbols <= c_symbols(build_of(build).pkglibdir / "ulid.so")
    with server.connect(db, autocommit=False) as conn:
        assert extversion(conn) == old
        # the server itself resolves every C function of the old catalog
        checked = conn.execute("""
            SELECT count(fmgr_c_validator(p.oid)) FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
            WHERE l.lanname = 'c' AND p.oid IN (
                SELECT objid FROM pg_depend WHERE deptype = 'e' AND classid = 'pg_proc'::regclass
                  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ulid'))""").fetchone()[0]
        assert checked >= 20
        # the new library is the one answering: it reads the UUID text form
        assert conn.execute("SELECT '01890a5d-ac96-774b-bcce-b302099a8057'::ulid::text").fetchone() == (
            "01H455VB4PEX5VSKNK084SN02Q",)
        assert snapshot(conn) == before
        check_works(conn, server, major)
        conn.rollback()

    with server.connect(db) as conn:
        conn.execute("ALTER EXTENSION ulid UPDATE")
        assert extversion(conn) == VERSION
        updated = catalog(conn)
        assert updated == fresh, catalog_diff(updated, fresh, f"updated from {old}", "fresh install")
        assert snapshot(conn) == before

        # the re-synchronising command changes nothing on an up-to-date database
        conn.execute(RESYNC)
        assert extversion(conn) == VERSION
        assert catalog(conn) == fresh

        # no way down: PostgreSQL's own error, nothing changed
        with pytest.raises(psycopg.errors.InvalidParameterValue) as refused:
            conn.execute(f"ALTER EXTENSION ulid UPDATE TO '{old}'")
        assert (f'extension "ulid" has no update path from version "{VERSION}" to version "{old}"'
                in str(refused.value))
        assert extversion(conn) == VERSION
        assert catalog(conn) == fresh
        assert snapshot(conn) == before

        check_works(conn, server, major)

    if major >= 17:
        # the new library's sessions share the database's monotonic state, unpreloaded
        backwards, crossing = order_of(client_serialized(server, [db], 600))
        assert crossing >= 100 and backwards == 0, (backwards, crossing)


def test_a_server_that_preloads_ulid_updates_after_a_restart(swap, build):
    """On a server that preloads 0.4.0's library, with the new files
    installed: the update to this release fails with PostgreSQL's error for
    a C function the loaded library lacks (0.5.0 adds
    ulid_shared_places()), and changes nothing; after a restart it
    succeeds, as docs/upgrading.md says."""
    server = Cluster(build, "update-preloaded", slot=22)
    swap.install_release("0.4.0")
    try:
        server.start_empty(shared_preload_libraries="ulid")
        db = server.create_database("preloaded", extension=False)
        with server.connect(db) as conn:
            conn.execute("CREATE EXTENSION ulid VERSION '0.4.0'")
        swap.restore()
        with server.connect(db) as conn:
            with pytest.raises(psycopg.errors.UndefinedFunction,
                               match='could not find function "ulid_shared_places_wrapper"'):
                conn.execute("ALTER EXTENSION ulid UPDATE")
            assert extversion(conn) == "0.4.0"
        server.start()
        with server.connect(db) as conn:
            conn.execute("ALTER EXTENSION ulid UPDATE")
            assert extversion(conn) == VERSION
    finally:
        server.destroy()


def test_sessions_of_the_old_and_the_new_library_side_by_side(swap, server, major):
    """The window between a package upgrade and the end of the sessions
    that loaded the old library, on a running server: a session of 0.4.0's
    library keeps its own shared state (0.4.0's segment, server-wide) and
    goes on working; sessions that load the new library share the new
    table (a segment named for its layout), in order among themselves; the
    two never read each other's memory. The registry lists both segments on
    19 and later."""
    swap.install_release("0.4.0")
    db = server.create_database("side_by_side", extension=False)
    with server.connect(db) as conn:
        conn.execute("CREATE EXTENSION ulid VERSION '0.4.0'")
    old = server.connect(db)
    try:
        before = [bytes(old.execute("SELECT gen_monotonic_ulid()::bytea").fetchone()[0]) for _ in range(100)]
        swap.restore()
        made = client_serialized(server, [db], 600)
        backwards, crossing = order_of(made)
        assert crossing >= 100
        if major >= 17:
            assert backwards == 0
        else:
            assert backwards > 0
        after = [bytes(old.execute("SELECT gen_monotonic_ulid()::bytea").fetchone()[0]) for _ in range(100)]
        values = before + after
        assert all(b > a for a, b in zip(values, values[1:])), "the old library's session went backwards"
        if major >= 19:
            rows = dict(old.execute("SELECT name, size FROM pg_dsm_registry_allocations "
                                    "WHERE name LIKE 'ulid%'").fetchall())
            assert set(rows) == {"ulid monotonic generator", "ulid monotonic generator, layout 3"}, rows
            assert rows["ulid monotonic generator, layout 3"] == 64 + 64 * 1024
    finally:
        old.close()
        swap.restore()
        with server.connect() as conn:
            conn.execute(f'DROP DATABASE "{db}" WITH (FORCE)')


def test_the_catalog_comparison_sees_each_kind_of_change(server, fresh):
    """Each change below, made and rolled back in a copy of a fresh install,
    must show in catalog(): a comparison that misses one proves nothing."""
    db = server.create_database("altered")
    changes = {
        "volatility": "ALTER FUNCTION ulid_timestamp(ulid) STABLE",
        "strictness": "ALTER FUNCTION ulid_smaller(ulid, ulid) CALLED ON NULL INPUT",
        "parallel safety": "ALTER FUNCTION gen_ulid() PARALLEL RESTRICTED",
        "leakproofness": "ALTER FUNCTION ulid_eq(ulid, ulid) NOT LEAKPROOF",
        "cost": "ALTER FUNCTION ulid_cmp(ulid, ulid) COST 2",
        "a comment": "COMMENT ON FUNCTION gen_monotonic_ulid() IS 'changed'",
        "an operator's estimator": "ALTER OPERATOR < (ulid, ulid) SET (RESTRICT = eqsel)",
        "a family member": "DELETE FROM pg_amproc WHERE amprocnum = 4 AND amprocfamily = "
                           "(SELECT opcfamily FROM pg_opclass WHERE opcname = 'ulid_ops' AND opcmethod = "
                           "(SELECT oid FROM pg_am WHERE amname = 'btree'))",
        "a cast's context": "UPDATE pg_cast SET castcontext = 'e' WHERE casttarget = 'ulid'::regtype "
                            "AND castsource = 'uuid'::regtype",
        "an aggregate": "UPDATE pg_aggregate SET aggsortop = 0 WHERE aggfnoid = 'min(ulid)'::regprocedure",
        "the type": "UPDATE pg_type SET typcategory = 'X' WHERE oid = 'ulid'::regtype",
        "an operator class": "UPDATE pg_opclass SET opcdefault = false WHERE opcname = 'ulid_minmax_ops'",
        "a dependency": "DELETE FROM pg_depend WHERE classid = 'pg_cast'::regclass AND deptype = 'e' "
                        "AND objid = (SELECT oid FROM pg_cast WHERE castsource = 'ulid'::regtype "
                        "AND casttarget = 'uuid'::regtype)",
        "a privilege": "REVOKE EXECUTE ON FUNCTION gen_ulid() FROM PUBLIC",
    }
    with server.connect(db, autocommit=False) as conn:
        assert catalog(conn) == fresh
        for what, sql in changes.items():
            conn.execute(sql)
            assert catalog(conn) != fresh, f"a change of {what} does not show"
            conn.rollback()
        assert catalog(conn) == fresh
