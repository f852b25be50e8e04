"""ulid on Citus: a coordinator and two workers on local ports, started by
scripts/citus, anew for each module here (a third worker joins for the
rebalancing test).

Runs wherever Citus is already installed into the server under test
(citus.so in its pkglibdir, citus.control in its extension directory), as
Citus's own packages install it; elsewhere every test here is skipped, with
that reason (see scripts/citus).
"""

from __future__ import annotations

import re
import subprocess

import pytest

from citus_cluster import BASE, NOT_INSTALLED, ORDER_STEP, ORDERS, SHARDS, Citus
from harness.pgcluster import SCRIPTS


@pytest.fixture(scope="module")
def citus(build):
    check = subprocess.run(
        ["bash", str(SCRIPTS / "citus"), "check", build], capture_output=True, text=True
    )
    message = re.sub(r"^==> [0-9:]+ ", "", re.sub(r"\x1b\[[0-9;]*m", "", check.stderr.strip().splitlines()[-1]))
    if check.returncode == NOT_INSTALLED:
        pytest.skip(message)
    assert check.returncode == 0, check.stderr
    c = Citus(build)
    c.script("destroy")  # every module starts from empty nodes
    c.script("start")
    yield c
    c.script("stop")


@pytest.fixture(scope="module")
def shop(citus):
    """orders distributed by a ulid id, order_lines co-located with it,
    currencies a reference table. Order i was made at BASE + i * ORDER_STEP."""
    with citus.coordinator.connect() as conn:
        conn.execute(
            "CREATE TABLE orders (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), "
            "customer int NOT NULL, total numeric NOT NULL, currency text NOT NULL)"
        )
        conn.execute("CREATE TABLE order_lines (order_id ulid, line int, sku text, PRIMARY KEY (order_id, line))")
        conn.execute("CREATE TABLE currencies (code text PRIMARY KEY, name text)")
        conn.execute(f"SELECT create_distributed_table('orders', 'id', shard_count => {SHARDS})")
        conn.execute("SELECT create_distributed_table('order_lines', 'order_id', colocate_with => 'orders')")
        conn.execute("SELECT create_reference_table('currencies')")
        conn.execute("INSERT INTO currencies VALUES ('EUR', 'euro'), ('USD', 'dollar'), ('JPY', 'yen')")
        conn.execute(
            "INSERT INTO orders (id, customer, total, currency) "
            "SELECT gen_ulid(%s + g * %s), mod(g, 100), g, (ARRAY['EUR', 'USD', 'JPY'])[mod(g, 3) + 1] "
            "FROM generate_series(0, %s) g",
            [BASE, ORDER_STEP, ORDERS - 1],
        )
        conn.execute("INSERT INTO order_lines SELECT id, l, 'sku-' || l FROM orders, generate_series(1, 2) l")
        # distinct milliseconds: id order is time order, ids[i] is order i
        ids = [r[0] for r in conn.execute("SELECT id::text FROM orders ORDER BY id")]
    assert len(ids) == ORDERS
    return {"ids": ids, "times": [BASE + i * ORDER_STEP for i in range(ORDERS)]}
