//! `OutputCache`: the tool-output cache as a JavaScript class. Outputs are copied into native
//! memory once; paging and searching run off the JavaScript thread and return only their result.

use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::*;
use napi_derive::napi;

use agent_tools_core::output_cache::{self, Bounds, GrepOptions, OutputCache as Cache};

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

/// The bounds of an `OutputCache`.
#[napi(object)]
pub struct OutputCacheOptions {
    /// Outputs the cache holds at most (default 256).
    pub max_entries: Option<f64>,
    /// Bytes of output text (UTF-8) the cache holds at most (default 64 MiB).
    pub max_bytes: Option<f64>,
}

/// Tool outputs kept whole while their total stays under `budgetChars` (UTF-16 units, default
/// 100 000); older ones are evicted from the conversation but stay readable by `refId` while the
/// cache holds them. It holds at most `maxEntries` outputs (default 256) and `maxBytes` bytes of
/// text (default 64 MiB): past either it drops the oldest evicted outputs, and reading one of them
/// rejects with `dropped ref_id: …`. Outputs still whole in the conversation are never dropped.
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

/// 2^53 - 1: larger numbers are not exact integers in JavaScript.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A cache error with its code, for a rejection ([`super::on_blocking_pool_coded`]).
fn coded(e: output_cache::CacheError) -> (&'static str, String) {
    (e.code(), e.to_string())
}

#[napi]
impl OutputCache {
    #[napi(constructor)]
    pub fn new(budget_chars: Option<f64>, options: Option<OutputCacheOptions>) -> Result<Self> {
        let budget = match budget_chars {
            None => output_cache::DEFAULT_BUDGET_CHARS,
            Some(b) if b.is_finite() && b >= 0.0 => b as usize,
            Some(_) => return Err(Error::from_reason("budgetChars must be a number >= 0")),
        };
        let count = |value: Option<f64>, default: usize, name: &str| match value {
            None => Ok(default),
            Some(v) if v.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(&v) => Ok(v as usize),
            Some(_) => Err(Error::from_reason(format!(
                "{name} must be an integer >= 0"
            ))),
        };
        let options = options.unwrap_or(OutputCacheOptions {
            max_entries: None,
            max_bytes: None,
        });
        let bounds = Bounds {
            max_entries: count(
                options.max_entries,
                output_cache::DEFAULT_MAX_ENTRIES,
                "maxEntries",
            )?,
            max_bytes: count(
                options.max_bytes,
                output_cache::DEFAULT_MAX_BYTES,
                "maxBytes",
            )?,
        };
        Ok(OutputCache {
            inner: Arc::new(Mutex::new(Cache::with_bounds(budget, bounds))),
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

    /// How many outputs the cache holds now.
    #[napi(getter, catch_unwind)]
    pub fn held_count(&self) -> Result<f64> {
        Ok(self.lock()?.held().0 as f64)
    }

    /// Bytes of output text (UTF-8) the cache holds now.
    #[napi(getter, catch_unwind)]
    pub fn held_bytes(&self) -> Result<f64> {
        Ok(self.lock()?.held().1 as f64)
    }

    /// Whether an output is still whole in the conversation (false for a dropped one; throws for
    /// an id the cache never gave).
    #[napi(catch_unwind)]
    pub fn is_inline(&self, env: &Env, ref_id: String) -> Result<bool> {
        self.lock()?.is_inline(&ref_id).map_err(|e| {
            let (code, message) = coded(e);
            super::coded_error(env, code, message)
        })
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
        super::on_blocking_pool_coded(env, move || {
            let text = text_of(&inner, &ref_id).map_err(coded)?;
            output_cache::read(&text, offset, limit).map_err(coded)
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
        super::on_blocking_pool_coded(env, move || {
            let text = text_of(&inner, &ref_id).map_err(coded)?;
            let options = GrepOptions {
                pattern: &request.pattern,
                regex: request.regex.unwrap_or(false),
                before: request.before,
                after: request.after,
                max_matches: request.max_matches,
            };
            output_cache::grep(&text, &options).map_err(coded)
        })
    }
}
