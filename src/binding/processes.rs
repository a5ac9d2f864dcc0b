//! The process tools' table (`agent_tools_core::processes`): one per context whose toolkit
//! enables them, kept beside the context by the JavaScript side (ts/context.cts).

use std::sync::Arc;

use agent_tools_core::processes::{Limits, ProcessTable};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// The bounds of a process table (`createAgentToolkit`'s `processes` option, checked there).
#[napi(object)]
pub struct ProcessLimits {
    /// Processes running at once (default 8).
    pub max_running: Option<u32>,
    /// Output kept per process, in bytes (default 1 MiB).
    pub buffer_bytes: Option<u32>,
    /// A process running longer is killed (default: no limit).
    pub max_lifetime_ms: Option<f64>,
}

/// A new, empty process table.
#[napi(catch_unwind, ts_return_type = "ExternalObject<'ProcessTable'>")]
pub fn new_process_table(limits: Option<ProcessLimits>) -> External<Arc<ProcessTable>> {
    let mut bounds = Limits::default();
    if let Some(limits) = limits {
        if let Some(n) = limits.max_running {
            bounds.max_running = n as usize;
        }
        if let Some(n) = limits.buffer_bytes {
            bounds.buffer_bytes = n as usize;
        }
        bounds.max_lifetime = limits
            .max_lifetime_ms
            .filter(|ms| ms.is_finite() && *ms > 0.0)
            .map(|ms| std::time::Duration::from_secs_f64(ms / 1000.0));
    }
    External::new(Arc::new(ProcessTable::new(bounds)))
}

/// Ends every process of the table (their whole trees) and resolves once they are gone; the
/// waiting is done off the JavaScript thread.
#[napi(
    catch_unwind,
    ts_args_type = "table: ExternalObject<'ProcessTable'>",
    ts_return_type = "Promise<void>"
)]
pub fn close_process_table<'env>(
    env: &'env Env,
    table: &External<Arc<ProcessTable>>,
) -> Result<PromiseRaw<'env, ()>> {
    let table = Arc::clone(table);
    super::on_blocking_pool(env, move || {
        table.close();
        Ok(())
    })
}
