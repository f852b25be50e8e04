//! The generators' two settings, `ulid.monotonic_step` and `ulid.layout`:
//! their declaration, and how the generators read them on every call.
//! What they do to a value is ulid-core's (`monotonic::Step`,
//! `monotonic::Layout`); which generator reads which is `generators.rs`.

use pgrx::guc::{GucContext, GucEnum, GucFlags, GucRegistry, GucSetting};
use pgrx::pg_sys;
use pgrx::PostgresGucEnum;
use ulid_core::monotonic::{Layout, Step};

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
pub fn layout() -> Layout {
    match ordinal_of(&LAYOUT) {
        ordinal if ordinal == LayoutSetting::UuidV7 as i32 => Layout::UuidV7,
        _ => Layout::Ulid,
    }
}

/// The step `ulid.monotonic_step` asks for.
#[inline]
pub fn monotonic_step() -> Step {
    match ordinal_of(&MONOTONIC_STEP) {
        ordinal if ordinal == MonotonicStep::One as i32 => Step::One,
        _ => Step::Random,
    }
}

/// Declares `ulid.monotonic_step` and `ulid.layout`.
///
/// `ulid.monotonic_step` is PGC_SUSET: only a superuser (or a role granted
/// SET on it, PostgreSQL 15 and later) sets it, in postgresql.conf, per
/// database or role (ALTER DATABASE/ROLE ... SET) or in a session. Where
/// the state is shared (preloaded, or on 17 and later), every role of a
/// database steps from the database's one shared value, so a role that
/// could choose a step of one would get another session's last value plus
/// one, and count the inserts of the database's other roles by the gaps
/// between its own.
///
/// `ulid.layout` is PGC_USERSET: it chooses which bits of a value are
/// random and says nothing of another session's values.
///
/// A value set before the library was loaded (say by ALTER DATABASE, in a
/// session that has not called into ulid yet) is held by PostgreSQL as a
/// placeholder and applied here, when the library loads, with the source,
/// context and role it was set with: one that an ordinary role set for
/// `ulid.monotonic_step` is refused then with a WARNING.
pub fn define() {
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
    // SAFETY: from `_PG_init`, on the process's one thread; the prefix is a
    // C string, and both functions are pgrx's, guarded.
    unsafe {
        #[cfg(any(feature = "pg13", feature = "pg14"))]
        pg_sys::EmitWarningsOnPlaceholders(c"ulid".as_ptr());
        #[cfg(not(any(feature = "pg13", feature = "pg14")))]
        pg_sys::MarkGUCPrefixReserved(c"ulid".as_ptr());
    }
}
