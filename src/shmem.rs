//! Where the generators' state lives: backend-local cells, and the
//! server-wide monotonic state, taken under a spinlock. The server-wide
//! state is in the shared memory reserved at server start when the library
//! is in `shared_preload_libraries` (asked for and set up by the hooks
//! below); otherwise, on PostgreSQL 17 and later, in a named segment of the
//! dynamic shared memory registry, created by the first backend that asks
//! and attached by every later one, so that no restart is needed. On 13 to
//! 16 without preloading there is none. How the state moves is ulid-core's
//! `monotonic::Monotonic`; when it is read is `generators.rs`.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};
use pgrx::pg_sys;
use pgrx::prelude::*;
use ulid_core::monotonic::Monotonic;

/// State owned by one backend. PostgreSQL backends are single-threaded and
/// nothing here is reentrant, so plain interior mutability is enough.
pub struct BackendLocal<T>(UnsafeCell<T>);

// SAFETY: only the backend's main thread ever touches these.
unsafe impl<T> Sync for BackendLocal<T> {}

impl<T> BackendLocal<T> {
    pub const fn new(value: T) -> Self {
        BackendLocal(UnsafeCell::new(value))
    }

    /// # Safety
    /// Call from the backend's main thread, and do not hold two results at once.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self) -> &mut T {
        unsafe { &mut *self.0.get() }
    }
}

/// Set in the postmaster when preloaded; inherited by every backend it forks.
static SHARED_STATE: BackendLocal<*const SharedState> = BackendLocal::new(core::ptr::null());

/// The server-wide monotonic state, in shared memory.
#[repr(C)]
pub struct SharedState {
    locked: AtomicBool,
    state: UnsafeCell<Monotonic>,
}

impl Default for SharedState {
    fn default() -> Self {
        Self::new()
    }
}

impl SharedState {
    /// Unlocked, with no value handed out yet.
    pub const fn new() -> Self {
        SharedState {
            locked: AtomicBool::new(false),
            state: UnsafeCell::new(Monotonic::new()),
        }
    }

    /// Runs `f` on the state under the lock. The critical section is a
    /// comparison and a 16-byte copy: no allocation, no PostgreSQL call, no
    /// interrupt check, nothing that can raise an ERROR.
    #[inline]
    pub fn with_lock<R>(&self, f: impl FnOnce(&mut Monotonic) -> R) -> R {
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

/// Called from `_PG_init`: when the library is being preloaded, asks for a
/// little shared memory and sets it up at server start.
pub fn init() {
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
            shared.write(SharedState::new());
        }
        *SHARED_STATE.get() = shared;
        pg_sys::LWLockRelease(init_lock);
    }
}

/// The server-wide state: the preloaded one, or else, on 17 and later, the
/// one in the DSM registry (attached at this backend's first call).
#[inline]
pub fn shared_state() -> Option<&'static SharedState> {
    // SAFETY: set once at server start and never freed.
    if let Some(preloaded) = unsafe { SHARED_STATE.get().as_ref() } {
        return Some(preloaded);
    }
    registry::state()
}

/// The state in the dynamic shared memory registry (PostgreSQL 17 and
/// later), for a library that was not preloaded. The registry creates the
/// segment once per server life (and again after a crash restart, which
/// starts every backend afresh), pins it so it outlives its backends, and
/// keeps it mapped in every backend that attached it; so DROP EXTENSION and
/// CREATE EXTENSION again, every database and every later session share
/// one state. A preloaded library never looks here: every backend of such
/// a server inherits the preloaded state from the postmaster, so the two
/// never serve one server.
#[cfg(any(feature = "pg17", feature = "pg18", feature = "pg19"))]
mod registry {
    use super::{BackendLocal, SharedState, SHMEM_NAME};
    use pgrx::pg_sys;
    use pgrx::prelude::*;

    /// This backend's mapping of the segment, once attached.
    static ATTACHED: BackendLocal<*const SharedState> = BackendLocal::new(core::ptr::null());

    #[inline]
    pub fn state() -> Option<&'static SharedState> {
        // SAFETY: the registry keeps the mapping for the backend's life.
        match unsafe { ATTACHED.get().as_ref() } {
            Some(state) => Some(state),
            None => Some(attach()),
        }
    }

    /// Creates or attaches the segment. Outside any lock of ours: the
    /// registry takes its own LWLock and may raise an ERROR (out of shared
    /// memory), which then leaves nothing half done here.
    #[cold]
    fn attach() -> &'static SharedState {
        let mut found = false;
        // SAFETY: the name is a C string; the size is the state's; the
        // callback writes a fresh state into a new segment, before any
        // other backend can see it (the registry holds its lock meanwhile).
        let segment = unsafe {
            #[cfg(any(feature = "pg17", feature = "pg18"))]
            let segment = pg_sys::GetNamedDSMSegment(
                SHMEM_NAME.as_ptr(),
                core::mem::size_of::<SharedState>(),
                Some(init),
                &mut found,
            );
            #[cfg(feature = "pg19")]
            let segment = pg_sys::GetNamedDSMSegment(
                SHMEM_NAME.as_ptr(),
                core::mem::size_of::<SharedState>(),
                Some(init),
                &mut found,
                core::ptr::null_mut(),
            );
            segment
        }
        .cast::<SharedState>();
        // SAFETY: this backend's own cell; the segment is never unmapped.
        unsafe {
            *ATTACHED.get() = segment;
            &*segment
        }
    }

    #[cfg(any(feature = "pg17", feature = "pg18"))]
    #[pg_guard]
    unsafe extern "C-unwind" fn init(segment: *mut core::ffi::c_void) {
        unsafe { segment.cast::<SharedState>().write(SharedState::new()) }
    }

    #[cfg(feature = "pg19")]
    #[pg_guard]
    unsafe extern "C-unwind" fn init(
        segment: *mut core::ffi::c_void,
        _arg: *mut core::ffi::c_void,
    ) {
        unsafe { segment.cast::<SharedState>().write(SharedState::new()) }
    }
}

/// Before 17 there is no registry: without preloading, no server-wide state.
#[cfg(not(any(feature = "pg17", feature = "pg18", feature = "pg19")))]
mod registry {
    use super::SharedState;

    #[inline]
    pub fn state() -> Option<&'static SharedState> {
        None
    }
}
