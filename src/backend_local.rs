//! State owned by one backend: a cell that only the backend's one thread
//! ever touches (the random source, the session's monotonic state, where
//! the shared state is).

use core::cell::UnsafeCell;

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
