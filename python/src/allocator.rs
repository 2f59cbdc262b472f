//! The module's Rust allocator: mimalloc, as the `ihigraph` binary runs with (glibc's
//! `malloc` and `free` took a third of a `context` call's time, measured by `perf` in the
//! binary and again through Python: see docs/performance.md, "Through Python").
//!
//! The binary builds mimalloc with `override`, so that C's and C++'s `malloc` are
//! mimalloc's too. A module loaded into Python cannot do that: the interpreter and every
//! other extension already allocate with the C library's `malloc`. So RocksDB (C++,
//! inside Oxigraph) keeps the C library's allocator while Rust uses mimalloc, and one
//! pointer crosses between them: Oxigraph takes the error strings RocksDB `malloc`s into
//! a `CString` and frees them through Rust's allocator (`ffi_result!` in its
//! `rocksdb_wrapper.rs`; RocksDB reports a transaction conflict that way in an ordinary
//! write, and a lock held by another process on open). Given to `mi_free`, such a
//! pointer crashes the process. [`Mixed`] therefore frees and grows a block mimalloc does
//! not know through the C library (`mi_is_in_heap_region`: one look-up in mimalloc's page
//! map), and everything else through mimalloc.
//!
//! The one place of this crate with `unsafe` code: a global allocator cannot be written
//! without it.
#![allow(unsafe_code)]

use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// mimalloc for what Rust allocates, the C library's `free` for blocks that came from it.
pub struct Mixed;

impl Mixed {
    /// Whether mimalloc gave out the block at `ptr`.
    fn owns(ptr: *mut u8) -> bool {
        // SAFETY: only compares the address with mimalloc's page map; never dereferences it.
        unsafe { libmimalloc_sys::mi_is_in_heap_region(ptr.cast::<c_void>().cast_const()) }
    }
}

// SAFETY: allocations are mimalloc's, which upholds `GlobalAlloc`'s contract. A block
// mimalloc does not own can only have come from the C library's `malloc` (Rust code
// allocates through this allocator alone), so it goes back to the C library's `free`, and
// is grown by a new mimalloc block holding its `layout.size()` bytes.
unsafe impl GlobalAlloc for Mixed {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        unsafe { MiMalloc.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        unsafe { MiMalloc.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if Self::owns(ptr) {
            // SAFETY: a block of mimalloc's, with the layout it was given out with.
            unsafe { MiMalloc.dealloc(ptr, layout) }
        } else {
            // SAFETY: a block of the C library's `malloc` (see above), freed once.
            unsafe { libc::free(ptr.cast::<c_void>()) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if Self::owns(ptr) {
            // SAFETY: a block of mimalloc's, with the layout it was given out with.
            return unsafe { MiMalloc.realloc(ptr, layout, new_size) };
        }
        // SAFETY: `new_size` with `layout`'s alignment is a valid layout (the caller's
        // contract); the old block holds `layout.size()` bytes, the new one at least
        // `min(layout.size(), new_size)`, and they do not overlap.
        unsafe {
            let grown = MiMalloc.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
            if !grown.is_null() {
                std::ptr::copy_nonoverlapping(ptr, grown, layout.size().min(new_size));
                libc::free(ptr.cast::<c_void>());
            }
            grown
        }
    }
}
