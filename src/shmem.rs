//! Where the generators' state lives: backend-local cells, and the
//! server-wide monotonic state in shared memory, which exists when the
//! library is in `shared_preload_libraries` (asked for and set up by the
//! hooks below) and is taken under a spinlock. How the state moves is
//! ulid-core's `monotonic::Monotonic`; when it is read is `generators.rs`.

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

impl SharedState {
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
            shared.write(SharedState {
                locked: AtomicBool::new(false),
                state: UnsafeCell::new(Monotonic::new()),
            });
        }
        *SHARED_STATE.get() = shared;
        pg_sys::LWLockRelease(init_lock);
    }
}

/// The server-wide state, when the library was preloaded.
#[inline]
pub fn shared_state() -> Option<&'static SharedState> {
    // SAFETY: set once at server start and never freed.
    unsafe { SHARED_STATE.get().as_ref() }
}
