//! How the process's allocator grows the solver's large buffers (docs/solver.md §4, "A
//! contact set that grows without a copy").
//!
//! A rebuild of a base plate's contacts fills one vector of some 80,000 contacts over several
//! frames. glibc's malloc serves a request below its mmap threshold from the heap, and that
//! threshold rises (up to 32 MiB) each time a mapped block is freed: so after the first large
//! vectors are freed, the next ones live in the heap, and doubling one copies it whole into
//! new pages, faulting every page in one frame (10 MB → 20 MB: 6–29 ms measured here). A
//! block that stays mapped grows by `mremap` instead: no copy, and its new pages fault as they
//! are written, piece by piece, across the frames the rebuild is spread over.

/// Keeps blocks of 1 MiB and more mapped: sets glibc's mmap threshold, which also stops it
/// from rising. Call once at start, before the first large allocation; elsewhere (another C
/// library, another system) it does nothing.
pub fn map_large_allocations() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes malloc's parameters; it is safe to call at any time.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}
