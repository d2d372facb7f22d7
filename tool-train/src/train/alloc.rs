//! Keeping freed memory for reuse, which spares training most of its page faults.

/// Tells glibc's allocator to keep freed memory for reuse instead of returning it to the
/// system, and to serve allocations of up to 32 MiB from that memory.
///
/// A training step allocates and frees many tensors of a few MiB; by default glibc maps
/// each afresh and unmaps it when freed, so every step pays to fault in and zero the same
/// pages again (about a quarter of its CPU time). This changes the whole process's
/// allocator, so it is for a training program to call once at start, not for a library.
/// Returns whether the settings were applied (only on Linux with glibc).
pub fn keep_freed_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        // From glibc's malloc.h.
        const M_TRIM_THRESHOLD: i32 = -1;
        const M_MMAP_THRESHOLD: i32 = -3;
        // 32 MiB is the largest threshold glibc accepts on 64-bit systems.
        const MMAP_THRESHOLD: i32 = 32 << 20;
        // SAFETY: mallopt only sets allocator parameters; glibc takes its own lock, so it
        // may be called at any time from any thread. It returns 1 on success.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
                && mallopt(M_TRIM_THRESHOLD, i32::MAX) == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}
