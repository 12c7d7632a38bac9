//! glibc malloc settings that bound resident memory: fewer arenas, and handing the
//! startup's freed heap back to the kernel. The `fulfilld` binary allocates with jemalloc
//! (`main.rs`), so there they bound only what C code takes from glibc; they still shape
//! the tests' in-process servers. No-ops on other platforms.

/// Caps malloc arenas at the number of CPUs (glibc's default is eight per CPU). Every
/// tokio worker and sled thread otherwise gets its own arena, and each keeps the free
/// space its thread's requests left behind: at a million orders that slack was ~50 MB of
/// the server's resident memory. Call before any thread starts.
pub fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        let arenas = i32::try_from(cpus).unwrap_or(i32::MAX).max(2);
        // SAFETY: mallopt only changes allocator parameters; no memory is touched.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}

/// Returns free heap pages to the kernel, e.g. after loading the in-memory indexes,
/// which decode every order once and free the records.
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory held by the allocator.
    unsafe {
        libc::malloc_trim(0);
    }
}
