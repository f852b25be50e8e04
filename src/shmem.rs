//! Where the generators' state lives: backend-local cells, and the shared
//! monotonic state of each database, taken under a lock of its own.
//!
//! The shared states are one table in shared memory, a place per database
//! ([`MAX_DATABASES`] of them), so that the values of one database never
//! depend on, or reveal, what another database does: not its values, not
//! their order, not how often it calls (each place has its own lock, on a
//! cache line of its own). The table is in the shared memory reserved at
//! server start when the library is in `shared_preload_libraries` (asked
//! for and set up by the hooks below); otherwise, on PostgreSQL 17 and
//! later, in a named segment of the dynamic shared memory registry, created
//! by the first backend that asks and attached by every later one, so that
//! no restart is needed. On 13 to 16 without preloading there is none.
//!
//! A backend finds its database's place once, at its first call, and keeps
//! it: a backend never changes database. A database gets a free place, or
//! the place of a database that no longer exists; when every place is held
//! by a database that exists, it keeps its order per session, and the
//! server log says so once.
//!
//! How a state moves is ulid-core's `monotonic::Monotonic`; when it is read
//! is `generators.rs`.

use crate::fmgr::guard_callback;
use core::cell::UnsafeCell;
use core::ffi::CStr;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use pgrx::pg_sys;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use ulid_core::monotonic::Monotonic;

/// State owned by one backend. PostgreSQL backends are single-threaded and
/// nothing here is reentrant, so plain interior mutability is enough.
pub struct BackendLocal<T>(UnsafeCell<T>);

// SAFETY: the one way in, `get`, is unsafe, and its callers promise to be
// the backend's main thread: no other thread ever touches the value.
unsafe impl<T> Sync for BackendLocal<T> {}

impl<T> BackendLocal<T> {
    pub const fn new(value: T) -> Self {
        BackendLocal(UnsafeCell::new(value))
    }

    /// # Safety
    /// Call from the backend's main thread, and do not hold two results at once.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self) -> &mut T {
        // SAFETY: the caller is the backend's one thread and holds no other
        // reference to the cell (this function's contract).
        unsafe { &mut *self.0.get() }
    }
}

/// How many databases the table has a place for. A place is 64 bytes, so
/// the table takes 64 KiB and a little more, whatever the number of
/// databases; a database beyond it keeps its order per session.
pub const MAX_DATABASES: usize = 1024;

/// The version of the table's layout (everything from [`SharedTable`]
/// down). It is in the table's name, so that two libraries whose tables
/// differ never read each other's: after a package upgrade without a
/// restart, backends that loaded the old library keep the old table and
/// those that load the new one share a new table. Change it with anything
/// in the layout (`layout_is_version_2` below checks the sizes).
macro_rules! layout_version {
    () => {
        2
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

/// How long a waiter spins before it assumes the holder is not running.
/// The critical sections are a few dozen instructions, so a holder that is
/// running lets go long before.
const SPINS: u32 = 200;
/// Then how many times it gives up the processor, before it sleeps.
const YIELDS: u32 = 100;
/// How long it sleeps at a time once it sleeps, in microseconds: a cancel
/// or a terminate ends the sleep at once (the signal interrupts it).
const SLEEP_US: core::ffi::c_long = 1000;

/// A lock on a few dozen instructions that raise nothing: nothing is
/// called while it is held but what cannot fail.
///
/// A waiter spins, then yields, then sleeps, and from its first yield on it
/// serves interrupts, so that a cancel, a terminate or a statement timeout
/// ends its wait however long the holder is stopped (SIGSTOP, a debugger).
/// It serves them only while waiting: a backend holding the lock is never
/// interrupted, as it calls nothing that could be.
#[repr(transparent)]
struct SpinLock(AtomicBool);

/// The lock, held; released when dropped, on unwinding too.
struct Held<'a>(&'a AtomicBool);

impl Drop for Held<'_> {
    #[inline]
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl SpinLock {
    #[inline]
    fn lock(&self) -> Held<'_> {
        if self
            .0
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            self.wait();
        }
        Held(&self.0)
    }

    /// Waits for the lock and takes it. May raise an ERROR (a cancel, a
    /// terminate, a timeout), while holding nothing.
    #[cold]
    #[inline(never)]
    fn wait(&self) {
        let mut rounds = 0u32;
        loop {
            while self.0.load(Ordering::Relaxed) {
                rounds = rounds.saturating_add(1);
                if rounds < SPINS {
                    core::hint::spin_loop();
                    continue;
                }
                pgrx::check_for_interrupts!();
                if rounds < SPINS + YIELDS {
                    std::thread::yield_now();
                } else {
                    // SAFETY: a plain sleep (pgrx's, guarded), holding no
                    // lock of ours; a signal cuts it short.
                    unsafe { pg_sys::pg_usleep(SLEEP_US) };
                }
            }
            if self
                .0
                .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                return;
            }
        }
    }
}

/// One database's place in the table: which database, and its state under
/// a lock of its own. Each is a cache line, so that a busy database and
/// another never contend for one.
#[repr(C, align(64))]
pub struct DatabaseState {
    /// The database this place serves, or 0 while it is free. Written only
    /// under the table's lock.
    database: AtomicU32,
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

    /// The database this place serves (0: none).
    pub fn database(&self) -> u32 {
        self.database.load(Ordering::Relaxed)
    }
}

/// What the table says of itself, so that a backend can check it reads a
/// table of its own layout.
#[repr(C, align(64))]
struct Header {
    magic: [u8; 8],
    layout: u32,
    places: u32,
    /// Taken to give a place to a database, never on a value's way.
    lock: SpinLock,
    /// Whether the server log has said that the table is full.
    full_logged: AtomicBool,
}

/// The shared table: in the preloaded shared memory, or in the registry's
/// segment. All zeros but its header is an empty table.
#[repr(C)]
pub struct SharedTable {
    header: Header,
    places: [DatabaseState; MAX_DATABASES],
}

impl SharedTable {
    /// Writes an empty table at `table`.
    ///
    /// # Safety
    /// `table` points to `size_of::<SharedTable>()` writable bytes, aligned
    /// for it, that no other process reads until this returns.
    unsafe fn init(table: *mut SharedTable) {
        // SAFETY: the caller's contract; all zeros is a valid value of
        // every field (free places, unlocked, no value handed out).
        unsafe {
            table.write_bytes(0, 1);
            (*table).header.magic = MAGIC;
            (*table).header.layout = LAYOUT;
            (*table).header.places = MAX_DATABASES as u32;
        }
    }

    /// Whether the table is one of this library's layout.
    fn is_ours(&self) -> bool {
        self.header.magic == MAGIC
            && self.header.layout == LAYOUT
            && self.header.places as usize == MAX_DATABASES
    }

    /// The place of `database`: the one it has, a free one, or one whose
    /// database no longer exists. `None` when every place is held by a
    /// database that exists.
    fn place_of(&self, database: u32) -> Option<&DatabaseState> {
        if let Some(place) = self.claim(database, |place| place.database() == 0) {
            return Some(place);
        }
        // Full: the places of databases that are gone. Looking them up may
        // raise an ERROR, so it is done holding no lock; a database that is
        // gone never comes back (a new one gets a new OID).
        let gone: Vec<u32> = self
            .places
            .iter()
            .map(DatabaseState::database)
            .filter(|&held| held != 0 && !database_exists(held))
            .collect();
        if !gone.is_empty() {
            if let Some(place) = self.claim(database, |place| gone.contains(&place.database())) {
                return Some(place);
            }
        }
        None
    }

    /// Under the table's lock: the place `database` already has, or else
    /// the first place `free` accepts, emptied and given to it.
    fn claim(
        &self,
        database: u32,
        free: impl Fn(&DatabaseState) -> bool,
    ) -> Option<&DatabaseState> {
        let _held = self.header.lock.lock();
        if let Some(place) = self.places.iter().find(|p| p.database() == database) {
            return Some(place);
        }
        let place = self.places.iter().find(|p| free(p))?;
        // its last database's state goes with it: nothing of it reaches the
        // next one
        place.with_lock(|state| *state = Monotonic::new());
        place.database.store(database, Ordering::Relaxed);
        Some(place)
    }

    /// Says once in the server log (per table: until the server restarts)
    /// that a database keeps its order per session.
    fn report_full(&self, database: u32) {
        if self.header.full_logged.swap(true, Ordering::Relaxed) {
            return;
        }
        let name = database_name(database);
        ErrorReport::new(
            PgSqlErrorCode::ERRCODE_CONFIGURATION_LIMIT_EXCEEDED,
            format!(
                "gen_monotonic_ulid() keeps its order per session in database \"{name}\": \
                 the shared table of {MAX_DATABASES} databases is full"
            ),
            "gen_monotonic_ulid",
        )
        .set_detail(format!(
            "Each of the {MAX_DATABASES} places is held by a database that exists and has called \
             gen_monotonic_ulid() since the server started. This message is logged once; \
             other databases may follow."
        ))
        .set_hint(
            "Values still increase within each session. A place is freed when its database is \
             dropped, and every place when the server restarts.",
        )
        .report(PgLogLevel::LOG);
    }
}

// The layout is the version's: change LAYOUT with these.
const _: () = assert!(core::mem::size_of::<DatabaseState>() == 64);
const _: () = assert!(core::mem::size_of::<Header>() == 64);
const _: () =
    assert!(core::mem::size_of::<SharedTable>() == 64 + 64 * MAX_DATABASES && LAYOUT == 2);

/// Whether a database of that OID exists (pg_database is a shared catalog:
/// any backend can look). Call it in a transaction, holding no lock of
/// ours: it may raise an ERROR.
fn database_exists(database: u32) -> bool {
    // (an enum of u32 before 19, of i32 from 19 on)
    #[allow(clippy::unnecessary_cast)]
    let cache = pg_sys::SysCacheIdentifier::DATABASEOID as core::ffi::c_int;
    // SAFETY: called in a transaction (from a SQL function, or a test); the
    // syscache lookup (pgrx's, guarded) takes an OID datum and nothing else.
    unsafe {
        pg_sys::SearchSysCacheExists(
            cache,
            pg_sys::Datum::from(database),
            pg_sys::Datum::from(0),
            pg_sys::Datum::from(0),
            pg_sys::Datum::from(0),
        )
    }
}

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

/// Set in the postmaster when preloaded; inherited by every backend it forks.
static PRELOADED: BackendLocal<*const SharedTable> = BackendLocal::new(core::ptr::null());

/// Where this backend's monotonic state is, once its first call found out.
#[derive(Clone, Copy)]
enum Scope {
    Unknown,
    Database(*const DatabaseState),
    Session,
}

static SCOPE: BackendLocal<Scope> = BackendLocal::new(Scope::Unknown);

/// The state shared by the sessions of this backend's database: in the
/// preloaded table, or else, on 17 and later, in the registry's. `None`
/// when the state is this session's own: 13 to 16 without preloading, or a
/// database the table has no place for.
#[inline]
pub fn shared_state() -> Option<&'static DatabaseState> {
    // SAFETY: this backend's own cell, copied out.
    match unsafe { *SCOPE.get() } {
        // SAFETY: a place in a table that is never freed nor unmapped while
        // the backend lives, and that never changes database while its
        // database exists (this backend is connected to it).
        Scope::Database(place) => Some(unsafe { &*place }),
        Scope::Session => None,
        Scope::Unknown => find_scope(),
    }
}

#[cold]
#[inline(never)]
fn find_scope() -> Option<&'static DatabaseState> {
    // SAFETY: on the backend's thread; null, or set in the postmaster before
    // any backend was forked to a table of the shared memory every backend
    // keeps mapped until it exits.
    let table = match unsafe { PRELOADED.get().as_ref() } {
        Some(preloaded) => Some(preloaded),
        None => registry::table(),
    };
    // SAFETY: the database a backend is connected to, set before it runs SQL.
    let database = unsafe { pg_sys::MyDatabaseId }.to_u32();
    let place = match table {
        Some(table) if table.is_ours() && database != 0 => {
            let place = table.place_of(database);
            if place.is_none() {
                table.report_full(database);
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
        pg_sys::RequestAddinShmemSpace(core::mem::size_of::<SharedTable>());
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
            pg_sys::RequestAddinShmemSpace(core::mem::size_of::<SharedTable>());
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
                core::mem::size_of::<SharedTable>(),
                &mut found,
            )
            .cast::<SharedTable>();
            if !found {
                SharedTable::init(table);
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
    use super::{SharedTable, SHMEM_NAME};
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
                core::mem::size_of::<SharedTable>(),
                Some(init),
                &mut found,
            );
            #[cfg(feature = "pg19")]
            let segment = pg_sys::GetNamedDSMSegment(
                SHMEM_NAME.as_ptr(),
                core::mem::size_of::<SharedTable>(),
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
        unsafe { guard_callback(|| SharedTable::init(segment.cast())) }
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
        unsafe { guard_callback(|| SharedTable::init(segment.cast())) }
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
        assert_eq!(
            table
                .places
                .iter()
                .filter(|p| p.database() == database)
                .count(),
            1,
            "one place per database"
        );
        assert!(core::ptr::eq(table.place_of(database).unwrap(), place));
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

    /// A database that is gone gives its place up, emptied; one that
    /// exists keeps it.
    #[pg_test]
    fn a_gone_database_gives_its_place_up() {
        let mut table: Box<core::mem::MaybeUninit<SharedTable>> = Box::new_uninit();
        // SAFETY: a fresh allocation of the table's size and alignment, no
        // one else's; `init` writes every byte of it.
        let table = unsafe {
            SharedTable::init(table.as_mut_ptr());
            table.assume_init()
        };
        // SAFETY: set when the backend connected, read on its thread.
        let here = unsafe { pg_sys::MyDatabaseId }.to_u32();
        // fill every place with databases that do not exist, but one
        let gone_base = 4_000_000_000u32;
        for (i, place) in table.places.iter().enumerate() {
            place
                .database
                .store(gone_base + i as u32, Ordering::Relaxed);
            place.with_lock(|state| state.advance_past([0xAB; 16]));
        }
        table.places[7].database.store(here, Ordering::Relaxed);
        // this database has its place already
        assert!(core::ptr::eq(
            table.place_of(here).unwrap(),
            &table.places[7]
        ));
        // another database takes the first place of a gone one, emptied
        let newcomer = 4_100_000_000u32;
        let place = table.place_of(newcomer).unwrap();
        assert!(core::ptr::eq(place, &table.places[0]));
        assert_eq!(place.with_lock(|state| state.last()), [0; 16]);
        assert_eq!(table.places[1].with_lock(|state| state.last())[0], 0xAB);
        // a table held entirely by databases that exist has no place
        for place in &table.places {
            place.database.store(here, Ordering::Relaxed);
        }
        assert!(table.place_of(newcomer).is_none());
    }
}
