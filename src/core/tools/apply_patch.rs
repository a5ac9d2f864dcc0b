//! apply_patch (contract: apply_patch.md): types. The handler is not in this build yet
//! (see `pending`).

use serde::Serialize;
use ts_rs::TS;

#[derive(TS)]
#[allow(dead_code)]
pub struct ApplyPatchInput {
    #[ts(rename = "filePath")]
    pub file_path: String,
    pub patch: String,
}

#[derive(Serialize, TS, Debug)]
pub struct ApplyPatchOutput {
    pub file_path: String,
    pub exit_code: i64,
    pub changed: bool,
    pub stderr: String,
}
