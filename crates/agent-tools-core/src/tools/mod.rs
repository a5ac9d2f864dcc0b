//! One module per tool. A handler takes the raw positional arguments (as upstream's raw
//! handler does), parses them into the tool's input type with upstream's checks in upstream's
//! order (`input::ToolInput`), and returns its output as JSON text.

pub mod apply_patch;
pub mod apply_patches;
pub mod ast_grep_search;
pub mod checkpoint;
pub mod edit_file;
pub mod exec_command;
pub mod find_files;
pub mod git_status_summary;
pub mod process;
pub mod read_file;
pub mod regexp_search;
pub mod todo;
pub mod tree;
pub mod write_file;

mod args;
pub mod input;
mod json;

pub(crate) use crate::file_read::read_sized;
pub(crate) use args::{glob_pattern_problem, nul_path_message, workspace_root};
pub(crate) use json::{js_number, to_json};

/// A fresh temporary workspace (real path, allow-all policy) for unit tests.
#[cfg(test)]
pub(crate) fn temp_workspace() -> (tempfile::TempDir, super::context::ToolContext) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir
        .path()
        .canonicalize()
        .map(crate::sys::plain_path)
        .expect("a real path")
        .to_string_lossy()
        .into_owned();
    (dir, super::context::ToolContext::allow_all(&root))
}
