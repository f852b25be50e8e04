"""The move to native: a table made with the portable layer becomes a table
of `ulid` columns once the extension is installed, with no rewrite, every
value and its text as they were; and the move back to `uuid`, for a team
that leaves for a server that cannot load the extension: then nothing in
the table refers to the extension, and a dump of it restores where there
is none.

And the application written against the portable layer, before and after
the move: its lookups and time ranges, which compare the column with the
`uuid` values the portable functions return, give the same answers after
it, through the index on the now `ulid` column (the extension's ulid-uuid
operators); its inserts keep the portable default."""

from __future__ import annotations

import psycopg
import psycopg.sql
import pytest

from portable_layer import install_portable


def relfilenode(conn, table):
    return conn.execute("SELECT pg_relation_filenode(%s::regclass)", [table]).fetchone()[0]


def indexes(conn, table):
    return conn.execute("""
        SELECT i.relname, opc.opcname, am.amname
        FROM pg_index x
        JOIN pg_class i ON i.oid = x.indexrelid
        JOIN pg_opclass opc ON opc.oid = x.indclass[0]
        JOIN pg_am am ON am.oid = opc.opcmethod
        WHERE x.indrelid = %s::regclass ORDER BY i.relname""", [table]).fetchall()


def column_of(conn, table):
    return conn.execute("""
        SELECT format_type(a.atttypid, a.atttypmod), pg_get_expr(d.adbin, d.adrelid)
        FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = %s::regclass AND a.attname = 'id'""", [table]).fetchone()


def test_to_native_without_a_rewrite_and_back(cluster, tmp_path):
    db = cluster.create_database("portable_move", extension=False)
    install_portable(cluster, db)
    with cluster.connect(db) as conn:
        conn.execute("""
            CREATE TABLE orders (
                id uuid PRIMARY KEY DEFAULT ulid_portable.gen_monotonic_ulid(),
                total numeric
            );
            CREATE INDEX orders_id_hash ON orders USING hash (id);
            CREATE TABLE order_lines (
                id uuid PRIMARY KEY DEFAULT ulid_portable.gen_ulid(),
                order_id uuid NOT NULL REFERENCES orders (id)
            );
            INSERT INTO orders (total) SELECT g FROM generate_series(1, 20000) g;
            INSERT INTO order_lines (order_id) SELECT id FROM orders;""")
        before = conn.execute(
            "SELECT id::text, ulid_portable.ulid_text(id), total FROM orders ORDER BY total").fetchall()
        heap = relfilenode(conn, "orders")

        conn.execute("CREATE EXTENSION ulid")
        with conn.transaction():
            conn.execute("ALTER TABLE order_lines DROP CONSTRAINT order_lines_order_id_fkey")
            conn.execute("""ALTER TABLE orders ALTER COLUMN id TYPE ulid,
                                               ALTER COLUMN id SET DEFAULT gen_monotonic_ulid()""")
            conn.execute("""ALTER TABLE order_lines ALTER COLUMN order_id TYPE ulid,
                                                    ALTER COLUMN id TYPE ulid,
                                                    ALTER COLUMN id SET DEFAULT gen_ulid()""")
            conn.execute("ALTER TABLE order_lines ADD FOREIGN KEY (order_id) REFERENCES orders (id)")
        assert relfilenode(conn, "orders") == heap, "the table was rewritten"
        assert column_of(conn, "orders") == ("ulid", "gen_monotonic_ulid()")
        assert indexes(conn, "orders") == [("orders_id_hash", "ulid_ops", "hash"), ("orders_pkey", "ulid_ops", "btree")]
        # every value and its text as they were
        after = conn.execute("SELECT id::uuid::text, id::text, total FROM orders ORDER BY total").fetchall()
        assert after == before
        # the indexes answer, and the foreign key holds
        conn.execute("SET enable_seqscan = off")
        some_id, some_total = before[12345][1], before[12345][2]
        plan = "\n".join(r[0] for r in conn.execute(
            "EXPLAIN (COSTS OFF) SELECT total FROM orders WHERE id = %s::ulid", [some_id]))
        assert "Index" in plan, plan
        assert conn.execute("SELECT total FROM orders WHERE id = %s::ulid", [some_id]).fetchone() == (some_total,)
        conn.execute("RESET enable_seqscan")
        assert conn.execute("SELECT count(*) FROM order_lines l JOIN orders o ON o.id = l.order_id").fetchone() == (20000,)
        # new rows from the native default: after every portable one (a later millisecond)
        (newest_old,) = conn.execute("SELECT max(id) FROM orders").fetchone()
        (new,) = conn.execute("INSERT INTO orders (total) VALUES (-1) RETURNING id").fetchone()
        assert str(new) > str(newest_old)
        if cluster.has_extension("amcheck"):
            conn.execute("CREATE EXTENSION amcheck")
            conn.execute("SELECT bt_index_check('orders_pkey', true), bt_index_check('order_lines_pkey', true)")

        # and back
        with conn.transaction():
            conn.execute("ALTER TABLE order_lines DROP CONSTRAINT order_lines_order_id_fkey")
            conn.execute("""ALTER TABLE orders ALTER COLUMN id TYPE uuid,
                                               ALTER COLUMN id SET DEFAULT ulid_portable.gen_monotonic_ulid()""")
            conn.execute("""ALTER TABLE order_lines ALTER COLUMN order_id TYPE uuid,
                                                    ALTER COLUMN id TYPE uuid,
                                                    ALTER COLUMN id SET DEFAULT ulid_portable.gen_ulid()""")
            conn.execute("ALTER TABLE order_lines ADD FOREIGN KEY (order_id) REFERENCES orders (id)")
        assert relfilenode(conn, "orders") == heap
        assert column_of(conn, "orders") == ("uuid", "ulid_portable.gen_monotonic_ulid()")
        assert indexes(conn, "orders") == [("orders_id_hash", "uuid_ops", "hash"), ("orders_pkey", "uuid_ops", "btree")]
        assert conn.execute(
            "SELECT id::text, ulid_portable.ulid_text(id), total FROM orders WHERE total > 0 ORDER BY total").fetchall() == before
        # the portable default again, going on from this session's last value
        (back,) = conn.execute("INSERT INTO orders (total) VALUES (-2) RETURNING id::text").fetchone()
        assert back > max(uuid_text for uuid_text, _, _ in before)
        # nothing of the extension is left in the tables: it drops without CASCADE
        if cluster.has_extension("amcheck"):
            conn.execute("DROP EXTENSION amcheck")
        conn.execute("DROP EXTENSION ulid")

    # a dump of them restores on a server without the extension
    dump = tmp_path / "orders.sql"
    dump_result = cluster.run("pg_dump", "--no-owner", "-t", "orders", "-t", "order_lines", "-f", str(dump), db)
    assert dump_result.returncode == 0
    text = dump.read_text()
    assert "ulid_portable.gen_monotonic_ulid()" in text and "public.ulid" not in text
    target = cluster.create_database("portable_left", extension=False)
    install_portable(cluster, target)
    restored = cluster.run("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", target, "-f", str(dump))
    assert restored.returncode == 0, restored.stderr
    with cluster.connect(target) as conn:
        assert conn.execute("SELECT count(*) FROM orders WHERE total > 0").fetchone() == (20000,)
        assert conn.execute(
            "SELECT id::text, ulid_portable.ulid_text(id), total FROM orders WHERE total > 0 ORDER BY total").fetchall() == before
        conn.execute("INSERT INTO orders (total) VALUES (-3)")
    with cluster.connect() as conn:
        conn.execute(f'DROP DATABASE "{db}" WITH (FORCE)')
        conn.execute(f'DROP DATABASE "{target}" WITH (FORCE)')


# --- the application ---------------------------------------------------------

# What code written against the portable layer runs: ids come in as ULID
# text and go through ulid_parse(), time ranges through
# ulid_from_timestamptz(), new rows take the column's default. Each a
# prepared statement, as drivers with server-side statements run them.
LOOKUP = "SELECT total FROM orders WHERE id = ulid_portable.ulid_parse(%s)"
RANGE = """SELECT count(*), sum(total) FROM orders
           WHERE id >= ulid_portable.ulid_from_timestamptz(%s) AND id < ulid_portable.ulid_from_timestamptz(%s)"""
PAGE = """SELECT total FROM orders
          WHERE id >= ulid_portable.ulid_from_timestamptz(%s) AND id < ulid_portable.ulid_from_timestamptz(%s)
          ORDER BY id LIMIT 20"""
LINES = """SELECT count(*) FROM order_lines l JOIN orders o ON o.id = l.order_id
           WHERE o.id = ulid_portable.ulid_parse(%s)"""
INSERT = "INSERT INTO orders (total) VALUES (%s) RETURNING total"
NEWER = "SELECT count(*) FROM orders WHERE id > ulid_portable.ulid_parse(%s)"

# time windows (the orders are one a second from 2025-01-01 00:00 UTC): an
# hour, ten seconds, the rest of the day, and the day before, which has none
WINDOWS = [("2025-01-01 00:00:00+00", "2025-01-01 01:00:00+00"),
           ("2025-01-01 02:30:00+00", "2025-01-01 02:30:10+00"),
           ("2025-01-01 05:00:00+00", "2025-01-02 00:00:00+00"),
           ("2024-12-31 00:00:00+00", "2025-01-01 00:00:00+00")]


def make_orders(cluster, name: str) -> str:
    """A database with the portable layer and no extension, and a table of
    orders that the portable layer filled, with lines referring to them."""
    db = cluster.create_database(name, extension=False)
    install_portable(cluster, db)
    with cluster.connect(db) as conn:
        conn.execute("""
            CREATE TABLE orders (
                id uuid PRIMARY KEY DEFAULT ulid_portable.gen_monotonic_ulid(),
                total numeric
            );
            INSERT INTO orders
            SELECT ulid_portable.gen_ulid(timestamptz '2025-01-01 00:00:00+00' + g * interval '1 second'), g
            FROM generate_series(0, 19999) g;
            CREATE TABLE order_lines (order_id uuid NOT NULL REFERENCES orders (id), item int);
            INSERT INTO order_lines SELECT id, k FROM orders, generate_series(1, 2) k WHERE total::int % 7 = 0;
            ANALYZE orders, order_lines;""")
    return db


def probes(conn) -> list[str]:
    """ULID texts of some orders, as the application holds them."""
    return [r[0] for r in conn.execute(
        "SELECT ulid_portable.ulid_text(id) FROM orders WHERE total::int % 1999 = 0 ORDER BY total")]


def run_application(conn, ids: list[str]) -> dict:
    """Every read of the application, with the answers it got."""
    answers = {
        "lookup": [conn.execute(LOOKUP, [i], prepare=True).fetchone() for i in ids],
        "range": [conn.execute(RANGE, w, prepare=True).fetchone() for w in WINDOWS],
        "page": [conn.execute(PAGE, w, prepare=True).fetchall() for w in WINDOWS],
        "lines": [conn.execute(LINES, [i], prepare=True).fetchone() for i in ids],
    }
    assert answers["lookup"][0] is not None and answers["range"][0][0] == 3600
    return answers


def plan(conn, sql: str, params=()) -> str:
    return "\n".join(r[0] for r in conn.execute("EXPLAIN (COSTS OFF) " + sql, params))


def generic_plan(conn, sql: str, types: str, params: list) -> str:
    """The plan a prepared statement gets once it is planned for any
    parameter (plan_cache_mode = force_generic_plan)."""
    conn.execute("SET plan_cache_mode = force_generic_plan")
    conn.execute(f"PREPARE app_statement({types}) AS " + sql.replace("%s", "$1", 1).replace("%s", "$2", 1))
    text = plan(conn, psycopg.sql.SQL("EXECUTE app_statement({})").format(
        psycopg.sql.SQL(", ").join(psycopg.sql.Literal(p) for p in params)).as_string(conn))
    conn.execute("DEALLOCATE app_statement")
    conn.execute("RESET plan_cache_mode")
    return text


def test_the_application_reads_the_same_after_the_move(cluster):
    db = make_orders(cluster, "portable_app")
    with cluster.connect(db) as app, cluster.connect(db) as admin:
        ids = probes(app)
        assert len(ids) == 11
        before = run_application(app, ids)
        heap = relfilenode(admin, "orders")

        # only the orders move: the lines keep their uuid column and their
        # foreign key, which compares a uuid with the ulid key
        admin.execute("CREATE EXTENSION ulid")
        admin.execute("ALTER TABLE orders ALTER COLUMN id TYPE ulid")
        assert relfilenode(admin, "orders") == heap, "the table was rewritten"
        assert column_of(admin, "orders")[0] == "ulid"
        assert "ulid_portable.gen_monotonic_ulid()" in column_of(admin, "orders")[1]
        assert admin.execute("""
            SELECT pg_get_constraintdef(oid) FROM pg_constraint
            WHERE conrelid = 'order_lines'::regclass AND contype = 'f'""").fetchone() == (
            "FOREIGN KEY (order_id) REFERENCES orders(id)",)

        # the same session, its statements prepared before the move, and a
        # new one: the same answers
        assert run_application(app, ids) == before
        with cluster.connect(db) as fresh:
            assert run_application(fresh, ids) == before

            # through the ulid column's index, whether planned for the
            # value or for any value
            fresh.execute("SET enable_seqscan = off")
            fresh.execute("SET enable_bitmapscan = off")
            for sql, types, params in [(LOOKUP, "text", [ids[3]]),
                                       (RANGE, "timestamptz, timestamptz", list(WINDOWS[1])),
                                       (PAGE, "timestamptz, timestamptz", list(WINDOWS[0]))]:
                for shown in (plan(fresh, sql, params), generic_plan(fresh, sql, types, params)):
                    assert "Index" in shown and "orders_pkey" in shown, shown
                    assert "Sort" not in shown, shown
            fresh.execute("RESET enable_seqscan")
            fresh.execute("RESET enable_bitmapscan")

        # inserts take the portable default still, after every older order,
        # and the foreign key checks new lines against the ulid key
        (newest,) = admin.execute("SELECT max(id)::text FROM orders").fetchone()
        totals = [app.execute(INSERT, [-n], prepare=True).fetchone() for n in range(1, 6)]
        assert totals == [(-n,) for n in range(1, 6)]
        assert app.execute(NEWER, [newest], prepare=True).fetchone() == (5,)
        app.execute("INSERT INTO order_lines SELECT id, 1 FROM orders WHERE total = -1")
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            app.execute("INSERT INTO order_lines VALUES ('00000000-0000-0000-0000-000000000000', 1)")

        # What does change: the id column itself reads as a ulid, its ULID
        # text, and a statement prepared with it in its result must be
        # prepared again (PostgreSQL refuses a plan whose result type changed).
        (new_id,) = admin.execute("SELECT id FROM orders WHERE total = -1").fetchone()
        assert isinstance(new_id, str) and len(new_id) == 26
    with cluster.connect() as conn:
        conn.execute(f'DROP DATABASE "{db}" WITH (FORCE)')


def test_a_statement_returning_the_id_is_prepared_again_after_the_move(cluster):
    db = make_orders(cluster, "portable_app_ids")
    with cluster.connect(db) as app, cluster.connect(db) as admin:
        returning = "INSERT INTO orders (total) VALUES (%s) RETURNING id"
        (before,) = app.execute(returning, [-1], prepare=True).fetchone()
        assert str(before).count("-") == 4  # a uuid
        admin.execute("CREATE EXTENSION ulid")
        admin.execute("ALTER TABLE orders ALTER COLUMN id TYPE ulid")
        with pytest.raises(psycopg.errors.FeatureNotSupported, match="cached plan must not change result type"):
            app.execute(returning, [-2], prepare=True)
    with cluster.connect(db) as app:
        (after,) = app.execute(returning, [-3], prepare=True).fetchone()
        assert len(after) == 26
        assert app.execute("SELECT %s::ulid > %s::uuid", [after, before]).fetchone() == (True,)
    with cluster.connect() as conn:
        conn.execute(f'DROP DATABASE "{db}" WITH (FORCE)')


def test_the_portable_functions_read_a_ulid_column(cluster):
    """The application's reads that pass the id to the portable functions:
    ulid_portable.ulid_text(ulid) and ulid_portable.ulid_timestamp(ulid),
    which the portable file adds, when it runs where the extension is
    installed, beside the uuid ones, answering as they do for the same 16
    bytes."""
    db = make_orders(cluster, "portable_app_reads")
    reads = {
        "text": "SELECT ulid_portable.ulid_text(id) FROM orders WHERE id = ulid_portable.ulid_parse(%s)",
        "time": "SELECT ulid_portable.ulid_timestamp(id) FROM orders WHERE id = ulid_portable.ulid_parse(%s)",
        "listing": """SELECT ulid_portable.ulid_text(id), ulid_portable.ulid_timestamp(id), total FROM orders
                      WHERE id >= ulid_portable.ulid_from_timestamptz(%s) AND id < ulid_portable.ulid_from_timestamptz(%s)
                      ORDER BY id""",
        "inserted": "INSERT INTO orders (total) VALUES (%s) RETURNING ulid_portable.ulid_text(id), ulid_portable.ulid_timestamp(id)",
    }

    def run(conn, ids):
        answers = {
            "text": [conn.execute(reads["text"], [i]).fetchone() for i in ids],
            "time": [conn.execute(reads["time"], [i]).fetchone() for i in ids],
            "listing": [conn.execute(reads["listing"], w).fetchall() for w in WINDOWS[:2]],
        }
        assert answers["text"] == [(i,) for i in ids]
        return answers

    with cluster.connect(db) as conn:
        ids = probes(conn)
        before = run(conn, ids)
        conn.execute("CREATE EXTENSION ulid")
    install_portable(cluster, db)  # again, now that the type exists: adds the ulid overloads
    with cluster.connect(db) as conn:
        for signature in ("ulid_portable.ulid_text(ulid)", "ulid_portable.ulid_timestamp(ulid)"):
            assert conn.execute("SELECT to_regprocedure(%s) IS NOT NULL", [signature]).fetchone() == (True,), signature
        conn.execute("ALTER TABLE orders ALTER COLUMN id TYPE ulid")
        assert run(conn, ids) == before
        # the same answers as the native type's, and as the uuid functions' for the same bytes
        assert conn.execute("""
            SELECT bool_and(ulid_portable.ulid_text(id) = id::text
                        AND ulid_portable.ulid_text(id) = ulid_portable.ulid_text(id::uuid)
                        AND ulid_portable.ulid_timestamp(id) = ulid_timestamp(id)
                        AND ulid_portable.ulid_timestamp(id) = ulid_portable.ulid_timestamp(id::uuid))
            FROM orders""").fetchone() == (True,)
        text, made = conn.execute(reads["inserted"], [-1]).fetchone()
        assert conn.execute("SELECT id::text, ulid_timestamp(id) FROM orders WHERE total = -1").fetchone() == (text, made)
    with cluster.connect() as conn:
        conn.execute(f'DROP DATABASE "{db}" WITH (FORCE)')
