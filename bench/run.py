"""Benchmarks: ulid against what users would pick instead, side by side, in one run.

Builds the extension in release mode, installs pg_uuidv7 where it can be
had (bench/pg_uuidv7), starts a private cluster tuned for benchmarking and
a second one, identical but without ulid preloaded, runs every case several
times interleaved (A B A B ...) and prints tables of medians and ratios.
This machine is shared and noisy, so only ratios measured in the same run
mean anything; absolute times drift.

The alternatives: a bigint identity column (the baseline of the INSERT,
primary-key size and lookup cases), gen_random_uuid() (uuid v4), uuidv7()
(core's, PostgreSQL 18 and later) and uuid_generate_v7() from pg_uuidv7.

    bench/run [--pg VERSION ...] [--quick] [--out DIR] [--no-build]
    bench/run --readme [--out DIR]     the README's performance section, from DIR/latest.json

--quick runs tiny sizes once, to check that the runner works (CI does
this; it asserts nothing about timings).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from harness.pgcluster import Cluster  # noqa: E402

# Settings of the benchmark cluster. fsync stays on; commits are
# asynchronous so that pgbench measures the server, not this machine's disk.
SETTINGS = {
    "shared_preload_libraries": "ulid",
    "shared_buffers": "2GB",
    "work_mem": "512MB",
    "maintenance_work_mem": "1GB",
    "max_wal_size": "16GB",
    "checkpoint_timeout": "1h",
    "synchronous_commit": "off",
    "max_parallel_workers_per_gather": "0",
    "max_parallel_maintenance_workers": "0",
    "jit": "off",
    "autovacuum": "off",
}
# The second cluster: gen_monotonic_ulid() keeps its state per session when
# ulid is not preloaded, and only a server started without it shows that.
SESSION_SETTINGS = {**SETTINGS, "shared_preload_libraries": ""}

# The id columns compared. Each name is how a variant appears in every table.
IDENTITY = "bigint identity"
V4 = "uuid gen_random_uuid()"
V7_CORE = "uuid uuidv7()"
V7_EXT = "uuid uuid_generate_v7() (pg_uuidv7)"
ULID = "ulid gen_ulid()"
MONO = "ulid gen_monotonic_ulid() (preloaded)"
MONO_SESSION = "ulid gen_monotonic_ulid() (not preloaded)"
COLUMNS = {
    IDENTITY: "bigint GENERATED ALWAYS AS IDENTITY",
    V4: "uuid DEFAULT gen_random_uuid()",
    V7_CORE: "uuid DEFAULT uuidv7()",
    V7_EXT: "uuid DEFAULT uuid_generate_v7()",
    ULID: "ulid DEFAULT gen_ulid()",
    MONO: "ulid DEFAULT gen_monotonic_ulid()",
    MONO_SESSION: "ulid DEFAULT gen_monotonic_ulid()",
}


# How often one version's run is started again when ulid is reinstalled under it.
ATTEMPTS = 4


@dataclass
class Sizes:
    n: int  # rows for sort, index, COPY cases
    gen: int  # calls per generation measurement
    insert: int  # rows per single-statement INSERT
    growth_steps: int
    pgbench_seconds: int
    repeats: int
    clients: tuple[int, ...]  # client counts of the INSERT sweep
    sweep_seconds: int  # pgbench time per point of the sweep
    sweep_repeats: int


FULL = Sizes(n=2_000_000, gen=2_000_000, insert=1_000_000, growth_steps=20, pgbench_seconds=5, repeats=5,
             clients=(1, 2, 4, 8, 16, 32), sweep_seconds=2, sweep_repeats=5)
QUICK = Sizes(n=20_000, gen=20_000, insert=10_000, growth_steps=4, pgbench_seconds=1, repeats=1,
              clients=(1, 2, 32), sweep_seconds=1, sweep_repeats=1)


@dataclass
class Result:
    case: str
    unit: str  # what the numbers mean, e.g. "ns/row", "ms", "tps", "MB"
    values: dict[str, list[float]] = field(default_factory=dict)
    baseline: str = "uuid"
    note: str = ""
    key: str = ""  # a short name the README summary finds the case by
    missing: dict[str, str] = field(default_factory=dict)  # variant -> why this server has no numbers

    def add(self, variant: str, value: float) -> None:
        self.values.setdefault(variant, []).append(value)

    def median(self, variant: str) -> float:
        return statistics.median(self.values[variant])

    def ratio(self, variant: str, baseline: str | None = None) -> float:
        return self.median(variant) / self.median(baseline or self.baseline)


class Bench:
    def __init__(self, cluster: Cluster, session_cluster: Cluster, sizes: Sizes):
        self.cluster = cluster
        self.session_cluster = session_cluster
        self.version = cluster.version
        self.sizes = sizes
        self.results: list[Result] = []
        self.sweep: dict[int, Result] = {}
        self.db = cluster.create_database("bench")
        self.conn = cluster.connect(self.db)
        session_cluster.create_database("bench")
        self.session_conn = session_cluster.connect("bench")
        self.has_uuidv7 = self.version >= 18
        # why a variant has no numbers on this server
        self.unavailable: dict[str, str] = {}
        if not self.has_uuidv7:
            self.unavailable[V7_CORE] = f"PostgreSQL {self.version} has no uuidv7()"
        # what bench/pg_uuidv7 recorded: where this server's copy came from, or why there is none
        cache = Path(os.environ.get("ULID_PG_UUIDV7_CACHE", ROOT / "target" / "pg_uuidv7"))
        status = cache / f"status-{cluster.build}"
        self.pg_uuidv7_origin = status.read_text().strip() if status.exists() else "origin not recorded"
        if cluster.has_extension("pg_uuidv7"):
            self.sql("CREATE EXTENSION pg_uuidv7")
            (version,) = self.sql("SELECT extversion FROM pg_extension WHERE extname = 'pg_uuidv7'").fetchone()
            self.pg_uuidv7 = f"pg_uuidv7 {version}: {self.pg_uuidv7_origin}"
        else:
            self.pg_uuidv7 = None
            why = self.pg_uuidv7_origin.removeprefix("not available: ")
            self.unavailable[V7_EXT] = f"no pg_uuidv7 for PostgreSQL {self.version} ({why}; see bench/pg_uuidv7)"
        if not self.has_uuidv7:
            # A UUIDv7 (RFC 9562) built in SQL for servers without uuidv7():
            # 48-bit millisecond timestamp, version 7, variant bits, random.
            # Only the growth case uses it, under a name of its own.
            self.sql(
                """
                CREATE FUNCTION uuidv7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
                    SELECT encode(set_byte(set_byte(
                        overlay(r PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint)
                                                    FROM 3) FROM 1 FOR 6),
                        6, (get_byte(r, 6) & 15) | 112), 8, (get_byte(r, 8) & 63) | 128), 'hex')::uuid
                    FROM (SELECT uuid_send(gen_random_uuid()) AS r) s
                $$
                """
            )

    def sql(self, query: str, params=()):
        return self.conn.execute(query, params)

    def timed(self, query: str, params=(), conn: psycopg.Connection | None = None) -> float:
        """Wall time of one statement, in seconds."""
        conn = conn or self.conn
        start = time.perf_counter()
        conn.execute(query, params)
        return time.perf_counter() - start

    def split(self, names: list[str]) -> tuple[list[str], dict[str, str]]:
        """The variants this server has, and why the others are missing."""
        present = [n for n in names if n not in self.unavailable]
        return present, {n: self.unavailable[n] for n in names if n in self.unavailable}

    def where(self, variant: str) -> tuple[Cluster, psycopg.Connection]:
        if variant == MONO_SESSION:
            return self.session_cluster, self.session_conn
        return self.cluster, self.conn

    def interleave(self, result: Result, runs: dict[str, callable], repeats: int | None = None,
                   warmup: bool = False):
        """Runs each variant once per round, rounds repeated, so drift hits all alike.
        A warm-up round, not counted, first fills caches and wakes the CPU."""
        if warmup:
            for run in runs.values():
                run()
        for _ in range(repeats or self.sizes.repeats):
            for variant, run in runs.items():
                result.add(variant, run())
        self.results.append(result)
        return result

    def pgbench(self, script: str, clients: int, seconds: int, prepared: bool = False,
                cluster: Cluster | None = None) -> float:
        cluster = cluster or self.cluster
        with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
            f.write(script)
        os.chmod(f.name, 0o644)
        # at most a thread per core: more threads only take CPU from the server
        threads = min(clients, os.cpu_count() or 1)
        args = ["-n", "-c", str(clients), "-j", str(threads), "-T", str(seconds), "-f", f.name]
        if prepared:
            args += ["-M", "prepared"]
        out = cluster.run("pgbench", *args, "bench").stdout
        os.unlink(f.name)
        for line in out.splitlines():
            if line.startswith("tps = "):
                return float(line.split()[2])
        raise RuntimeError(f"no tps in pgbench output:\n{out}")

    def id_tables(self, prefix: str, names: list[str]) -> dict[str, str]:
        """A fresh table `id PRIMARY KEY, n int` per variant, on the variant's
        cluster; returns the table names."""
        tables = {}
        for i, name in enumerate(names):
            _, conn = self.where(name)
            table = f"{prefix}_{i}"
            conn.execute(f"DROP TABLE IF EXISTS {table}")
            conn.execute(f"CREATE TABLE {table} (id {COLUMNS[name]} PRIMARY KEY, n int)")
            tables[name] = table
        return tables

    # ---- cases -------------------------------------------------------------

    def generation(self):
        n = self.sizes.gen
        funcs = {
            "clock_timestamp()": "clock_timestamp()",
            "gen_ulid()": "gen_ulid()",
            "gen_monotonic_ulid() (preloaded)": "gen_monotonic_ulid()",
            "gen_monotonic_ulid() (not preloaded)": "gen_monotonic_ulid()",
            "gen_random_uuid()": "gen_random_uuid()",
            "uuidv7()": "uuidv7()",
            "uuid_generate_v7() (pg_uuidv7)": "uuid_generate_v7()",
        }
        missing = {}
        if V7_CORE in self.unavailable:
            missing["uuidv7()"] = self.unavailable[V7_CORE]
        if V7_EXT in self.unavailable:
            missing["uuid_generate_v7() (pg_uuidv7)"] = self.unavailable[V7_EXT]

        # The uuid generators take microseconds a call here: a quarter of the
        # calls measures them as well and keeps each round short, so the fast
        # variants of one round are measured close together in time.
        slow = {"gen_random_uuid()", "uuidv7()", "uuid_generate_v7() (pg_uuidv7)"}

        def run(name, f):
            conn = self.session_conn if name.endswith("(not preloaded)") else self.conn
            calls = n // 4 if name in slow else n
            return self.timed(f"SELECT count({f}) FROM generate_series(1, {calls})", conn=conn) * 1e9 / calls

        runs = {name: (lambda name=name, f=f: run(name, f)) for name, f in funcs.items() if name not in missing}
        note = (f"{n:,} calls per measurement, {n // 4:,} for the uuid generators; (not preloaded) runs on "
                "a second cluster with the same settings but without shared_preload_libraries, every other "
                "variant on the benchmark cluster, which preloads ulid")
        # cheap and noisy: three times the usual rounds
        calls = self.interleave(
            Result("generate one value (SELECT count(f()) FROM generate_series)", "ns/call",
                   baseline="gen_random_uuid()", note=note, key="gen", missing=missing),
            runs,
            repeats=3 * self.sizes.repeats,
            warmup=True,
        )
        # the same numbers against the floor: the executor's cost of any volatile call
        self.results.append(Result("generate one value, against the floor of a volatile call", "ns/call",
                                   baseline="clock_timestamp()", values=calls.values, key="gen-floor",
                                   missing=missing))
        if "uuid_generate_v7() (pg_uuidv7)" not in missing:
            self.results.append(Result("generate one value, against pg_uuidv7", "ns/call",
                                       baseline="uuid_generate_v7() (pg_uuidv7)", values=calls.values,
                                       key="gen-pg_uuidv7", missing=missing))

    def insert_default(self):
        n = self.sizes.insert
        names, missing = self.split([IDENTITY, V4, V7_CORE, V7_EXT, ULID, MONO])
        tables = self.id_tables("ins", names)

        def run(table):
            # from an empty table and a clean buffer pool each time: the
            # dirty pages of the previous round would otherwise be written
            # out during this one, and move its time by a quarter
            self.sql(f"TRUNCATE {table}")
            self.sql("CHECKPOINT")
            return self.timed(f"INSERT INTO {table} (n) SELECT g FROM generate_series(1, {n}) g") * 1e3

        self.interleave(
            Result(f"INSERT {n:,} rows with a DEFAULT id, one statement (primary key)", "ms",
                   baseline=IDENTITY, key="insert", missing=missing),
            {name: (lambda t=tables[name]: run(t)) for name in names},
            repeats=self.sizes.repeats,
        )

    def client_sweep(self, out: Path, tag: str):
        """pgbench INSERT of one row with a DEFAULT id at growing client
        counts. Every point starts from an empty table after a checkpoint.
        The variants are compared at each client count, so all rounds of one
        client count run together, each round through every variant, the
        order rotated from round to round."""
        seconds = self.sizes.sweep_seconds
        names, missing = self.split([IDENTITY, V4, V7_CORE, V7_EXT, ULID, MONO, MONO_SESSION])
        tables = self.id_tables("sweep", names)
        for clients in self.sizes.clients:
            self.sweep[clients] = Result(
                f"pgbench INSERT with a DEFAULT id, {clients} client{'s' if clients > 1 else ''}, {seconds} s",
                "tps", baseline=IDENTITY, key=f"sweep-{clients}", missing=missing)

        def point(name, clients):
            cluster, conn = self.where(name)
            conn.execute(f"TRUNCATE {tables[name]}")
            conn.execute("CHECKPOINT")
            return self.pgbench(f"INSERT INTO {tables[name]} (n) VALUES (1);\n", clients, seconds,
                                cluster=cluster)

        for clients in self.sizes.clients:
            for r in range(self.sizes.sweep_repeats):
                shift = r % len(names)
                for name in names[shift:] + names[:shift]:
                    self.sweep[clients].add(name, point(name, clients))
        data = out / f"clients-{tag}.dat"
        data.write_text("# clients " + " ".join(f'"{v}"' for v in names) + " (median tps)\n"
                        + "".join(f"{c} " + " ".join(f"{self.sweep[c].median(v):.1f}" for v in names) + "\n"
                                  for c in self.sizes.clients))
        plot_clients(data, names, out / f"clients-{tag}.png", self.version, seconds, self.sizes.sweep_repeats)

    def same_bytes_table(self):
        """N random 128-bit values, as ulid and as uuid: the same bytes in both columns."""
        n = self.sizes.n
        self.sql("DROP TABLE IF EXISTS same")
        self.sql(
            f"""
            CREATE TABLE same AS
            SELECT u, u::uuid AS v FROM (
                SELECT gen_ulid(timestamptz '1990-01-01' + random() * interval '40 years') AS u
                FROM generate_series(1, {n})) s
            """
        )
        self.sql("VACUUM ANALYZE same")

    def sort_and_index(self):
        n = self.sizes.n
        self.interleave(
            Result(f"ORDER BY over {n:,} random values", "ms", key="sort"),
            {col: (lambda c=c: self.timed(f"SELECT count(*) FROM (SELECT {c} FROM same ORDER BY {c}) s") * 1e3)
             for col, c in (("ulid", "u"), ("uuid", "v"))},
            repeats=2 * self.sizes.repeats,
            warmup=True,
        )

        def create_index(c):
            self.sql(f"DROP INDEX IF EXISTS same_{c}")
            return self.timed(f"CREATE INDEX same_{c} ON same ({c})") * 1e3

        self.interleave(
            Result(f"CREATE INDEX over {n:,} random values", "ms", key="index"),
            {col: (lambda c=c: create_index(c)) for col, c in (("ulid", "u"), ("uuid", "v"))},
            repeats=2 * self.sizes.repeats,
            warmup=True,
        )
        size = Result(f"btree size over {n:,} random values (CREATE INDEX)", "MB", key="btree-size")
        for col, c in (("ulid", "u"), ("uuid", "v")):
            size.add(col, self.sql(f"SELECT pg_relation_size('same_{c}')").fetchone()[0] / 2**20)
        self.results.append(size)

    def text_and_binary_io(self):
        n = self.sizes.n
        workdir = self.cluster.dir  # a place the server may read and write
        for col, c in (("ulid", "u"), ("uuid", "v")):
            self.sql(f"DROP TABLE IF EXISTS load_{c}")
            self.sql(f"CREATE TABLE load_{c} ({c} {col})")
            self.sql(f"COPY (SELECT {c} FROM same) TO '{workdir}/{c}.txt'")
            self.sql(f"COPY (SELECT {c} FROM same) TO '{workdir}/{c}.bin' (FORMAT binary)")
        cols = (("ulid", "u"), ("uuid", "v"))
        self.interleave(
            Result(f"text output: SELECT count(id::text) over {n:,} rows", "ms", key="text-out"),
            {col: (lambda c=c: self.timed(f"SELECT count({c}::text) FROM same") * 1e3) for col, c in cols},
        )
        self.interleave(
            Result(f"text output: COPY TO over {n:,} rows", "ms", key="copy-text-out"),
            {col: (lambda c=c: self.timed(f"COPY (SELECT {c} FROM same) TO '/dev/null'") * 1e3) for col, c in cols},
        )

        def copy_in(c, fmt):
            self.sql(f"TRUNCATE load_{c}")
            opts = " (FORMAT binary)" if fmt == "bin" else ""
            return self.timed(f"COPY load_{c} FROM '{workdir}/{c}.{fmt}'{opts}") * 1e3

        self.interleave(
            Result(f"text input: COPY FROM of {n:,} rows", "ms", key="text-in"),
            {col: (lambda c=c: copy_in(c, "txt")) for col, c in cols},
        )
        self.interleave(
            Result(f"binary COPY TO of {n:,} rows", "ms", key="bin-out"),
            {col: (lambda c=c: self.timed(f"COPY (SELECT {c} FROM same) TO '/dev/null' (FORMAT binary)") * 1e3)
             for col, c in cols},
        )
        self.interleave(
            Result(f"binary COPY FROM of {n:,} rows", "ms", key="bin-in"),
            {col: (lambda c=c: copy_in(c, "bin")) for col, c in cols},
        )

    def point_lookups(self):
        """pgbench, prepared statements: look up one row by id. The key is
        md5(k) read as a uuid, and for ulid relabelled (a no-op cast); the
        bigint key is k itself, with the same md5 computed and multiplied
        by zero, so every variant does the same work around the lookup."""
        n = self.sizes.n
        self.sql("DROP TABLE IF EXISTS lookup")
        self.sql(
            f"""
            CREATE TABLE lookup AS
            SELECT k, k::bigint AS b, md5(k::text)::uuid::ulid AS u, md5(k::text)::uuid AS v
            FROM generate_series(1, {n}) k
            """
        )
        self.sql("CREATE UNIQUE INDEX lookup_b ON lookup (b)")
        self.sql("CREATE UNIQUE INDEX lookup_u ON lookup (u)")
        self.sql("CREATE UNIQUE INDEX lookup_v ON lookup (v)")
        self.sql("VACUUM ANALYZE lookup")
        scripts = {
            "bigint": f"\\set k random(1, {n})\n"
                      "SELECT k FROM lookup WHERE b = :k + 0 * length(md5(:k::text));\n",
            "ulid": f"\\set k random(1, {n})\nSELECT k FROM lookup WHERE u = md5(:k::text)::uuid::ulid;\n",
            "uuid": f"\\set k random(1, {n})\nSELECT k FROM lookup WHERE v = md5(:k::text)::uuid;\n",
        }
        self.interleave(
            Result(f"point lookups by id, pgbench -M prepared, 2 clients, {n:,} rows", "tps",
                   baseline="bigint", key="lookup"),
            {name: (lambda s=s: self.pgbench(s, 2, self.sizes.pgbench_seconds, prepared=True))
             for name, s in scripts.items()},
            repeats=max(1, self.sizes.repeats - 2),
        )

    def time_range(self):
        """A one-hour range out of 30 days of time-ordered ids, through a
        btree and through a BRIN index. uuid holds the same bytes."""
        n = self.sizes.n
        self.sql("DROP TABLE IF EXISTS timeline")
        self.sql(
            f"""
            CREATE TABLE timeline AS
            SELECT u, u::uuid AS v, g AS payload FROM (
                SELECT g, gen_ulid(timestamptz '2025-01-01' + g * (interval '30 days' / {n})) AS u
                FROM generate_series(1, {n}) g) s
            """
        )
        self.sql("VACUUM ANALYZE timeline")
        lo = "'2025-01-15 12:00+00'::timestamptz::ulid"
        hi = "'2025-01-15 13:00+00'::timestamptz::ulid"
        queries = {
            "ulid": f"SELECT count(payload) FROM timeline WHERE u >= {lo} AND u < {hi}",
            "uuid": f"SELECT count(payload) FROM timeline WHERE v >= {lo}::uuid AND v < {hi}::uuid",
        }
        counts = {k: self.sql(q).fetchone()[0] for k, q in queries.items()}
        assert counts["ulid"] == counts["uuid"] > 0, counts
        for kind, using in (("btree", "btree"), ("BRIN", "brin")):
            self.sql("DROP INDEX IF EXISTS timeline_u, timeline_v")
            self.sql(f"CREATE INDEX timeline_u ON timeline USING {using} (u)")
            self.sql(f"CREATE INDEX timeline_v ON timeline USING {using} (v)")
            self.sql("ANALYZE timeline")
            for q in queries.values():
                plan = "\n".join(r[0] for r in self.sql("EXPLAIN " + q).fetchall())
                assert "timeline_" in plan, plan
            runs = {k: (lambda q=q: self.timed(q) * 1e3) for k, q in queries.items()}
            for q in queries.values():  # warm the cache
                self.sql(q)
            self.interleave(
                Result(f"one hour of 30 days ({counts['ulid']:,} of {n:,} rows) via {kind}", "ms",
                       key=f"range-{kind.lower()}"),
                runs,
                repeats=self.sizes.repeats * 4,
            )
            if kind == "BRIN":
                sizes = Result(f"BRIN size over {n:,} time-ordered rows", "kB", key="brin-size")
                for k, c in (("ulid", "u"), ("uuid", "v")):
                    sizes.add(k, self.sql(f"SELECT pg_relation_size('timeline_{c}')").fetchone()[0] / 1024)
                self.results.append(sizes)

    def growth(self, out: Path, tag: str):
        """Index size and insert throughput as a table grows from 0 to N, for
        time-ordered ulid, random uuid v4, time-ordered uuid v7 (core's and
        pg_uuidv7's) and a bigint identity."""
        n, steps = self.sizes.n, self.sizes.growth_steps
        batch = n // steps
        v7 = "uuid v7 (uuidv7)" if self.has_uuidv7 else "uuid v7 (a SQL function: this server has no uuidv7)"
        candidates = {"ulid (gen_monotonic_ulid)": "ulid DEFAULT gen_monotonic_ulid()",
                      "uuid v4 (gen_random_uuid)": "uuid DEFAULT gen_random_uuid()",
                      v7: "uuid DEFAULT uuidv7()",
                      "uuid v7 (pg_uuidv7)": "uuid DEFAULT uuid_generate_v7()",
                      "bigint identity": "bigint GENERATED ALWAYS AS IDENTITY"}
        missing = {}
        if V7_EXT in self.unavailable:
            missing["uuid v7 (pg_uuidv7)"] = self.unavailable[V7_EXT]
        variants = {k: v for k, v in candidates.items() if k not in missing}
        rows = []
        for i, column in enumerate(variants.values()):
            self.sql(f"DROP TABLE IF EXISTS grow_{i}")
            self.sql(f"CREATE TABLE grow_{i} (id {column} PRIMARY KEY, n int)")
        for step in range(1, steps + 1):
            row = [step * batch]
            for i in range(len(variants)):
                seconds = self.timed(f"INSERT INTO grow_{i} (n) SELECT g FROM generate_series(1, {batch}) g")
                size = self.sql(f"SELECT pg_relation_size('grow_{i}_pkey')").fetchone()[0]
                row += [batch / seconds, size / 2**20]
            rows.append(row)
        final = Result(f"primary key size after {n:,} inserts of DEFAULT ids", "MB", baseline="bigint identity",
                       key="pk-size", missing=missing)
        table = Result(f"table size after {n:,} inserts of DEFAULT ids", "MB", baseline="bigint identity",
                       key="table-size", missing=missing)
        for i, name in enumerate(variants):
            final.add(name, rows[-1][2 + 2 * i])
            table.add(name, self.sql(f"SELECT pg_relation_size('grow_{i}')").fetchone()[0] / 2**20)
        self.results += [final, table]
        if "uuid v7 (pg_uuidv7)" in variants:
            self.results.append(Result(f"primary key size after {n:,} inserts, against pg_uuidv7", "MB",
                                       baseline="uuid v7 (pg_uuidv7)", values=final.values, key="pk-size-v7"))
        data = out / f"growth-{tag}.dat"
        data.write_text("# rows " + " ".join(f'"{v}" rows/s, MB' for v in variants) + "\n"
                        + "\n".join(" ".join(f"{x:.3f}" for x in r) for r in rows) + "\n")
        plot(data, list(variants), out / f"growth-{tag}.png", self.version, n)


def plot(data: Path, names: list[str], png: Path, version: int, n: int) -> None:
    cols = []
    for i, name in enumerate(names):
        cols.append((name, 2 + 2 * i, 3 + 2 * i))
    # distinct dash types: two time-ordered ids can draw the very same line
    size_plots = ", ".join(f"'{data}' using ($1/1e6):{s} with linespoints dashtype {i + 1} lw 2 title '{name}'"
                           for i, (name, _, s) in enumerate(cols))
    rate_plots = ", ".join(f"'{data}' using ($1/1e6):($" + str(r) + f"/1e3) with linespoints dashtype {i + 1} "
                           f"lw 2 title '{name}'" for i, (name, r, _) in enumerate(cols))
    script = f"""
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output '{png}'
set multiplot layout 1,2 title 'Primary key on a growing table: {n:,} rows inserted in batches, PostgreSQL {version}'
set key outside below maxrows 3
set grid
set xlabel 'rows in the table (millions)'
set ylabel 'primary key size (MB)'
plot {size_plots}
set ylabel 'insert throughput (thousand rows/s)'
set yrange [0:*]
plot {rate_plots}
unset multiplot
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def plot_clients(data: Path, names: list[str], png: Path, version: int, seconds: int, repeats: int) -> None:
    lines = ", ".join(f"'{data}' using 1:($" + str(2 + i) + f"/1e3) with linespoints dashtype {i + 1} "
                      f"pointtype {i + 1} lw 2 title '{name}'" for i, name in enumerate(names))
    script = f"""
set terminal pngcairo size 900,640 font 'sans,10' noenhanced
set output '{png}'
set title "pgbench: INSERT of one row with a DEFAULT id, PostgreSQL {version}\\nmedian of {repeats} runs of {seconds} s per point"
set key outside below maxrows 4
set grid
set logscale x 2
set xlabel 'clients'
set ylabel 'transactions per second (thousands)'
set yrange [0:*]
plot {lines}
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def fmt(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def render(results: list[Result], header: str) -> str:
    lines = [header, "", "| case | variant | median | ratio |", "| --- | --- | ---: | ---: |"]
    for r in results:
        for variant in r.values:
            lines.append(f"| {r.case} | {variant} | {fmt(r.median(variant))} {r.unit} | {r.ratio(variant):.2f} |")
        for variant, why in r.missing.items():
            lines.append(f"| {r.case} | {variant} | not available: {why} | – |")
    notes = [f"- {r.case}: {r.note}" for r in results if r.note]
    if notes:
        lines += ["", *notes]
    lines.append("")
    lines.append(
        "Ratios divide each median by the baseline row of its case (the first of: bigint identity, "
        "uuid, gen_random_uuid(), clock_timestamp() or pg_uuidv7, as the case's title says). "
        "For times and sizes lower is better; for tps higher is better."
    )
    return "\n".join(lines) + "\n"


def render_sweep(sweep: dict[int, Result], tag: str) -> str:
    counts = list(sweep)
    first = sweep[counts[0]]
    variants = list(first.values)
    lines = [
        "",
        "### INSERT throughput by number of clients",
        "",
        f"{first.case.split(',')[0]}: tps, median of each point, and in brackets the ratio to bigint identity "
        f"at the same client count. The last column is the tps at {counts[-1]} clients over the tps at "
        f"{2 if 2 in sweep else counts[0]} clients. Plot: [clients-{tag}.png](clients-{tag}.png).",
        "",
        "| variant | " + " | ".join(f"{c} client{'s' if c > 1 else ''}" for c in counts) + " | scaling |",
        "| --- | " + " | ".join("---:" for _ in counts) + " | ---: |",
    ]
    ref = 2 if 2 in sweep else counts[0]
    for v in variants:
        cells = [f"{fmt(sweep[c].median(v))} ({sweep[c].ratio(v):.2f})" for c in counts]
        scaling = sweep[counts[-1]].median(v) / sweep[ref].median(v)
        lines.append(f"| {v} | " + " | ".join(cells) + f" | {scaling:.2f} |")
    for v, why in first.missing.items():
        lines.append(f"| {v} | not available: {why} | " + " | ".join("–" for _ in counts[1:]) + " | – |")
    return "\n".join(lines) + "\n"


def library_fingerprint(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return st.st_ino, st.st_size, st.st_mtime_ns


def machine() -> str:
    cpu = "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = int(Path("/proc/meminfo").read_text().split()[1]) / 2**20
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, {platform.system()} {platform.release()}"


class LibraryReplaced(RuntimeError):
    """The installed ulid library changed under a running benchmark."""


def run_version(version: int, sizes: Sizes, out: Path, quick: bool, build: bool,
                attempt: int = 1) -> tuple[str, dict]:
    if build:
        mode = [] if quick else ["--release"]
        subprocess.run([str(ROOT / "scripts" / "install"), str(version), *mode], check=True)
    # Others may reinstall ulid on this machine while the run goes on: then
    # new backends load another build, and a library overwritten in place
    # crashes the running ones. Either way the numbers would not be this
    # build's, so the library is checked after every step and the run stops.
    pkglibdir = subprocess.check_output([Cluster.pg_config(version), "--pkglibdir"], text=True).strip()
    library = Path(pkglibdir) / "ulid.so"
    installed = library_fingerprint(library)

    def check(step: str, error: Exception | None = None) -> None:
        if library_fingerprint(library) != installed:
            raise LibraryReplaced(f"{library} was replaced by another install during {step}") from error

    # skips what is already installed; a version it cannot serve is shown as such
    subprocess.run([str(ROOT / "bench" / "pg_uuidv7"), str(version)], check=True)
    started = time.time()
    cluster = Cluster(version, "bench", slot=5, settings=SETTINGS)
    session_cluster = Cluster(version, "bench-session", slot=9, settings=SESSION_SETTINGS)
    try:
        cluster.start()
        session_cluster.start()
        check("the start of the clusters")
        bench = Bench(cluster, session_cluster, sizes)
        (server_version,) = bench.sql("SHOW server_version").fetchone()
        steps = [bench.generation, bench.insert_default, lambda: bench.client_sweep(out, f"pg{version}"),
                 bench.same_bytes_table, bench.sort_and_index, bench.text_and_binary_io, bench.point_lookups,
                 bench.time_range, lambda: bench.growth(out, f"pg{version}")]
        names = ["generation", "insert_default", "client_sweep", "same_bytes_table", "sort_and_index",
                 "text_and_binary_io", "point_lookups", "time_range", "growth"]
        durations = {}
        for name, step in zip(names, steps):
            step_started = time.time()
            try:
                step()
            except Exception as e:
                check(name, e)
                raise
            check(name)
            durations[name] = time.time() - step_started
            print(f"  PostgreSQL {version}: {time.time() - started:5.0f} s  {name}", file=sys.stderr)
        settings = ", ".join(f"{k}={v}" for k, v in SETTINGS.items())
        build_kind = f"{'debug' if quick else 'release'} build" if build else "the installed build (--no-build)"
        uuidv7_source = bench.pg_uuidv7 or "pg_uuidv7 not available"
        minutes = (time.time() - started) / 60
        header = (
            f"## PostgreSQL {server_version}{' (quick mode: sizes too small to mean anything)' if quick else ''}\n\n"
            f"{datetime.date.today().isoformat()}, {machine()}.  \n"
            f"Medians of {sizes.repeats} interleaved runs (generation: {3 * sizes.repeats}, sorts and index "
            f"builds: {2 * sizes.repeats}, each after a warm-up round; INSERT of {sizes.insert:,} rows: "
            f"{sizes.repeats}, each after a checkpoint; other pgbench cases: "
            f"{max(1, sizes.repeats - 2)}; client sweep: {sizes.sweep_repeats} rounds of "
            f"{sizes.sweep_seconds} s per point); "
            f"{build_kind}; {uuidv7_source}; cluster settings: {settings}; "
            f"\"not preloaded\" runs on a second cluster with the same settings and "
            f"shared_preload_libraries=''.  \n"
            f"This version's run took {minutes:.1f} min "
            f"(client sweep {durations['client_sweep'] / 60:.1f} min)."
        )
        if attempt > 1:
            header += (f"  \nThis is attempt {attempt}: the earlier ones stopped because ulid was reinstalled "
                       "by something else on this machine while they ran.")
        text = render(bench.results, header) + render_sweep(bench.sweep, f"pg{version}")
        record = {
            "version": version, "server_version": server_version, "quick": quick, "minutes": minutes,
            "sweep_seconds": sizes.sweep_seconds, "sweep_repeats": sizes.sweep_repeats,
            "attempt": attempt,
            "pg_uuidv7": bench.pg_uuidv7, "unavailable": bench.unavailable,
            "results": [asdict(r) for r in bench.results],
            "sweep": {str(c): asdict(r) for c, r in bench.sweep.items()},
        }
        return text, record
    finally:
        session_cluster.stop()
        cluster.stop()


# ---- the README's performance section, from latest.json ---------------------

def readme(out: Path) -> str:
    """The performance section of README.md, from the latest full run."""
    runs = json.loads((out / "latest.json").read_text())["versions"]
    found = {}
    for run in runs:
        results = {r["key"]: Result(**r) for r in run["results"]}
        results.update({f"sweep-{c}": Result(**r) for c, r in run["sweep"].items()})
        found[run["version"]] = results

    def cell(version, key, variant, baseline=None, digits=2):
        r = found[version].get(key)
        if r is None or variant not in r.values or (baseline or r.baseline) not in r.values:
            return "n/a"
        return f"{r.ratio(variant, baseline):.{digits}f}"

    versions = [run["version"] for run in runs]
    rows = [
        ("`gen_ulid()` per call, against `clock_timestamp()` (the floor of any volatile call)",
         "gen-floor", "gen_ulid()", None),
        ("`gen_monotonic_ulid()` (preloaded) per call, against `clock_timestamp()`",
         "gen-floor", "gen_monotonic_ulid() (preloaded)", None),
        ("`gen_monotonic_ulid()` (not preloaded) per call, against `clock_timestamp()`",
         "gen-floor", "gen_monotonic_ulid() (not preloaded)", None),
        ("`gen_ulid()` per call, against pg_uuidv7's `uuid_generate_v7()`",
         "gen", "gen_ulid()", "uuid_generate_v7() (pg_uuidv7)"),
        ("`gen_monotonic_ulid()` (preloaded) per call, against `uuid_generate_v7()`",
         "gen", "gen_monotonic_ulid() (preloaded)", "uuid_generate_v7() (pg_uuidv7)"),
        ("`gen_ulid()` per call, against `gen_random_uuid()`", "gen", "gen_ulid()", None),
        ("`gen_ulid()` per call, against `uuidv7()`", "gen", "gen_ulid()", "uuidv7()"),
        ("INSERT of 1M rows, `DEFAULT gen_monotonic_ulid()` against a bigint identity", "insert", MONO, None),
        ("INSERT of 1M rows, `DEFAULT gen_monotonic_ulid()` against `DEFAULT gen_random_uuid()`",
         "insert", MONO, V4),
        ("INSERT of 1M rows, `DEFAULT gen_monotonic_ulid()` against `DEFAULT uuid_generate_v7()`",
         "insert", MONO, V7_EXT),
        ("ORDER BY 2M random values, ulid against uuid", "sort", "ulid", None),
        ("CREATE INDEX on 2M random values", "index", "ulid", None),
        ("btree size on the same 2M values", "btree-size", "ulid", None),
        ("text output (`id::text`)", "text-out", "ulid", None),
        ("text input (`COPY FROM`)", "text-in", "ulid", None),
        ("binary COPY out", "bin-out", "ulid", None),
        ("binary COPY in", "bin-in", "ulid", None),
        ("prepared point lookups by id (tps), ulid against bigint", "lookup", "ulid", None),
        ("prepared point lookups by id (tps), ulid against uuid", "lookup", "ulid", "uuid"),
        ("one hour out of 30 days via btree", "range-btree", "ulid", None),
        ("one hour out of 30 days via BRIN", "range-brin", "ulid", None),
        ("primary key after 2M inserts, `gen_monotonic_ulid()` against a bigint identity",
         "pk-size", "ulid (gen_monotonic_ulid)", None),
        ("primary key after 2M inserts, `gen_monotonic_ulid()` against uuid v4",
         "pk-size", "ulid (gen_monotonic_ulid)", "uuid v4 (gen_random_uuid)"),
        ("primary key after 2M inserts, `gen_monotonic_ulid()` against `uuidv7()`",
         "pk-size", "ulid (gen_monotonic_ulid)", "uuid v7 (uuidv7)"),
        ("primary key after 2M inserts, `gen_monotonic_ulid()` against pg_uuidv7",
         "pk-size", "ulid (gen_monotonic_ulid)", "uuid v7 (pg_uuidv7)"),
    ]
    lines = [
        "## Performance",
        "",
        "`bench/run` measures ulid side by side, in one run, against what users would pick instead: a "
        "bigint identity column, `gen_random_uuid()`, core's `uuidv7()` (PostgreSQL 18) and "
        "`uuid_generate_v7()` from the pg_uuidv7 extension, each case repeated with the variants "
        "interleaved, and writes [`bench/results/latest.md`](bench/results/latest.md) (every case, both "
        "versions, the machine and the settings). Ratios from the latest run on this 2-core machine "
        "(lower is better for times and sizes, higher for tps; n/a: the alternative does not exist for "
        "that version):",
        "",
        "| case | " + " | ".join(f"PostgreSQL {v}" for v in versions) + " |",
        "| --- | " + " | ".join("---:" for _ in versions) + " |",
    ]
    for title, key, variant, baseline in rows:
        lines.append(f"| {title} | " + " | ".join(cell(v, key, variant, baseline) for v in versions) + " |")
    lines.append("")
    for run in runs:
        origin = run["pg_uuidv7"] or run["unavailable"].get(V7_EXT, "not available")
        lines.append(f"- PostgreSQL {run['server_version']}: {origin}.")
    for run in runs:
        v = run["version"]
        counts = sorted(int(c) for c in run["sweep"])
        sweep = {c: found[v][f"sweep-{c}"] for c in counts}
        names = list(sweep[counts[0]].values)
        lines += [
            "",
            f"pgbench INSERT of one row with a DEFAULT id on PostgreSQL {v}, thousands of tps by number of "
            f"clients, each point the median of {run.get('sweep_repeats', '?')} runs of "
            f"{run.get('sweep_seconds', '?')} s ([plot](bench/results/clients-pg{v}.png); primary key size "
            f"as the table grows: [plot](bench/results/growth-pg{v}.png)):",
            "",
            "| id | " + " | ".join(str(c) for c in counts) + " |",
            "| --- | " + " | ".join("---:" for _ in counts) + " |",
        ]
        for name in names:
            lines.append(f"| {name} | " + " | ".join(f"{sweep[c].median(name) / 1e3:.1f}" for c in counts) + " |")
        for name in sweep[counts[0]].missing:
            lines.append(f"| {name} | " + " | ".join("n/a" for _ in counts) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", type=int, nargs="+", default=[15, 18])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repeat: checks the runner works")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--no-build", action="store_true", help="use the extension already installed")
    parser.add_argument("--readme", action="store_true",
                        help="print the README's performance section from OUT/latest.json and exit")
    args = parser.parse_args()
    if args.readme:
        print(readme(args.out), end="")
        return 0
    sizes = QUICK if args.quick else FULL
    out = Path(tempfile.mkdtemp(prefix="ulid-bench-")) if args.quick else args.out
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    sections, records = [], []
    for v in args.pg:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                text, record = run_version(v, sizes, out, args.quick, not args.no_build, attempt)
                break
            except LibraryReplaced as e:
                if attempt == ATTEMPTS:
                    raise
                print(f"  {e}: starting PostgreSQL {v} again", file=sys.stderr)
        sections.append(text)
        records.append(record)
    minutes = (time.time() - started) / 60
    # in version order, whichever order they ran in
    order = sorted(range(len(records)), key=lambda i: records[i]["version"])
    sections, records = [sections[i] for i in order], [records[i] for i in order]
    report = (
        "# ulid benchmarks\n\n"
        "Produced by `bench/run`: ulid against a bigint identity, uuid v4 and uuid v7 (core's uuidv7() and "
        "pg_uuidv7's uuid_generate_v7()) on the same machine in the same run, each case repeated with the "
        "variants interleaved. Only the ratios are meant to be compared; absolute "
        f"times drift on this shared machine. Whole run: {minutes:.1f} min.\n\n"
        + "\n".join(sections)
    )
    (out / "latest.md").write_text(report)
    (out / "latest.json").write_text(json.dumps({"minutes": minutes, "versions": records}, indent=1) + "\n")
    if args.quick:
        readme(out)  # the summary must render from any run
    print(report)
    print(f"written: {out / 'latest.md'}, latest.json and the plots beside them", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
