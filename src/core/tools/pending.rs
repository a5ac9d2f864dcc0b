//! Tools whose native implementation is not in this build yet. They fail with the contract's
//! error shape for an unexpected failure (`INTERNAL`), never with a made-up success.

use crate::core::error::ToolError;
use crate::core::registry::RunContext;
use crate::core::value::ArgValue;

fn not_available(error_class: &'static str, subject: &str) -> Result<String, ToolError> {
    Err(ToolError::coded(
        error_class,
        "INTERNAL",
        format!("{subject} not available in this build of agent-tools-native"),
    ))
}

pub fn apply_patch(_: &RunContext, _: &[ArgValue]) -> Result<String, ToolError> {
    Err(ToolError::bare(
        "ApplyPatchError",
        "INTERNAL",
        "apply_patch is not available in this build of agent-tools-native",
    ))
}

pub fn exec_command(_: &RunContext, _: &[ArgValue]) -> Result<String, ToolError> {
    not_available("ExecCommandError", "exec_command is")
}

pub fn ast_grep_search(_: &RunContext, _: &[ArgValue]) -> Result<String, ToolError> {
    not_available("AstGrepSearchError", "ast_grep_search is")
}

pub fn git_status_summary(_: &RunContext, _: &[ArgValue]) -> Result<String, ToolError> {
    not_available("GitStatusSummaryError", "git_status_summary is")
}

pub fn todo(_: &RunContext, _: &[ArgValue]) -> Result<String, ToolError> {
    not_available("TodoError", "the todo tools (task_*) are")
}
