"""The public-id recipe of docs/public-ids.md, its own SQL (the `sql` block
of "A tested recipe"), through key rotations: new public ids always come
from the current key, the previous key's still resolve, the one before
does not, and without a current key both functions refuse (55000) rather
than return NULL. The application's role never reads the key."""

from __future__ import annotations

import pytest
from psycopg import errors

from harness.pages import sql_blocks
from harness.pgcluster import ROOT

# the recipe is plain SQL over ulid_encrypt/ulid_decrypt, the same on every version (tests/conftest.py)
pytestmark = pytest.mark.same_on_every_version

PAGE = ROOT / "docs" / "public-ids.md"
ROLES = ("app", "id_keeper")
ROTATE = """BEGIN;
SET LOCAL ROLE id_keeper;
DELETE FROM public_ids.key WHERE NOT current;
UPDATE public_ids.key SET current = false WHERE current;
INSERT INTO public_ids.key SELECT true, uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid());
COMMIT;"""


@pytest.fixture
def recipe(cluster):
    name = "t_public_id_recipe"
    with cluster.connect() as conn:
        for role in ROLES:
            conn.execute(f"DROP ROLE IF EXISTS {role}")
    cluster.create_database(name)
    try:
        with cluster.connect(name) as conn:
            (block,) = sql_blocks(PAGE, "A tested recipe: translating without seeing the key")
            conn.execute(block)
        yield name
    finally:
        with cluster.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            for role in ROLES:
                conn.execute(f"DROP ROLE IF EXISTS {role}")


def keys(conn) -> dict[bool, bytes]:
    return {current: bytes(key) for current, key in conn.execute("SELECT current, key FROM public_ids.key")}


def public_ids(conn) -> dict[str, str]:
    """Every order's public id, as the application's role gets them."""
    conn.execute("SET ROLE app")
    try:
        return dict(conn.execute("SELECT id::text, public_ids.public_id(id)::text FROM orders").fetchall())
    finally:
        conn.execute("RESET ROLE")


def resolved(conn, public: dict[str, str]) -> int:
    """How many of these public ids the application's role finds its row by."""
    conn.execute("SET ROLE app")
    try:
        return conn.execute(
            """SELECT count(*) FROM unnest(%s::text[], %s::text[]) AS p(id, public_id)
               WHERE p.id::ulid = (SELECT o.id FROM orders o
                                   WHERE o.id = ANY (public_ids.from_public_id(p.public_id::ulid)))""",
            [list(public), list(public.values())]).fetchone()[0]
    finally:
        conn.execute("RESET ROLE")


def test_public_ids_survive_one_rotation_and_not_two(cluster, recipe):
    with cluster.connect(recipe) as conn:
        assert list(keys(conn)) == [True]
        first = public_ids(conn)
        assert len(first) == 1001 and len(set(first.values())) == 1001
        # the current key is the one public ids are made with
        (matches,) = conn.execute("SELECT count(*) FROM orders WHERE public_ids.public_id(id) = "
                                  "ulid_encrypt(id, (SELECT key FROM public_ids.key WHERE current))").fetchone()
        assert matches == 1001
        assert resolved(conn, first) == 1001

        conn.execute(ROTATE)
        after_one = keys(conn)
        assert set(after_one) == {True, False} and after_one[True] != after_one[False]
        second = public_ids(conn)
        assert all(second[i] != first[i] for i in first)
        assert resolved(conn, first) == 1001 and resolved(conn, second) == 1001
        # a lookup gives both candidates, the current key's first
        conn.execute("SET ROLE app")
        some = next(iter(first))
        (candidates,) = conn.execute("SELECT public_ids.from_public_id(%s)::text[]", [second[some]]).fetchone()
        conn.execute("RESET ROLE")
        assert len(candidates) == 2 and candidates[0] == some

        conn.execute(ROTATE)
        assert keys(conn)[False] == after_one[True]
        assert resolved(conn, first) == 0
        assert resolved(conn, second) == 1001
        assert resolved(conn, public_ids(conn)) == 1001


@pytest.mark.parametrize("left", ["nothing", "only the previous key"])
def test_without_a_current_key_both_functions_refuse(cluster, recipe, left):
    with cluster.connect(recipe) as conn:
        conn.execute(ROTATE)
        conn.execute("DELETE FROM public_ids.key WHERE current")
        if left == "nothing":
            conn.execute("DELETE FROM public_ids.key")
        conn.execute("SET ROLE app")
        for call in ("public_ids.public_id(id)", "public_ids.from_public_id(id)"):
            with pytest.raises(errors.ObjectNotInPrerequisiteState) as refused:
                conn.execute(f"SELECT {call} FROM orders LIMIT 1")
            assert refused.value.sqlstate == "55000"
            assert refused.value.diag.message_primary == "public_ids.key holds no current key"


def test_the_key_table_takes_one_current_key_one_previous_and_aes_lengths(cluster, recipe):
    with cluster.connect(recipe) as conn:
        with pytest.raises(errors.UniqueViolation):
            conn.execute("INSERT INTO public_ids.key SELECT true, uuid_send(gen_random_uuid())")
        conn.execute("INSERT INTO public_ids.key SELECT false, uuid_send(gen_random_uuid())")
        with pytest.raises(errors.UniqueViolation):
            conn.execute("INSERT INTO public_ids.key SELECT false, uuid_send(gen_random_uuid())")
        with pytest.raises(errors.CheckViolation):
            conn.execute("UPDATE public_ids.key SET key = '\\x0001' WHERE NOT current")
        with pytest.raises(errors.UniqueViolation):
            conn.execute("UPDATE public_ids.key SET key = (SELECT key FROM public_ids.key WHERE current) "
                         "WHERE NOT current")


def test_the_applications_role_cannot_read_or_change_the_key(cluster, recipe):
    with cluster.connect(recipe) as conn:
        conn.execute("SET ROLE app")
        for statement in ("SELECT key FROM public_ids.key",
                          "DELETE FROM public_ids.key",
                          "INSERT INTO public_ids.key VALUES (false, '\\x000102030405060708090a0b0c0d0e0f')"):
            with pytest.raises(errors.InsufficientPrivilege):
                conn.execute(statement)
        # nor make functions of its own in the functions' schema
        with pytest.raises(errors.InsufficientPrivilege):
            conn.execute("CREATE FUNCTION public_ids.key_of() RETURNS bytea LANGUAGE sql "
                         "AS 'SELECT key FROM public_ids.key'")
