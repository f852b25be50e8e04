"""What the upgrade tests share: the extension's catalog as comparable text, a data set that uses every
feature, and swapping one release's installed files for another's."""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
from pathlib import Path

import psycopg
import pytest

from harness.pgcluster import Cluster, build_of, ends_of_run
from ulidtools.base import sha256_hex, sha256_of
from ulidtools.earlier_releases import build as build_release
from ulidtools.project import RELEASE_COMMITS, VERSION  # VERSION: the extension's version

# every release before this one, oldest first (sql/RELEASES)
RELEASES = list(RELEASE_COMMITS)


def earlier_releases() -> list:
    """RELEASES as test parameters: the newest, whose update this release adds, on every build; older ones,
    whose updates are released scripts that run unchanged, on ends_of_run only."""
    return [pytest.param(old, marks=() if old == RELEASES[-1] else pytest.mark.builds(*ends_of_run()))
            for old in RELEASES]


# brings a database's catalog to a fresh install's on its server, after pg_upgrade (docs/upgrading.md)
RESYNC = f"ALTER EXTENSION ulid UPDATE TO '{VERSION}-resync'; ALTER EXTENSION ulid UPDATE"

_MEMBERS = """
    WITH members AS (
        SELECT d.classid, d.objid FROM pg_depend d
        WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
          AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ulid')
    ), families AS (
        SELECT objid AS oid FROM members WHERE classid = 'pg_opfamily'::regclass
    ), parts AS (  -- objects that are not members but belong to member families
        SELECT 'pg_amop'::regclass AS classid, oid AS objid FROM pg_amop WHERE amopfamily IN (SELECT oid FROM families)
        UNION ALL
        SELECT 'pg_amproc'::regclass, oid FROM pg_amproc WHERE amprocfamily IN (SELECT oid FROM families)
    )
"""

_CATALOG = {
    "extension": """
        SELECT jsonb_build_object('name', e.extname, 'version', e.extversion,
            'relocatable', e.extrelocatable, 'schema', e.extnamespace::regnamespace::text,
            'owner', pg_get_userbyid(e.extowner), 'config', e.extconfig::regclass[]::text,
            'condition', e.extcondition)
        FROM pg_extension e WHERE e.extname = 'ulid'""",
    "member": "SELECT to_jsonb(pg_describe_object(classid, objid, 0)) FROM members",
    "function": """
        SELECT jsonb_build_object('function', p.oid::regprocedure::text, 'language', l.lanname,
            'result', pg_get_function_result(p.oid), 'owner', pg_get_userbyid(p.proowner),
            'definition', CASE WHEN p.prokind <> 'a' THEN pg_get_functiondef(p.oid) END,
            'row', to_jsonb(p) - '{oid,pronamespace,proowner,prolang,prorettype,proargtypes,
                                  proallargtypes,protrftypes,provariadic,prosqlbody}'::text[])
        FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
        WHERE p.oid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass)""",
    "type": """
        SELECT jsonb_build_object('type', t.oid::regtype::text, 'element', t.typelem::regtype::text,
            'array', t.typarray::regtype::text, 'base', t.typbasetype::regtype::text,
            'owner', pg_get_userbyid(t.typowner), 'schema', t.typnamespace::regnamespace::text,
            'row', to_jsonb(t) - '{oid,typnamespace,typowner,typrelid,typelem,typarray,
                                  typbasetype,typcollation,typdefaultbin}'::text[])
        FROM pg_type t WHERE t.oid IN (SELECT objid FROM members WHERE classid = 'pg_type'::regclass)
           OR t.typelem IN (SELECT objid FROM members WHERE classid = 'pg_type'::regclass)""",
    "operator": """
        SELECT jsonb_build_object('operator', o.oid::regoperator::text,
            'result', o.oprresult::regtype::text, 'commutator', o.oprcom::regoperator::text,
            'negator', o.oprnegate::regoperator::text, 'owner', pg_get_userbyid(o.oprowner),
            'row', to_jsonb(o) - '{oid,oprnamespace,oprowner,oprleft,oprright,oprresult,
                                  oprcom,oprnegate}'::text[])
        FROM pg_operator o WHERE o.oid IN (SELECT objid FROM members WHERE classid = 'pg_operator'::regclass)""",
    "operator family": """
        SELECT jsonb_build_object('family', f.opfname, 'method', am.amname,
            'schema', f.opfnamespace::regnamespace::text, 'owner', pg_get_userbyid(f.opfowner))
        FROM pg_opfamily f JOIN pg_am am ON am.oid = f.opfmethod WHERE f.oid IN (SELECT oid FROM families)""",
    "operator class": """
        SELECT jsonb_build_object('class', c.opcname, 'method', am.amname,
            'family', f.opfname, 'type', c.opcintype::regtype::text,
            'key type', c.opckeytype::regtype::text, 'default', c.opcdefault,
            'schema', c.opcnamespace::regnamespace::text, 'owner', pg_get_userbyid(c.opcowner))
        FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod JOIN pg_opfamily f ON f.oid = c.opcfamily
        WHERE c.oid IN (SELECT objid FROM members WHERE classid = 'pg_opclass'::regclass)""",
    "family operator": """
        SELECT jsonb_build_object('family', f.opfname, 'method', am.amname,
            'strategy', o.amopstrategy, 'left', o.amoplefttype::regtype::text,
            'right', o.amoprighttype::regtype::text, 'purpose', o.amoppurpose,
            'operator', o.amopopr::regoperator::text,
            'sort family', (SELECT opfname FROM pg_opfamily WHERE oid = o.amopsortfamily))
        FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily JOIN pg_am am ON am.oid = o.amopmethod
        WHERE o.amopfamily IN (SELECT oid FROM families)""",
    "family function": """
        SELECT jsonb_build_object('family', f.opfname, 'method', am.amname,
            'number', p.amprocnum, 'left', p.amproclefttype::regtype::text,
            'right', p.amprocrighttype::regtype::text, 'function', p.amproc::regprocedure::text)
        FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily JOIN pg_am am ON am.oid = f.opfmethod
        WHERE p.amprocfamily IN (SELECT oid FROM families)""",
    "cast": """
        SELECT jsonb_build_object('source', c.castsource::regtype::text,
            'target', c.casttarget::regtype::text, 'function', c.castfunc::regprocedure::text,
            'context', c.castcontext, 'method', c.castmethod)
        FROM pg_cast c WHERE c.oid IN (SELECT objid FROM members WHERE classid = 'pg_cast'::regclass)""",
    "aggregate": """
        SELECT jsonb_build_object('aggregate', a.aggfnoid::regprocedure::text,
            'sort operator', a.aggsortop::regoperator::text, 'state type', a.aggtranstype::regtype::text,
            'moving state type', a.aggmtranstype::regtype::text,
            'row', to_jsonb(a) - '{aggfnoid,aggsortop,aggtranstype,aggmtranstype}'::text[])
        FROM pg_aggregate a
        WHERE a.aggfnoid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass)""",
    "comment": """
        SELECT jsonb_build_object('object', pg_describe_object(d.classoid, d.objoid, d.objsubid),
            'comment', d.description)
        FROM pg_description d WHERE (d.classoid, d.objoid) IN (SELECT classid, objid FROM members)""",
    "dependency": """
        SELECT jsonb_build_object('object', pg_describe_object(d.classid, d.objid, d.objsubid),
            'on', pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid), 'type', d.deptype)
        FROM pg_depend d
        WHERE (d.classid, d.objid) IN (SELECT classid, objid FROM members UNION ALL SELECT classid, objid FROM parts)""",
    "initial privileges": """
        SELECT jsonb_build_object('object', pg_describe_object(i.classoid, i.objoid, i.objsubid),
            'type', i.privtype, 'privileges', i.initprivs::text)
        FROM pg_init_privs i WHERE (i.classoid, i.objoid) IN (SELECT classid, objid FROM members)""",
}


def catalog(conn: psycopg.Connection) -> list[str]:
    """Every object the extension owns with its whole definition, comments, dependencies and initial privileges,
    one sorted line per fact, each reference by name (object ids differ): equal lists, the same catalog."""
    return sorted(f"{kind}: {json.dumps(row, sort_keys=True)}"
                  for kind, query in _CATALOG.items() for (row,) in conn.execute(_MEMBERS + query).fetchall())


def catalog_diff(actual: list[str], expected: list[str], actual_name: str, expected_name: str) -> str:
    return "\n".join(difflib.unified_diff(expected, actual, expected_name, actual_name, lineterm=""))


def fill(conn: psycopg.Connection, pg_version: int, rows: int = 20000) -> None:
    """Tables using every feature: btree, hash and BRIN (minmax-multi and bloom from 14) indexes, range and
    hash partitions, a generated column, both generators as defaults, a foreign key, an array column, views."""
    brin14 = pg_version >= 14
    conn.execute(f"""
        CREATE TABLE events (
            id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(),
            other ulid NOT NULL DEFAULT gen_ulid(),
            at timestamptz GENERATED ALWAYS AS (ulid_timestamp(id)) STORED,
            tags ulid[],
            n integer NOT NULL
        );
        CREATE INDEX events_other_hash ON events USING hash (other);
        INSERT INTO events (n, tags) SELECT g, ARRAY[gen_ulid(), gen_ulid()] FROM generate_series(1, {rows}) g;
        INSERT INTO events (id, n) VALUES ('00000000000000000000000000', 0), ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', 0);

        -- one BRIN class per column, so that each query below has one index to use
        CREATE TABLE ticks (
            id ulid NOT NULL DEFAULT gen_monotonic_ulid(),
            spread ulid NOT NULL,
            other ulid NOT NULL DEFAULT gen_ulid(),
            n integer NOT NULL
        );
        CREATE INDEX ticks_minmax ON ticks USING brin (id) WITH (pages_per_range = 4);
        {"CREATE INDEX ticks_multi ON ticks USING brin (spread ulid_minmax_multi_ops) WITH (pages_per_range = 4);" if brin14 else ""}
        {"CREATE INDEX ticks_bloom ON ticks USING brin (other ulid_bloom_ops) WITH (pages_per_range = 4);" if brin14 else ""}
        INSERT INTO ticks (spread, n)
        SELECT gen_ulid(timestamptz '2024-01-01 00:00:00+00' + (g + (g % 7) * 50) * interval '1 second'), g
        FROM generate_series(1, {rows}) g;

        CREATE TABLE notes (
            id ulid PRIMARY KEY DEFAULT gen_ulid(),
            event ulid NOT NULL REFERENCES events (id),
            body text
        );
        INSERT INTO notes (event, body) SELECT id, 'note ' || n FROM events WHERE n % 10 = 0;

        CREATE TABLE by_year (id ulid NOT NULL, n integer) PARTITION BY RANGE (id);
        CREATE TABLE by_year_2020 PARTITION OF by_year FOR VALUES FROM ('01DXF6DT000000000000000000') TO ('01ETXKWW000000000000000000');
        CREATE TABLE by_year_2021 PARTITION OF by_year FOR VALUES FROM ('01ETXKWW000000000000000000') TO ('01FR9EZ7000000000000000000');
        CREATE TABLE by_year_other PARTITION OF by_year DEFAULT;
        CREATE INDEX ON by_year (id);
        INSERT INTO by_year SELECT gen_ulid(timestamptz '2020-01-01 00:00:00+00' + g * interval '1 hour'), g
        FROM generate_series(1, 20000) g;

        CREATE TABLE by_hash (id ulid PRIMARY KEY, n integer) PARTITION BY HASH (id);
        CREATE TABLE by_hash_0 PARTITION OF by_hash FOR VALUES WITH (MODULUS 3, REMAINDER 0);
        CREATE TABLE by_hash_1 PARTITION OF by_hash FOR VALUES WITH (MODULUS 3, REMAINDER 1);
        CREATE TABLE by_hash_2 PARTITION OF by_hash FOR VALUES WITH (MODULUS 3, REMAINDER 2);
        INSERT INTO by_hash SELECT id, n FROM events;

        CREATE VIEW recent AS
            SELECT id, id::uuid AS as_uuid, id::timestamptz AS at, id::bytea AS bytes, n
            FROM events WHERE id >= '01J00000000000000000000000'::ulid AND id <> other;
        CREATE VIEW span AS
            SELECT min(id) AS first, max(id) AS last, count(*) AS rows FROM events;
        ANALYZE;
    """)


_SNAPSHOT = {name: f"SELECT x::text FROM {name} x ORDER BY id" for name in ("events", "ticks", "notes", "recent")}
_SNAPSHOT.update({name: f"SELECT tableoid::regclass::text || x::text FROM {name} x ORDER BY id"
                  for name in ("by_year", "by_hash")})
_SNAPSHOT["span"] = "SELECT x::text FROM span x"


def snapshot(conn: psycopg.Connection) -> dict[str, tuple[int, str]]:
    rows = {name: [r[0] for r in conn.execute(query).fetchall()] for name, query in _SNAPSHOT.items()}
    return {name: (len(read), sha256_hex("\n".join(read))) for name, read in rows.items()}


def check_works(conn: psycopg.Connection, cluster: Cluster, made_on: int) -> None:
    """The data set (filled on PostgreSQL MADE_ON) in use: index scans, partition pruning, hash routing, both
    generators as defaults, the foreign key, amcheck on btree indexes if available."""
    def plan(sql: str) -> str:
        return "\n".join(r[0] for r in conn.execute("EXPLAIN (COSTS OFF) " + sql).fetchall())

    def count(sql: str) -> int:
        return conn.execute("SELECT count(*) FROM " + sql).fetchone()[0]

    some_id, some_other = conn.execute("SELECT id, other FROM events WHERE n = 1234").fetchone()
    conn.execute("SET enable_seqscan = off; SET enable_bitmapscan = off")
    assert "events_pkey" in plan(f"SELECT * FROM events WHERE id = '{some_id}'")
    assert "events_other_hash" in plan(f"SELECT * FROM events WHERE other = '{some_other}'")
    assert count(f"events WHERE other = '{some_other}'") == 1
    conn.execute("RESET enable_bitmapscan")
    lo, hi, other = conn.execute("SELECT min(id), max(id), min(other) FROM ticks WHERE n BETWEEN 500 AND 600").fetchone()
    brin = {"ticks_minmax": f"ticks WHERE id BETWEEN '{lo}' AND '{hi}'"}
    if made_on >= 14:
        brin["ticks_multi"] = f"ticks WHERE spread BETWEEN '{lo}' AND '{hi}'"
        brin["ticks_bloom"] = f"ticks WHERE other = '{other}'"
    with_index = {}
    for index, query in brin.items():
        assert index in plan("SELECT * FROM " + query), index
        with_index[index] = count(query)
    conn.execute("RESET enable_seqscan; SET enable_bitmapscan = off")
    assert with_index == {index: count(query) for index, query in brin.items()}
    assert with_index["ticks_minmax"] == 101
    conn.execute("RESET enable_bitmapscan")
    pruned = plan("SELECT * FROM by_year WHERE id >= '01ETXKWW000000000000000000' AND id < '01F00000000000000000000000'")
    assert "by_year_2021" in pruned and "by_year_2020" not in pruned and "by_year_other" not in pruned
    assert conn.execute(f"SELECT n FROM events WHERE id = '{some_id}'").fetchone() == (1234,)

    # hash partitions: every old row is where a new insert of it goes (the partition's constraint holds), by the
    # operator class a table made today would take
    for r in range(3):
        assert conn.execute(f"SELECT bool_and(satisfies_hash_partition('by_hash'::regclass, 3, {r}, id)) "
                            f"FROM by_hash_{r}").fetchone() == (True,), r
    assert conn.execute("SELECT p.partclass[0] = c.oid FROM pg_partitioned_table p, pg_opclass c JOIN pg_am a "
                        "ON a.oid = c.opcmethod WHERE p.partrelid = 'by_hash'::regclass AND a.amname = 'hash' "
                        "AND c.opcintype = 'ulid'::regtype AND c.opcdefault").fetchall() == [(True,)]

    # both generators as defaults; new monotonic keys sort after every old one
    before = conn.execute("SELECT max(id) FROM events WHERE id < '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'").fetchone()[0]
    new = [r[0] for r in conn.execute(
        "INSERT INTO events (n) SELECT -g FROM generate_series(1, 100) g RETURNING id").fetchall()]
    assert all(str(a) < str(b) for a, b in zip(new, new[1:])) and str(new[0]) > str(before)
    conn.execute("INSERT INTO notes (event, body) VALUES (%s, 'new')", [new[0]])
    with pytest.raises(psycopg.errors.ForeignKeyViolation), conn.transaction():
        conn.execute("INSERT INTO notes (event) VALUES ('01ARZ3NDEKTSV4RRFFQ69G5FAV')")  # no such event
    assert conn.execute("SELECT gen_ulid()::uuid::ulid = gen_ulid()").fetchone() == (False,)
    assert conn.execute("SELECT ulid_timestamp(id) = at FROM events WHERE n = -1").fetchone() == (True,)

    if cluster.has_extension("amcheck"):
        conn.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
        checked = conn.execute("""
            SELECT count(bt_index_check(c.oid, true))
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
            WHERE am.amname = 'btree' AND c.relkind = 'i' AND c.relnamespace = 'public'::regnamespace""").fetchone()[0]
        assert checked >= 4


class InstalledRelease:
    """Swaps the ulid files installed in a build for another release's, and back. Files are replaced, never
    overwritten in place: running servers may have the library mapped."""

    def __init__(self, build: str, keep: Path):
        self.build = build
        self.keep = keep
        self.libdir, self.extdir = build_of(build).pkglibdir, build_of(build).extdir
        self.saved = {f: sha256_of(f) for f in self._installed()}
        keep.mkdir(parents=True, exist_ok=True)
        for f in self.saved:
            shutil.copy2(f, keep / f.name)

    def _installed(self) -> list[Path]:
        return sorted([*self.libdir.glob("ulid.so"), *self.extdir.glob("ulid.control"),
                       *self.extdir.glob("ulid--*.sql")])

    @staticmethod
    def _place(source: Path, target: Path) -> None:
        tmp = target.with_name(target.name + ".new")
        shutil.copy2(source, tmp)
        tmp.chmod(0o644)
        tmp.replace(target)

    def remove(self) -> None:
        """Removes every ulid file from the build: a server that cannot load the extension."""
        for f in self._installed():
            f.unlink()

    def install_release(self, version: str) -> None:
        stage = build_release(version, self.build)
        self.remove()
        self._place(stage / str(self.libdir).lstrip("/") / "ulid.so", self.libdir / "ulid.so")
        for f in (stage / str(self.extdir).lstrip("/")).glob("ulid*"):
            self._place(f, self.extdir / f.name)

    def restore(self) -> None:
        self.remove()
        for f in self.saved:
            self._place(self.keep / f.name, f)
        assert {f: sha256_of(f) for f in self._installed()} == self.saved


def c_symbols(library: Path) -> set[str]:
    out = subprocess.run(["nm", "-D", "--defined-only", str(library)], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}
