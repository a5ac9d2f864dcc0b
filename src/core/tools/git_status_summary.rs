//! git_status_summary (contract: git_status_summary.md): types. The handler is not in this
//! build yet (see `pending`).

use serde::Serialize;
use ts_rs::TS;

#[derive(TS)]
#[allow(dead_code)]
pub struct GitStatusSummaryInput {
    #[ts(optional)]
    pub cwd: Option<String>,
}

#[derive(Serialize, TS, Debug)]
pub struct GitStatusSummaryOutput {
    pub repository_root: String,
    pub branch: Option<String>,
    pub raw: String,
}
