//! The process tools' table (`agent_tools_core::processes`): one per context whose toolkit
//! enables them, kept beside the context by the JavaScript side (ts/context.cts).

use std::sync::Arc;

use agent_tools_core::processes::{Limits, ProcessTable};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// A new, empty process table.
#[napi(catch_unwind, ts_return_type = "ExternalObject<'ProcessTable'>")]
pub fn new_process_table() -> External<Arc<ProcessTable>> {
    External::new(Arc::new(ProcessTable::new(Limits::default())))
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
    env.spawn_future(async move {
        tokio::task::spawn_blocking(move || table.close())
            .await
            .map_err(|e| Error::from_reason(e.to_string()))
    })
}
