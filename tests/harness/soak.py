"""pgbench clients insert DEFAULT ids into uniquely indexed tables, with the library preloaded and not: no failed
transaction, no duplicate, every row present, amcheck clean. tests/server/test_hostile.py runs a short one; longer:

    target/venv/bin/python tests/harness/soak.py [--seconds N] [--clients N] [--build BUILD...]"""

from __future__ import annotations

import argparse
import re

from harness.pgcluster import Cluster


def soak(cluster: Cluster, seconds: int, clients: int) -> dict:
    db = cluster.create_database("soak")
    with cluster.connect(db) as conn:
        conn.execute("CREATE TABLE mono (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), payload int)")
        conn.execute("CREATE TABLE rand (id ulid PRIMARY KEY DEFAULT gen_ulid(), payload int)")
        conn.execute("CREATE UNIQUE INDEX rand_id_desc ON rand (id DESC)")
    result = cluster.run("pgbench", "-n", "-c", str(clients), "-j", str(clients), "-T", str(seconds), "-f", "-", db,
                         check=False, input="INSERT INTO mono (payload) VALUES (:client_id);\n"
                                            "INSERT INTO rand (payload) VALUES (:client_id);\n")
    out = result.stdout + result.stderr
    processed = int(re.search(r"number of transactions actually processed: (\d+)", out).group(1))
    failed = re.search(r"number of failed transactions: (\d+)", out)
    with cluster.connect(db) as conn:
        counts = {t: conn.execute(f"SELECT count(*), count(DISTINCT id) FROM {t}").fetchone() for t in ("mono", "rand")}
        checked = []
        if cluster.has_extension("amcheck"):
            conn.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
            for (index,) in conn.execute(
                "SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid IN ('mono'::regclass, 'rand'::regclass)"
            ).fetchall():
                conn.execute("SELECT bt_index_parent_check(%s::regclass, true)", [index])
                checked.append(index)
    return {
        "returncode": result.returncode,
        "errors": [line for line in out.splitlines() if "error" in line.lower()],
        "transactions": processed,
        # pgbench counts failed transactions from 15 on; before, a client stops at its first error
        "failed": int(failed.group(1)) if failed else (0 if result.returncode == 0 else None),
        "rows": counts,
        "amcheck": checked,
    }


def check(report: dict) -> None:
    assert report["returncode"] == 0 and not report["errors"] and report["failed"] == 0, report
    for table, (count, distinct) in report["rows"].items():
        assert count == distinct == report["transactions"], (table, report)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=180)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--build", nargs="+", default=["15"], help="PostgreSQL builds (15, 18-assert...)")
    args = parser.parse_args()
    for version in args.build:
        for preload in (False, True):
            settings = {"shared_preload_libraries": "ulid"} if preload else {}
            cluster = Cluster(version, "soak", slot=7, settings=settings).start()
            try:
                report = soak(cluster, args.seconds, args.clients)
            finally:
                cluster.stop()
            check(report)
            print(f"PostgreSQL {version}, {'preloaded' if preload else 'not preloaded'}: "
                  f"{report['transactions']} transactions, {2 * report['transactions']} rows, "
                  f"0 failed, 0 duplicates, amcheck clean on {len(report['amcheck'])} indexes")


if __name__ == "__main__":
    main()
