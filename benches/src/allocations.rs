//! An allocation-counting global allocator for the benches and tests that count what a battle
//! allocates ([`Counting`]): it forwards every call to the system allocator and counts the
//! allocations and reallocations made while counting is on. A binary declares it with
//! `#[global_allocator] static A: Counting = Counting;` and reads [`allocations_during`].

// A global allocator is an `unsafe impl` by definition; this one only forwards to `System`.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Allocations and reallocations counted so far.
static COUNT: AtomicU64 = AtomicU64::new(0);
/// Whether allocations are being counted.
static ON: AtomicBool = AtomicBool::new(false);

/// The system allocator, counting the allocations made while [`allocations_during`] runs.
pub struct Counting;

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the counting touches only atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            COUNT.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            COUNT.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            COUNT.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: as for `alloc`; `ptr` and `layout` come from this allocator, which is `System`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for `realloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Runs `f` with counting on and returns what it gave and the allocations (and reallocations)
/// made meanwhile, on any thread. Only meaningful in a binary whose global allocator is
/// [`Counting`]; elsewhere the count is 0.
pub fn allocations_during<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = COUNT.load(Ordering::SeqCst);
    ON.store(true, Ordering::SeqCst);
    let out = f();
    ON.store(false, Ordering::SeqCst);
    (out, COUNT.load(Ordering::SeqCst) - before)
}
