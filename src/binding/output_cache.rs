//! `OutputCache`: the tool-output cache as a JavaScript class. Outputs are copied into native
//! memory once; paging and searching run off the JavaScript thread and return only their result.

use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::*;
use napi_derive::napi;

use agent_tools_core::output_cache::{self, GrepOptions, OutputCache as Cache};

#[napi(object)]
pub struct RecordedOutput {
    pub ref_id: String,
    /// Outputs evicted from the conversation by this recording (oldest first).
    pub evicted: Vec<String>,
}

#[napi(object)]
pub struct GrepRequest {
    pub pattern: String,
    pub regex: Option<bool>,
    pub before: Option<f64>,
    pub after: Option<f64>,
    pub max_matches: Option<f64>,
}

/// Tool outputs kept whole while their total stays under `budgetChars` (UTF-16 units, default
/// 100 000); older ones are evicted from the conversation but stay readable by `refId`.
#[napi]
pub struct OutputCache {
    inner: Arc<Mutex<Cache>>,
}

/// The text of an output, looked up on the worker so a bad id rejects the promise.
fn text_of(
    cache: &Mutex<Cache>,
    ref_id: &str,
) -> std::result::Result<Arc<str>, output_cache::CacheError> {
    match cache.lock() {
        Ok(guard) => guard.text(ref_id),
        Err(_) => Err(output_cache::CacheError::InvalidArgument(
            "the output cache is poisoned by an earlier panic".into(),
        )),
    }
}

fn cache_error(e: output_cache::CacheError) -> Error {
    Error::from_reason(e.to_string())
}

#[napi]
impl OutputCache {
    #[napi(constructor)]
    pub fn new(budget_chars: Option<f64>) -> Result<Self> {
        let budget = match budget_chars {
            None => output_cache::DEFAULT_BUDGET_CHARS,
            Some(b) if b.is_finite() && b >= 0.0 => b as usize,
            Some(_) => return Err(Error::from_reason("budgetChars must be a number >= 0")),
        };
        Ok(OutputCache {
            inner: Arc::new(Mutex::new(Cache::new(budget))),
        })
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Cache>> {
        self.inner
            .lock()
            .map_err(|_| Error::from_reason("the output cache is poisoned by an earlier panic"))
    }

    /// Stores an output; returns its id and the ids now evicted from the conversation.
    #[napi(catch_unwind)]
    pub fn record(&self, content: String) -> Result<RecordedOutput> {
        let recorded = self.lock()?.record(&content);
        Ok(RecordedOutput {
            ref_id: recorded.ref_id,
            evicted: recorded.evicted,
        })
    }

    /// Total size of the outputs still whole in the conversation.
    #[napi(getter, catch_unwind)]
    pub fn inline_chars(&self) -> Result<f64> {
        Ok(self.lock()?.inline_chars() as f64)
    }

    /// Whether an output is still whole in the conversation (throws for an unknown id).
    #[napi(catch_unwind)]
    pub fn is_inline(&self, ref_id: String) -> Result<bool> {
        self.lock()?.is_inline(&ref_id).map_err(cache_error)
    }

    /// Numbered lines of an output, from line `offset` (1-based, default 1), at most `limit`
    /// (default 200, max 2000).
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn read<'env>(
        &self,
        env: &'env Env,
        ref_id: String,
        offset: Option<f64>,
        limit: Option<f64>,
    ) -> Result<PromiseRaw<'env, String>> {
        let inner = self.inner.clone();
        env.spawn_future(async move {
            tokio::task::spawn_blocking(move || {
                output_cache::read(&text_of(&inner, &ref_id)?, offset, limit)
            })
            .await
            .map_err(|e| Error::from_reason(e.to_string()))?
            .map_err(cache_error)
        })
    }

    /// Matching lines of an output (`N:line`, context `N-line`, grep -n style).
    #[napi(catch_unwind, ts_return_type = "Promise<string>")]
    pub fn grep<'env>(
        &self,
        env: &'env Env,
        ref_id: String,
        request: GrepRequest,
    ) -> Result<PromiseRaw<'env, String>> {
        let inner = self.inner.clone();
        env.spawn_future(async move {
            tokio::task::spawn_blocking(move || {
                let text = text_of(&inner, &ref_id)?;
                let options = GrepOptions {
                    pattern: &request.pattern,
                    regex: request.regex.unwrap_or(false),
                    before: request.before,
                    after: request.after,
                    max_matches: request.max_matches,
                };
                output_cache::grep(&text, &options)
            })
            .await
            .map_err(|e| Error::from_reason(e.to_string()))?
            .map_err(cache_error)
        })
    }
}
