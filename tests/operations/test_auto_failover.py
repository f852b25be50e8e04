"""Failover with pg_auto_failover, as Debian packages it
(postgresql-18-auto-failover, in the sid system of scripts/debian-system,
beside Debian's postgresql-18 and ulid's Debian package for 18): a
monitor, a primary and a secondary on this machine, and an application
that keeps inserting with `gen_monotonic_ulid()` through a connection
string that names both nodes (`target_session_attrs=read-write`), as
docs/nodes.md ("A standby that takes over") describes it.

The application's inserts go on through `pg_autoctl perform failover`,
then through the loss of the new primary (its pg_autoctl and server
stopped at once, as a crashed host would stop), after which the monitor
promotes the other node again. Then:
- every id the application saw committed is on the last primary, once;
- in the order the application saw them committed, the ids increase,
  across both failovers: each new primary's generator starts from the
  clock (its state is in its own memory, never replicated), and the clock
  of one machine has moved past every id the old primary made;
- no step needed the generator's state: nothing is copied or reset.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import threading
import time

import psycopg
import pytest

from ulidtools.debian_servers import System
from harness.pages import sh_blocks
from harness.pgcluster import ROOT, cluster_port

pytestmark = pytest.mark.builds("18")
MAJOR = "18"

HOME = "/var/lib/postgresql"
MONITOR = f"{HOME}/ulid-failover-monitor"
NODES = {"first": f"{HOME}/ulid-failover-first", "second": f"{HOME}/ulid-failover-second"}
PORTS = {"monitor": cluster_port(MAJOR, 44), "first": cluster_port(MAJOR, 45), "second": cluster_port(MAJOR, 49)}
# the monitor notices a lost node in seconds rather than its defaults' 50
QUICK_MONITOR = {
    "pgautofailover.health_check_period": "1000",
    "pgautofailover.health_check_timeout": "1000",
    "pgautofailover.health_check_retry_delay": "500",
    "pgautofailover.health_check_max_retries": "1",
    "pgautofailover.node_considered_unhealthy_timeout": "3000",
    "pgautofailover.primary_demote_timeout": "5000",
}


PAGE = ROOT / "docs" / "nodes.md"


def page_commands() -> dict[tuple[str, str], set[str]]:
    """The pg_autoctl commands of the page's `sh` blocks, each with the
    options it is given."""
    commands = {}
    for _, script in sh_blocks(PAGE):
        for command in re.sub(r"\\\n", " ", script).split("\n"):
            words = shlex.split(command, comments=True)
            if words and words[0] == "pg_autoctl":
                commands[(words[1], words[2])] = {w for w in words if w.startswith("--")}
    return commands


def options(args) -> set[str]:
    return {a for a in args if a.startswith("--")}


class AutoFailover:
    """pg_autoctl run as postgres in the Debian system; each node's
    `pg_autoctl run` (or `create ... --run`) is a process of this test."""

    def __init__(self, system: System, logs):
        self.system = system
        self.logs = logs
        self.services: dict[str, subprocess.Popen] = {}
        self.used: dict[tuple[str, ...], set[str]] = {}  # command: its options

    def argv(self, *args: str) -> list[str]:
        return [*self.system.command, "runuser", "-u", "postgres", "--", "env", f"HOME={HOME}",
                f"PATH=/usr/lib/postgresql/{MAJOR}/bin:/usr/bin:/bin", "pg_autoctl", *args]

    def __call__(self, *args: str, check: bool = True) -> str:
        self.used.setdefault(tuple(args[:2]), options(args))
        p = subprocess.run(self.argv(*args), capture_output=True, text=True, timeout=300)
        assert not check or p.returncode == 0, f"pg_autoctl {' '.join(args)}:\n{p.stdout}\n{p.stderr}"
        return p.stdout

    def serve(self, name: str, *args: str) -> None:
        self.used.setdefault(tuple(args[:2]), options(args))
        log = open(self.logs / f"{name}.log", "a")
        self.services[name] = subprocess.Popen(self.argv(*args), stdout=log, stderr=subprocess.STDOUT)

    def log(self, name: str) -> str:
        return "\n".join((self.logs / f"{name}.log").read_text(errors="replace").splitlines()[-30:])

    def states(self) -> dict[int, tuple[str, str]]:
        """Each node's port: (the state it reported, the one assigned)."""
        nodes = json.loads(self("show", "state", "--pgdata", MONITOR, "--json"))
        return {n["nodeport"]: (n["current_group_state"], n["assigned_group_state"]) for n in nodes}

    def wait_for(self, want: dict[str, str], timeout: float = 180) -> None:
        """Until each named node reports, and is assigned, the state
        wanted; a standby's base backup waits for a checkpoint, which the
        primary is asked for meanwhile."""
        deadline = time.monotonic() + timeout
        while True:
            states = self.states()
            if all(states.get(PORTS[name]) == (state, state) for name, state in want.items()):
                return
            for name in NODES:
                if states.get(PORTS[name], ("", ""))[0] in ("primary", "wait_primary"):
                    try:
                        with node_connection(self.system, name) as conn:
                            conn.execute("CHECKPOINT")
                    except psycopg.Error:
                        pass
            assert time.monotonic() < deadline, (want, states, self.log("first"), self.log("second"))
            time.sleep(1)

    def stop(self, pgdata: str) -> None:
        self("stop", "--pgdata", pgdata, "--immediate", check=False)

    def clean(self) -> None:
        for pgdata in (*NODES.values(), MONITOR):
            self.stop(pgdata)
        for p in self.services.values():
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        self.system("sh", "-c", f"rm -rf {MONITOR} {' '.join(NODES.values())} {HOME}/backup "
                    f"{HOME}/.config/pg_autoctl {HOME}/.local/share/pg_autoctl /tmp/pg_autoctl")


def node_connection(system: System, *names: str, dbname: str = "app") -> psycopg.Connection:
    """A connection to the first of the named nodes that accepts a write,
    as an application's connection string names them all."""
    socket = system.here("/run/postgresql")
    conninfo = (f"host={','.join([str(socket)] * len(names))} port={','.join(str(PORTS[n]) for n in names)} "
                f"user=postgres dbname={dbname} connect_timeout=2 target_session_attrs=read-write")
    return psycopg.connect(conninfo, autocommit=True)


@pytest.fixture(scope="module")
def failover(timeseries, tmp_path_factory):
    # the session's sid system with ulid's Debian package for 18 installed
    # (the fixture of TimescaleDB and pg_partman, whose cluster is left alone)
    system = timeseries.system
    assert system.major == MAJOR
    assert system("pg_autoctl", "--version").returncode == 0
    paf = AutoFailover(system, tmp_path_factory.mktemp("pg_autoctl"))
    paf.clean()
    try:
        paf("create", "monitor", "--pgdata", MONITOR, "--pgport", str(PORTS["monitor"]),
            "--hostname", "localhost", "--auth", "trust", "--no-ssl")
        paf.serve("monitor", "run", "--pgdata", MONITOR)
        deadline = time.monotonic() + 60
        while True:
            try:
                with psycopg.connect(f"host={system.here('/run/postgresql')} port={PORTS['monitor']} "
                                     "user=postgres dbname=pg_auto_failover", autocommit=True) as conn:
                    for name, value in QUICK_MONITOR.items():
                        conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
                    conn.execute("SELECT pg_reload_conf()")
                break
            except psycopg.OperationalError:
                assert time.monotonic() < deadline, paf.log("monitor")
                time.sleep(0.5)
        monitor_uri = f"postgres://autoctl_node@localhost:{PORTS['monitor']}/pg_auto_failover?sslmode=disable"
        for name in ("first", "second"):
            paf.serve(name, "create", "postgres", "--pgdata", NODES[name], "--pgport", str(PORTS[name]),
                      "--hostname", "localhost", "--name", name, "--auth", "trust", "--no-ssl",
                      "--dbname", "app", "--monitor", monitor_uri, "--run")
            paf.wait_for({"first": "single"} if name == "first" else {"first": "primary", "second": "secondary"})
        yield paf
    finally:
        paf.clean()


class Application:
    """One client inserting rows, each in its own transaction, through a
    connection string naming both nodes; it reconnects after an error, as
    applications do, and keeps what it saw committed, in order."""

    def __init__(self, system: System):
        self.system = system
        self.committed: list[tuple[bytes, int]] = []  # (id, the node's port)
        self.failed = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run)

    def run(self) -> None:
        conn = None
        while not self.done.is_set():
            try:
                if conn is None:
                    conn = node_connection(self.system, "first", "second")
                (id_,) = conn.execute("INSERT INTO events DEFAULT VALUES RETURNING id::bytea").fetchone()
                self.committed.append((bytes(id_), conn.info.port))
            except psycopg.Error:
                self.failed += 1
                if conn is not None:
                    conn.close()
                conn = None
                time.sleep(0.05)
        if conn is not None:
            conn.close()

    def count_on(self, port: int) -> int:
        return sum(1 for _, p in self.committed if p == port)

    def wait_for_rows_on(self, port: int, rows: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        start = self.count_on(port)
        while self.count_on(port) < start + rows:
            assert time.monotonic() < deadline, f"no inserts on {port} ({self.failed} failed)"
            time.sleep(0.05)


def test_ids_after_failovers_follow_every_id_before(failover):
    paf = failover
    with node_connection(paf.system, "first") as conn:
        conn.execute("CREATE EXTENSION ulid")
        conn.execute("CREATE TABLE events (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid())")
    app = Application(paf.system)
    app.thread.start()
    try:
        app.wait_for_rows_on(PORTS["first"], 500)
        # a planned switch: the secondary becomes the primary
        paf("perform", "failover", "--pgdata", MONITOR)
        paf.wait_for({"first": "secondary", "second": "primary"})
        app.wait_for_rows_on(PORTS["second"], 500)
        # the new primary is lost at once; the monitor promotes the other
        paf.stop(NODES["second"])
        paf.wait_for({"first": "wait_primary"})
        app.wait_for_rows_on(PORTS["first"], 500)
    finally:
        app.done.set()
        app.thread.join()

    # the page's commands are the ones run here, with the same options
    page = page_commands()
    assert page and all(paf.used.get(command) == opts for command, opts in page.items()), (page, paf.used)

    served = [port for _, port in app.committed]
    switches = [(a, b) for a, b in zip(served, served[1:]) if a != b]
    assert switches == [(PORTS["first"], PORTS["second"]), (PORTS["second"], PORTS["first"])], switches
    ids = [id_ for id_, _ in app.committed]
    assert all(a < b for a, b in zip(ids, ids[1:])), "an id committed after another is not greater"
    with node_connection(paf.system, "first") as conn:
        stored = {bytes(r[0]) for r in conn.execute("SELECT id::bytea FROM events")}
        (count,) = conn.execute("SELECT count(*) FROM events").fetchone()
    assert count == len(stored)
    assert set(ids) <= stored, f"{len(set(ids) - stored)} committed rows lost"
    print(f"\n{len(ids)} rows committed, on the first node, the second, then the first again; "
          f"{app.failed} attempts failed while no primary answered")
