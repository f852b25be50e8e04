"""The portable generators: bits, times, layouts and errors against the
native type's, and gen_monotonic_ulid()'s state machine against ulid-core's
(crates/ulid-core/src/monotonic.rs), checked by the properties that module's
own tests state. The monotonic state is the session's setting
ulid_portable.monotonic_last: setting it, stamped as this backend's own in
this transaction (SET_STATE_HERE), moves the generator to a known point,
as a clock that stepped back would."""

from __future__ import annotations

import random
import uuid
from collections import Counter

import psycopg
import pytest

from harness import steps as step_checks
from harness.steps import STEPS
from portable_layer import errors_of

N = 100_000
V7_MAX = (1 << 74) - 1


# the state of this session's generator: 32 hexadecimal digits and the
# stamp of the backend that wrote it and of the transaction, this very one,
# as the layer's own calls stamp it: the calls of the same transaction
# honour it up to ten seconds ahead of the clock, as they honour their own
# values (one that an earlier transaction left, up to a second, and never to
# fail: test_portable_sessions.py)
SET_STATE_HERE = ("SELECT set_config('ulid_portable.monotonic_last', %s || ulid_portable._backend() || '/'"
                  " || encode(timestamptz_send(transaction_timestamp()), 'hex'), false)")
GET_STATE = "SELECT left(current_setting('ulid_portable.monotonic_last'), 32)"


def as_ints(conn, sql: str) -> list[int]:
    return [int(v.replace("-", ""), 16) for v, in conn.execute(sql)]


def v7_counter(value: int) -> int:
    """A value's 74 free bits if it were a UUIDv7 (monotonic.rs: v7_counter)."""
    return ((value >> 72) & 0xF) << 70 | ((value >> 64) & 0xFF) << 62 | value & ((1 << 62) - 1)


def from_v7_counter(ms: int, counter: int) -> int:
    return ms << 80 | 7 << 76 | (counter >> 70) << 72 | ((counter >> 62) & 0xFF) << 64 | 2 << 62 | counter & ((1 << 62) - 1)


def is_v7(value: int) -> bool:
    return value >> 76 & 0xF == 7 and value >> 62 & 3 == 2


# ---- gen_ulid ----------------------------------------------------------------

def test_gen_ulid_is_now_and_80_random_bits(pconn):
    n = N // 4
    (before,) = pconn.execute("SELECT clock_timestamp()").fetchone()
    ints = as_ints(pconn, f"SELECT ulid_portable.gen_ulid()::text FROM generate_series(1, {n})")
    (after,) = pconn.execute("SELECT clock_timestamp()").fetchone()
    assert len(set(ints)) == n
    low = int(before.timestamp() * 1000) - 1
    high = int(after.timestamp() * 1000) + 1
    assert all(low <= v >> 80 <= high for v in ints)
    # no bit of the random part is fixed: each set in half the values (a
    # standard deviation of 0.32 %; 3 % is nine of them, passed by chance
    # once in 10^18), the UUID version and variant positions included
    for bit in range(80):
        share = sum(v >> bit & 1 for v in ints) / n
        assert 0.47 < share < 0.53, (bit, share)
    nibbles = Counter(v >> 76 & 0xF for v in ints)
    variants = Counter(v >> 62 & 3 for v in ints)
    assert len(nibbles) == 16 and len(variants) == 4


def test_gen_ulid_at_a_time_has_the_types_millisecond(pconn):
    row = pconn.execute("""
        SELECT count(*),
               count(*) FILTER (WHERE ulid_portable.ulid_timestamp(ulid_portable.gen_ulid(t)) = native.ulid_timestamp(native.gen_ulid(t))),
               count(DISTINCT ulid_portable.gen_ulid(t))
        FROM (SELECT timestamptz '1970-01-01 00:00:00+00'
                     + random() * (timestamptz '10889-08-02 05:31:50.655999+00' - timestamptz '1970-01-01 00:00:00+00') AS t
              FROM generate_series(1, 20000)
              UNION ALL VALUES ('1970-01-01 00:00:00+00'::timestamptz), ('10889-08-02 05:31:50.655999+00'),
                               ('2025-01-01 12:34:56.789999+00')) s""").fetchone()
    assert row == (20003, 20003, 20003)


@pytest.mark.parametrize("call", ["ulid_portable.gen_ulid($1::timestamptz)", "ulid_portable.ulid_from_timestamptz($1::timestamptz)"])
def test_a_time_no_ulid_holds_is_the_types_error(pconn, call):
    native = call.replace("ulid_portable.", "native.")
    inputs = ["-infinity", "infinity", "1969-12-31 23:59:59.999999+00", "10889-08-02 05:31:50.656+00",
              "294276-12-31 23:59:59+00", "4713-01-01 00:00:00+00 BC"]
    outcomes = {}
    for n, sql, outcome in errors_of(pconn, [call, native], inputs):
        outcomes.setdefault(n, {})[sql] = outcome
    for n, got in outcomes.items():
        assert got[call] == got[native], inputs[n]
        assert got[call][:2] == ("22008", "timestamp out of range for ulid"), inputs[n]
    assert len(outcomes) == len(inputs)


# ---- ulid.layout = uuidv7 ------------------------------------------------------

GENERATORS = {
    "gen_ulid()": "ulid_portable.gen_ulid()",
    "gen_ulid(timestamptz)": "ulid_portable.gen_ulid(now() - g * interval '1 second')",
    "gen_monotonic_ulid()": "ulid_portable.gen_monotonic_ulid()",
}


@pytest.mark.parametrize("generator", GENERATORS)
def test_every_value_is_a_uuidv7_under_the_setting(pconn, major, generator):
    """A hundred thousand monotonic values, strictly increasing; 25,000 of
    each other generator, enough to see that their 74 free bits are random."""
    pconn.execute("SET ulid.layout = uuidv7")
    n = N if generator == "gen_monotonic_ulid()" else N // 4
    made = [v for v, in pconn.execute(
        f"SELECT ({GENERATORS[generator]})::text FROM generate_series(1, {n}) g")]
    parsed = [uuid.UUID(v) for v in made]
    assert all(u.variant == uuid.RFC_4122 and u.version == 7 for u in parsed)
    assert len(set(made)) == n
    pconn.execute("CREATE TEMP TABLE made (id uuid)")
    with pconn.cursor().copy("COPY made FROM STDIN") as copy:
        for v in made:
            copy.write_row((v,))
    if major >= 17:
        assert pconn.execute(
            "SELECT count(*) FILTER (WHERE uuid_extract_version(id) = 7) FROM made").fetchone() == (n,)
    if major >= 18:
        assert pconn.execute("""
            SELECT count(*) FILTER (WHERE uuid_extract_timestamp(id) = ulid_portable.ulid_timestamp(id))
            FROM made""").fetchone() == (n,)
    if generator == "gen_monotonic_ulid()":
        assert made == sorted(made)  # the uuid text sorts as the bytes do
    else:
        # each free bit set in half the values: a standard deviation of
        # 0.32 %, 3 % is nine of them
        for bit in [b for b in range(80) if b not in (76, 77, 78, 79, 62, 63)]:
            share = sum(u.int >> bit & 1 for u in parsed) / n
            assert 0.47 < share < 0.53, (bit, share)


def test_the_setting_is_read_as_the_extension_reads_it(cluster, both):
    """Where the extension is not loaded the setting is a placeholder that
    takes any text: the layer reads it without regard to case, and for what
    the extension would refuse it uses the default, with a WARNING that has
    the extension's error's message, hint and SQLSTATE (a pooled session's
    next clients would otherwise fail on a value one client left:
    test_portable_sessions.py)."""
    warned: list[tuple] = []

    def warning(diag):
        if diag.severity_nonlocalized == "WARNING":
            warned.append((diag.sqlstate, diag.message_primary, diag.message_hint))
    with cluster.connect(both) as conn:
        conn.add_notice_handler(warning)
        conn.execute("SET ulid.layout = 'UUIDv7'")  # the library is not loaded in this session
        assert uuid.UUID(conn.execute("SELECT ulid_portable.gen_ulid()::text").fetchone()[0]).version == 7
        assert warned == []
        conn.execute("SET ulid.layout = 'uuidv4'")
        conn.execute("SET ulid.monotonic_step = 'two'")
        portable = []
        for sql in ("SELECT ulid_portable.gen_ulid()", "SELECT ulid_portable.gen_ulid(now())",
                    "SELECT ulid_portable.gen_monotonic_ulid()"):
            assert conn.execute(f"SELECT ({sql}) IS NOT NULL").fetchone() == (True,)
            portable.append(warned[0][1:])
            assert {w[0] for w in warned} == {"22023"}
            warned.clear()
        conn.execute("SET ulid.layout = ulid")
        conn.execute("SELECT ulid_portable.gen_monotonic_ulid()")
        assert len(warned) == 1 and warned[0][0] == "22023"
        step = warned[0][1:]
    with cluster.connect(both) as conn:
        conn.execute("SELECT native.gen_ulid()")  # loads the library, which defines the settings
        native = []
        for sql in ("SET ulid.layout = 'uuidv4'", "SET ulid.monotonic_step = 'two'"):
            with pytest.raises(psycopg.errors.InvalidParameterValue) as raised:
                conn.execute(sql)
            native.append((raised.value.diag.message_primary, raised.value.diag.message_hint))
    assert portable == [native[0]] * 3
    assert step == native[1]
    assert native[0] == ('invalid value for parameter "ulid.layout": "uuidv4"', "Available values: ulid, uuidv7.")


# ---- gen_monotonic_ulid -------------------------------------------------------

def test_a_hundred_thousand_values_strictly_increase(pconn):
    """(Under ulid.layout = uuidv7: test_every_value_is_a_uuidv7_under_the_setting.)"""
    row = pconn.execute(f"""
        SELECT count(*), count(*) FILTER (WHERE id <= prev), count(DISTINCT left(id::text, 13))
        FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev
              FROM (SELECT n, ulid_portable.gen_monotonic_ulid() AS id FROM generate_series(1, {N}) n) g) s""").fetchone()
    count, not_increasing, milliseconds = row
    assert (count, not_increasing) == (N, 0)
    assert milliseconds < N  # values share milliseconds, so the steps were taken
    # the next statement of the session goes on from there
    last = pconn.execute(GET_STATE).fetchone()[0]
    following = pconn.execute("SELECT ulid_portable.gen_monotonic_ulid()::text").fetchone()[0]
    assert following.replace("-", "") > last


def same_millisecond_steps(conn, wanted: int) -> list[int]:
    found: list[int] = []
    while len(found) < wanted:
        values = as_ints(conn, "SELECT ulid_portable.gen_monotonic_ulid()::text FROM generate_series(1, 20000)")
        found += step_checks.within_milliseconds(values)
    return found[:wanted]


def test_random_steps_are_uniform_on_1_to_2_pow_32(pconn):
    """As tests/server/test_generators.py checks the native generator."""
    step_checks.assert_uniform_on_1_to_2_pow_32(same_millisecond_steps(pconn, STEPS))


@pytest.mark.parametrize("layout", ["ulid", "uuidv7"])
def test_step_one_adds_exactly_one(pconn, layout):
    pconn.execute(f"SET ulid.layout = {layout}")
    pconn.execute("SET ulid.monotonic_step = one")
    steps = same_millisecond_steps(pconn, 20_000)
    if layout == "ulid":
        assert set(steps) == {1}
    else:  # one more of the 74 free bits: +1 but where the counter carries over the variant bits
        values = as_ints(pconn, "SELECT ulid_portable.gen_monotonic_ulid()::text FROM generate_series(1, 5000)")
        pairs = [(a, b) for a, b in zip(values, values[1:]) if a >> 80 == b >> 80]
        assert pairs and all(v7_counter(b) - v7_counter(a) == 1 for a, b in pairs)


def state_of(value: int) -> str:
    return f"{value:032x}"


# A last value this far ahead of the clock, as after the clock stepped back
# as far: well within the ten seconds the layer honours for a state written
# in the same transaction (SET_STATE_HERE; a state further ahead, or one an
# earlier transaction left a second ahead, is ignored:
# test_portable_sessions.py), and far enough for the tests below to run
# before the clock catches up.
AHEAD = "(extract(epoch FROM clock_timestamp() + interval '5 seconds') * 1000)::bigint"


def test_a_clock_behind_the_last_value_keeps_its_millisecond(pconn):
    """The last value is five seconds ahead, as after the clock stepped back
    five seconds within a transaction: the next values keep its millisecond
    and step up from it."""
    with pconn.transaction():
        ahead = pconn.execute(f"SELECT {AHEAD}").fetchone()[0]
        last = ahead << 80 | 0x1234 << 40
        pconn.execute(SET_STATE_HERE, [state_of(last)])
        values = as_ints(pconn, "SELECT ulid_portable.gen_monotonic_ulid()::text FROM generate_series(1, 1000)")
        assert all(v >> 80 == ahead for v in values)
        assert values == sorted(values) and values[0] > last
        pconn.execute("SET ulid.monotonic_step = one")
        nxt = as_ints(pconn, "SELECT ulid_portable.gen_monotonic_ulid()::text")[0]
        assert nxt == values[-1] + 1


# the extension's error, as ulid-core words it (GenerateError::detail)
EXHAUSTED = {
    layout: ("2200H", "gen_monotonic_ulid() has no value left in this millisecond", detail,
             "Values are available again from the next millisecond.")
    for layout, detail in (
        ("ulid", "The 80-bit random part reached its largest value; the generator fails rather than wrap around."),
        ("uuidv7", "The 74 random bits of the UUIDv7 layout reached their largest value; "
                   "the generator fails rather than wrap around."))
}


@pytest.mark.parametrize("layout", ["ulid", "uuidv7"])
def test_a_full_millisecond_is_2200H_and_does_not_wrap(pconn, layout):
    pconn.execute(f"SET ulid.layout = {layout}")
    ahead = pconn.execute(f"SELECT {AHEAD}").fetchone()[0]
    full = ahead << 80 | (1 << 80) - 1 if layout == "ulid" else from_v7_counter(ahead, V7_MAX)
    for start in (full, full - 1 if layout == "ulid" else from_v7_counter(ahead, V7_MAX - 2)):
        # in the transaction that wrote the state, each call in a savepoint
        with pconn.transaction():
            pconn.execute(SET_STATE_HERE, [state_of(start)])
            made = []
            with pytest.raises(psycopg.errors.SequenceGeneratorLimitExceeded) as raised:
                for _ in range(4):
                    with pconn.transaction():
                        made += as_ints(pconn, "SELECT ulid_portable.gen_monotonic_ulid()::text")
            diag = raised.value.diag
            assert (raised.value.sqlstate, diag.message_primary, diag.message_detail, diag.message_hint) == EXHAUSTED[layout]
            # what was left was handed out, in order, up to the last value, and nothing after
            assert made == sorted(made) and all(start < v <= full for v in made) and (not made or made[-1] == full)
            assert pconn.execute(GET_STATE).fetchone()[0] == state_of(full)


def test_a_uuidv7_step_from_any_value_goes_up_to_a_uuidv7(pconn):
    """monotonic.rs's property test, here: from any last value (either
    layout, or whatever else wrote the state), a step under uuidv7 goes
    strictly up to a UUIDv7 of the same millisecond, or of the next one
    exactly when the same one has none above the last value; it fails only
    when the last value is the greatest UUIDv7 of its millisecond. With a
    step of one from a UUIDv7, its counter goes up by one. Each last value
    is set a few seconds ahead of the clock (AHEAD), in a millisecond the
    table records, stamped with the transaction (the DO block's) that calls
    the generator."""
    rng = random.Random(74)
    randoms = []  # each last value's 80 bits after its millisecond
    for k in range(3000):
        value = rng.getrandbits(80)
        value = value & ~(0xF << 76) | rng.randrange(16) << 76      # any version nibble
        value = value & ~(0x3 << 62) | rng.randrange(4) << 62       # any variant
        if k % 10 == 0:
            value = value & ~((1 << 62) - 1) | rng.choice([0, (1 << 62) - 1])  # counters at their edges
        if k % 50 == 0:
            value = from_v7_counter(0, rng.choice([V7_MAX, V7_MAX - 1, 0]))
        randoms.append(value)
    pconn.execute("SET ulid.layout = uuidv7")
    pconn.execute("CREATE TEMP TABLE states (n int PRIMARY KEY, random text, step text, last text, made text, error text)")
    with pconn.cursor().copy("COPY states (n, random, step) FROM STDIN") as copy:
        for n, value in enumerate(randoms):
            copy.write_row((n, f"{value:020x}", "one" if n % 2 else "random"))
    pconn.execute(f"""
        DO $$
        DECLARE s record; v text; l text;
        BEGIN
            FOR s IN SELECT * FROM states LOOP
                l := lpad(to_hex({AHEAD}), 12, '0') || s.random;
                PERFORM set_config('ulid_portable.monotonic_last', l || ulid_portable._backend() || '/'
                                   || encode(timestamptz_send(transaction_timestamp()), 'hex'), false);
                PERFORM set_config('ulid.monotonic_step', s.step, false);
                BEGIN
                    v := ulid_portable.gen_monotonic_ulid()::text;
                    UPDATE states SET last = l, made = replace(v, '-', '') WHERE n = s.n;
                EXCEPTION WHEN OTHERS THEN
                    UPDATE states SET last = l, error = SQLSTATE WHERE n = s.n;
                END;
            END LOOP;
        END $$""")
    results = pconn.execute("SELECT n, last, step, made, error FROM states ORDER BY n").fetchall()
    kinds = Counter()
    for n, last_hex, step, made, error in results:
        last = int(last_hex, 16)
        ahead = last >> 80
        above_in_ms = from_v7_counter(ahead, V7_MAX) > last
        if error is not None:
            assert error == "2200H" and last == from_v7_counter(ahead, V7_MAX), (n, last_hex)
            kinds["exhausted"] += 1
            continue
        value = int(made, 16)
        assert value > last and is_v7(value), (n, last_hex, made)
        assert value >> 80 == (ahead if above_in_ms else ahead + 1), (n, last_hex, made)
        if step == "one" and is_v7(last):
            assert v7_counter(value) == v7_counter(last) + 1, (n, last_hex, made)
        kinds["same millisecond" if value >> 80 == ahead else "next millisecond"] += 1
    assert kinds["exhausted"] > 0 and kinds["next millisecond"] > 100 and kinds["same millisecond"] > 1000, kinds


def test_a_rolled_back_transaction_takes_the_state_back(cluster, both):
    """The documented behaviour of a state kept in a setting: after a
    rollback the generator goes on from the last value that was kept."""
    with cluster.connect(both, autocommit=False) as conn:
        kept = conn.execute("SELECT ulid_portable.gen_monotonic_ulid()::text").fetchone()[0]
        conn.commit()
        conn.execute("SELECT ulid_portable.gen_monotonic_ulid() FROM generate_series(1, 10)")
        conn.rollback()
        state = conn.execute(GET_STATE).fetchone()[0]
        assert state == kept.replace("-", "")
        assert conn.execute("SELECT ulid_portable.gen_monotonic_ulid()::text").fetchone()[0] > kept


def test_the_state_moves_in_a_read_only_transaction(cluster, both):
    """A setting, not a table: the generator writes nothing, so it runs
    where nothing may be written, one statement after another."""
    with cluster.connect(both, autocommit=False) as conn:
        conn.execute("SET TRANSACTION READ ONLY")
        first = [v for v, in conn.execute(
            "SELECT ulid_portable.gen_monotonic_ulid()::text FROM generate_series(1, 1000)")]
        then = conn.execute("SELECT ulid_portable.gen_monotonic_ulid()::text").fetchone()[0]
        assert first == sorted(set(first)) and len(first) == 1000 and then > first[-1]
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("CREATE TEMP TABLE t (id int)")


def test_declared_volatility_and_parallel_safety(pconn):
    rows = pconn.execute("""
        SELECT p.oid::regprocedure::text, provolatile, proparallel FROM pg_proc p
        WHERE pronamespace = 'ulid_portable'::regnamespace AND proname !~ '^_' ORDER BY 1""").fetchall()
    # the overloads for the `ulid` type (here in the schema `native`) and
    # for text, made because the extension is installed in this database
    overloads = [(f"ulid_portable.{fn}({arg}{rest})", "i", "s")
                 for fn, rest in (("ulid_decrypt", ",bytea"), ("ulid_encrypt", ",bytea"), ("ulid_text", ""),
                                  ("ulid_timestamp", ""))
                 for arg in ("native.ulid", "text")]
    assert rows == sorted([
        ("ulid_portable.gen_monotonic_ulid()", "v", "u"),
        ("ulid_portable.gen_ulid()", "v", "s"),
        ("ulid_portable.gen_ulid(timestamp with time zone)", "v", "s"),
        ("ulid_portable.ulid_decrypt(uuid,bytea)", "i", "s"),
        ("ulid_portable.ulid_encrypt(uuid,bytea)", "i", "s"),
        ("ulid_portable.ulid_from_timestamptz(timestamp with time zone)", "i", "s"),
        ("ulid_portable.ulid_parse(text)", "i", "s"),
        ("ulid_portable.ulid_text(uuid)", "i", "s"),
        ("ulid_portable.ulid_timestamp(uuid)", "i", "s"),
        ("ulid_portable.version()", "i", "s"),
        *overloads,
    ])
