"""Roles that share a preloaded server cannot read each other's last value.

With ulid in shared_preload_libraries, gen_monotonic_ulid() steps from one
value shared by every database and role of the server. Within a millisecond
the step is random in [1, 2^32], so a value says no more of the one before
it than that it lies somewhere in the 2^32 values below. A role that could
choose the specification's step of one would instead receive the previous
caller's value plus one, exactly, and learn from the gaps between its own
values how many ids other tenants made. So `ulid.monotonic_step` is a
superuser setting: these tests try every way an ordinary role has to set it,
then watch two tenants' sessions take turns at the generator.
"""

from __future__ import annotations

import psycopg
import pytest

ATTACKER = "ulid_tenant_attacker"
VICTIM = "ulid_tenant_victim"
PAIRS = 3_000


@pytest.fixture
def tenants(preloaded):
    """A database owned by the attacker, with the extension, and two
    ordinary login roles; dropped afterwards."""
    db = "tenants"
    with preloaded.connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        for role in (ATTACKER, VICTIM):
            conn.execute(f"DROP ROLE IF EXISTS {role}")
            conn.execute(f"CREATE ROLE {role} LOGIN")
    preloaded.create_database(db)
    with preloaded.connect() as conn:
        conn.execute(f'ALTER DATABASE "{db}" OWNER TO {ATTACKER}')
    with preloaded.connect(db) as conn:
        conn.execute(f"GRANT CREATE ON SCHEMA public TO {ATTACKER}")
    try:
        yield db
    finally:
        with preloaded.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
            for role in (ATTACKER, VICTIM):
                conn.execute(f"DROP ROLE IF EXISTS {role}")


def refused(conn, sql: str) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="ulid.monotonic_step"):
        conn.execute(sql)


def test_an_ordinary_role_cannot_set_the_step(preloaded, tenants, major):
    with preloaded.connect(tenants, user=ATTACKER) as conn:
        assert conn.execute("SHOW ulid.monotonic_step").fetchone() == ("random",)
        refused(conn, "SET ulid.monotonic_step = one")
        refused(conn, "SELECT set_config('ulid.monotonic_step', 'one', false)")
        refused(conn, f"ALTER ROLE {ATTACKER} SET ulid.monotonic_step = one")
        refused(conn, f'ALTER DATABASE "{tenants}" SET ulid.monotonic_step = one')
        refused(conn, f"ALTER ROLE {ATTACKER} IN DATABASE \"{tenants}\" SET ulid.monotonic_step = one")
        with conn.transaction():
            refused(conn, "SET LOCAL ulid.monotonic_step = one")
        # a function that would set it for the length of a call: refused when
        # it is made, or else when it runs
        try:
            conn.execute("CREATE FUNCTION public.step_one() RETURNS ulid LANGUAGE sql "
                         "SET ulid.monotonic_step = one AS 'SELECT gen_monotonic_ulid()'")
        except psycopg.errors.InsufficientPrivilege:
            pass
        else:
            refused(conn, "SELECT public.step_one()")
        assert conn.execute("SHOW ulid.monotonic_step").fetchone() == ("random",)
    # nor as an option of the connection itself
    with pytest.raises(psycopg.OperationalError, match="ulid.monotonic_step"):
        preloaded.connect(tenants, user=ATTACKER, options="-c ulid.monotonic_step=one").close()
    # a superuser may choose it for a role, and the role then cannot undo it
    with preloaded.connect() as conn:
        conn.execute(f"ALTER ROLE {VICTIM} SET ulid.monotonic_step = one")
    with preloaded.connect(tenants, user=VICTIM) as conn:
        assert conn.execute("SHOW ulid.monotonic_step").fetchone() == ("one",)
        refused(conn, "SET ulid.monotonic_step = random")
    if major >= 15:
        # or grant the right to set it (PostgreSQL 15 and later)
        with preloaded.connect() as conn:
            conn.execute(f"GRANT SET ON PARAMETER ulid.monotonic_step TO {ATTACKER}")
        try:
            with preloaded.connect(tenants, user=ATTACKER) as conn:
                conn.execute("SET ulid.monotonic_step = one")
                assert conn.execute("SHOW ulid.monotonic_step").fetchone() == ("one",)
        finally:
            with preloaded.connect() as conn:
                conn.execute(f"REVOKE SET ON PARAMETER ulid.monotonic_step FROM {ATTACKER}")


def steps_after_the_victim(preloaded, db: str) -> list[int]:
    """The victim and the attacker call gen_monotonic_ulid() in turn, each
    in its own session; for every turn in which the attacker's value shares
    the victim's millisecond, how far above the victim's value it is."""
    steps = []
    with preloaded.connect(db, user=VICTIM) as victim, preloaded.connect(db, user=ATTACKER) as attacker:
        for _ in range(PAIRS):
            (mine,) = victim.execute("SELECT gen_monotonic_ulid()::bytea").fetchone()
            (theirs,) = attacker.execute("SELECT gen_monotonic_ulid()::bytea").fetchone()
            a, b = int.from_bytes(mine, "big"), int.from_bytes(theirs, "big")
            assert b > a, "the shared generator went backwards"
            if a >> 80 == b >> 80:
                steps.append(b - a)
    return steps


def test_the_next_value_does_not_reveal_the_one_before(preloaded, tenants):
    steps = steps_after_the_victim(preloaded, tenants)
    assert len(steps) >= 100, f"only {len(steps)} of {PAIRS} turns shared a millisecond"
    assert all(1 <= s <= 2**32 for s in steps)
    # the attacker would have the victim's value if the step were small: a
    # step below 2^16 (a step of one among them) has odds of 2^-16, so more
    # than five among a few thousand happen by chance once in 10^11
    assert sum(1 for s in steps if s < 2**16) <= 5, sorted(steps)[:10]


def test_a_step_of_one_would_have_given_the_value_away(preloaded, tenants):
    """The same turns with the attacker on a step of one (which only a
    superuser can choose for it): the check above fails, as it must."""
    with preloaded.connect() as conn:
        conn.execute(f"ALTER ROLE {ATTACKER} SET ulid.monotonic_step = one")
    steps = steps_after_the_victim(preloaded, tenants)
    assert len(steps) >= 100
    assert set(steps) == {1}
