//! The SQL generators.
//!
//! - `gen_ulid()`: now, to the millisecond, plus 80 bits from this backend's
//!   CSPRNG (`rng::ProcessRng`, which reseeds after a fork).
//! - `gen_ulid(timestamptz)`: that millisecond plus random bits.
//! - `gen_monotonic_ulid()`: the specification's monotonic generator. When
//!   the library is in `shared_preload_libraries`, or the server is
//!   PostgreSQL 17 or later, its state is its database's, in shared memory
//!   under a lock of the database's own (`shmem.rs`), so values increase
//!   across every session of the database and tell nothing of any other
//!   database; otherwise (13 to 16, not preloaded, or a database past the
//!   shared table's limit) the state is this backend's own and values
//!   increase within the session. Within a millisecond it steps by a random
//!   amount in [1, 2^32] unless the setting `ulid.monotonic_step` says `one`.
//! - `ulid.layout = uuidv7` makes every generator's values also valid
//!   RFC 9562 UUIDv7s (version 7, variant `10`, 74 random bits).
//!
//! The state machine itself is ulid-core's `monotonic::Monotonic`, the
//! settings are `settings.rs` and the shared state `shmem.rs`; this module
//! reads the clock, draws the random bits (before taking the shared lock),
//! finds the state and turns failures into SQL errors.

use crate::backend_local::BackendLocal;
use crate::casts::report_timestamp_out_of_range;
use crate::fmgr::{arg, pg_function, return_ulid};
use crate::settings::{layout, monotonic_step};
use crate::shmem::shared_state;
use pgrx::pg_sys;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use ulid_core::codec::{self, BYTES, RANDOM_BYTES};
use ulid_core::monotonic::{self, GenerateError, Layout, Monotonic, Step};
use ulid_core::rng::{ProcessRng, ProcessRngHandle, RandomSource};
use ulid_core::time::{unix_ms_from_timestamptz, OutOfRange};

extension_sql!(
    r#"
CREATE FUNCTION @extschema@.gen_ulid() RETURNS @extschema@.ulid
    VOLATILE PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'gen_ulid';
COMMENT ON FUNCTION @extschema@.gen_ulid() IS
    'a new ULID: the current millisecond and 80 random bits';

CREATE FUNCTION @extschema@.gen_ulid(pg_catalog.timestamptz) RETURNS @extschema@.ulid
    VOLATILE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'gen_ulid_at';
COMMENT ON FUNCTION @extschema@.gen_ulid(pg_catalog.timestamptz) IS
    'a new ULID for the given millisecond, with 80 random bits';

-- PARALLEL RESTRICTED: evaluated in the leader only, so one statement's
-- values come out in the order they were made even under a parallel plan.
CREATE FUNCTION @extschema@.gen_monotonic_ulid() RETURNS @extschema@.ulid
    VOLATILE PARALLEL RESTRICTED LANGUAGE C AS 'MODULE_PATHNAME', 'gen_monotonic_ulid';
COMMENT ON FUNCTION @extschema@.gen_monotonic_ulid() IS
    'a new ULID greater than the previous one: across the sessions of the database when ulid is in shared_preload_libraries or on PostgreSQL 17 and later, else within the session';
"#,
    name = "ulid_generators",
    requires = ["ulid_casts"],
);

static RNG: BackendLocal<ProcessRng> = BackendLocal::new(ProcessRng::new());
static SESSION_STATE: BackendLocal<Monotonic> = BackendLocal::new(Monotonic::new());

/// The wall clock in Unix milliseconds, as `clock_gettime(CLOCK_REALTIME)`
/// reads it (through the vDSO: no system call).
#[inline]
pub(crate) fn now_ms() -> Result<u64, GenerateError> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec; CLOCK_REALTIME always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut now) };
    match u64::try_from(now.tv_sec) {
        Ok(secs) => Ok(secs * 1000 + now.tv_nsec as u64 / 1_000_000),
        // a clock before 1970 has no ULID
        Err(_) => Err(GenerateError::TimestampOutOfRange),
    }
}

/// This backend's random source, reseeded first if the process is new.
///
/// The handle borrows the backend's one generator: every caller in this
/// module uses it within the expression that asked for it, so no two are
/// alive at once.
#[inline]
fn rng() -> ProcessRngHandle<'static> {
    // SAFETY: on the backend's thread, and the handle is the only borrow of
    // the generator while it lives (each caller drops it before the next
    // asks); `MyProcPid` is set when the process starts.
    unsafe { RNG.get().for_process(pg_sys::MyProcPid) }
}

/// Random bits drawn before taking the lock, so the critical section stays
/// short: fresh bits for a new millisecond, or a draw for a random step.
/// Fresh bits serve as a step too (four of them), when another backend
/// turned out to have reached the millisecond first.
struct PreDrawn {
    fresh: Option<[u8; RANDOM_BYTES]>,
    step: u32,
}

impl PreDrawn {
    #[inline]
    fn fresh(bits: [u8; RANDOM_BYTES]) -> Self {
        PreDrawn {
            fresh: Some(bits),
            step: u32::from_le_bytes([bits[0], bits[1], bits[2], bits[3]]),
        }
    }

    #[inline]
    fn step(step: u32) -> Self {
        PreDrawn { fresh: None, step }
    }
}

impl RandomSource for PreDrawn {
    /// Only called when `fresh` is there: `next_monotonic` checks, under the
    /// lock, that the state needs no fresh bits before it lends a `PreDrawn`
    /// without them. A bug there must fail loudly (a panic becomes an
    /// ERROR, and the lock's guard releases it), never hand out zero bits.
    #[inline]
    fn random(&mut self) -> [u8; RANDOM_BYTES] {
        self.fresh
            .expect("the monotonic state asked for fresh bits that were not drawn")
    }

    #[inline]
    fn random_u32(&mut self) -> u32 {
        self.step
    }
}

/// The millisecond of the last value this backend took from the shared
/// state. The shared state is at least there, so a call for a millisecond
/// not after it steps within that millisecond and needs a 4-byte step, not
/// 80 fresh bits: drawing those regardless (before the lock, as the
/// critical section must stay short) would cost a busy generator a larger
/// draw on nearly every call (`bench/callgrind` counts it).
static SHARED_SEEN_MS: BackendLocal<u64> = BackendLocal::new(0);

/// The next monotonic value, from the database's shared state where there is one.
#[inline]
fn next_monotonic(layout: Layout) -> Result<[u8; BYTES], GenerateError> {
    let now = now_ms()?;
    let step = monotonic_step();
    let Some(shared) = shared_state() else {
        // SAFETY: this backend's own state, borrowed only here (the random
        // source is another cell).
        return unsafe { SESSION_STATE.get() }.next(now, &mut rng(), step, layout);
    };
    // SAFETY: this backend's own, read and written only here.
    let seen = unsafe { SHARED_SEEN_MS.get() };
    let mut drawn = if now > *seen {
        PreDrawn::fresh(rng().random())
    } else if step == Step::Random {
        PreDrawn::step(rng().random_u32())
    } else {
        PreDrawn::step(0)
    };
    let value = loop {
        // `None`: fresh bits are needed after all (the state is behind what
        // this backend saw, which only tests arrange, or a UUIDv7 must
        // follow a value of the other layout): draw them outside the lock
        // and try again.
        let attempt = shared.with_lock(|state| {
            if drawn.fresh.is_none() && state.needs_random(now, layout) {
                None
            } else {
                Some(state.next(now, &mut drawn, step, layout))
            }
        });
        match attempt {
            Some(result) => break result?,
            None => drawn = PreDrawn::fresh(rng().random()),
        }
    };
    *seen = codec::timestamp_ms(&value);
    Ok(value)
}

fn report(err: GenerateError, layout: Layout) -> ! {
    match err {
        GenerateError::TimestampOutOfRange => report_timestamp_out_of_range(),
        GenerateError::Exhausted => {
            let mut report = ErrorReport::new(
                PgSqlErrorCode::ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED,
                err.message_of("gen_monotonic_ulid()"),
                "gen_monotonic_ulid",
            )
            .set_detail(err.detail(layout));
            if let Some(hint) = err.hint() {
                report = report.set_hint(hint);
            }
            report.report(PgLogLevel::ERROR);
            unreachable!("ERROR does not return")
        }
    }
}

pg_function! {
    /// `gen_ulid()`
    fn gen_ulid(fcinfo) -> Datum {
        let _ = fcinfo;
        let layout = layout();
        match now_ms().and_then(|now| monotonic::generate(now, &mut rng(), layout)) {
            // SAFETY: this body holds nothing to drop (the random source's
            // handle is gone, `value` is an array).
            Ok(value) => unsafe { return_ulid(&value) },
            Err(err) => report(err, layout),
        }
    }

    /// `gen_ulid(timestamptz)`
    fn gen_ulid_at(fcinfo) -> Datum {
        // SAFETY: argument 0 of `gen_ulid(timestamptz)`, a STRICT function:
        // an int8 passed by value.
        let us = unsafe { arg(fcinfo, 0) }.value() as i64;
        let ms = match unix_ms_from_timestamptz(us) {
            Ok(ms) => ms,
            Err(OutOfRange) => report_timestamp_out_of_range(),
        };
        let layout = layout();
        match monotonic::generate(ms, &mut rng(), layout) {
            // SAFETY: this body holds nothing to drop (the random source's
            // handle is gone, `value` is an array).
            Ok(value) => unsafe { return_ulid(&value) },
            Err(err) => report(err, layout),
        }
    }

    /// `gen_monotonic_ulid()`
    fn gen_monotonic_ulid(fcinfo) -> Datum {
        let _ = fcinfo;
        let layout = layout();
        match next_monotonic(layout) {
            // SAFETY: this body holds nothing to drop: `next_monotonic` has
            // returned, and with it let go of the database's lock.
            Ok(value) => unsafe { return_ulid(&value) },
            Err(err) => report(err, layout),
        }
    }
}

#[cfg(any(test, feature = "pg_test"))]
#[pgrx::pg_schema]
mod tests {
    use super::*;
    use ulid_core::codec;

    /// The test harness runs tests concurrently against one server, which
    /// shares the monotonic state: tests that read or move it take this
    /// lock (held to the end of the test's transaction).
    fn serialize_monotonic_tests() {
        Spi::run("SELECT pg_advisory_xact_lock(8675309)").unwrap();
    }

    /// Runs `f` on whichever state `gen_monotonic_ulid()` uses.
    fn with_monotonic_state<R>(f: impl FnOnce(&mut Monotonic) -> R) -> R {
        match shared_state() {
            // SAFETY: this backend's own state, borrowed only for `f`.
            None => f(unsafe { SESSION_STATE.get() }),
            Some(shared) => shared.with_lock(f),
        }
    }

    fn generate_monotonic() -> [u8; BYTES] {
        let text = Spi::get_one::<String>("SELECT gen_monotonic_ulid()::text")
            .unwrap()
            .unwrap();
        codec::decode(text.as_bytes()).unwrap()
    }

    /// Puts the state back when dropped. The tests below move the shared
    /// state into the future, which every later test in the same server
    /// would otherwise inherit.
    struct RestoreState(Monotonic);

    impl Drop for RestoreState {
        fn drop(&mut self) {
            let saved = self.0;
            with_monotonic_state(|state| *state = saved);
        }
    }

    /// The state as if the clock had been `ahead_ms` in the future when it
    /// last generated: the same as the clock now being that far behind.
    fn clock_behind_by(ahead_ms: u64, random: [u8; RANDOM_BYTES]) -> ([u8; BYTES], RestoreState) {
        serialize_monotonic_tests();
        let saved = RestoreState(with_monotonic_state(|state| *state));
        let future = now_ms().unwrap() + ahead_ms;
        let value = codec::from_parts(future, &random);
        with_monotonic_state(|state| state.advance_past(value));
        (value, saved)
    }

    #[pg_test]
    fn preloaded_state_lives_in_shared_memory() {
        assert!(shared_state().is_some(), "the test server preloads ulid");
        serialize_monotonic_tests();
        let value = generate_monotonic();
        assert_eq!(with_monotonic_state(|state| state.last()), value);
    }

    /// A backend skips drawing random bits for a millisecond it has already
    /// seen the shared state reach; if the state is behind that after all,
    /// the value must still get fresh bits, not the unused placeholder.
    #[pg_test]
    fn shared_state_behind_what_this_backend_saw_still_draws_fresh_bits() {
        serialize_monotonic_tests();
        let _restore = RestoreState(with_monotonic_state(|state| *state));
        generate_monotonic();
        with_monotonic_state(|state| *state = Monotonic::new());
        let before = now_ms().unwrap();
        let value = generate_monotonic();
        assert!(codec::timestamp_ms(&value) >= before);
        assert_ne!(value[BYTES - RANDOM_BYTES..], [0; RANDOM_BYTES]);
    }

    /// The random part as a number.
    fn random_number(value: [u8; BYTES]) -> u128 {
        u128::from_be_bytes(value) & ((1 << 80) - 1)
    }

    /// The monotonic runs of tests/vectors/ulid.json, which ulid-core, the
    /// portable layer and the command-line tool run too: the state set to
    /// each run's `after` (far ahead of the clock, so its millisecond is
    /// kept), the step of one, the values made in order, then the error.
    #[pg_test]
    fn the_vectors_monotonic_runs() {
        let vectors: serde_json::Value =
            serde_json::from_str(include_str!("../tests/vectors/ulid.json")).unwrap();
        serialize_monotonic_tests();
        let _restore = RestoreState(with_monotonic_state(|state| *state));
        Spi::run("SET LOCAL ulid.monotonic_step = one").unwrap();
        let error = &vectors["exhausted_error"];
        let runs = vectors["monotonic"].as_array().unwrap();
        assert!(runs.len() >= 4);
        for case in runs {
            let layout = case["layout"].as_str().unwrap();
            Spi::run(&format!("SET LOCAL ulid.layout = {layout}")).unwrap();
            let after = codec::parse(case["after"].as_str().unwrap().as_bytes()).unwrap();
            with_monotonic_state(|state| *state = Monotonic::new());
            with_monotonic_state(|state| state.advance_past(after));
            let mut made = Vec::new();
            let mut failed = None;
            for _ in 0..case["count"].as_u64().unwrap() {
                match crate::fmgr::tests::error_report_of("SELECT gen_monotonic_ulid()") {
                    None => {
                        let value = with_monotonic_state(|state| state.last());
                        made.push(String::from_utf8(codec::encode(&value).to_vec()).unwrap());
                    }
                    Some(report) => {
                        failed = Some(report);
                        break;
                    }
                }
            }
            let expected: Vec<&str> = case["next"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect();
            assert_eq!(made, expected, "{case}");
            match case["error"].as_str() {
                Some("exhausted") => {
                    let (code, message, detail) = failed.expect("the millisecond runs out");
                    assert_eq!(
                        code,
                        PgSqlErrorCode::ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED
                    );
                    assert_eq!(message, error["message"].as_str().unwrap());
                    assert_eq!(detail.as_deref(), error["detail"][layout].as_str());
                }
                _ => assert!(failed.is_none(), "{case}: {failed:?}"),
            }
        }
    }

    #[pg_test]
    fn clock_ten_seconds_behind_keeps_the_last_millisecond() {
        let (start, _restore) = clock_behind_by(10_000, [0x55; RANDOM_BYTES]);
        let mut previous = start;
        let mut steps = Vec::new();
        for _ in 0..1000 {
            let value = generate_monotonic();
            assert!(value > previous);
            assert_eq!(codec::timestamp_ms(&value), codec::timestamp_ms(&start));
            steps.push(random_number(value) - random_number(previous));
            previous = value;
        }
        assert!(steps.iter().all(|&step| (1..=1 << 32).contains(&step)));
        // 1000 random steps: all of one are a 2^-32000 event
        assert!(steps.iter().any(|&step| step > 1), "{steps:?}");

        // ulid.monotonic_step = one: the specification's +1, exactly
        Spi::run("SET LOCAL ulid.monotonic_step = one").unwrap();
        let base = previous;
        for _ in 0..1000 {
            previous = generate_monotonic();
        }
        assert_eq!(
            random_number(previous) - random_number(base),
            1000,
            "a thousand increments of the random part"
        );
        assert_eq!(codec::timestamp_ms(&previous), codec::timestamp_ms(&start));
    }

    #[pg_test]
    fn the_setting_reads_back_and_refuses_other_values() {
        assert_eq!(monotonic_step(), Step::Random, "random by default");
        assert_eq!(
            Spi::get_one::<String>("SHOW ulid.monotonic_step").unwrap(),
            Some("random".into())
        );
        Spi::run("SET LOCAL ulid.monotonic_step = one").unwrap();
        assert_eq!(monotonic_step(), Step::One);
        Spi::run("SET LOCAL ulid.monotonic_step = random").unwrap();
        assert_eq!(monotonic_step(), Step::Random);
        let error = crate::fmgr::tests::error_of("SET LOCAL ulid.monotonic_step = two");
        assert_eq!(
            error.map(|(code, _)| code),
            Some(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE)
        );
    }

    /// With fewer than 2^32 values left in the millisecond, random steps
    /// shrink to what is left instead of failing: only an all-ones random
    /// part raises 2200H.
    #[pg_test]
    fn random_steps_use_up_the_millisecond_before_2200h() {
        let mut near_end = [0xFF; RANDOM_BYTES];
        near_end[RANDOM_BYTES - 1] = 0xFF - 3; // three values left above it
        let (start, _restore) = clock_behind_by(3_600_000, near_end);
        let mut previous = start;
        let mut made = 0;
        loop {
            let sql = "SELECT gen_monotonic_ulid()";
            if let Some((code, _)) = crate::fmgr::tests::error_of(sql) {
                assert_eq!(
                    code,
                    PgSqlErrorCode::ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED
                );
                break;
            }
            let value = with_monotonic_state(|state| state.last());
            assert!(value > previous);
            assert_eq!(codec::timestamp_ms(&value), codec::timestamp_ms(&start));
            previous = value;
            made += 1;
            assert!(made <= 3, "more values than were left");
        }
        assert!(made >= 1, "at least one value fits");
        assert_eq!(previous[BYTES - RANDOM_BYTES..], [0xFF; RANDOM_BYTES]);
    }

    #[pg_test]
    fn exhausted_millisecond_raises_2200h_and_does_not_wrap() {
        let (last, _restore) = clock_behind_by(3_600_000, [0xFF; RANDOM_BYTES]);
        let error = crate::fmgr::tests::error_of("SELECT gen_monotonic_ulid()");
        assert_eq!(
            error.map(|(code, _)| code),
            Some(PgSqlErrorCode::ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED)
        );
        assert_eq!(
            with_monotonic_state(|state| state.last()),
            last,
            "no wrap to zero"
        );
    }

    /// Under `ulid.layout = uuidv7` a millisecond runs out when the 74 free
    /// bits of a UUIDv7 are all ones, and the DETAIL says so.
    #[pg_test]
    fn an_exhausted_uuidv7_millisecond_says_74_bits() {
        let (last, _restore) = clock_behind_by(3_600_000, [0xFF; RANDOM_BYTES]);
        // the greatest UUIDv7 of that millisecond
        let mut full = last;
        full[6] = 0x7F;
        full[8] = 0xBF;
        with_monotonic_state(|state| *state = Monotonic::new());
        with_monotonic_state(|state| state.advance_past(full));
        Spi::run("SET LOCAL ulid.layout = uuidv7").unwrap();
        let detail = crate::fmgr::tests::error_detail_of("SELECT gen_monotonic_ulid()");
        assert_eq!(
            detail.as_deref(),
            Some(
                "The 74 random bits of the UUIDv7 layout reached their largest value; \
                 the generator fails rather than wrap around."
            )
        );
        Spi::run("SET LOCAL ulid.layout = ulid").unwrap();
        with_monotonic_state(|state| state.advance_past(last));
        let detail = crate::fmgr::tests::error_detail_of("SELECT gen_monotonic_ulid()");
        assert!(detail
            .unwrap()
            .starts_with("The 80-bit random part reached"));
    }

    #[pg_test]
    fn the_layout_setting_reads_back_and_refuses_other_values() {
        assert_eq!(layout(), Layout::Ulid, "ulid by default");
        assert_eq!(
            Spi::get_one::<String>("SHOW ulid.layout").unwrap(),
            Some("ulid".into())
        );
        Spi::run("SET LOCAL ulid.layout = uuidv7").unwrap();
        assert_eq!(layout(), Layout::UuidV7);
        let error = crate::fmgr::tests::error_of("SET LOCAL ulid.layout = uuidv4");
        assert_eq!(
            error.map(|(code, _)| code),
            Some(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE)
        );
    }

    /// In the shared state, a UUIDv7 after a value of the other layout whose
    /// millisecond has no UUIDv7 above it: the next millisecond, fresh bits.
    #[pg_test]
    fn a_uuidv7_after_a_plain_value_in_shared_memory_goes_above_it() {
        let mut plain = [0x55; RANDOM_BYTES];
        plain[0] = 0x9C; // version nibble 9: above every UUIDv7 of its millisecond
        let (start, _restore) = clock_behind_by(60_000, plain);
        Spi::run("SET LOCAL ulid.layout = uuidv7").unwrap();
        let value = generate_monotonic();
        assert!(value > start);
        assert!(monotonic::is_uuidv7(&value), "{value:02x?}");
        assert_eq!(codec::timestamp_ms(&value), codec::timestamp_ms(&start) + 1);
        // and a plain value after it, in that millisecond
        Spi::run("SET LOCAL ulid.layout = ulid").unwrap();
        let next = generate_monotonic();
        assert!(next > value);
        assert_eq!(codec::timestamp_ms(&next), codec::timestamp_ms(&value));
    }

    #[pg_test]
    fn gen_ulid_uses_the_current_millisecond() {
        let before = now_ms().unwrap();
        let text = Spi::get_one::<String>("SELECT gen_ulid()::text")
            .unwrap()
            .unwrap();
        let after = now_ms().unwrap();
        let ms = codec::timestamp_ms(&codec::decode(text.as_bytes()).unwrap());
        assert!(
            (before..=after).contains(&ms),
            "{before} <= {ms} <= {after}"
        );
    }
}
