"""Moving to ulid from pgx_ulid and from UUIDv7s, as docs/migrating.md
does it, on more data than the page's examples.

pgx_ulid is the stand-in of tests/harness/pgx_ulid/ (its names, a
variable-length type with the same text, its implicit cast to timestamp),
installed as an extension named pgx_ulid for these tests only. The move is
the page's own SQL, the `sql` block of "The move", run on the page's schema
filled here with thousands of rows whose ids python-ulid makes (a ULID
implementation nobody here wrote). Afterwards every id has its text, points
to the same rows and has the time python-ulid put in it, and the defaults,
indexes, foreign key and generated column are ulid's.

The UUIDv7 route runs on PostgreSQL 18 and later, with core's own uuidv7().
"""

from __future__ import annotations

import datetime as dt
import random

import pytest
from psycopg import errors
from ulid import ULID

from harness.pages import sql_blocks
from harness.pgcluster import ROOT
from harness.standin import installed_standin

# the moves are casts and ALTER TABLE ... TYPE, the same on every version (tests/conftest.py)
pytestmark = pytest.mark.same_on_every_version

PAGE = ROOT / "docs" / "migrating.md"
USERS = 5000


@pytest.fixture
def pgx_ulid_db(cluster, build):
    """A database with the pgx_ulid stand-in, and the page's tables in it."""
    with installed_standin(build, "pgx_ulid"):
        name = cluster.create_database("t_from_pgx_ulid", extension=False)
        with cluster.connect(name) as conn:
            conn.execute("CREATE EXTENSION pgx_ulid")
            (schema,) = sql_blocks(PAGE, "What the move has to change")
            conn.execute(schema)
        try:
            yield name
        finally:
            with cluster.connect() as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def made_ids(n: int) -> list[ULID]:
    """n ULIDs from python-ulid, at times spread over ten years."""
    rng = random.Random(20261125)
    start = dt.datetime(2016, 1, 1, tzinfo=dt.timezone.utc).timestamp()
    return [ULID.from_timestamp(start + rng.random() * 10 * 365 * 86400) for _ in range(n)]


def extensions(conn) -> list[tuple[str, str]]:
    return conn.execute("SELECT extname, extversion FROM pg_extension WHERE extname <> 'plpgsql' "
                        "ORDER BY 1").fetchall()


def test_pgx_ulid_columns_move_to_ulid_with_their_text(cluster, pgx_ulid_db):
    ids = made_ids(USERS)
    with cluster.connect(pgx_ulid_db) as conn:
        with conn.cursor().copy("COPY users (id, name) FROM STDIN") as copy:
            for n, id_ in enumerate(ids):
                copy.write_row((str(id_), f"made {n}"))
        conn.execute("INSERT INTO orders (user_id, total) SELECT id, 1 FROM users, generate_series(1, 2)")
        users = set(conn.execute("SELECT id::text, name FROM users").fetchall())
        orders = set(conn.execute("SELECT id::text, user_id::text, total FROM orders").fetchall())
        assert len(users) == USERS + 101 and len(orders) == 2 * len(users) + 101
        (pgx_type,) = conn.execute("SELECT typlen FROM pg_type WHERE typname = 'ulid'").fetchone()
        assert pgx_type == -1

        # ulid cannot be created beside it, and trying changes nothing
        with pytest.raises(errors.DuplicateObject) as refused:
            conn.execute("CREATE EXTENSION ulid")
        assert str(refused.value).startswith('type "ulid" already exists')
        assert extensions(conn) == [("pgx_ulid", "0.2.2")]

        (move,) = sql_blocks(PAGE, "The move")
        conn.execute(move)

        (version,) = conn.execute("SELECT default_version FROM pg_available_extensions "
                                  "WHERE name = 'ulid'").fetchone()
        assert extensions(conn) == [("ulid", version)]
        assert conn.execute("SELECT typlen, typbyval FROM pg_type WHERE oid = 'ulid'::regtype").fetchone() == \
            (16, False)
        # the same texts, the same rows, the same references
        assert set(conn.execute("SELECT id::text, name FROM users").fetchall()) == users
        assert set(conn.execute("SELECT id::text, user_id::text, total FROM orders").fetchall()) == orders
        # the time python-ulid put into each id, read by ulid
        times = dict(conn.execute("SELECT id::text, (extract(epoch FROM ulid_timestamp(id)) * 1000)::bigint "
                                  "FROM users").fetchall())
        assert all(times[str(id_)] == id_.milliseconds for id_ in ids)
        assert conn.execute("SELECT bool_and(created_at = ulid_timestamp(id)) FROM users").fetchone() == (True,)
        # ulid's defaults, indexes and a working foreign key
        defaults = dict(conn.execute(
            """SELECT attrelid::regclass::text || '.' || attname, pg_get_expr(adbin, adrelid)
               FROM pg_attrdef JOIN pg_attribute ON attrelid = adrelid AND attnum = adnum
               WHERE attrelid IN ('users'::regclass, 'orders'::regclass)""").fetchall())
        assert defaults == {"users.id": "gen_monotonic_ulid()", "orders.id": "gen_ulid()",
                            "users.created_at": "ulid_timestamp(id)"}
        classes = conn.execute(
            """SELECT c.relname, opc.opcname, am.amname, opc.opcnamespace::regnamespace::text
               FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
               JOIN pg_opclass opc ON opc.oid = x.indclass[0] JOIN pg_am am ON am.oid = opc.opcmethod
               WHERE x.indrelid IN ('users'::regclass, 'orders'::regclass) ORDER BY 1""").fetchall()
        assert classes == [("orders_pkey", "ulid_ops", "btree", "public"),
                           ("orders_user_id_idx", "ulid_ops", "btree", "public"),
                           ("users_pkey", "ulid_ops", "btree", "public")]
        assert conn.execute("SELECT convalidated FROM pg_constraint WHERE contype = 'f'").fetchall() == [(True,)]
        with pytest.raises(errors.ForeignKeyViolation):
            conn.execute("INSERT INTO orders (user_id) VALUES (gen_ulid())")
        # index scans answer as the values say
        conn.execute("SET enable_seqscan = off")
        probe = ids[len(ids) // 2]
        assert conn.execute("SELECT name FROM users WHERE id = %s::ulid", [str(probe)]).fetchone() == \
            (f"made {len(ids) // 2}",)
        assert conn.execute("SELECT count(*) FROM orders WHERE user_id = %s::ulid", [str(probe)]).fetchone() == (2,)
        # new rows take ulid's generators
        (new_id, kind) = conn.execute("INSERT INTO users (name) VALUES ('new') "
                                      "RETURNING id::text, pg_typeof(id)::text").fetchone()
        assert kind == "ulid" and ULID.from_str(new_id).milliseconds > max(i.milliseconds for i in ids)


@pytest.mark.parametrize("user", ["view", "column"])
def test_the_move_stops_and_changes_nothing_when_something_else_uses_pgx_ulid(cluster, pgx_ulid_db, user):
    """What the move does not know of stops it, and the whole transaction
    rolls back: a view on a column it changes (ALTER TABLE refuses), or a
    column of pgx_ulid's type it leaves alone (DROP EXTENSION names it)."""
    with cluster.connect(pgx_ulid_db) as conn:
        if user == "view":
            conn.execute("CREATE VIEW recent AS SELECT id, name FROM users")
            expected, message = errors.FeatureNotSupported, "cannot alter type of a column used by a view or rule"
        else:
            conn.execute("CREATE TABLE notes (user_id ulid, body text)")
            expected, message = errors.DependentObjectsStillExist, \
                "cannot drop extension pgx_ulid because other objects depend on it"
        (move,) = sql_blocks(PAGE, "The move")
        with pytest.raises(expected) as stopped:
            conn.execute(move)
        assert str(stopped.value).startswith(message)
        if user == "column":
            assert "column user_id of table notes depends on type ulid" in stopped.value.diag.message_detail
        conn.execute("ROLLBACK")
        assert extensions(conn) == [("pgx_ulid", "0.2.2")]
        assert conn.execute("SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                            "WHERE attrelid = 'users'::regclass AND attname = 'id'").fetchone() == ("ulid",)
        assert conn.execute("SELECT typlen FROM pg_type WHERE typname = 'ulid'").fetchone() == (-1,)
        assert conn.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f'").fetchone() == (1,)
        assert conn.execute("SELECT count(*) FROM users WHERE created_at IS NOT NULL").fetchone() == (101,)


def test_pgx_ulid_objects_with_ulids_library_fail_by_name(cluster, db):
    """What a database of pgx_ulid 0.1.x (an extension named ulid, library
    $libdir/ulid) says when ulid's files replaced pgx_ulid's before it was
    moved: its functions name symbols that ulid's library does not have.
    (PostgreSQL checks the symbol when a C function is created, so the
    function is made on one of ulid's symbols and then pointed at
    pgx_ulid's, as the replaced file leaves it.)"""
    with cluster.connect(db) as conn:
        conn.execute("CREATE FUNCTION pgx_ulid_out(cstring) RETURNS cstring LANGUAGE c STRICT "
                     "AS '$libdir/ulid', 'ulid_out'")
        conn.execute("UPDATE pg_proc SET prosrc = 'ulid_out_wrapper' WHERE oid = 'pgx_ulid_out'::regproc")
    with cluster.connect(db) as conn:
        (libdir,) = conn.execute("SELECT setting FROM pg_config WHERE name = 'PKGLIBDIR'").fetchone()
        with pytest.raises(errors.UndefinedFunction) as failed:
            conn.execute("SELECT pgx_ulid_out('01JGFJJZ00XHF7E02JJ03AE4T7')")
    assert failed.value.diag.message_primary == f'could not find function "ulid_out_wrapper" in file "{libdir}/ulid.so"'


def test_uuidv7_columns_become_ulid_in_place(conn, major):
    if major < 18:
        pytest.skip(f"core's uuidv7() exists from PostgreSQL 18; this is {major}")
    conn.execute("CREATE TABLE events (id uuid PRIMARY KEY DEFAULT uuidv7(), n int)")
    conn.execute("INSERT INTO events (n) SELECT g FROM generate_series(1, 50000) g")
    before = conn.execute("SELECT id::text, n, uuid_extract_timestamp(id) FROM events ORDER BY id").fetchall()
    (heap,) = conn.execute("SELECT pg_relation_filenode('events')").fetchone()
    conn.execute("ALTER TABLE events ALTER COLUMN id TYPE ulid, ALTER COLUMN id SET DEFAULT gen_monotonic_ulid()")
    assert conn.execute("SELECT pg_relation_filenode('events')").fetchone() == (heap,)
    after = conn.execute("SELECT id::uuid::text, n, ulid_timestamp(id) FROM events ORDER BY id").fetchall()
    # the same bytes, in the same order, with the time core reads from them
    assert after == before
    # core's uuidv7() orders one session's values by when they were made
    assert [n for _, n, _ in after] == list(range(1, 50001))
    # the UUID text still finds its row; new rows follow the old ones
    (text, n) = before[123][:2]
    assert conn.execute("SELECT n FROM events WHERE id = %s::ulid", [text]).fetchone() == (n,)
    conn.execute("INSERT INTO events (n) VALUES (0)")
    assert conn.execute("SELECT n FROM events ORDER BY id DESC LIMIT 1").fetchone() == (0,)
    # and uuidv7() kept as the default gives ids of a ulid column as well
    conn.execute("ALTER TABLE events ALTER COLUMN id SET DEFAULT uuidv7()")
    (made,) = conn.execute("INSERT INTO events (n) VALUES (-1) RETURNING ulid_timestamp(id) - now()").fetchone()
    assert abs(made) < dt.timedelta(seconds=5)
    assert conn.execute("SELECT pg_typeof(id)::text FROM events WHERE n = -1").fetchone() == ("ulid",)
