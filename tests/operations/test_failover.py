"""gen_monotonic_ulid() on a streaming standby promoted to primary, as
docs/operations.md ("Failover, and clocks on several hosts") describes it:
the generator's state is the server's own, not replicated, so the promoted
server goes by its own clock. On one machine the clocks agree, so its ids
follow the old primary's; an id from a clock an hour ahead (made with
gen_ulid(timestamptz), as such a host would have made it) stays ahead of
them, because the generator does not look at stored ids.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import time

import pytest

from harness.pgcluster import Cluster

# nothing here depends on the version: the oldest and the newest
pytestmark = pytest.mark.builds("13", "19")

PRELOADED = {"shared_preload_libraries": "ulid", "synchronous_commit": "off"}


def replayed(primary: Cluster, standby: Cluster, timeout: float = 60) -> None:
    with primary.connect() as conn:
        (lsn,) = conn.execute("SELECT pg_current_wal_lsn()").fetchone()
    deadline = time.time() + timeout
    with standby.connect() as conn:
        while time.time() < deadline:
            if conn.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [lsn]).fetchone()[0]:
                return
            time.sleep(0.1)
    raise AssertionError("the standby did not replay the primary's WAL in time")


def test_a_promoted_standby_generates_from_its_own_clock(build):
    primary = Cluster(build, "failover-primary", slot=42, settings=PRELOADED)
    standby = Cluster(build, "failover-standby", slot=43, settings=PRELOADED)
    primary.destroy()
    standby.destroy()
    try:
        primary.start()
        primary.create_database("app")
        with primary.connect("app") as conn:
            conn.execute("CREATE TABLE events (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), source text)")
            conn.execute("INSERT INTO events (source) SELECT 'old primary' FROM generate_series(1, 1000)")
            conn.execute("INSERT INTO events VALUES (gen_ulid(now() + interval '1 hour'), 'an hour ahead')")
        standby.dir.mkdir(mode=0o700)
        subprocess.run(["chown", "postgres:", str(standby.dir)], check=True)
        subprocess.run(["runuser", "-u", "postgres", "--", str(standby.bindir / "pg_basebackup"),
                        "-D", str(standby.dir), "-R", "-X", "stream", "-c", "fast",
                        "-h", str(primary.dir), "-p", str(primary.port), "-U", "postgres"],
                       check=True, capture_output=True)
        standby.start()
        replayed(primary, standby)
        with standby.connect("app") as conn:
            assert conn.execute("SELECT pg_is_in_recovery(), count(*) FROM events").fetchone() == (True, 1001)
            # the generator runs on a standby, from a state of its own
            (on_standby,) = conn.execute("SELECT ulid_timestamp(gen_monotonic_ulid()) - clock_timestamp()").fetchone()
            assert abs(on_standby) < dt.timedelta(seconds=1)
        primary.stop()
        with standby.connect("app") as conn:
            conn.execute("SELECT pg_promote(wait => true)")
        with standby.connect("app") as conn:
            assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (False,)
            conn.execute("INSERT INTO events (source) SELECT 'new primary' FROM generate_series(1, 1000)")
            (after_old, before_ahead, near_clock) = conn.execute(
                """SELECT min(id) FILTER (WHERE source = 'new primary')
                          > max(id) FILTER (WHERE source = 'old primary'),
                          max(id) FILTER (WHERE source = 'new primary')
                          < min(id) FILTER (WHERE source = 'an hour ahead'),
                          bool_and(ulid_timestamp(id) BETWEEN now() - interval '1 minute' AND clock_timestamp())
                              FILTER (WHERE source = 'new primary')
                   FROM events""").fetchone()
            assert (after_old, before_ahead, near_clock) == (True, True, True)
            # the check docs/operations.md gives after a failover
            assert conn.execute("SELECT ulid_timestamp(max(id)) - clock_timestamp() > interval '59 minutes' "
                                "FROM events").fetchone() == (True,)
    finally:
        standby.destroy()
        primary.destroy()
