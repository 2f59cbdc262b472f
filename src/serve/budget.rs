//! The memory client queries may take, counted by the allocator: [`Budgeted`] wraps the
//! program's allocator and charges every allocation and release made on a thread to the
//! budget that thread runs under, if any. The budgets of all running queries share one
//! limit: the query whose allocation takes their total past it is cancelled, and stops
//! before its next tuple (the evaluator checks its token there). A runaway query is the
//! one allocating, so it is the one stopped, however many queries run beside it.
//!
//! The count is per thread and exact: a query is parsed, evaluated and its answer written
//! on one thread of its own, so what that thread holds is what the query holds. It holds
//! only when the program installs [`Budgeted`] as its global allocator, as the `ihigraph`
//! binary does; elsewhere budgets never trip and only the time limit stops a query.
//!
//! This is one of two places of the crate with `unsafe` code (the other lowers a long
//! query's thread priority): a global allocator cannot be written without it.
#![allow(unsafe_code)]

use oxigraph::sparql::CancellationToken;
use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, Ordering};

/// What all running queries hold together.
static HELD: AtomicIsize = AtomicIsize::new(0);

/// The program's allocator `A`, with each thread's allocations charged to the budget it
/// runs under. Install it with `#[global_allocator]`.
#[derive(Debug, Default)]
pub struct Budgeted<A>(pub A);

// SAFETY: every call is forwarded unchanged to `A`, which upholds `GlobalAlloc`'s
// contract; `charge` only does arithmetic on the current thread's budget and an atomic
// store, and never allocates (the thread-local is a `const`-initialized `Cell` of a raw
// pointer, which needs neither lazy initialization nor a destructor).
unsafe impl<A: GlobalAlloc> GlobalAlloc for Budgeted<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        charge(signed(layout.size()));
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
        unsafe { self.0.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        charge(signed(layout.size()));
        // SAFETY: as above.
        unsafe { self.0.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        charge(-signed(layout.size()));
        // SAFETY: `ptr` was allocated by `A` with `layout` (every allocation goes there).
        unsafe { self.0.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        charge(signed(new_size) - signed(layout.size()));
        // SAFETY: as `dealloc`, and `new_size` as the caller gave it.
        unsafe { self.0.realloc(ptr, layout, new_size) }
    }
}

fn signed(size: usize) -> isize {
    isize::try_from(size).unwrap_or(isize::MAX)
}

/// What one query holds, and what all may hold together.
struct Budget {
    used: Cell<isize>,
    limit: isize,
    exceeded: Cell<bool>,
    cancel: CancellationToken,
}

thread_local! {
    /// The budget this thread runs under, set by [`within`] for the time of its work.
    static CURRENT: Cell<*const Budget> = const { Cell::new(std::ptr::null()) };
}

fn charge(bytes: isize) {
    // `try_with`: an allocation while the thread is being torn down charges nothing.
    let _ = CURRENT.try_with(|current| {
        let budget = current.get();
        if budget.is_null() {
            return;
        }
        // SAFETY: `within` sets the pointer to a `Budget` on its own stack frame, on this
        // thread, and clears it before that frame ends (by a guard, also on unwinding).
        let budget = unsafe { &*budget };
        budget.used.set(budget.used.get().saturating_add(bytes));
        let held = HELD
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes);
        if bytes > 0 && held > budget.limit && !budget.exceeded.get() {
            budget.exceeded.set(true);
            budget.cancel.cancel();
        }
    });
}

/// Clears the thread's budget when [`within`] ends, however it ends, and takes what the
/// query still held (its answer, which goes to another thread) out of the total.
struct Leave<'a>(&'a Budget);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        let _ = CURRENT.try_with(|current| current.set(std::ptr::null()));
        HELD.fetch_sub(self.0.used.get(), Ordering::Relaxed);
    }
}

/// Runs `work` with what this thread allocates from now on charged to a budget; when
/// what all budgets hold goes past `limit` bytes by an allocation of this one, `cancel`
/// is cancelled. Gives `work`'s value and whether it went past. Budgets do not nest.
pub(crate) fn within<T>(
    limit: usize,
    cancel: &CancellationToken,
    work: impl FnOnce() -> T,
) -> (T, bool) {
    let budget = Budget {
        used: Cell::new(0),
        limit: signed(limit),
        exceeded: Cell::new(false),
        cancel: cancel.clone(),
    };
    CURRENT.with(|current| current.set(&raw const budget));
    let leave = Leave(&budget);
    let value = work();
    drop(leave);
    (value, budget.exceeded.get())
}

/// The kernel's id of the calling thread, for [`lower_priority`].
#[cfg(target_os = "linux")]
pub(crate) fn thread_id() -> i64 {
    // SAFETY: gettid has no preconditions and cannot fail.
    i64::from(unsafe { libc::gettid() })
}

/// The kernel's id of the calling thread (none off Linux).
#[cfg(not(target_os = "linux"))]
pub(crate) fn thread_id() -> i64 {
    0
}

/// The niceness of a query that runs long beside others: the lowest, a seventieth of the
/// share of a thread at the default. Only beside other queries of the server (see
/// `QueryLimits::run`): alone, a long query keeps its share of a busy machine.
#[cfg(target_os = "linux")]
const LOW_PRIORITY: libc::c_int = 19;

/// Gives the thread `thread` (a [`thread_id`]) the lowest priority (nice 19), so that a
/// query which runs long takes only what others leave: a runaway query cannot starve the
/// short ones. The thread is the query's own and ends with it, so nothing else inherits
/// the priority. Nothing happens off Linux or when the kernel refuses.
#[cfg(target_os = "linux")]
pub(crate) fn lower_priority(thread: i64) {
    if let Ok(thread) = libc::id_t::try_from(thread) {
        // SAFETY: setpriority takes plain integers; on Linux PRIO_PROCESS with a thread id
        // applies to that thread alone. A failure (the thread has ended) changes nothing.
        let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, thread, LOW_PRIORITY) };
    }
}

/// Off Linux, priorities are left as they are.
#[cfg(not(target_os = "linux"))]
pub(crate) fn lower_priority(_thread: i64) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_the_allocator_installed_a_budget_never_trips() {
        // The library's tests run on the system allocator: `within` still runs the work.
        let cancel = CancellationToken::new();
        let (value, exceeded) = within(1, &cancel, || vec![0u8; 1 << 20].len());
        assert_eq!(value, 1 << 20);
        assert!(!exceeded && !cancel.is_cancelled());
    }

    #[test]
    fn charges_trip_the_budget_once() {
        let cancel = CancellationToken::new();
        let ((), exceeded) = within(1000, &cancel, || {
            charge(600);
            assert!(!cancel.is_cancelled());
            charge(600);
            assert!(cancel.is_cancelled());
            charge(-1000);
        });
        assert!(exceeded);
        // Outside `within`, nothing is charged.
        charge(1 << 40);
    }
}
