"""The move to native: a table made with the portable layer becomes a table
of `ulid` columns once the extension is installed, with no rewrite, every
value and its text as they were; and the move back to `uuid`, for a team
that leaves for a server that cannot load the extension: then nothing in
the table refers to the extension, and a dump of it restores where there
is none."""

from __future__ import annotations

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
