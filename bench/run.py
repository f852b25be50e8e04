"""Benchmarks: ulid against uuid, side by side, in one run.

Builds the extension in release mode, starts a private cluster tuned for
benchmarking, runs every case several times interleaved (A B A B ...) and
prints a table of medians and ratios. This machine is shared and noisy, so
only ratios measured in the same run mean anything; absolute times drift.

    bench/run [--pg VERSION] [--quick] [--out DIR]

--quick runs tiny sizes once, to check that the runner works (CI does
this; it asserts nothing about timings).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from pgcluster import Cluster  # noqa: E402

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


@dataclass
class Sizes:
    n: int  # rows for sort, index, COPY cases
    gen: int  # calls per generation measurement
    insert: int  # rows per single-statement INSERT
    growth_steps: int
    pgbench_seconds: int
    repeats: int


FULL = Sizes(n=2_000_000, gen=2_000_000, insert=1_000_000, growth_steps=20, pgbench_seconds=10, repeats=5)
QUICK = Sizes(n=20_000, gen=20_000, insert=10_000, growth_steps=4, pgbench_seconds=1, repeats=1)


@dataclass
class Result:
    case: str
    unit: str  # what the numbers mean, e.g. "ns/row", "ms", "tps", "MB"
    values: dict[str, list[float]] = field(default_factory=dict)
    baseline: str = "uuid"
    note: str = ""

    def add(self, variant: str, value: float) -> None:
        self.values.setdefault(variant, []).append(value)

    def median(self, variant: str) -> float:
        return statistics.median(self.values[variant])


class Bench:
    def __init__(self, cluster: Cluster, sizes: Sizes):
        self.cluster = cluster
        self.sizes = sizes
        self.results: list[Result] = []
        self.db = cluster.create_database("bench")
        self.conn = cluster.connect(self.db)
        self.has_uuidv7 = cluster.version >= 18
        if not self.has_uuidv7:
            # A UUIDv7 (RFC 9562) built in SQL for servers without uuidv7():
            # 48-bit millisecond timestamp, version 7, variant bits, random.
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

    def timed(self, query: str, params=()) -> float:
        """Wall time of one statement, in seconds."""
        start = time.perf_counter()
        self.conn.execute(query, params)
        return time.perf_counter() - start

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

    def pgbench(self, script: str, clients: int, seconds: int, prepared: bool = False) -> float:
        with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
            f.write(script)
        os.chmod(f.name, 0o644)
        args = ["-n", "-c", str(clients), "-j", str(clients), "-T", str(seconds), "-f", f.name]
        if prepared:
            args += ["-M", "prepared"]
        out = self.cluster.run("pgbench", *args, self.db).stdout
        os.unlink(f.name)
        for line in out.splitlines():
            if line.startswith("tps = "):
                return float(line.split()[2])
        raise RuntimeError(f"no tps in pgbench output:\n{out}")

    # ---- cases -------------------------------------------------------------

    def generation(self):
        n = self.sizes.gen
        funcs = {
            "clock_timestamp()": "clock_timestamp()",
            "gen_ulid()": "gen_ulid()",
            "gen_monotonic_ulid()": "gen_monotonic_ulid()",
            "gen_random_uuid()": "gen_random_uuid()",
        }
        if self.has_uuidv7:
            funcs["uuidv7()"] = "uuidv7()"
        runs = {
            name: (lambda f=f: self.timed(f"SELECT count({f}) FROM generate_series(1, {n})") * 1e9 / n)
            for name, f in funcs.items()
        }
        # cheap and noisy: three times the usual rounds
        calls = self.interleave(
            Result("generate one value (SELECT count(f()) FROM generate_series)", "ns/call",
                   baseline="gen_random_uuid()", note="gen_monotonic_ulid() with ulid preloaded"),
            runs,
            repeats=3 * self.sizes.repeats,
            warmup=True,
        )
        # the same numbers against the floor: the executor's cost of any volatile call
        floor = Result("generate one value, against the floor of a volatile call", "ns/call",
                       baseline="clock_timestamp()", values=calls.values)
        self.results.append(floor)

    def insert_default(self):
        n = self.sizes.insert
        defaults = {"ulid gen_ulid()": ("ulid", "gen_ulid()"),
                    "ulid gen_monotonic_ulid()": ("ulid", "gen_monotonic_ulid()"),
                    "uuid gen_random_uuid()": ("uuid", "gen_random_uuid()")}
        if self.has_uuidv7:
            defaults["uuid uuidv7()"] = ("uuid", "uuidv7()")
        for i, (name, (typ, default)) in enumerate(defaults.items()):
            self.sql(f"DROP TABLE IF EXISTS ins_{i}")
            self.sql(f"CREATE TABLE ins_{i} (id {typ} PRIMARY KEY DEFAULT {default}, n int)")

        def run(i):
            self.sql(f"TRUNCATE ins_{i}")
            return self.timed(f"INSERT INTO ins_{i} (n) SELECT g FROM generate_series(1, {n}) g") * 1e3

        self.interleave(
            Result(f"INSERT {n:,} rows with a DEFAULT id, one statement (primary key)", "ms",
                   baseline="uuid gen_random_uuid()"),
            {name: (lambda i=i: run(i)) for i, name in enumerate(defaults)},
            repeats=max(1, self.sizes.repeats - 2),
        )

        def bench(i):
            self.sql(f"TRUNCATE ins_{i}")
            self.sql("CHECKPOINT")
            return self.pgbench(f"INSERT INTO ins_{i} (n) VALUES (1);\n", 2, self.sizes.pgbench_seconds)

        self.interleave(
            Result(f"pgbench INSERT with a DEFAULT id, 2 clients, {self.sizes.pgbench_seconds} s", "tps",
                   baseline="uuid gen_random_uuid()"),
            {name: (lambda i=i: bench(i)) for i, name in enumerate(defaults)},
            repeats=max(1, self.sizes.repeats - 2),
        )

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
            Result(f"ORDER BY over {n:,} random values", "ms"),
            {col: (lambda c=c: self.timed(f"SELECT count(*) FROM (SELECT {c} FROM same ORDER BY {c}) s") * 1e3)
             for col, c in (("ulid", "u"), ("uuid", "v"))},
            repeats=2 * self.sizes.repeats,
            warmup=True,
        )

        def create_index(c):
            self.sql(f"DROP INDEX IF EXISTS same_{c}")
            return self.timed(f"CREATE INDEX same_{c} ON same ({c})") * 1e3

        self.interleave(
            Result(f"CREATE INDEX over {n:,} random values", "ms"),
            {col: (lambda c=c: create_index(c)) for col, c in (("ulid", "u"), ("uuid", "v"))},
            repeats=2 * self.sizes.repeats,
            warmup=True,
        )
        size = Result(f"btree size over {n:,} random values (CREATE INDEX)", "MB")
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
            Result(f"text output: SELECT count(id::text) over {n:,} rows", "ms"),
            {col: (lambda c=c: self.timed(f"SELECT count({c}::text) FROM same") * 1e3) for col, c in cols},
        )
        self.interleave(
            Result(f"text output: COPY TO over {n:,} rows", "ms"),
            {col: (lambda c=c: self.timed(f"COPY (SELECT {c} FROM same) TO '/dev/null'") * 1e3) for col, c in cols},
        )

        def copy_in(c, fmt):
            self.sql(f"TRUNCATE load_{c}")
            opts = " (FORMAT binary)" if fmt == "bin" else ""
            return self.timed(f"COPY load_{c} FROM '{workdir}/{c}.{fmt}'{opts}") * 1e3

        self.interleave(
            Result(f"text input: COPY FROM of {n:,} rows", "ms"),
            {col: (lambda c=c: copy_in(c, "txt")) for col, c in cols},
        )
        self.interleave(
            Result(f"binary COPY TO of {n:,} rows", "ms"),
            {col: (lambda c=c: self.timed(f"COPY (SELECT {c} FROM same) TO '/dev/null' (FORMAT binary)") * 1e3)
             for col, c in cols},
        )
        self.interleave(
            Result(f"binary COPY FROM of {n:,} rows", "ms"),
            {col: (lambda c=c: copy_in(c, "bin")) for col, c in cols},
        )

    def point_lookups(self):
        """pgbench, prepared statements: look up one row by id. The key is
        md5(k) read as a uuid, and for ulid relabelled (a no-op cast), so
        both sides do the same work around the lookup."""
        n = self.sizes.n
        self.sql("DROP TABLE IF EXISTS lookup")
        self.sql(
            f"""
            CREATE TABLE lookup AS
            SELECT k, md5(k::text)::uuid::ulid AS u, md5(k::text)::uuid AS v FROM generate_series(1, {n}) k
            """
        )
        self.sql("CREATE UNIQUE INDEX lookup_u ON lookup (u)")
        self.sql("CREATE UNIQUE INDEX lookup_v ON lookup (v)")
        self.sql("VACUUM ANALYZE lookup")
        scripts = {
            "ulid": f"\\set k random(1, {n})\nSELECT k FROM lookup WHERE u = md5(:k::text)::uuid::ulid;\n",
            "uuid": f"\\set k random(1, {n})\nSELECT k FROM lookup WHERE v = md5(:k::text)::uuid;\n",
        }
        self.interleave(
            Result(f"point lookups by id, pgbench -M prepared, 2 clients, {n:,} rows", "tps"),
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
                Result(f"one hour of 30 days ({counts['ulid']:,} of {n:,} rows) via {kind}", "ms"),
                runs,
                repeats=self.sizes.repeats * 4,
            )
            if kind == "BRIN":
                sizes = Result(f"BRIN size over {n:,} time-ordered rows", "kB")
                for k, c in (("ulid", "u"), ("uuid", "v")):
                    sizes.add(k, self.sql(f"SELECT pg_relation_size('timeline_{c}')").fetchone()[0] / 1024)
                self.results.append(sizes)

    def growth(self, out: Path, tag: str):
        """Index size and insert throughput as a table grows from 0 to N, for
        time-ordered ulid, random uuid v4 and time-ordered uuid v7."""
        n, steps = self.sizes.n, self.sizes.growth_steps
        batch = n // steps
        v7 = "uuid v7 (uuidv7)" if self.has_uuidv7 else "uuid v7 (a SQL function: this server has no uuidv7)"
        variants = {"ulid (gen_monotonic_ulid)": ("ulid", "gen_monotonic_ulid()"),
                    "uuid v4 (gen_random_uuid)": ("uuid", "gen_random_uuid()"),
                    v7: ("uuid", "uuidv7()")}
        rows = []
        for i, (name, (typ, default)) in enumerate(variants.items()):
            self.sql(f"DROP TABLE IF EXISTS grow_{i}")
            self.sql(f"CREATE TABLE grow_{i} (id {typ} PRIMARY KEY DEFAULT {default}, n int)")
        for step in range(1, steps + 1):
            row = [step * batch]
            for i in range(len(variants)):
                seconds = self.timed(f"INSERT INTO grow_{i} (n) SELECT g FROM generate_series(1, {batch}) g")
                size = self.sql(f"SELECT pg_relation_size('grow_{i}_pkey')").fetchone()[0]
                row += [batch / seconds, size / 2**20]
            rows.append(row)
        final = Result(f"primary key size after {n:,} inserts of DEFAULT ids", "MB", baseline="uuid v4 (gen_random_uuid)")
        table = Result(f"table size after {n:,} inserts of DEFAULT ids", "MB", baseline="uuid v4 (gen_random_uuid)")
        for i, name in enumerate(variants):
            final.add(name, rows[-1][2 + 2 * i])
            table.add(name, self.sql(f"SELECT pg_relation_size('grow_{i}')").fetchone()[0] / 2**20)
        self.results += [final, table]
        data = out / f"growth-{tag}.dat"
        data.write_text("# rows " + " ".join(f'"{v}" rows/s, MB' for v in variants) + "\n"
                        + "\n".join(" ".join(f"{x:.3f}" for x in r) for r in rows) + "\n")
        plot(data, list(variants), out / f"growth-{tag}.png", self.cluster.version, n)


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
set terminal pngcairo size 1100,480 font 'sans,10' noenhanced
set output '{png}'
set multiplot layout 1,2 title 'Primary key on a growing table: {n:,} rows inserted in batches, PostgreSQL {version}'
set key top left
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


def fmt(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def render(results: list[Result], header: str) -> str:
    lines = [header, "", "| case | variant | median | ratio |", "| --- | --- | ---: | ---: |"]
    for r in results:
        base = r.median(r.baseline)
        for variant in r.values:
            ratio = r.median(variant) / base
            lines.append(f"| {r.case} | {variant} | {fmt(r.median(variant))} {r.unit} | {ratio:.2f} |")
    notes = [f"- {r.case}: {r.note}" for r in results if r.note]
    if notes:
        lines += ["", *notes]
    lines.append("")
    lines.append(
        "Ratios divide each median by the baseline row of its case (uuid, gen_random_uuid() or uuid v4). "
        "For times lower is better; for tps higher is better."
    )
    return "\n".join(lines) + "\n"


def machine() -> str:
    cpu = "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = int(Path("/proc/meminfo").read_text().split()[1]) / 2**20
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, {platform.system()} {platform.release()}"


def run_version(version: int, sizes: Sizes, out: Path, quick: bool, build: bool) -> str:
    if build:
        mode = [] if quick else ["--release"]
        subprocess.run([str(ROOT / "scripts" / "install"), str(version), *mode], check=True)
    started = time.time()
    cluster = Cluster(version, "bench", slot=5, settings=SETTINGS).start()
    try:
        bench = Bench(cluster, sizes)
        (server_version,) = bench.sql("SHOW server_version").fetchone()
        steps = [bench.generation, bench.insert_default, bench.same_bytes_table, bench.sort_and_index,
                 bench.text_and_binary_io, bench.point_lookups, bench.time_range]
        for step in steps:
            step()
            print(f"  PostgreSQL {version}: {time.time() - started:5.0f} s  {step.__name__}", file=sys.stderr)
        bench.growth(out, f"pg{version}")
        settings = ", ".join(f"{k}={v}" for k, v in SETTINGS.items())
        header = (
            f"## PostgreSQL {server_version}{' (quick mode: sizes too small to mean anything)' if quick else ''}\n\n"
            f"{datetime.date.today().isoformat()}, {machine()}.  \n"
            f"Medians of {sizes.repeats} interleaved runs (generation: {3 * sizes.repeats}, sorts and index "
            f"builds: {2 * sizes.repeats}, each after a warm-up round; INSERT and pgbench cases: "
            f"{max(1, sizes.repeats - 2)}); "
            f"{'debug' if quick else 'release'} build; cluster settings: {settings}.  \n"
            f"This version's run took {(time.time() - started) / 60:.1f} min."
        )
        return render(bench.results, header)
    finally:
        cluster.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", type=int, nargs="+", default=[15, 18])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repeat: checks the runner works")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--no-build", action="store_true", help="use the extension already installed")
    args = parser.parse_args()
    sizes = QUICK if args.quick else FULL
    out = Path(tempfile.mkdtemp(prefix="ulid-bench-")) if args.quick else args.out
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    sections = [run_version(v, sizes, out, args.quick, not args.no_build) for v in args.pg]
    report = (
        "# ulid benchmarks\n\n"
        "Produced by `bench/run`: ulid against uuid on the same machine in the same run, each case "
        "repeated with the variants interleaved. Only the ratios are meant to be compared; absolute "
        f"times drift on this shared machine. Whole run: {(time.time() - started) / 60:.1f} min.\n\n"
        + "\n".join(sections)
    )
    (out / "latest.md").write_text(report)
    print(report)
    print(f"written: {out / 'latest.md'} and the growth plots beside it", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
