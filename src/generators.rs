//! The SQL generators and where their state lives.
//!
//! - `gen_ulid()`: now, to the millisecond, plus 80 bits from this backend's
//!   CSPRNG (`generator::ProcessRng`, which reseeds after a fork).
//! - `gen_ulid(timestamptz)`: that millisecond plus random bits.
//! - `gen_monotonic_ulid()`: the specification's monotonic generator. When
//!   the library is in `shared_preload_libraries` its state is in shared
//!   memory under a spinlock, so values increase across every session of the
//!   server; otherwise the state is this backend's own and values increase
//!   within the session. Either way it works: preloading only widens the
//!   guarantee. Within a millisecond it steps by a random amount in
//!   [1, 2^32] unless the setting `ulid.monotonic_step` says `one`.
//! - `ulid.layout = uuidv7` makes every generator's values also valid
//!   RFC 9562 UUIDv7s (version 7, variant `10`, 74 random bits).
//!
//! The state machine itself is `generator::Monotonic`; this module only
//! reads the clock and the setting, finds the state and turns failures into
//! SQL errors.

use crate::casts::report_timestamp_out_of_range;
use crate::fmgr::{arg, pg_function, return_ulid};
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};
use pgrx::guc::{GucContext, GucEnum, GucFlags, GucRegistry, GucSetting};
use pgrx::pg_sys;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::{PgSqlErrorCode, PostgresGucEnum};
use ulid_core::codec::{self, BYTES, RANDOM_BYTES};
use ulid_core::generator::{
    self, GenerateError, Layout, Monotonic, ProcessRng, RandomSource, Step,
};
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
    'a new ULID greater than the previous one: across the server when ulid is in shared_preload_libraries, else within the session';
"#,
    name = "ulid_generators",
    requires = ["ulid_casts"],
);

/// State owned by one backend. PostgreSQL backends are single-threaded and
/// nothing here is reentrant, so plain interior mutability is enough.
struct BackendLocal<T>(UnsafeCell<T>);

// SAFETY: only the backend's main thread ever touches these.
unsafe impl<T> Sync for BackendLocal<T> {}

impl<T> BackendLocal<T> {
    const fn new(value: T) -> Self {
        BackendLocal(UnsafeCell::new(value))
    }

    /// # Safety
    /// Call from the backend's main thread, and do not hold two results at once.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get(&self) -> &mut T {
        unsafe { &mut *self.0.get() }
    }
}

static RNG: BackendLocal<ProcessRng> = BackendLocal::new(ProcessRng::new());
static SESSION_STATE: BackendLocal<Monotonic> = BackendLocal::new(Monotonic::new());
/// Set in the postmaster when preloaded; inherited by every backend it forks.
static SHARED_STATE: BackendLocal<*const SharedState> = BackendLocal::new(core::ptr::null());

/// The server-wide monotonic state, in shared memory.
#[repr(C)]
struct SharedState {
    locked: AtomicBool,
    state: UnsafeCell<Monotonic>,
}

impl SharedState {
    /// Runs `f` on the state under the lock. The critical section is a
    /// comparison and a 16-byte copy: no allocation, no PostgreSQL call, no
    /// interrupt check, nothing that can raise an ERROR.
    #[inline]
    fn with_lock<R>(&self, f: impl FnOnce(&mut Monotonic) -> R) -> R {
        struct Unlock<'a>(&'a AtomicBool);
        impl Drop for Unlock<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Release);
            }
        }

        let mut spins = 0u32;
        while self
            .locked
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            while self.locked.load(Ordering::Relaxed) {
                spins += 1;
                if spins < 200 {
                    core::hint::spin_loop();
                } else {
                    // the holder may have been descheduled: give it the CPU
                    std::thread::yield_now();
                }
            }
        }
        let _unlock = Unlock(&self.locked);
        // SAFETY: the lock is held.
        f(unsafe { &mut *self.state.get() })
    }
}

const SHMEM_NAME: &core::ffi::CStr = c"ulid monotonic generator";

/// The values of `ulid.monotonic_step`, in the order of their ordinals:
/// `random` (0) is the default.
#[derive(PostgresGucEnum, Clone, Copy, PartialEq, Eq, Debug)]
enum MonotonicStep {
    #[name = c"random"]
    Random,
    #[name = c"one"]
    One,
}

static MONOTONIC_STEP: GucSetting<MonotonicStep> =
    GucSetting::<MonotonicStep>::new(MonotonicStep::Random);

/// The values of `ulid.layout`, in the order of their ordinals: `ulid` (0)
/// is the default.
#[derive(PostgresGucEnum, Clone, Copy, PartialEq, Eq, Debug)]
enum LayoutSetting {
    #[name = c"ulid"]
    Ulid,
    #[name = c"uuidv7"]
    UuidV7,
}

static LAYOUT: GucSetting<LayoutSetting> = GucSetting::<LayoutSetting>::new(LayoutSetting::Ulid);

/// The ordinal of an enum setting's value, read from the variable
/// PostgreSQL assigns: `GucSetting::get` also checks the calling thread on
/// every call, and this is the backend's own thread by construction.
#[inline]
fn ordinal_of<T: GucEnum>(setting: &GucSetting<T>) -> i32 {
    // SAFETY: a plain i32 that only this backend's GUC machinery writes.
    unsafe { *setting.as_ptr() }
}

/// The layout `ulid.layout` asks for.
#[inline]
fn layout() -> Layout {
    match ordinal_of(&LAYOUT) {
        ordinal if ordinal == LayoutSetting::UuidV7 as i32 => Layout::UuidV7,
        _ => Layout::Ulid,
    }
}

/// The step `ulid.monotonic_step` asks for.
#[inline]
fn monotonic_step() -> Step {
    match ordinal_of(&MONOTONIC_STEP) {
        ordinal if ordinal == MonotonicStep::One as i32 => Step::One,
        _ => Step::Random,
    }
}

/// Declares `ulid.monotonic_step` and `ulid.layout`.
///
/// `ulid.monotonic_step` is PGC_SUSET: only a superuser (or a role granted
/// SET on it, PostgreSQL 15 and later) sets it, in postgresql.conf, per
/// database or role (ALTER DATABASE/ROLE ... SET) or in a session. On a
/// preloaded server every role and database steps from the one shared
/// value, so a role that could choose a step of one would get another
/// session's last value plus one, and count other tenants' inserts by the
/// gaps between its own.
///
/// `ulid.layout` is PGC_USERSET: it chooses which bits of a value are
/// random and says nothing of another session's values.
///
/// A value set before the library was loaded (say by ALTER DATABASE, in a
/// session that has not called into ulid yet) is held by PostgreSQL as a
/// placeholder and applied here, when the library loads, with the source,
/// context and role it was set with: one that an ordinary role set for
/// `ulid.monotonic_step` is refused then with a WARNING.
fn define_settings() {
    GucRegistry::define_enum_guc(
        c"ulid.monotonic_step",
        c"How far gen_monotonic_ulid() moves within one millisecond.",
        c"random: a uniformly random amount between 1 and 2^32, so that a value \
          does not reveal its neighbours (the default). one: plus one, as the \
          ULID specification says; values of one millisecond are then dense and \
          each one names the next.",
        &MONOTONIC_STEP,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_enum_guc(
        c"ulid.layout",
        c"Which bits of the values gen_ulid() and gen_monotonic_ulid() make are random.",
        c"ulid: the 80 bits after the timestamp, as the ULID specification says (the \
          default). uuidv7: every value is also a valid RFC 9562 UUIDv7: version 7, \
          variant 10, and 74 random bits.",
        &LAYOUT,
        GucContext::Userset,
        GucFlags::default(),
    );
    // Any other ulid.* name is a typo: warn about it and refuse it from now on.
    unsafe {
        #[cfg(any(feature = "pg13", feature = "pg14"))]
        pg_sys::EmitWarningsOnPlaceholders(c"ulid".as_ptr());
        #[cfg(not(any(feature = "pg13", feature = "pg14")))]
        pg_sys::MarkGUCPrefixReserved(c"ulid".as_ptr());
    }
}

/// Called from `_PG_init`: declares the settings and, when the library is
/// being preloaded, asks for a little shared memory and sets it up at server
/// start.
pub fn init() {
    define_settings();
    unsafe {
        if !pg_sys::process_shared_preload_libraries_in_progress {
            return;
        }
        #[cfg(any(feature = "pg13", feature = "pg14"))]
        pg_sys::RequestAddinShmemSpace(core::mem::size_of::<SharedState>());
        #[cfg(not(any(feature = "pg13", feature = "pg14")))]
        {
            PREV_SHMEM_REQUEST_HOOK = pg_sys::shmem_request_hook;
            pg_sys::shmem_request_hook = Some(shmem_request);
        }
        PREV_SHMEM_STARTUP_HOOK = pg_sys::shmem_startup_hook;
        pg_sys::shmem_startup_hook = Some(shmem_startup);
    }
}

#[cfg(not(any(feature = "pg13", feature = "pg14")))]
static mut PREV_SHMEM_REQUEST_HOOK: pg_sys::shmem_request_hook_type = None;
static mut PREV_SHMEM_STARTUP_HOOK: pg_sys::shmem_startup_hook_type = None;

#[cfg(not(any(feature = "pg13", feature = "pg14")))]
#[pg_guard]
unsafe extern "C-unwind" fn shmem_request() {
    unsafe {
        if let Some(previous) = PREV_SHMEM_REQUEST_HOOK {
            previous();
        }
        pg_sys::RequestAddinShmemSpace(core::mem::size_of::<SharedState>());
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn shmem_startup() {
    unsafe {
        if let Some(previous) = PREV_SHMEM_STARTUP_HOOK {
            previous();
        }
        // AddinShmemInitLock, entry 21 of the main LWLock array in every
        // supported version (lwlocklist.h)
        let init_lock = &raw mut (*pg_sys::MainLWLockArray.add(21)).lock;
        pg_sys::LWLockAcquire(init_lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
        let mut found = false;
        let shared = pg_sys::ShmemInitStruct(
            SHMEM_NAME.as_ptr(),
            core::mem::size_of::<SharedState>(),
            &mut found,
        )
        .cast::<SharedState>();
        if !found {
            shared.write(SharedState {
                locked: AtomicBool::new(false),
                state: UnsafeCell::new(Monotonic::new()),
            });
        }
        *SHARED_STATE.get() = shared;
        pg_sys::LWLockRelease(init_lock);
    }
}

/// The wall clock in Unix milliseconds, as `clock_gettime(CLOCK_REALTIME)`
/// reads it (through the vDSO: no system call).
#[inline]
fn now_ms() -> Result<u64, GenerateError> {
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
#[inline]
fn rng() -> generator::ProcessRngHandle<'static> {
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

/// The server-wide state, when the library was preloaded.
#[inline]
fn shared_state() -> Option<&'static SharedState> {
    // SAFETY: set once at server start and never freed.
    unsafe { SHARED_STATE.get().as_ref() }
}

/// The millisecond of the last value this backend took from the shared
/// state. The shared state is at least there, so a call for a millisecond
/// not after it steps within that millisecond and needs a 4-byte step, not
/// 80 fresh bits: drawing those regardless (before the lock, as the
/// critical section must stay short) would cost a busy generator a larger
/// draw on nearly every call (`bench/callgrind` counts it).
static SHARED_SEEN_MS: BackendLocal<u64> = BackendLocal::new(0);

/// The next monotonic value, from shared memory when preloaded.
#[inline]
fn next_monotonic() -> Result<[u8; BYTES], GenerateError> {
    let now = now_ms()?;
    let step = monotonic_step();
    let layout = layout();
    let Some(shared) = shared_state() else {
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

fn report(err: GenerateError) -> ! {
    match err {
        GenerateError::TimestampOutOfRange => report_timestamp_out_of_range(),
        GenerateError::Exhausted => {
            ErrorReport::new(
                PgSqlErrorCode::ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED,
                "gen_monotonic_ulid() has no value left in this millisecond",
                "gen_monotonic_ulid",
            )
            .set_detail(
                "The 80-bit random part reached its largest value; \
                 the generator fails rather than wrap around.",
            )
            .set_hint("Values are available again from the next millisecond.")
            .report(PgLogLevel::ERROR);
            unreachable!("ERROR does not return")
        }
    }
}

pg_function! {
    /// `gen_ulid()`
    fn gen_ulid(fcinfo) -> Datum {
        let _ = fcinfo;
        match now_ms().and_then(|now| generator::generate(now, &mut rng(), layout())) {
            Ok(value) => unsafe { return_ulid(&value) },
            Err(err) => report(err),
        }
    }

    /// `gen_ulid(timestamptz)`
    fn gen_ulid_at(fcinfo) -> Datum {
        let us = unsafe { arg(fcinfo, 0) }.value() as i64;
        let ms = match unix_ms_from_timestamptz(us) {
            Ok(ms) => ms,
            Err(OutOfRange) => report_timestamp_out_of_range(),
        };
        match generator::generate(ms, &mut rng(), layout()) {
            Ok(value) => unsafe { return_ulid(&value) },
            Err(err) => report(err),
        }
    }

    /// `gen_monotonic_ulid()`
    fn gen_monotonic_ulid(fcinfo) -> Datum {
        let _ = fcinfo;
        match next_monotonic() {
            Ok(value) => unsafe { return_ulid(&value) },
            Err(err) => report(err),
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
        assert!(generator::is_uuidv7(&value), "{value:02x?}");
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
