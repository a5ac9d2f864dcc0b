pub mod binding;
pub mod core;

/// mimalloc instead of the system allocator for the addon's own (Rust) allocations: the tools
/// allocate many small strings and vectors per call, where glibc's malloc was a third of the
/// time of a cheap call. Fuzzing builds keep the system allocator so sanitizers see every heap use.
#[cfg(not(fuzzing))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
