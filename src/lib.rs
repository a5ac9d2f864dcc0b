//! The napi binding of agent-tools-native. The tools, the policy and the sandbox live in the
//! pure-Rust crate `agent-tools-core` (crates/agent-tools-core/), the provider mappings in
//! `agent-tools-providers` (crates/agent-tools-providers/).

pub mod binding;

/// tree-sitter allocates through mimalloc in the addon: installed when the library is loaded,
/// before any call could create a tree-sitter object.
#[napi_derive::module_init]
fn install_tree_sitter_allocator() {
    agent_tools_core::tools::ast_grep_search::use_mimalloc_for_tree_sitter();
}

/// mimalloc instead of the system allocator for the addon's own (Rust) allocations: the tools
/// allocate many small strings and vectors per call, where glibc's malloc was a third of the
/// time of a cheap call. Fuzzing builds keep the system allocator so sanitizers see every heap use.
#[cfg(not(fuzzing))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `arena_eager_commit` (option 4 in mimalloc.h), turned off before anything in the
/// addon allocates: with transparent huge pages on (`always`, the Linux default on many
/// machines), an eagerly committed arena turned every touched 2 MiB into resident memory, and a
/// 5 000-file search raised the process's peak RSS from 59 to 110 MiB; committed on demand it
/// stays at 64 MiB, at the same speed.
#[cfg(all(target_os = "linux", not(fuzzing)))]
mod allocator_setup {
    const MI_OPTION_ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

    extern "C" fn configure() {
        // SAFETY: sets one option value; called once at load, before any allocation of ours.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0) };
    }

    /// Runs at load time, before the unprioritised constructors (napi-rs registers the module
    /// from those, which is where the addon first allocates).
    #[used]
    #[link_section = ".init_array.00200"]
    static CONFIGURE: extern "C" fn() = configure;

    #[cfg(test)]
    #[test]
    fn arena_eager_commit_is_off() {
        // SAFETY: reads one option value.
        let value = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_ARENA_EAGER_COMMIT) };
        assert_eq!(value, 0);
    }
}
