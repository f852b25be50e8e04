"""What the benchmarks measure: the id variants compared, and the cases (CASES, in running order), each a function
of a `Bench` (measure.py; docs/development.md, "Where to add things").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import partial

from bench import clusters
from bench.measure import Bench, Result
from bench.past_memory import past_memory
from ulidtools.base import ROOT

PORTABLE_SQL = ROOT / "portable" / "ulid_portable.sql"

# The id columns compared: each name is how the variant appears in every table and, but for IDENTITY, begins with
# its column's type and DEFAULT.
IDENTITY = "bigint identity"
V4 = "uuid gen_random_uuid()"
V7_CORE = "uuid uuidv7()"
V7_EXT = "uuid uuid_generate_v7() (pg_uuidv7)"
ULID = "ulid gen_ulid()"
MONO = "ulid gen_monotonic_ulid() (preloaded)"
MONO_SESSION = "ulid gen_monotonic_ulid() (not preloaded)"
COLUMNS = {IDENTITY: "bigint GENERATED ALWAYS AS IDENTITY", **{
    name: "{} DEFAULT {}".format(*name.split()[:2]) for name in (V4, V7_CORE, V7_EXT, ULID, MONO, MONO_SESSION)}}
ON_SESSION_CLUSTER = {MONO_SESSION, "gen_monotonic_ulid() (not preloaded)"}  # run on the cluster without ulid preloaded


def prepare(b: Bench, pg_uuidv7_origin: str) -> None:
    """Before the cases: pg_uuidv7 if installed, a SQL uuidv7() where core has none; fills b.unavailable."""
    if b.version < 18:
        b.unavailable[V7_CORE] = f"PostgreSQL {b.version} has no uuidv7()"
    if b.cluster.has_extension("pg_uuidv7"):
        b.sql("CREATE EXTENSION pg_uuidv7")
        (version,) = b.sql("SELECT extversion FROM pg_extension WHERE extname = 'pg_uuidv7'").fetchone()
        b.pg_uuidv7 = f"pg_uuidv7 {version}: {pg_uuidv7_origin}"
    else:
        why = pg_uuidv7_origin.removeprefix("not available: ")
        b.unavailable[V7_EXT] = f"no pg_uuidv7 for PostgreSQL {b.version} ({why}; see bench/pg_uuidv7)"
    if V7_CORE in b.unavailable:
        # a UUIDv7 (RFC 9562) in SQL; only the growth case uses it, under a variant name of its own
        b.sql("""CREATE FUNCTION uuidv7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
                     SELECT encode(set_byte(set_byte(
                         overlay(r PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint)
                                                     FROM 3) FROM 1 FOR 6),
                         6, (get_byte(r, 6) & 15) | 112), 8, (get_byte(r, 8) & 63) | 128), 'hex')::uuid
                     FROM (SELECT uuid_send(gen_random_uuid()) AS r) s
                 $$""")


def conn_for(b: Bench, variant: str):
    return (b.session_cluster, b.session_conn) if variant in ON_SESSION_CLUSTER else (b.cluster, b.conn)


def id_tables(b: Bench, prefix: str, names: Iterable[str], columns: dict[str, str] = COLUMNS) -> dict[str, str]:
    """A fresh table `id PRIMARY KEY, n int` per variant, on the variant's cluster; returns their names."""
    tables = {}
    for i, name in enumerate(names):
        _, conn = conn_for(b, name)
        tables[name] = f"{prefix}_{i}"
        conn.execute(f"DROP TABLE IF EXISTS {tables[name]}")
        conn.execute(f"CREATE TABLE {tables[name]} (id {columns[name]} PRIMARY KEY, n int)")
    return tables


def table_as(conn, name: str, query: str, unique: tuple[str, ...] = ()) -> None:
    conn.execute(f"DROP TABLE IF EXISTS {name}")
    conn.execute(f"CREATE TABLE {name} AS {query}")
    for column in unique:
        conn.execute(f"CREATE UNIQUE INDEX {name}_{column} ON {name} ({column})")
    conn.execute(f"VACUUM ANALYZE {name}")


def relation_size(b: Bench, relation: str, unit: int = 2**20) -> float:
    return b.sql(f"SELECT pg_relation_size('{relation}')").fetchone()[0] / unit


def lookups(b: Bench, result: Result, queries: dict[str, str]) -> None:
    scripts = {name: f"\\set k random(1, {b.sizes.n})\n{query};\n" for name, query in queries.items()}
    b.interleave(result, {name: partial(b.pgbench, script, 2, b.sizes.pgbench_seconds, prepared=True)
                          for name, script in scripts.items()}, repeats=max(1, b.sizes.repeats - 2))


RANDOM_ULIDS = ("SELECT gen_ulid(timestamptz '1990-01-01' + random() * interval '40 years') AS u "
                "FROM generate_series(1, {n})")


def make_same_bytes(b: Bench) -> None:
    """Table `same`, once per server: N random 128-bit values as ulid (u) and as uuid (v), the same bytes in both."""
    if b.sql("SELECT to_regclass('same')").fetchone()[0] is None:
        table_as(b.conn, "same", f"SELECT u, u::uuid AS v FROM ({RANDOM_ULIDS.format(n=b.sizes.n)}) s")


SAME_BYTES = (("ulid", "u"), ("uuid", "v"))  # (variant, column of table `same`)


def same_bytes(b: Bench, query: str, *before: str) -> dict[str, Callable[[], float]]:
    """Per variant of SAME_BYTES, a run timing QUERY (ms) after BEFORE, each with {c} its column."""
    return {col: b.timer(query.format(c=c), before=tuple(s.format(c=c) for s in before)) for col, c in SAME_BYTES}


def generation(b: Bench) -> None:
    n = b.sizes.gen
    funcs = {name: name.split(" (")[0] for name in (
        "clock_timestamp()", "gen_ulid()", "gen_monotonic_ulid() (preloaded)", "gen_monotonic_ulid() (not preloaded)",
        "gen_random_uuid()", "uuidv7()", "uuid_generate_v7() (pg_uuidv7)")}
    missing = {name: b.unavailable[v] for name, v in (("uuidv7()", V7_CORE), ("uuid_generate_v7() (pg_uuidv7)", V7_EXT))
               if v in b.unavailable}
    # the uuid generators are far slower per call: a quarter of the calls measures them as well and keeps each
    # round short, so one round's fast variants run close together in time
    calls = {name: n // 4 if "uuid" in name else n for name in funcs}
    runs = {name: b.timer(f"SELECT count({f}) FROM generate_series(1, {calls[name]})", 1e9 / calls[name],
                          conn_for(b, name)[1])
            for name, f in funcs.items() if name not in missing}
    note = (f"{n:,} calls per measurement, {n // 4:,} for the uuid generators; (not preloaded) runs on "
            "a second cluster with the same settings but without shared_preload_libraries, every other "
            "variant on the benchmark cluster, which preloads ulid")
    generated = b.interleave(
        Result("generate one value (SELECT count(f()) FROM generate_series)", "ns/call",
               baseline="gen_random_uuid()", note=note, key="gen", missing=missing),
        runs, repeats=3 * b.sizes.repeats, warmup=True)  # cheap and noisy: three times the usual rounds
    b.add(Result("generate one value, against the floor of a volatile call", "ns/call",
                 baseline="clock_timestamp()", values=generated.values, key="gen-floor", missing=missing))
    if "uuid_generate_v7() (pg_uuidv7)" not in missing:
        b.add(Result("generate one value, against pg_uuidv7", "ns/call",
                     baseline="uuid_generate_v7() (pg_uuidv7)", values=generated.values, key="gen-pg_uuidv7",
                     missing=missing))


def insert_default(b: Bench) -> None:
    n = b.sizes.insert
    names, missing = b.split([IDENTITY, V4, V7_CORE, V7_EXT, ULID, MONO])
    # an empty table and a clean buffer pool each round, so that no round writes out the last one's dirty pages
    b.interleave(
        Result(f"INSERT {n:,} rows with a DEFAULT id, one statement (primary key)", "ms",
               baseline=IDENTITY, key="insert", missing=missing,
               note="each round into an empty table, after a CHECKPOINT"),
        {name: b.timer(f"INSERT INTO {table} (n) SELECT g FROM generate_series(1, {n}) g",
                       before=(f"TRUNCATE {table}", "CHECKPOINT"))
         for name, table in id_tables(b, "ins", names).items()})


def client_sweep(b: Bench) -> None:
    """pgbench INSERT of one row with a DEFAULT id at growing client counts, each point from an empty table after
    a checkpoint; a count's rounds run together, the variants' order rotated each round."""
    seconds = b.sizes.sweep_seconds
    names, missing = b.split([IDENTITY, V4, V7_CORE, V7_EXT, ULID, MONO, MONO_SESSION])
    tables = id_tables(b, "sweep", names)

    def point(name, clients):
        cluster, conn = conn_for(b, name)
        conn.execute(f"TRUNCATE {tables[name]}")
        conn.execute("CHECKPOINT")
        return b.pgbench(f"INSERT INTO {tables[name]} (n) VALUES (1);\n", clients, seconds, cluster=cluster)

    for clients in b.sizes.clients:
        b.sweep[clients] = Result(
            f"pgbench INSERT with a DEFAULT id, {clients} client{'s' if clients > 1 else ''}, {seconds} s",
            "tps", baseline=IDENTITY, key=f"sweep-{clients}", missing=missing)
        for r in range(b.sizes.sweep_repeats):
            shift = r % len(names)
            for name in names[shift:] + names[:shift]:
                b.sweep[clients].add(name, point(name, clients))


def sort_and_index(b: Bench) -> None:
    make_same_bytes(b)
    n = b.sizes.n
    for key, what, runs in (
            ("sort", "ORDER BY", same_bytes(b, "SELECT count(*) FROM (SELECT {c} FROM same ORDER BY {c}) s")),
            ("index", "CREATE INDEX",
             same_bytes(b, "CREATE INDEX same_{c} ON same ({c})", "DROP INDEX IF EXISTS same_{c}"))):
        b.interleave(Result(f"{what} over {n:,} random values", "ms", key=key), runs, repeats=2 * b.sizes.repeats,
                     warmup=True)
    b.add(Result(f"btree size over {n:,} random values (CREATE INDEX)", "MB", key="btree-size",
                 values={col: [relation_size(b, f"same_{c}")] for col, c in SAME_BYTES}))


def text_and_binary_io(b: Bench) -> None:
    make_same_bytes(b)
    n = b.sizes.n
    workdir = b.cluster.dir  # a place the server may read and write
    for col, c in SAME_BYTES:
        b.sql(f"DROP TABLE IF EXISTS load_{c}")
        b.sql(f"CREATE TABLE load_{c} ({c} {col})")
        b.sql(f"COPY (SELECT {c} FROM same) TO '{workdir}/{c}.txt'")
        b.sql(f"COPY (SELECT {c} FROM same) TO '{workdir}/{c}.bin' (FORMAT binary)")
    for key, title, query, *before in (
            ("text-out", "text output: SELECT count(id::text) over", "SELECT count({c}::text) FROM same"),
            ("copy-text-out", "text output: COPY TO over", "COPY (SELECT {c} FROM same) TO '/dev/null'"),
            ("text-in", "text input: COPY FROM of", f"COPY load_{{c}} FROM '{workdir}/{{c}}.txt'", "TRUNCATE load_{c}"),
            ("bin-out", "binary COPY TO of", "COPY (SELECT {c} FROM same) TO '/dev/null' (FORMAT binary)"),
            ("bin-in", "binary COPY FROM of", f"COPY load_{{c}} FROM '{workdir}/{{c}}.bin' (FORMAT binary)",
             "TRUNCATE load_{c}")):
        b.interleave(Result(f"{title} {n:,} rows", "ms", key=key), same_bytes(b, query, *before))


def point_lookups(b: Bench) -> None:
    """One row by id. The key is md5(k) as a uuid (relabelled for ulid); bigint's is k, with the same md5 computed
    and multiplied by zero, so every variant does the same work."""
    n = b.sizes.n
    table_as(b.conn, "lookup", "SELECT k, k::bigint AS b, md5(k::text)::uuid::ulid AS u, md5(k::text)::uuid AS v "
             f"FROM generate_series(1, {n}) k", unique=("b", "u", "v"))
    lookups(b, Result(f"point lookups by id, pgbench -M prepared, 2 clients, {n:,} rows", "tps",
                      baseline="bigint", key="lookup", note=f"{b.sizes.pgbench_seconds} s per run"),
            {"bigint": "SELECT k FROM lookup WHERE b = :k + 0 * length(md5(:k::text))",
             "ulid": "SELECT k FROM lookup WHERE u = md5(:k::text)::uuid::ulid",
             "uuid": "SELECT k FROM lookup WHERE v = md5(:k::text)::uuid"})


def time_range(b: Bench) -> None:
    """A one-hour range out of 30 days of time-ordered ids, through a btree and a BRIN; uuid holds the same bytes."""
    n = b.sizes.n
    table_as(b.conn, "timeline", "SELECT u, u::uuid AS v, g AS payload FROM ("
             f"SELECT g, gen_ulid(timestamptz '2025-01-01' + g * (interval '30 days' / {n})) AS u "
             f"FROM generate_series(1, {n}) g) s")
    lo = "'2025-01-15 12:00+00'::timestamptz::ulid"
    hi = "'2025-01-15 13:00+00'::timestamptz::ulid"
    queries = {
        "ulid": f"SELECT count(payload) FROM timeline WHERE u >= {lo} AND u < {hi}",
        "uuid": f"SELECT count(payload) FROM timeline WHERE v >= {lo}::uuid AND v < {hi}::uuid",
    }
    counts = {k: b.sql(q).fetchone()[0] for k, q in queries.items()}
    assert counts["ulid"] == counts["uuid"] > 0, counts
    for kind in ("btree", "BRIN"):
        b.sql("DROP INDEX IF EXISTS timeline_u, timeline_v")
        for _, c in SAME_BYTES:
            b.sql(f"CREATE INDEX timeline_{c} ON timeline USING {kind.lower()} ({c})")
        b.sql("ANALYZE timeline")
        for q in queries.values():
            plan = "\n".join(r[0] for r in b.sql("EXPLAIN " + q).fetchall())
            assert "timeline_" in plan, plan
            b.sql(q)  # warm the cache
        b.interleave(Result(f"one hour of 30 days ({counts['ulid']:,} of {n:,} rows) via {kind}", "ms",
                            key=f"range-{kind.lower()}"),
                     {k: b.timer(q) for k, q in queries.items()}, repeats=b.sizes.repeats * 4)
    b.add(Result(f"BRIN size over {n:,} time-ordered rows", "kB", key="brin-size",
                 values={col: [relation_size(b, f"timeline_{c}", 1024)] for col, c in SAME_BYTES}))


def growth(b: Bench) -> None:
    """Index size and insert rate per variant as a table grows to N, batch by batch (b.series["growth"])."""
    n, steps = b.sizes.n, b.sizes.growth_steps
    batch = n // steps
    v7 = "uuid v7 (uuidv7)" if V7_CORE not in b.unavailable else "uuid v7 (a SQL function: this server has no uuidv7)"
    candidates = {"ulid (gen_monotonic_ulid)": COLUMNS[MONO], "uuid v4 (gen_random_uuid)": COLUMNS[V4],
                  v7: COLUMNS[V7_CORE], "uuid v7 (pg_uuidv7)": COLUMNS[V7_EXT], "bigint identity": COLUMNS[IDENTITY]}
    missing = {"uuid v7 (pg_uuidv7)": b.unavailable[V7_EXT]} if V7_EXT in b.unavailable else {}
    variants = {k: v for k, v in candidates.items() if k not in missing}
    tables = id_tables(b, "grow", variants, variants)
    rows = []
    for step in range(1, steps + 1):
        row = [step * batch]
        for table in tables.values():
            seconds = b.timer(f"INSERT INTO {table} (n) SELECT g FROM generate_series(1, {batch}) g", 1)()
            row += [batch / seconds, relation_size(b, f"{table}_pkey")]
        rows.append(row)
    final = Result(f"primary key size after {n:,} inserts of DEFAULT ids", "MB", baseline="bigint identity",
                   key="pk-size", missing=missing,
                   values={name: [rows[-1][2 + 2 * i]] for i, name in enumerate(tables)})
    b.add(final, Result(f"table size after {n:,} inserts of DEFAULT ids", "MB", baseline="bigint identity",
                        key="table-size", missing=missing,
                        values={name: [relation_size(b, table)] for name, table in tables.items()}))
    if "uuid v7 (pg_uuidv7)" in variants:
        b.add(Result(f"primary key size after {n:,} inserts, against pg_uuidv7", "MB",
                     baseline="uuid v7 (pg_uuidv7)", values=final.values, key="pk-size-v7"))
    # each row: rows in the table, then per variant rows/s of the last batch and primary key MB
    b.series["growth"] = {"n": n, "variants": list(variants), "rows": rows}


# AES keys for the public-id cases, written into their SQL as constants: the call site expands a key once, as it
# would read it once from a table through a SECURITY DEFINER function.
PUBLIC_ID_KEY = "'\\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::bytea"
PUBLIC_ID_KEY_128 = "'\\x000102030405060708090a0b0c0d0e0f'::bytea"
PGCRYPTO = "pgcrypto encrypt(u::bytea, key, 'aes-ecb/pad:none')"


def public_ids(b: Bench) -> None:
    """ulid_encrypt() and ulid_decrypt() per call over the ids of a table (so no call is folded into a constant),
    and a point lookup by public id."""
    make_same_bytes(b)
    n = b.sizes.n
    funcs = {
        "count(u) (the scan alone)": "u",
        "gen_ulid()": "gen_ulid()",
        "ulid_encrypt(u, key)": f"ulid_encrypt(u, {PUBLIC_ID_KEY})",
        "ulid_decrypt(u, key)": f"ulid_decrypt(u, {PUBLIC_ID_KEY})",
        "ulid_encrypt(u, key), AES-128": f"ulid_encrypt(u, {PUBLIC_ID_KEY_128})",
        PGCRYPTO: f"encrypt(u::bytea, {PUBLIC_ID_KEY}, 'aes-ecb/pad:none')",
    }
    missing = {}
    if b.cluster.has_extension("pgcrypto"):
        b.sql("CREATE EXTENSION IF NOT EXISTS pgcrypto")
    else:
        missing[PGCRYPTO] = f"this build of PostgreSQL {b.version} has no pgcrypto"
    b.interleave(
        Result("public ids: one call per row of a table (SELECT count(f(u)) FROM same)", "ns/call",
               baseline="gen_ulid()", key="public-ids", missing=missing,
               note=f"{n:,} rows per measurement; an AES-256 key (AES-128 where the variant says so), "
                    "the same on every row"),
        {name: b.timer(f"SELECT count({f}) FROM same", 1e9 / n) for name, f in funcs.items() if name not in missing},
        repeats=3 * b.sizes.repeats, warmup=True)

    # lookups by public id: md5(k) as a ulid; the table holds the ids behind them, same md5 either way
    table_as(b.conn, "by_public_id", f"""SELECT k, md5(k::text)::uuid::ulid AS plain,
                                                ulid_decrypt(md5(k::text)::uuid::ulid, {PUBLIC_ID_KEY}) AS id
                                         FROM generate_series(1, {n}) k""", unique=("plain", "id"))
    plan = " / ".join(row[0].strip() for row in b.sql(
        "EXPLAIN (COSTS OFF) SELECT k FROM by_public_id "
        f"WHERE id = ulid_decrypt(md5('7')::uuid::ulid, {PUBLIC_ID_KEY})"))
    lookups(b, Result(f"point lookups by public id, pgbench -M prepared, 2 clients, {n:,} rows", "tps",
                      baseline="WHERE id = $1", key="public-id-lookup",
                      note=f"{b.sizes.pgbench_seconds} s per run; the plan: {plan}"),
            {"WHERE id = $1": "SELECT k FROM by_public_id WHERE plain = md5(:k::text)::uuid::ulid",
             "WHERE id = ulid_decrypt($1, key)":
                 f"SELECT k FROM by_public_id WHERE id = ulid_decrypt(md5(:k::text)::uuid::ulid, {PUBLIC_ID_KEY})"})


TS_BASE = "bigint identity + timestamptz"
TS_ULID = "ulid column (partition_func ulid_timestamp)"
TS_UUID = "uuid column, ulid.layout = uuidv7"
TS_TABLES = {
    TS_BASE: ("ts_base", "id bigint GENERATED ALWAYS AS IDENTITY, ts timestamptz NOT NULL DEFAULT now(), v int, "
                         "PRIMARY KEY (id, ts)", "by_range('ts', INTERVAL '1 day')"),
    TS_ULID: ("ts_ulid", "id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), v int",
              "by_range('id', INTERVAL '1 day', partition_func => 'ulid_timestamp')"),
    TS_UUID: ("ts_uuid", "id uuid PRIMARY KEY DEFAULT gen_monotonic_ulid(), v int", "by_range('id', INTERVAL '1 day')"),
}
# the last day of 30 in each query shape: (variant, table, condition); {bound} is that instant as a
# constant, computed once before the rounds (a bound known when the query is planned)
TS_LAST_DAY = [
    (f"{TS_BASE}: ts >= now() - 1 day", TS_BASE, "ts >= now() - interval '1 day'"),
    (f"{TS_ULID}: ulid_timestamp(id) >= now() - 1 day", TS_ULID, "ulid_timestamp(id) >= now() - interval '1 day'"),
    (f"{TS_ULID}: id >= (now() - 1 day)::ulid", TS_ULID, "id >= (now() - interval '1 day')::ulid"),
    (f"{TS_ULID}: both bounds", TS_ULID,
     "ulid_timestamp(id) >= now() - interval '1 day' AND id >= (now() - interval '1 day')::ulid"),
    (f"{TS_UUID}: id >= (now() - 1 day)::ulid::uuid", TS_UUID, "id >= (now() - interval '1 day')::ulid::uuid"),
    (f"{TS_BASE}: ts >= a constant", TS_BASE, "ts >= '{bound}'"),
    (f"{TS_ULID}: id >= a constant::ulid", TS_ULID, "id >= '{bound}'::timestamptz::ulid"),
]


def timescaledb(b: Bench) -> None:
    """Daily hypertables on Debian's PostgreSQL 18 with Debian's TimescaleDB and ulid's Debian package of this
    build: INSERT with a DEFAULT id, and the last day of 30 in each query shape, with the chunks each reads."""
    if b.version != int(clusters.TIMESERIES_MAJOR):
        why = f"Debian's TimescaleDB is for PostgreSQL {clusters.TIMESERIES_MAJOR}: measured in its run"
        b.add(Result("TimescaleDB: INSERT with a DEFAULT id", "ms", baseline=TS_BASE, key="ts-insert",
                     missing={name: why for name in TS_TABLES}),
              Result("TimescaleDB: the last day of 30", "ms", baseline=TS_LAST_DAY[0][0], key="ts-last-day",
                     missing={name: why for name, _, _ in TS_LAST_DAY}))
        return
    n, rows = b.sizes.insert, b.sizes.n
    with clusters.timeseries_cluster(b.release) as server:
        server.create_database(b.dbname)
        with server.connect(b.dbname) as conn:
            (timescaledb,) = conn.execute("SELECT default_version FROM pg_available_extensions "
                                          "WHERE name = 'timescaledb'").fetchone()
            conn.execute("CREATE EXTENSION timescaledb")
            for table, columns, dimension in TS_TABLES.values():
                conn.execute(f"CREATE TABLE {table} ({columns})")
                conn.execute(f"SELECT create_hypertable('{table}', {dimension})")
            b.interleave(
                Result(f"TimescaleDB: INSERT {n:,} rows with a DEFAULT id into a daily hypertable", "ms",
                       baseline=TS_BASE, key="ts-insert",
                       note=f"TimescaleDB {timescaledb} on Debian's PostgreSQL 18; each round into an empty "
                            "hypertable, after a CHECKPOINT"),
                {name: b.timer(f"INSERT INTO {table} (v) SELECT g FROM generate_series(1, {n}) g", conn=conn,
                               before=(f"TRUNCATE {table}", "CHECKPOINT",
                                       f"SET ulid.layout = {'uuidv7' if name == TS_UUID else 'ulid'}"))
                 for name, (table, _, _) in TS_TABLES.items()})

            # 30 days up to now, the same instants in every table
            for table, _, _ in TS_TABLES.values():
                conn.execute(f"TRUNCATE {table}")
            conn.execute(f"""CREATE TABLE instants AS
                             SELECT now() - (g::float8 / {rows}) * interval '30 days' AS t
                             FROM generate_series(1, {rows}) g""")
            conn.execute("INSERT INTO ts_base (ts, v) SELECT t, 1 FROM instants")
            conn.execute("INSERT INTO ts_ulid (id, v) SELECT gen_ulid(t), 1 FROM instants")
            conn.execute("SET ulid.layout = uuidv7")
            conn.execute("INSERT INTO ts_uuid (id, v) SELECT gen_ulid(t), 1 FROM instants")
            conn.execute("VACUUM ANALYZE")
            (bound,) = conn.execute("SELECT (now() - interval '1 day')::text").fetchone()
            queries, read = {}, {}
            for name, table_of, condition in TS_LAST_DAY:
                table = TS_TABLES[table_of][0]
                queries[name] = f"SELECT count(*) FROM {table} WHERE {condition.format(bound=bound)}"
                plan = "\n".join(r[0] for r in conn.execute(
                    "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) " + queries[name]))
                scanned = len(re.findall(r"Scan(?: using \S+)? on _hyper_\d+_\d+_chunk", plan))
                (chunks,) = conn.execute(f"SELECT count(*) FROM show_chunks('{table}')").fetchone()
                read[name] = f"{scanned} of {chunks} chunks"
            b.interleave(
                Result(f"TimescaleDB: count(*) of the last day of 30 ({rows:,} rows)", "ms",
                       baseline=TS_LAST_DAY[0][0], key="ts-last-day",
                       note="chunks read: " + "; ".join(f"{name}: {r}" for name, r in read.items())),
                {name: b.timer(query, conn=conn) for name, query in queries.items()},
                repeats=2 * b.sizes.repeats, warmup=True)


PORTABLE_MONO_TABLE = "ulid_portable.gen_monotonic_ulid(), its state in a temporary table"
# The one-line generator people paste (pgcrypto's gen_random_bytes): the floor for a SQL-only gen_ulid(), though
# it checks neither the range nor ulid.layout.
ONE_LINER = ("(lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0') "
             "|| encode(gen_random_bytes(10), 'hex'))::uuid")
ONE_LINER_NAME = "the common one-line SQL generator (pgcrypto)"
# lengths of bad input to ulid_portable.ulid_parse, whose time per character must not grow with them
BAD_INPUT_LENGTHS = (1_000, 10_000, 100_000, 1_000_000)
# The temporary-table variant updates one row again and again in a transaction, so each call reads through all
# the row's earlier versions and costs more than the last: at most this many calls a statement.
PORTABLE_MONO_TABLE_CALLS = 2_000


def monotonic_in_a_table(conn) -> str:
    """The portable gen_monotonic_ulid() with its state in a temporary table (SELECT, then UPDATE) instead of a
    setting: the alternative the layer did not take. Returns the call."""
    (source,) = conn.execute(
        "SELECT pg_get_functiondef('ulid_portable.gen_monotonic_ulid()'::regprocedure)").fetchone()
    conn.execute("DROP TABLE IF EXISTS pg_temp.monotonic_state")
    conn.execute("CREATE TEMP TABLE monotonic_state (last text)")
    conn.execute("INSERT INTO pg_temp.monotonic_state VALUES ('')")
    conn.execute("""CREATE OR REPLACE FUNCTION pg_temp.remember(value text, is_local bool) RETURNS text
                    LANGUAGE sql AS $$ UPDATE pg_temp.monotonic_state SET last = value RETURNING last $$""")
    edits = [("ulid_portable.gen_monotonic_ulid()", "pg_temp.monotonic_in_a_table()"),
             ("pg_catalog.current_setting('ulid_portable.monotonic_last'::pg_catalog.text, true)",
              "(SELECT last FROM pg_temp.monotonic_state)"),
             ("pg_catalog.set_config('ulid_portable.monotonic_last'::pg_catalog.text,", "pg_temp.remember(")]
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new)
    conn.execute(source)
    return "pg_temp.monotonic_in_a_table()"


def portable(b: Bench) -> None:
    """The portable layer against the extension, per call, on the cluster without ulid preloaded. A tenth of the
    generation case's calls: a portable call takes microseconds."""
    cluster, conn = b.session_cluster, b.session_conn
    cluster.run("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", b.dbname, "-f", str(PORTABLE_SQL))
    n = b.sizes.gen // 10
    pgcrypto = cluster.has_extension("pgcrypto")
    if pgcrypto:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pgcrypto")
    funcs = {
        "clock_timestamp()": ("clock_timestamp()", n),
        "gen_random_uuid()": ("gen_random_uuid()", n),
        "gen_ulid()": ("gen_ulid()", n),
        "ulid_portable.gen_ulid()": ("ulid_portable.gen_ulid()", n),
        **({ONE_LINER_NAME: (ONE_LINER, n)} if pgcrypto else {}),
        "gen_monotonic_ulid() (not preloaded)": ("gen_monotonic_ulid()", n),
        "ulid_portable.gen_monotonic_ulid()": ("ulid_portable.gen_monotonic_ulid()", n),
        PORTABLE_MONO_TABLE: (monotonic_in_a_table(conn), min(n, PORTABLE_MONO_TABLE_CALLS)),
    }
    generated = b.interleave(
        Result("portable layer: generate one value (SELECT count(f()) FROM generate_series)", "ns/call",
               baseline="gen_random_uuid()", key="portable-gen",
               note=f"{n:,} calls per measurement, {min(n, PORTABLE_MONO_TABLE_CALLS):,} for the temporary-table "
                    "variant (its cost per call grows with the calls before it in a transaction); on the cluster "
                    "without ulid preloaded"),
        {name: b.timer(f"SELECT count({f}) FROM generate_series(1, {calls})", 1e9 / calls, conn)
         for name, (f, calls) in funcs.items()},
        repeats=3 * b.sizes.repeats, warmup=True)
    if not pgcrypto:
        generated.missing[ONE_LINER_NAME] = f"PostgreSQL {b.version} here has no pgcrypto"

    b.interleave(
        Result("portable layer: ulid_parse of bad input, time per character by length", "ns/char",
               baseline=f"{BAD_INPUT_LENGTHS[0]:,} characters", key="portable-bad-input",
               note="each input is that many letters and a non-ASCII character last, refused with 22P02; "
                    "the time per character stays flat when parsing is linear in the length"),
        {f"{length:,} characters": b.timer(f"""DO $$ BEGIN
                                                   PERFORM ulid_portable.ulid_parse(repeat('a', {length}) || 'é');
                                               EXCEPTION WHEN invalid_text_representation THEN NULL;
                                               END $$""", 1e9 / length, conn)
         for length in BAD_INPUT_LENGTHS},
        warmup=True)

    table_as(conn, "portable_same", f"SELECT u, u::uuid AS v, u::text AS t FROM ({RANDOM_ULIDS.format(n=n)}) s")
    for key, title, native, port in (
        ("portable-text-out", "text out", ("ulid::text", "u::text"),
         ("ulid_portable.ulid_text(uuid)", "ulid_portable.ulid_text(v)")),
        ("portable-text-in", "text in", ("text::ulid", "t::ulid"),
         ("ulid_portable.ulid_parse(text)", "ulid_portable.ulid_parse(t)")),
        ("portable-timestamp", "the timestamp", ("ulid_timestamp(ulid)", "ulid_timestamp(u)"),
         ("ulid_portable.ulid_timestamp(uuid)", "ulid_portable.ulid_timestamp(v)")),
    ):
        b.interleave(
            Result(f"portable layer: {title}, one call per row of a table of {n:,} values", "ns/call",
                   baseline=native[0], key=key),
            {name: b.timer(f"SELECT count({f}) FROM portable_same", 1e9 / n, conn) for name, f in (native, port)},
            repeats=3 * b.sizes.repeats, warmup=True)


# The cases in running order; the name is the step's in progress lines and latest.json's durations.
CASES: list[tuple[str, Callable[[Bench], None]]] = [
    (case.__name__, case) for case in (generation, insert_default, client_sweep, sort_and_index, text_and_binary_io,
                                       point_lookups, public_ids, portable, timescaledb, time_range, growth,
                                       past_memory)
]
# Cases run only when named (--case): past_memory takes tens of minutes and gigabytes of disk.
NAMED_ONLY = {"past_memory"}
