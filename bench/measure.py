"""How a case measures: its `Sizes`, the `Result`s it records and the `Bench` it works with."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field


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
    """One case on one server, every measurement of every variant: latest.json's schema for a case."""

    case: str
    unit: str  # what the numbers mean, e.g. "ns/call", "ms", "tps", "MB"
    values: dict[str, list[float]] = field(default_factory=dict)
    baseline: str = "uuid"
    note: str = ""
    key: str = ""  # a short, stable name the reports find the case by
    missing: dict[str, str] = field(default_factory=dict)  # variant -> why this server has no numbers
    step: str = ""  # the case of cases.CASES that measured it (run.py sets it): provenance.py finds its run by it

    def add(self, variant: str, value: float) -> None:
        self.values.setdefault(variant, []).append(value)

    def median(self, variant: str) -> float:
        return statistics.median(self.values[variant])

    def ratio(self, variant: str, baseline: str | None = None) -> float:
        return self.median(variant) / self.median(baseline or self.baseline)

    def runs(self) -> int:
        """How many measurements each variant's median is taken from."""
        return min((len(v) for v in self.values.values()), default=0)


class Bench:
    """What a case works with on one PostgreSQL version: `conn` to the benchmark cluster (ulid preloaded),
    `session_conn` to the one without. A case adds its `Result`s to `results` (the client sweep to `sweep`), plot
    data to `series`, and variants this server cannot run to `unavailable`."""

    def __init__(self, cluster, session_cluster, sizes: Sizes, start_cluster: Callable[[str, dict[str, str]], object]):
        self.cluster = cluster
        self.session_cluster = session_cluster
        self.version = cluster.version
        self.sizes = sizes
        self.dbname = "bench"
        self.results: list[Result] = []
        self.sweep: dict[int, Result] = {}
        self.series: dict[str, dict] = {}
        self.unavailable: dict[str, str] = {}
        self.pg_uuidv7: str | None = None  # "pg_uuidv7 VERSION: where it came from", when installed
        self.release = True  # whether a case that packages ulid builds it in release mode
        self.other_cluster = start_cluster  # (name, settings): one more cluster of this version, stopped at the end
        cluster.create_database(self.dbname)
        self.conn = cluster.connect(self.dbname)
        session_cluster.create_database(self.dbname)
        self.session_conn = session_cluster.connect(self.dbname)

    def sql(self, query: str, params=()):
        return self.conn.execute(query, params)

    def timer(self, query: str, scale: float = 1e3, conn=None, before: tuple[str, ...] = ()) -> Callable[[], float]:
        """A variant's run for `interleave`: the statements BEFORE, untimed, then QUERY's wall time times SCALE."""
        conn = conn or self.conn

        def run() -> float:
            for statement in before:
                conn.execute(statement)
            start = time.perf_counter()
            conn.execute(query)
            return (time.perf_counter() - start) * scale

        return run

    def split(self, names: list[str]) -> tuple[list[str], dict[str, str]]:
        present = [n for n in names if n not in self.unavailable]
        return present, {n: self.unavailable[n] for n in names if n in self.unavailable}

    def add(self, *results: Result) -> None:
        self.results.extend(results)

    def interleave(self, result: Result, runs: dict[str, Callable[[], float]], repeats: int | None = None,
                   warmup: bool = False) -> Result:
        """Runs each variant once per round, rounds repeated, so drift hits all alike. A warm-up round, not
        counted, first fills caches and wakes the CPU."""
        if warmup:
            for run in runs.values():
                run()
        for _ in range(repeats or self.sizes.repeats):
            for variant, run in runs.items():
                result.add(variant, run())
        if warmup:
            result.note = "; ".join(filter(None, [result.note, "after a warm-up round that is not counted"]))
        self.results.append(result)
        return result

    def pgbench(self, script: str, clients: int, seconds: int = 0, prepared: bool = False, cluster=None,
                transactions: int = 0) -> float:
        """pgbench's tps of SCRIPT on the bench database, run for SECONDS or for TRANSACTIONS per client."""
        threads = min(clients, os.cpu_count() or 1)  # more threads than cores only take CPU from the server
        args = ["-n", "-c", str(clients), "-j", str(threads),
                *(["-t", str(transactions)] if transactions else ["-T", str(seconds)]), "-f", "-",
                *(["-M", "prepared"] if prepared else [])]
        out = (cluster or self.cluster).run("pgbench", *args, self.dbname, input=script).stdout
        for line in out.splitlines():
            if line.startswith("tps = "):
                return float(line.split()[2])
        raise RuntimeError(f"no tps in pgbench output:\n{out}")

    def close(self) -> None:
        self.conn.close()
        self.session_conn.close()
