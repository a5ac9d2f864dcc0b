//! The search cache seen from JavaScript: its counters and a wait for its background work (tests
//! and benchmarks; the cache itself needs no calls).

use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Counters of one workspace's search cache.
#[napi(object)]
pub struct SearchCacheStats {
    /// Files known.
    pub files: u32,
    /// Files whose trigram index is built.
    pub indexed: u32,
    /// Bytes of file contents held.
    pub content_bytes: f64,
    /// Everything the cache counts against its budget.
    pub bytes: f64,
    /// Paths (files and directories) that calls take as cached without a stat: watched for
    /// changes (Linux) and checked since.
    pub trusted: u32,
}

/// The counters of the search cache of the workspace whose real root is `root`, or null when it
/// has none.
#[napi(catch_unwind)]
pub fn search_cache_stats(root: String) -> Option<SearchCacheStats> {
    agent_tools_core::search_cache::stats(std::path::Path::new(&root)).map(|s| SearchCacheStats {
        files: s.files as u32,
        indexed: s.indexed as u32,
        content_bytes: s.content_bytes as f64,
        bytes: s.bytes as f64,
        trusted: s.trusted as u32,
    })
}

/// Resolves when the search cache's background work queued so far (indexing, eviction) is done.
#[napi(catch_unwind, ts_return_type = "Promise<void>")]
pub fn search_cache_wait(env: &Env) -> Result<PromiseRaw<'_, ()>> {
    super::on_blocking_pool(env, || {
        agent_tools_core::search_cache::wait_idle();
        Ok(())
    })
}
