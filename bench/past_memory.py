"""Past memory: inserts, WAL and lookups as a table grows to tens of millions of rows on a server whose memory,
page cache included, is smaller than its primary keys (docs/performance.md, "Past memory"). The postmaster, and so
all it forks, runs in a cgroup (v1) limited to LIMIT_MB; without one (not root, no memory controller), with the small
shared_buffers alone, and every result says so. ULID_PAST_MEMORY_VARIANTS (comma-separated names) runs some only.
"""

from __future__ import annotations

import os
import statistics
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from bench.measure import QUICK as QUICK_SIZES
from bench.measure import Bench, Result

CGROUP = Path("/sys/fs/cgroup/memory/ulid-bench-past-memory")
LIMIT_MB = 256
SETTINGS = {
    "shared_preload_libraries": "ulid",
    "shared_buffers": "64MB",
    "checkpoint_timeout": "5min",
    "max_wal_size": "1GB",
    "full_page_writes": "on",
    "synchronous_commit": "off",
    "jit": "off",
    "max_parallel_workers_per_gather": "0",
}
CLIENTS = 4
BATCH = 50


@dataclass(frozen=True)
class Scale:
    rows: int
    step: int
    budget_s: int  # insert time a variant may take
    lookup_s: int  # pgbench time of the point lookups
    keys: int  # keys sampled for the point lookups


FULL = Scale(rows=20_000_000, step=1_000_000, budget_s=14 * 60, lookup_s=30, keys=100_000)
QUICK = Scale(rows=40_000, step=10_000, budget_s=60, lookup_s=2, keys=1_000)

BIGINT = "bigint identity"
V7 = "uuid uuidv7()"
# per variant its id column, and the newest step's rows (from the server's clock when it began) without another
# index: a key range for the time-ordered keys, created_at for the others
VARIANTS = {
    BIGINT: ("bigint GENERATED ALWAYS AS IDENTITY", "created_at >= %(from)s"),
    "uuid gen_random_uuid()": ("uuid DEFAULT gen_random_uuid()", "created_at >= %(from)s"),
    V7: ("uuid DEFAULT uuidv7()", "id >= (%(from)s::timestamptz::ulid)::uuid"),
    "ulid gen_ulid()": ("ulid DEFAULT gen_ulid()", "id >= %(from)s::timestamptz::ulid"),
    "ulid gen_monotonic_ulid()": ("ulid DEFAULT gen_monotonic_ulid()", "id >= %(from)s::timestamptz::ulid"),
}
INSERT = "INSERT INTO grow (payload) VALUES " + ", ".join(["(md5(random()::text))"] * BATCH) + ";\n"
LOOKUP = ("\\set k random(1, :nkeys)\n"
          "SELECT payload FROM grow WHERE id = (SELECT id FROM lookup_keys WHERE n = :k);\n")


class MemoryLimit:
    """The cgroup the server runs in, or why there is none."""

    def __init__(self):
        self.why_not = None
        try:
            CGROUP.mkdir(exist_ok=True)
            (CGROUP / "memory.limit_in_bytes").write_text(str(LIMIT_MB * 2**20))
        except OSError as e:
            self.why_not = f"no memory cgroup could be made ({e.strerror}: {e.filename})"

    def hold(self, cluster) -> None:
        """Moves the running postmaster (whose later children follow it) and its children into the cgroup."""
        if self.why_not:
            return
        postmaster = int((cluster.dir / "postmaster.pid").read_text().split()[0])
        pids = [postmaster]
        for task in Path(f"/proc/{postmaster}/task").iterdir():
            pids += [int(p) for p in (task / "children").read_text().split()]
        for pid in pids:
            (CGROUP / "cgroup.procs").write_text(str(pid))

    def mb(self, counter: str = "usage") -> float | None:
        """The cgroup's memory use now ("usage") or at its peak ("max_usage"), in MB."""
        return None if self.why_not else int((CGROUP / f"memory.{counter}_in_bytes").read_text()) / 2**20

    def close(self) -> None:
        if not self.why_not:
            with suppress(OSError):
                CGROUP.rmdir()  # (the server's processes are gone by now)


def wanted_variants(b: Bench) -> tuple[list[str], dict[str, str]]:
    """The variants to run (all, or those ULID_PAST_MEMORY_VARIANTS names), and why this server cannot run others."""
    named = [v.strip() for v in os.environ.get("ULID_PAST_MEMORY_VARIANTS", "").split(",") if v.strip()]
    unknown = [v for v in named if v not in VARIANTS]
    if unknown:
        raise ValueError(f"ULID_PAST_MEMORY_VARIANTS: no variant {', '.join(unknown)} "
                         f"(the variants: {', '.join(VARIANTS)})")
    missing = {}
    if b.version < 18:
        missing[V7] = "core's uuidv7() exists from PostgreSQL 18"
    if b.version < 14:
        missing.update({v: "pg_stat_wal exists from PostgreSQL 14" for v in VARIANTS})
    return [v for v in VARIANTS if (not named or v in named) and v not in missing], missing


def counters(conn) -> list[int]:
    """So far: the WAL insert position in bytes, full-page images written, and the primary key's blocks read from
    outside shared_buffers and hit in it."""
    return [int(value or 0) for value in conn.execute(
        "SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn, (SELECT wal_fpi FROM pg_stat_wal), idx_blks_read, "
        "idx_blks_hit FROM pg_statio_user_indexes WHERE indexrelname = 'grow_pkey'").fetchone()]


def grow(b: Bench, server, memory: MemoryLimit, variant: str, scale: Scale) -> dict:
    """One variant's run: the table grown step by step, then the lookups; its steps and final figures."""
    column, newest_rows = VARIANTS[variant]
    with server.connect(b.dbname) as conn:
        conn.execute("DROP TABLE IF EXISTS grow, lookup_keys")
        conn.execute(f"CREATE TABLE grow (id {column} PRIMARY KEY, "
                     "created_at timestamptz NOT NULL DEFAULT clock_timestamp(), payload text NOT NULL)")
        conn.execute("SELECT pg_stat_reset_shared('wal')")
        conn.execute("CHECKPOINT")
    if not memory.why_not:
        (CGROUP / "memory.max_usage_in_bytes").write_text("0")  # the peak starts again
    steps, rows, started = [], 0, time.monotonic()
    per_client = scale.step // (BATCH * CLIENTS)
    while rows < scale.rows and time.monotonic() - started < scale.budget_s:
        with server.connect(b.dbname) as conn:
            before = counters(conn)
            (step_from,) = conn.execute("SELECT extract(epoch FROM clock_timestamp())").fetchone()
        step_started = time.monotonic()
        b.pgbench(INSERT, CLIENTS, cluster=server, transactions=per_client)
        seconds = time.monotonic() - step_started
        added = per_client * CLIENTS * BATCH
        rows += added
        # (pgbench's sessions have ended: their statistics are in)
        with server.connect(b.dbname) as conn:
            wal_bytes, fpi, read, hit = (now - then for now, then in zip(counters(conn), before))
            pk_mb = conn.execute("SELECT pg_relation_size('grow_pkey')").fetchone()[0] / 2**20
        steps.append({"rows": rows, "rows_per_s": added / seconds, "wal_bytes_per_row": wal_bytes / added,
                      "fpi_per_row": fpi / added, "pk_mb": pk_mb, "index_blocks_read": read, "index_blocks_hit": hit,
                      "memory_mb": memory.mb(), "seconds": time.monotonic() - started, "from_epoch": float(step_from)})
    with server.connect(b.dbname) as conn:
        # what autovacuum does to a table grown over days, done now so the plans do not depend on it
        conn.execute("VACUUM (ANALYZE) grow")
        sizes = conn.execute("SELECT pg_relation_size('grow'), pg_relation_size('grow_pkey'), "
                             "pg_total_relation_size('grow')").fetchone()
        conn.execute(f"CREATE TABLE lookup_keys AS SELECT row_number() OVER () AS n, id FROM "
                     f"(SELECT id FROM grow TABLESAMPLE SYSTEM (1) LIMIT {scale.keys}) AS sampled")
        conn.execute("ALTER TABLE lookup_keys ADD PRIMARY KEY (n)")
        (nkeys,) = conn.execute("SELECT count(*) FROM lookup_keys").fetchone()
    lookups = b.pgbench(LOOKUP.replace(":nkeys", str(nkeys)), CLIENTS, scale.lookup_s, prepared=True, cluster=server)
    newest = []
    with server.connect(b.dbname) as conn:
        condition = newest_rows % {"from": f"to_timestamp({steps[-1]['from_epoch']})"}
        for _ in range(5):
            t = time.perf_counter()
            (count,) = conn.execute(f"SELECT count(*) FROM grow WHERE {condition}").fetchone()
            newest.append(time.perf_counter() - t)
        plan = "\n".join(r[0] for r in conn.execute(f"EXPLAIN (COSTS OFF) SELECT count(*) FROM grow WHERE {condition}"))
        conn.execute("DROP TABLE grow, lookup_keys")
        conn.execute("CHECKPOINT")
    return {"variant": variant, "steps": steps, "rows": rows, "reached_all": rows >= scale.rows,
            "table_mb": sizes[0] / 2**20, "pk_mb": sizes[1] / 2**20, "total_mb": sizes[2] / 2**20,
            "lookups_per_s": lookups, "newest_ms": statistics.median(newest) * 1000,
            "newest_rows": count, "newest_plan": plan, "peak_memory_mb": memory.mb("max_usage")}


def window(steps: list[dict], rows: int | None = None) -> dict | None:
    """The steps around ROWS taken together (ending above 0.8 and at most 1.2 times ROWS; None: the last fifth of
    the rows reached), so a checkpoint's full-page images weigh in as on average. None if no step ends there."""
    if not steps:
        return None
    rows = steps[-1]["rows"] if rows is None else rows  # (no step ends above the last)
    chosen = [s for s in steps if 0.8 * rows < s["rows"] <= 1.2 * rows]
    if not chosen:
        return None
    added = [s["rows"] - (steps[steps.index(s) - 1]["rows"] if steps.index(s) else 0) for s in chosen]
    total = sum(added)
    return {"from_rows": chosen[0]["rows"] - added[0], "to_rows": chosen[-1]["rows"],
            "rows_per_s": total / sum(a / s["rows_per_s"] for a, s in zip(added, chosen)),
            "wal_bytes_per_row": sum(a * s["wal_bytes_per_row"] for a, s in zip(added, chosen)) / total,
            "fpi_per_row": sum(a * s["fpi_per_row"] for a, s in zip(added, chosen)) / total,
            "index_blocks_read": sum(s["index_blocks_read"] for s in chosen),
            "index_blocks_hit": sum(s["index_blocks_hit"] for s in chosen)}


def past_memory(b: Bench) -> None:
    scale = QUICK if b.sizes == QUICK_SIZES else FULL
    variants, missing = wanted_variants(b)
    memory = MemoryLimit()
    server = b.other_cluster("past-memory", SETTINGS)
    runs = []
    try:
        server.create_database(b.dbname)
        for variant in variants:
            # a server started afresh: nothing of another variant's table in caches, statistics or checkpoints
            server.stop()
            server.start()
            memory.hold(server)
            runs.append(grow(b, server, memory, variant, scale))
    finally:
        server.stop()
        memory.close()
    label = (f"shared_buffers {SETTINGS['shared_buffers']} only: {memory.why_not}" if memory.why_not else
             f"a {LIMIT_MB} MB memory limit (page cache included), shared_buffers {SETTINGS['shared_buffers']}")
    b.series["past_memory"] = {"label": label, "limit_mb": None if memory.why_not else LIMIT_MB,
                               "settings": SETTINGS, "clients": CLIENTS, "batch": BATCH,
                               "rows": scale.rows, "step": scale.step, "budget_s": scale.budget_s,
                               "runs": runs, "missing": missing}
    five_m = min(5_000_000, scale.rows // 4)
    last = "in the last fifth of the rows"
    # WHEN: the window() of steps around that many rows (None: the last fifth), or "end": the run's final figures
    for key, case, unit, field, when in (
            ("past-memory-insert-5m", f"rows/s inserting around {five_m:,} rows", "rows/s", "rows_per_s", five_m),
            ("past-memory-insert-end", f"rows/s inserting {last}", "rows/s", "rows_per_s", None),
            ("past-memory-wal-5m", f"WAL bytes per row around {five_m:,} rows", "bytes", "wal_bytes_per_row", five_m),
            ("past-memory-wal-end", f"WAL bytes per row {last}", "bytes", "wal_bytes_per_row", None),
            ("past-memory-fpi-end", f"full-page images per 1,000 rows {last}", "FPI", "fpi_per_row", None),
            ("past-memory-lookups", "point lookups by key per second at the end", "tps", "lookups_per_s", "end"),
            ("past-memory-newest", "count the newest step's rows at the end", "ms", "newest_ms", "end"),
            ("past-memory-pk", "primary key size at the end", "MB", "pk_mb", "end"),
            ("past-memory-disk", "table, key and TOAST on disk at the end", "MB", "total_mb", "end"),
            ("past-memory-rows", "rows reached within the time budget", "rows", "rows", "end")):
        result = Result(f"past memory ({label}): {case}", unit, baseline=BIGINT, key=key, missing=missing)
        for run in runs:
            figures = run if when == "end" else window(run["steps"], when)
            if figures is not None:
                result.add(run["variant"], figures[field] * (1000 if field == "fpi_per_row" else 1))
        b.add(result)
