//! Each database's shared monotonic state: a table in shared memory with a
//! place per database, taken under a lock of its own.
//!
//! The table has a place per database, so that the values of one database
//! never depend on, or reveal, what another database does: not its values,
//! not their order, not how often it calls (each place has its own lock, on
//! a cache line of its own). The table is in the shared memory reserved at
//! server start when the library is in `shared_preload_libraries` (asked
//! for and set up by the hooks below); otherwise, on PostgreSQL 17 and
//! later, in a named segment of the dynamic shared memory registry, created
//! by the first backend that asks and attached by every later one, so that
//! no restart is needed. On 13 to 16 without preloading there is none.
//!
//! A backend attaches to its database's place at its first call and stays
//! attached until it exits (a `before_shmem_exit` callback, which runs on
//! every exit, a FATAL one too: only a backend killed outright skips it,
//! and then the postmaster restarts every backend and makes the table
//! anew). A place is its database's while a backend of it is attached.
//! When none is, the place may be given to another database, and its state
//! is emptied; but only once the clock has passed the last value it handed
//! out, so that the database's next value, made from the clock on a place
//! of its own, is still above every value it made before. So a database
//! learns nothing of a database that had its place before (a database made
//! with a dropped one's OID included), and no database can be kept from a
//! place by others: the table has a place for every backend the server can
//! have (`max_connections` and the workers, at least [`MIN_PLACES`]), and a
//! backend's database needs at most one. Only when every place that no
//! backend is attached to holds a value ahead of the clock (the system
//! clock was set back) does a database keep its order per session, and the
//! server log says so, once per database (for the first [`LOGGED`]).
//!
//! Giving places out takes the table's lock, on a few instructions that
//! raise nothing and wait for nothing; a value's way takes only its place's
//! lock (`spinlock.rs`).
//!
//! How a state moves is ulid-core's `monotonic::Monotonic`; when it is read
//! is `generators.rs`.

use crate::backend_local::BackendLocal;
use crate::fmgr::guard_callback;
use crate::spinlock::SpinLock;
use core::cell::UnsafeCell;
use core::ffi::CStr;
use core::sync::atomic::{AtomicU32, Ordering};
use pgrx::pg_sys;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use ulid_core::codec;
use ulid_core::monotonic::Monotonic;

/// The fewest places a table has. A place is 64 bytes, so the table takes
/// 64 KiB and a little more, or 64 bytes a backend where the server can
/// have more backends than this.
pub const MIN_PLACES: usize = 1024;

/// How many databases that keep their order per session the server log
/// names, each once.
const LOGGED: usize = 8;

/// The version of the table's layout (everything from [`SharedTable`]
/// down). It is in the table's name, so that two libraries whose tables
/// differ never read each other's: after a package upgrade without a
/// restart, backends that loaded the old library keep the old table and
/// those that load the new one share a new table. Change it with anything
/// in the layout (the assertions below the table check the sizes).
macro_rules! layout_version {
    () => {
        3
    };
}
const LAYOUT: u32 = layout_version!();
const SHMEM_NAME: &CStr = match CStr::from_bytes_with_nul(
    concat!("ulid monotonic generator, layout ", layout_version!(), "\0").as_bytes(),
) {
    Ok(name) => name,
    Err(_) => panic!("the name is a C string"),
};
const MAGIC: [u8; 8] = *b"ulid\0dbs";

/// One database's place in the table: which database, how many of its
/// backends are attached, and its state under a lock of its own. Each is a
/// cache line, so that a busy database and another never contend for one.
#[repr(C, align(64))]
pub struct DatabaseState {
    /// The database this place serves, or 0 while it has served none.
    /// Written only under the table's lock.
    database: AtomicU32,
    /// How many backends of `database` are attached: raised under the
    /// table's lock, lowered by each of them when it exits.
    attached: AtomicU32,
    lock: SpinLock,
    state: UnsafeCell<Monotonic>,
}

impl DatabaseState {
    /// Runs `f` on the state under the lock. The critical section is a
    /// comparison and a 16-byte copy: no allocation, no PostgreSQL call, no
    /// interrupt check, nothing that can raise an ERROR. Waiting for the
    /// lock may raise one (a cancel), before anything is done.
    #[inline]
    pub fn with_lock<R>(&self, f: impl FnOnce(&mut Monotonic) -> R) -> R {
        let _held = self.lock.lock();
        // SAFETY: the lock is held, so this is the only reference.
        f(unsafe { &mut *self.state.get() })
    }

    /// The database this place serves (0: none yet).
    pub fn database(&self) -> u32 {
        self.database.load(Ordering::Relaxed)
    }

    /// How many backends are attached to this place.
    pub fn attached(&self) -> u32 {
        self.attached.load(Ordering::Relaxed)
    }

    /// For a place no backend is attached to, under the table's lock:
    /// empties its state if the clock (`now_ms`) has passed its last value
    /// and says so; keeps it and says false if not. Only tries the place's
    /// lock (no backend is attached, so no one should hold it), never
    /// waits for it: false if it is held.
    fn empty_if_passed(&self, now_ms: u64) -> bool {
        let Some(_held) = self.lock.try_lock() else {
            return false;
        };
        // SAFETY: the lock is held, so this is the only reference.
        let state = unsafe { &mut *self.state.get() };
        if codec::timestamp_ms(&state.last()) >= now_ms {
            return false;
        }
        *state = Monotonic::new();
        true
    }
}

/// What the table says of itself, so that a backend can check it reads a
/// table of its own layout.
#[repr(C, align(64))]
struct Header {
    magic: [u8; 8],
    layout: u32,
    places: u32,
    /// Taken to give a place to a backend, never on a value's way.
    lock: SpinLock,
    /// The databases the server log has said keep their order per session.
    logged: [AtomicU32; LOGGED],
}

/// The shared table: in the preloaded shared memory, or in the registry's
/// segment, a header and `header.places` places after it. All zeros but
/// its header is an empty table.
#[repr(C)]
pub struct SharedTable {
    header: Header,
    places: [DatabaseState; 0],
}

impl SharedTable {
    /// The bytes of a table of `places` places.
    const fn size(places: usize) -> usize {
        core::mem::size_of::<Header>() + places * core::mem::size_of::<DatabaseState>()
    }

    /// Writes an empty table of `places` places at `table`.
    ///
    /// # Safety
    /// `table` points to `SharedTable::size(places)` writable bytes, aligned
    /// for it, that no other process reads until this returns.
    unsafe fn init(table: *mut SharedTable, places: usize) {
        // SAFETY: the caller's contract; all zeros is a valid value of
        // every field (places that served no database, unlocked, no value
        // handed out).
        unsafe {
            table.cast::<u8>().write_bytes(0, Self::size(places));
            (*table).header.magic = MAGIC;
            (*table).header.layout = LAYOUT;
            (*table).header.places = places as u32;
        }
    }

    /// Whether the table is one of this library's layout.
    fn is_ours(&self) -> bool {
        self.header.magic == MAGIC
            && self.header.layout == LAYOUT
            && self.header.places as usize >= MIN_PLACES
    }

    /// The places.
    fn places(&self) -> &[DatabaseState] {
        // SAFETY: the table was made by `init` with `header.places` places
        // after the header, in memory that stays mapped as long as `self`.
        unsafe { core::slice::from_raw_parts(self.places.as_ptr(), self.header.places as usize) }
    }

    /// Attaches a backend of `database` to a place and returns it: the
    /// place the database has, emptied first if no backend is attached and
    /// the clock (`now_ms`) has passed its last value; else a place that
    /// no backend is attached to and whose last value the clock has
    /// passed, emptied. `None` when there is no such place. Under the
    /// table's lock, which the wait for it takes holding nothing; nothing
    /// under it waits or raises.
    fn attach(&self, database: u32, now_ms: u64) -> Option<&DatabaseState> {
        let _held = self.header.lock.lock();
        let places = self.places();
        if let Some(place) = places.iter().find(|p| p.database() == database) {
            // its sessions all gone: a database that reuses a dropped one's
            // OID learns nothing of it (kept only while ahead of the clock,
            // where emptying it could make this database's values go back)
            if place.attached() == 0 {
                place.empty_if_passed(now_ms);
            }
            place.attached.fetch_add(1, Ordering::Relaxed);
            return Some(place);
        }
        // a place that never served a database first, so that a database
        // whose sessions are gone keeps its state while there are such
        let place = places
            .iter()
            .find(|p| p.database() == 0 && p.empty_if_passed(now_ms))
            .or_else(|| {
                places
                    .iter()
                    .find(|p| p.database() != 0 && p.attached() == 0 && p.empty_if_passed(now_ms))
            })?;
        place.database.store(database, Ordering::Relaxed);
        place.attached.store(1, Ordering::Relaxed);
        Some(place)
    }

    /// Says in the server log, once per database (for the first
    /// [`LOGGED`]), that a database keeps its order per session.
    fn report_per_session(&self, database: u32) {
        for slot in &self.header.logged {
            match slot.compare_exchange(0, database, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => break,
                Err(named) if named == database => return,
                Err(_) => continue,
            }
        }
        if !self
            .header
            .logged
            .iter()
            .any(|slot| slot.load(Ordering::Relaxed) == database)
        {
            return; // every slot names another database: said enough
        }
        let name = database_name(database);
        let places = self.header.places;
        ErrorReport::new(
            PgSqlErrorCode::ERRCODE_CONFIGURATION_LIMIT_EXCEEDED,
            format!(
                "gen_monotonic_ulid() keeps its order per session in database \"{name}\": \
                 no place of the shared table is free"
            ),
            "gen_monotonic_ulid",
        )
        .set_detail(format!(
            "Each of the {places} places has a backend attached or holds a value ahead of \
             the system clock, which was set back. This message is logged once per database."
        ))
        .set_hint(
            "Values still increase within each session. A place is free again once the clock \
             passes its last value, and every place when the server restarts.",
        )
        .report(PgLogLevel::LOG);
    }
}

// The layout is the version's: change LAYOUT with these.
const _: () = assert!(core::mem::size_of::<DatabaseState>() == 64);
const _: () = assert!(core::mem::size_of::<Header>() == 64);
const _: () = assert!(SharedTable::size(MIN_PLACES) == 64 + 64 * MIN_PLACES && LAYOUT == 3);

/// The name of a database, or its OID when it has none (any more).
fn database_name(database: u32) -> String {
    // SAFETY: a catalog lookup in a transaction; the result is a palloc'd
    // C string or null.
    let name = unsafe { pg_sys::get_database_name(pg_sys::Oid::from(database)) };
    if name.is_null() {
        return format!("OID {database}");
    }
    // SAFETY: a NUL-terminated string that lives until the memory context ends.
    unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned()
}

/// How many places a table has on this server: one for every backend it
/// can have, and at least [`MIN_PLACES`].
fn places_for_this_server() -> usize {
    // SAFETY: PostgreSQL's settings, read on the process's thread; set from
    // the configuration before any library is preloaded. From 15 on,
    // MaxBackends is set before shared memory is sized (where this is
    // first called) and never changes; 13 and 14 size it afterwards, from
    // these settings, which no one can change without a restart there.
    #[cfg(any(feature = "pg13", feature = "pg14"))]
    let backends = unsafe {
        pg_sys::MaxConnections
            + pg_sys::autovacuum_max_workers
            + 1
            + pg_sys::max_worker_processes
            + pg_sys::max_wal_senders
    };
    #[cfg(not(any(feature = "pg13", feature = "pg14")))]
    // SAFETY: as above.
    let backends = unsafe { pg_sys::MaxBackends };
    usize::try_from(backends).unwrap_or(0).max(MIN_PLACES)
}

/// Set in the postmaster when preloaded; inherited by every backend it forks.
static PRELOADED: BackendLocal<*const SharedTable> = BackendLocal::new(core::ptr::null());
/// The places of the preloaded table, counted once in the postmaster when
/// its shared memory is asked for.
static PRELOADED_PLACES: BackendLocal<usize> = BackendLocal::new(MIN_PLACES);

/// Where this backend's monotonic state is, once its first call found out.
#[derive(Clone, Copy)]
enum Scope {
    Unknown,
    Database(*const DatabaseState),
    Session,
}

static SCOPE: BackendLocal<Scope> = BackendLocal::new(Scope::Unknown);
/// Whether `detach` runs when this backend exits.
static DETACH_REGISTERED: BackendLocal<bool> = BackendLocal::new(false);

/// The state shared by the sessions of this backend's database: in the
/// preloaded table, or else, on 17 and later, in the registry's. `None`
/// when the state is this session's own: 13 to 16 without preloading, or a
/// database the table has no place for.
#[inline]
pub fn shared_state() -> Option<&'static DatabaseState> {
    // SAFETY: this backend's own cell, copied out.
    match unsafe { *SCOPE.get() } {
        // SAFETY: a place in a table that is never freed nor unmapped while
        // the backend lives, and that serves no other database while this
        // backend is attached to it (until it exits).
        Scope::Database(place) => Some(unsafe { &*place }),
        Scope::Session => None,
        Scope::Unknown => find_scope(),
    }
}

/// The server's table: the preloaded one, or else, on 17 and later, the
/// registry's (made by the first backend that asks). `None` on 13 to 16
/// without preloading. May raise an ERROR (the registry out of memory).
fn table() -> Option<&'static SharedTable> {
    // SAFETY: on the backend's thread; null, or set in the postmaster before
    // any backend was forked to a table of the shared memory every backend
    // keeps mapped until it exits.
    match unsafe { PRELOADED.get().as_ref() } {
        Some(preloaded) => Some(preloaded),
        None => registry::table(),
    }
    .filter(|table| table.is_ours())
}

#[cold]
#[inline(never)]
fn find_scope() -> Option<&'static DatabaseState> {
    // SAFETY: the database a backend is connected to, set before it runs SQL.
    let database = unsafe { pg_sys::MyDatabaseId }.to_u32();
    let place = match table() {
        Some(table) if database != 0 => {
            // before attaching: registering may raise (no slot left), and
            // then nothing is attached
            // SAFETY: this backend's own cell; PostgreSQL's exit callbacks,
            // `detach` registered once per backend (a wait for the table's
            // lock that ends in an ERROR brings the next call back here);
            // it reads SCOPE, which is set below before anything can fail.
            unsafe {
                if !*DETACH_REGISTERED.get() {
                    pg_sys::before_shmem_exit(Some(detach), pg_sys::Datum::from(0));
                    *DETACH_REGISTERED.get() = true;
                }
            }
            let now = crate::generators::now_ms().unwrap_or(0);
            let place = table.attach(database, now);
            if place.is_none() {
                table.report_per_session(database);
            }
            place
        }
        _ => None,
    };
    // SAFETY: this backend's own cell.
    unsafe {
        *SCOPE.get() = match place {
            Some(place) => Scope::Database(place),
            None => Scope::Session,
        }
    };
    place
}

/// A `before_shmem_exit` callback: the exiting backend detaches from its
/// place. It runs on every exit but a kill, a FATAL one too, before the
/// registry's segment is unmapped.
///
/// # Safety
///
/// For PostgreSQL alone, as `find_scope` registered it: called once, on the
/// backend's thread, while it exits.
unsafe extern "C-unwind" fn detach(_code: core::ffi::c_int, _arg: pg_sys::Datum) {
    // SAFETY: the whole body of a callback, in a guard, from a frame that
    // holds nothing; this backend's own cell; a place it is attached to, in
    // a table still mapped (before_shmem_exit runs before any unmapping).
    unsafe {
        guard_callback(|| {
            if let Scope::Database(place) = *SCOPE.get() {
                *SCOPE.get() = Scope::Session;
                (*place).attached.fetch_sub(1, Ordering::Relaxed);
            }
        })
    }
}

// The function is declared by this file (the update from 0.4.0 runs the
// same); pgrx's placeholder for it follows the generators, and the file
// follows that, so that the install script's blocks form one chain.
extension_sql_file!(
    "../sql/shared/shared_places.sql",
    name = "ulid_shared_places_sql",
    requires = [ulid_shared_places],
);

/// `ulid_shared_places()`: every place of the server's table, the database
/// it serves and how many of that database's backends are attached; no
/// rows where there is no table (13 to 16 without preloading). For
/// superusers alone: it names other databases and says how busy they are.
#[pg_extern(sql = false, requires = ["ulid_generators"])]
fn ulid_shared_places() -> TableIterator<
    'static,
    (
        name!(place, i32),
        name!(database, Option<pg_sys::Oid>),
        name!(backends, i32),
    ),
> {
    // SAFETY: asks the role of the current user, in a transaction.
    if !unsafe { pg_sys::superuser() } {
        ErrorReport::new(
            PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
            "permission denied for function ulid_shared_places",
            "ulid_shared_places",
        )
        .set_detail("Only superusers may read the shared table of gen_monotonic_ulid().")
        .report(PgLogLevel::ERROR);
    }
    let rows: Vec<_> = table()
        .map(|table| {
            table
                .places()
                .iter()
                .enumerate()
                .map(|(i, place)| {
                    let database = match place.database() {
                        0 => None,
                        database => Some(pg_sys::Oid::from(database)),
                    };
                    (i as i32 + 1, database, place.attached() as i32)
                })
                .collect()
        })
        .unwrap_or_default();
    TableIterator::new(rows)
}

/// Called from `_PG_init`: when the library is being preloaded, asks for
/// the table's shared memory and sets it up at server start.
pub fn init() {
    // SAFETY: `_PG_init` runs in the postmaster (or a backend) before any
    // query, on its one thread; the hooks are PostgreSQL's globals, chained
    // (the previous ones kept and called first). 13 and 14 take the request
    // here, while the preload is in progress, as they ask.
    unsafe {
        if !pg_sys::process_shared_preload_libraries_in_progress {
            return;
        }
        #[cfg(any(feature = "pg13", feature = "pg14"))]
        {
            *PRELOADED_PLACES.get() = places_for_this_server();
            pg_sys::RequestAddinShmemSpace(SharedTable::size(*PRELOADED_PLACES.get()));
        }
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

/// `shmem_request_hook` (15 and later): asks for the table's bytes.
///
/// # Safety
///
/// For PostgreSQL alone, as the hook `init` installed: called once, in the
/// postmaster (or a single-user backend), while shared memory is sized.
#[cfg(not(any(feature = "pg13", feature = "pg14")))]
unsafe extern "C-unwind" fn shmem_request() {
    // SAFETY: the whole body of a hook, in a guard, from a frame that holds
    // nothing. PostgreSQL calls the hook in the postmaster while shared
    // memory is being sized, when a request is allowed (this function's
    // contract); the previous hook is whatever was there, called first.
    unsafe {
        guard_callback(|| {
            if let Some(previous) = PREV_SHMEM_REQUEST_HOOK {
                previous();
            }
            *PRELOADED_PLACES.get() = places_for_this_server();
            pg_sys::RequestAddinShmemSpace(SharedTable::size(*PRELOADED_PLACES.get()));
        })
    }
}

/// AddinShmemInitLock, which C names by a macro that pgrx does not bind:
/// entry 21 of the main LWLock array in every supported version
/// (`lwlocknames.h`; `the_init_lock_is_addin_shmem_init` below asks the
/// server the name of the lock this returns).
///
/// # Safety
///
/// Call once shared memory exists (from `shmem_startup_hook` on), when
/// `MainLWLockArray` points to the main array.
unsafe fn addin_shmem_init_lock() -> *mut pg_sys::LWLock {
    // SAFETY: the main array has NUM_INDIVIDUAL_LWLOCKS entries and more
    // (checked below), and exists (the caller's contract); only an address
    // is taken.
    unsafe { &raw mut (*pg_sys::MainLWLockArray.add(ADDIN_SHMEM_INIT_LOCK)).lock }
}

/// The index of AddinShmemInitLock in the main LWLock array.
const ADDIN_SHMEM_INIT_LOCK: usize = 21;
const _: () = assert!(ADDIN_SHMEM_INIT_LOCK < pg_sys::NUM_INDIVIDUAL_LWLOCKS as usize);

/// `shmem_startup_hook`: finds the table in shared memory, or makes it.
///
/// # Safety
///
/// For PostgreSQL alone, as the hook `init` installed: called once shared
/// memory exists (at start and after a crash restart), in the postmaster
/// (or a single-user backend), with the table's bytes requested.
unsafe extern "C-unwind" fn shmem_startup() {
    // SAFETY: the whole body of a hook, in a guard, from a frame that holds
    // nothing. PostgreSQL calls the hook once shared memory exists, on the
    // process's one thread (this function's contract); ShmemInitStruct's
    // answer is the size `init` or `shmem_request` asked for, aligned to a
    // cache line (128 bytes, more than the table needs), and
    // AddinShmemInitLock makes this the only process setting it up (an
    // ERROR while it is held, out of shared memory, stops the server).
    unsafe {
        guard_callback(|| {
            if let Some(previous) = PREV_SHMEM_STARTUP_HOOK {
                previous();
            }
            let init_lock = addin_shmem_init_lock();
            pg_sys::LWLockAcquire(init_lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
            let mut found = false;
            let table = pg_sys::ShmemInitStruct(
                SHMEM_NAME.as_ptr(),
                SharedTable::size(*PRELOADED_PLACES.get()),
                &mut found,
            )
            .cast::<SharedTable>();
            if !found {
                SharedTable::init(table, *PRELOADED_PLACES.get());
            }
            *PRELOADED.get() = table;
            pg_sys::LWLockRelease(init_lock);
        })
    }
}

/// The table in the dynamic shared memory registry (PostgreSQL 17 and
/// later), for a library that was not preloaded. The registry creates the
/// segment once per server life (and again after a crash restart, which
/// starts every backend afresh), pins it so it outlives its backends, and
/// keeps it mapped in every backend that attached it; so DROP EXTENSION and
/// CREATE EXTENSION again and every later session of a database find its
/// state again. A preloaded library never looks here: every backend of such
/// a server inherits the preloaded table from the postmaster, so the two
/// never serve one server.
#[cfg(any(feature = "pg17", feature = "pg18", feature = "pg19"))]
mod registry {
    use super::{places_for_this_server, SharedTable, SHMEM_NAME};
    use crate::fmgr::guard_callback;
    use pgrx::pg_sys;

    /// Creates or attaches the segment. Outside any lock of ours: the
    /// registry takes its own LWLock and may raise an ERROR (out of shared
    /// memory), which then leaves nothing half done here.
    pub fn table() -> Option<&'static SharedTable> {
        let mut found = false;
        // SAFETY: the name is a C string; the size is the table's; the
        // callback writes an empty table into a new segment, before any
        // other backend can see it (the registry holds its lock meanwhile).
        let segment = unsafe {
            #[cfg(any(feature = "pg17", feature = "pg18"))]
            let segment = pg_sys::GetNamedDSMSegment(
                SHMEM_NAME.as_ptr(),
                SharedTable::size(places_for_this_server()),
                Some(init),
                &mut found,
            );
            #[cfg(feature = "pg19")]
            let segment = pg_sys::GetNamedDSMSegment(
                SHMEM_NAME.as_ptr(),
                SharedTable::size(places_for_this_server()),
                Some(init),
                &mut found,
                core::ptr::null_mut(),
            );
            segment
        }
        .cast::<SharedTable>();
        // SAFETY: the registry keeps the segment mapped for the backend's
        // life, and it holds a table (made by `init`).
        unsafe { segment.as_ref() }
    }

    /// Writes an empty table into a new segment.
    ///
    /// # Safety
    ///
    /// For the registry alone, as `table` passes it: `segment` is a new
    /// segment of the table's size, which the registry shows to no other
    /// backend before this returns.
    #[cfg(any(feature = "pg17", feature = "pg18"))]
    unsafe extern "C-unwind" fn init(segment: *mut core::ffi::c_void) {
        // SAFETY: the whole body of a callback PostgreSQL calls, whose frame
        // holds nothing; the segment is the table's size, mapped at an
        // address aligned for it, and no one else's yet (this function's
        // contract).
        unsafe { guard_callback(|| SharedTable::init(segment.cast(), places_for_this_server())) }
    }

    /// Writes an empty table into a new segment (19 passes the callback an
    /// argument, null here).
    ///
    /// # Safety
    ///
    /// As for 17 and 18: `segment` is a new segment of the table's size,
    /// which the registry shows to no other backend before this returns.
    #[cfg(feature = "pg19")]
    unsafe extern "C-unwind" fn init(
        segment: *mut core::ffi::c_void,
        _arg: *mut core::ffi::c_void,
    ) {
        // SAFETY: as for 17 and 18.
        unsafe { guard_callback(|| SharedTable::init(segment.cast(), places_for_this_server())) }
    }
}

/// Before 17 there is no registry: without preloading, no shared state.
#[cfg(not(any(feature = "pg17", feature = "pg18", feature = "pg19")))]
mod registry {
    use super::SharedTable;

    pub fn table() -> Option<&'static SharedTable> {
        None
    }
}

#[cfg(any(test, feature = "pg_test"))]
#[pgrx::pg_schema]
mod tests {
    use super::*;

    /// The in-server tests preload the library: this backend's state is
    /// its database's place in the preloaded table.
    #[pg_test]
    fn the_state_is_this_databases_place() {
        let place = shared_state().expect("the test server preloads ulid");
        // SAFETY: read in a backend that is connected to a database.
        let database = unsafe { pg_sys::MyDatabaseId }.to_u32();
        assert_eq!(place.database(), database);
        // SAFETY: set at server start.
        let table = unsafe { PRELOADED.get().as_ref() }.unwrap();
        assert!(table.is_ours());
        assert_eq!(table.places().len(), places_for_this_server());
        assert_eq!(
            table
                .places()
                .iter()
                .filter(|p| p.database() == database)
                .count(),
            1,
            "one place per database"
        );
        // this backend is attached to it
        assert!(place.attached() >= 1);
    }

    /// The lock `shmem_startup` takes to set the table up is the one the
    /// server itself calls AddinShmemInit: the tranche of the lock at that
    /// index of the main array, named by the server's own function.
    #[pg_test]
    fn the_init_lock_is_addin_shmem_init() {
        // SAFETY: shared memory exists in a backend; the lock's tranche is
        // set when the array is made and only read here.
        let tranche = unsafe { (*addin_shmem_init_lock()).tranche };
        // SAFETY: an LWLock's wait event is its tranche; the answer is a
        // static C string.
        let name =
            unsafe { CStr::from_ptr(pg_sys::GetLWLockIdentifier(pg_sys::PG_WAIT_LWLOCK, tranche)) };
        assert_eq!(name.to_str(), Ok("AddinShmemInit"));
        // and it is the individual lock of its own tranche, not a tranche's
        // lock of another array
        assert_eq!(usize::from(tranche), ADDIN_SHMEM_INIT_LOCK);
    }

    /// The name carries the layout's version, so a new layout gets a table
    /// of its own.
    #[pg_test]
    fn the_name_says_the_layout() {
        assert_eq!(
            SHMEM_NAME.to_str().unwrap(),
            format!("ulid monotonic generator, layout {LAYOUT}")
        );
    }

    /// A table of its own for a test, in memory allocated as shared
    /// memory would be (aligned to a cache line).
    struct TestTable(*mut SharedTable, std::alloc::Layout);

    impl TestTable {
        fn new(places: usize) -> Self {
            let layout = std::alloc::Layout::from_size_align(SharedTable::size(places), 64)
                .expect("a valid layout");
            // SAFETY: a fresh allocation of the table's size and alignment,
            // no one else's; `init` writes every byte of it.
            unsafe {
                let table = std::alloc::alloc(layout).cast::<SharedTable>();
                assert!(!table.is_null());
                SharedTable::init(table, places);
                TestTable(table, layout)
            }
        }
    }

    impl core::ops::Deref for TestTable {
        type Target = SharedTable;
        fn deref(&self) -> &SharedTable {
            // SAFETY: made by `new`, freed only when dropped.
            unsafe { &*self.0 }
        }
    }

    impl Drop for TestTable {
        fn drop(&mut self) {
            // SAFETY: allocated by `new` with this layout.
            unsafe { std::alloc::dealloc(self.0.cast(), self.1) }
        }
    }

    const NOW: u64 = 1_800_000_000_000;

    /// A value of millisecond `ms`.
    fn at(ms: u64) -> [u8; 16] {
        let mut value = [0xAB; 16];
        value[..6].copy_from_slice(&ms.to_be_bytes()[2..]);
        value
    }

    /// A place is its database's while a backend of it is attached; once
    /// none is and the clock has passed its last value, it goes, emptied,
    /// to the next database that needs one, and the database that had it
    /// starts afresh; a place ahead of the clock is kept for its database.
    #[pg_test]
    fn a_place_goes_only_from_a_database_without_backends() {
        let table = TestTable::new(MIN_PLACES);
        assert!(table.is_ours());
        // every place held by a database with a backend attached
        for (i, place) in table.places().iter().enumerate() {
            assert!(core::ptr::eq(
                table.attach(1_000 + i as u32, NOW).unwrap(),
                place
            ));
            place.with_lock(|state| state.advance_past(at(NOW - 5)));
        }
        // a database gets the place it has, and one more backend on it
        let seventh = &table.places()[7];
        assert!(core::ptr::eq(table.attach(1_007, NOW).unwrap(), seventh));
        assert_eq!(seventh.attached(), 2);
        assert_eq!(
            seventh.with_lock(|state| state.last()),
            at(NOW - 5),
            "kept: attached"
        );
        // a live database's place is never taken, whatever any catalog says
        assert!(table.attach(9_999, NOW).is_none());
        // its backends gone, the place goes to another database, emptied
        seventh.attached.store(0, Ordering::Relaxed);
        assert!(core::ptr::eq(table.attach(9_999, NOW).unwrap(), seventh));
        assert_eq!(seventh.database(), 9_999);
        assert_eq!(seventh.attached(), 1);
        assert_eq!(seventh.with_lock(|state| state.last()), [0; 16]);
        // and the database that had it starts from the clock on another one
        table.places()[3].attached.store(0, Ordering::Relaxed);
        let again = table.attach(1_007, NOW).unwrap();
        assert!(core::ptr::eq(again, &table.places()[3]));
        assert_eq!(again.with_lock(|state| state.last()), [0; 16]);
        assert_eq!(
            table.places()[4].with_lock(|state| state.last()),
            at(NOW - 5)
        );
    }

    /// A database that finds its own place with no backend attached (its
    /// sessions gone, or a new database with a dropped one's OID) starts
    /// from an empty state once the clock has passed the last value; ahead
    /// of the clock (set back), the state is kept, so that its values never
    /// go back, and no other database takes that place.
    #[pg_test]
    fn a_reused_oid_starts_empty_unless_ahead_of_the_clock() {
        let table = TestTable::new(MIN_PLACES);
        let place = table.attach(42, NOW).unwrap();
        place.with_lock(|state| state.advance_past(at(NOW - 1)));
        place.attached.store(0, Ordering::Relaxed);
        assert!(core::ptr::eq(table.attach(42, NOW).unwrap(), place));
        assert_eq!(place.with_lock(|state| state.last()), [0; 16]);
        // ahead of the clock: kept, for its database alone
        place.with_lock(|state| state.advance_past(at(NOW + 60_000)));
        place.attached.store(0, Ordering::Relaxed);
        assert!(core::ptr::eq(table.attach(42, NOW).unwrap(), place));
        assert_eq!(place.with_lock(|state| state.last()), at(NOW + 60_000));
        place.attached.store(0, Ordering::Relaxed);
        for other in table.places().iter().skip(1) {
            other.database.store(7, Ordering::Relaxed);
            other.attached.store(1, Ordering::Relaxed);
        }
        assert!(
            table.attach(43, NOW).is_none(),
            "a place ahead of the clock is not given away"
        );
        assert_eq!(place.database(), 42);
    }

    /// Under the table's lock a place's lock is only tried: a place whose
    /// lock is held is passed over, never waited for.
    #[pg_test]
    fn a_held_place_lock_is_passed_over() {
        let table = TestTable::new(MIN_PLACES);
        let first = &table.places()[0];
        let _held = first.lock.try_lock().expect("free");
        let place = table.attach(5, NOW).unwrap();
        assert!(!core::ptr::eq(place, first));
        assert_eq!(first.database(), 0);
    }

    /// The server log names a database that keeps its order per session
    /// once, and at most LOGGED of them.
    #[pg_test]
    fn the_log_names_each_database_once() {
        let table = TestTable::new(MIN_PLACES);
        for database in 1..=(LOGGED as u32 + 3) {
            table.report_per_session(database);
            table.report_per_session(database);
        }
        let named: Vec<u32> = table
            .header
            .logged
            .iter()
            .map(|slot| slot.load(Ordering::Relaxed))
            .collect();
        assert_eq!(named, (1..=LOGGED as u32).collect::<Vec<_>>());
    }

    /// The table has a place for every backend the server can have.
    #[pg_test]
    fn a_place_for_every_backend() {
        // SAFETY: set at server start, read on the backend's thread.
        let backends = unsafe { pg_sys::MaxBackends } as usize;
        assert!(places_for_this_server() >= backends);
        assert!(places_for_this_server() >= MIN_PLACES);
    }
}
