//! The lock of the shared table and of each of its places (`shmem.rs`): a
//! lock on a few dozen instructions that raise nothing.
//!
//! Nothing is called while it is held but what cannot fail, wait or serve
//! an interrupt, so a backend cannot leave it held: an ERROR or a FATAL
//! (a terminate, a timeout) can only strike while it waits, holding
//! nothing, and a backend killed outright makes the postmaster restart
//! every backend and make shared memory anew. No lock of ours is ever
//! waited for while another of ours is held: where one is needed under
//! another, it is only tried (`try_lock`).
//!
//! A waiter spins, then yields, then sleeps, and from its first yield on it
//! serves interrupts, so that a cancel, a terminate or a statement timeout
//! ends its wait however long the holder is stopped (SIGSTOP, a debugger).

use core::sync::atomic::{AtomicBool, Ordering};
use pgrx::pg_sys;

/// How long a waiter spins before it assumes the holder is not running.
/// The critical sections are a few dozen instructions, so a holder that is
/// running lets go long before.
const SPINS: u32 = 200;
/// Then how many times it gives up the processor, before it sleeps.
const YIELDS: u32 = 100;
/// How long it sleeps at a time once it sleeps, in microseconds: a cancel
/// or a terminate ends the sleep at once (the signal interrupts it).
const SLEEP_US: core::ffi::c_long = 1000;

/// The lock; all zeros is unlocked, so it lives in shared memory as it is.
#[repr(transparent)]
pub struct SpinLock(AtomicBool);

/// The lock, held; released when dropped, on unwinding too.
pub struct Held<'a>(&'a AtomicBool);

impl Drop for Held<'_> {
    #[inline]
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl SpinLock {
    /// Takes the lock, waiting for it. Hold no other lock of ours when
    /// calling this: the wait may end in an ERROR or a FATAL.
    #[inline]
    pub fn lock(&self) -> Held<'_> {
        if self
            .0
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            self.wait();
        }
        Held(&self.0)
    }

    /// Takes the lock if it is free, never waiting; raises nothing.
    #[inline]
    pub fn try_lock(&self) -> Option<Held<'_>> {
        self.0
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .ok()
            .map(|_| Held(&self.0))
    }

    /// Waits for the lock and takes it. May raise an ERROR or a FATAL (a
    /// cancel, a terminate, a timeout), while holding nothing.
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
