"""The Citus nodes scripts/citus starts, as pgcluster.Cluster objects, and
what the tests here read from them: plans, and where each row is stored
against where Citus routes it.

The data the tests share: SHARDS shards per distributed table, and the
shop's ORDERS orders, one every ORDER_STEP from BASE (see conftest.py)."""

from __future__ import annotations

import subprocess
from datetime import datetime, timedelta, timezone

from harness.pgcluster import SCRIPTS, Cluster

NOT_INSTALLED = 3  # scripts/citus check: no Citus in this build
SHARDS = 8

BASE = datetime(2025, 1, 1, tzinfo=timezone.utc)
ORDERS = 6000
ORDER_STEP = timedelta(minutes=17)  # 6000 orders: January 1 to March 12


class Citus:
    """The nodes started by scripts/citus, as pgcluster.Cluster objects."""

    def __init__(self, build: str):
        self.build = build
        self.coordinator = Cluster(build, "citus-coord", slot=20)
        self.workers = [Cluster(build, f"citus-w{i}", slot=20 + i) for i in (1, 2)]

    def script(self, command: str, *settings: str) -> None:
        subprocess.run(["bash", str(SCRIPTS / "citus"), command, self.build, *settings], check=True)

    def node(self, port: int) -> Cluster:
        return next(n for n in [self.coordinator, *self.workers] if n.port == port)

    def restart(self, preload_ulid: bool) -> None:
        self.script("start", *([] if preload_ulid else ["shared_preload_libraries=citus"]))

    def add_worker(self) -> Cluster:
        self.script("add-worker")
        self.workers.append(Cluster(self.build, "citus-w3", slot=23))
        return self.workers[-1]


def explain(conn, query: str, *options: str) -> str:
    return "\n".join(r[0] for r in conn.execute(f"EXPLAIN ({', '.join(('COSTS OFF', *options))}) {query}"))


def backwards(ids: list[str]) -> int:
    """How many values are not above the one before (ULID text sorts like the value)."""
    return sum(1 for a, b in zip(ids, ids[1:]) if b <= a)


def placements(conn, table: str) -> dict[int, int]:
    """shard id -> port of the worker holding it."""
    rows = conn.execute(
        "SELECT shardid, nodeport FROM citus_shards WHERE table_name = %s::regclass", [table]
    ).fetchall()
    return dict(rows)


def stored_locations(citus: Citus, table: str) -> dict[str, tuple[int, int]]:
    """Where each row really is: value -> (shard id, port), read from every
    shard table on every worker directly, bypassing Citus's routing."""
    with citus.coordinator.connect() as conn:
        shards = placements(conn, table)
    found: dict[str, tuple[int, int]] = {}
    for shard, port in shards.items():
        with citus.node(port).connect() as conn:
            for (value,) in conn.execute(f"SELECT id::text FROM {table}_{shard}"):
                assert value not in found, f"{value} stored twice"
                found[value] = (shard, port)
    return found


def routed_locations(conn, table: str) -> dict[str, tuple[int, int]]:
    """Where Citus says each row belongs."""
    shards = placements(conn, table)
    rows = conn.execute(
        f"SELECT id::text, get_shard_id_for_distribution_column(%s, id) FROM {table}", [table]
    ).fetchall()
    return {value: (shard, shards[shard]) for value, shard in rows}
