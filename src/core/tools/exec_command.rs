//! exec_command (contract: exec_command.md): types. The handler is not in this build yet
//! (see `pending`).

use serde::Serialize;
use ts_rs::TS;

#[derive(TS)]
#[allow(dead_code)]
#[ts(rename_all = "lowercase")]
pub enum ShellMode {
    Default,
    Direct,
}

#[derive(TS)]
#[allow(dead_code)]
pub struct ExecCommandInput {
    pub cwd: String,
    pub command: Vec<String>,
    #[ts(optional)]
    pub shell_mode: Option<ShellMode>,
    #[ts(optional)]
    pub stdin: Option<String>,
    #[ts(optional)]
    pub timeout_ms: Option<f64>,
    #[ts(optional)]
    pub max_output_chars: Option<f64>,
}

#[derive(Serialize, TS, Debug)]
pub struct ExecCommandOutput {
    pub cwd: String,
    pub command: Vec<String>,
    pub exit_code: i64,
    pub stdout: String,
    pub stderr: String,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub timed_out: bool,
    pub duration_ms: u64,
}
