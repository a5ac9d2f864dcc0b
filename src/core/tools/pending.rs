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

pub fn regexp_search(_: &RunContext, _: &[ArgValue]) -> Result<String, ToolError> {
    not_available("RegexpSearchError", "regexp_search is")
}
