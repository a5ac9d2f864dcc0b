//! find_files (docs/tools/find_files.md), an opt-in tool: the workspace's files whose path
//! matches a glob, newest first. `.gitignore` files (and `.git/info/exclude`) are honoured, the
//! directories regexp_search never enters are skipped, hidden entries only on request, symlinks
//! never followed nor listed.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use rustix::fs::{Mode, OFlags};
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::{glob_pattern_problem, integer_option, to_json, workspace_root};
use crate::context::RunContext;
use crate::error::{node_io_message, ErrorClass, ToolError};
use crate::glob::Glob;
use crate::paths::workspace_relative;
use crate::value::{js_trim, ArgValue};

pub const ERROR_CLASS: ErrorClass = ErrorClass("FindFilesError");

/// Directory names never entered (as regexp_search).
const SKIPPED_DIRECTORIES: [&str; 6] =
    [".git", "node_modules", "dist", "build", "target", ".vscode"];
/// Entries looked at before the walk gives up and reports `truncated`.
const MAX_VISITED: usize = 200_000;

#[cfg_attr(feature = "typegen", derive(TS))]
#[allow(dead_code)]
pub struct FindFilesInput {
    pub pattern: String,
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub root_path: Option<String>,
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub include_hidden: Option<bool>,
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub max_results: Option<f64>,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct FindFilesItem {
    pub path: String,
    pub size: u64,
    #[serde(serialize_with = "super::js_number")]
    pub mtime_ms: f64,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct FindFilesOutput {
    pub pattern: String,
    pub root_path: String,
    pub items: Vec<FindFilesItem>,
    pub total_matches: u64,
    pub truncated: bool,
}

/// `find_files({ pattern, root_path?, include_hidden?, max_results? })`.
pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    let input = args.first().unwrap_or(&ArgValue::Undefined);
    if !input.is_plain_object() {
        return Err(ERROR_CLASS.invalid("input must be an object"));
    }
    let pattern = match input.get("pattern") {
        ArgValue::String(p) if !p.is_empty() => p.clone(),
        _ => return Err(ERROR_CLASS.invalid("pattern must be a non-empty string")),
    };
    if let Some(problem) = glob_pattern_problem(&pattern) {
        return Err(ERROR_CLASS.invalid(format!("pattern {problem}")));
    }
    let workspace = workspace_root(rc, ERROR_CLASS)?;
    let root_path = match input.get("root_path") {
        v if v.is_nullish() => workspace.to_string(),
        ArgValue::String(p) if !js_trim(p).is_empty() => p.clone(),
        _ => return Err(ERROR_CLASS.invalid("root_path must be a non-empty string")),
    };
    let include_hidden = match input.get("include_hidden") {
        v if v.is_nullish() => false,
        ArgValue::Bool(b) => *b,
        _ => return Err(ERROR_CLASS.invalid("include_hidden must be a boolean")),
    };
    let max_results = integer_option(input.get("max_results"), 100.0, 1.0..=1000.0)
        .ok_or_else(|| ERROR_CLASS.invalid("max_results must be an integer between 1 and 1000"))?
        as usize;

    super::args::require_root_directory(&root_path, ERROR_CLASS)?;
    let root_dir = rustix::fs::open(
        root_path.as_str(),
        OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| ERROR_CLASS.internal(node_io_message(&e.into(), "scandir", &root_path)))?;
    if let Some(confinement) = &rc.confinement {
        if !confinement.contains_fd(&root_dir) {
            return Err(ERROR_CLASS.internal(format!(
                "[Sandbox Violation] Attempted to access path outside of workspace: \"{root_path}\""
            )));
        }
    }

    // a pattern without `/` matches a file name at any depth; with one, the path under root_path
    let glob = Glob::new(&pattern);
    let by_name = !pattern.contains('/');
    let mut found: Vec<FindFilesItem> = Vec::new();
    let mut visited = 0usize;
    let mut truncated = false;
    let walker = ignore::WalkBuilder::new(&root_path)
        .hidden(!include_hidden)
        .parents(false)
        .ignore(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            !(entry.depth() > 0
                && entry.file_type().is_some_and(|t| t.is_dir())
                && entry
                    .file_name()
                    .to_str()
                    .is_some_and(|n| SKIPPED_DIRECTORIES.contains(&n)))
        })
        .build();
    for entry in walker {
        visited += 1;
        if visited > MAX_VISITED {
            truncated = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(&root_path) else {
            continue;
        };
        let Some(relative) = relative.to_str() else {
            continue;
        };
        let candidate = if by_name {
            entry.file_name().to_str().unwrap_or_default()
        } else {
            relative
        };
        if !glob.is_match(candidate) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        found.push(FindFilesItem {
            path: workspace_relative(
                workspace,
                &Path::new(&root_path).join(relative).to_string_lossy(),
            ),
            size: meta.size(),
            mtime_ms: meta.mtime() as f64 * 1000.0 + (meta.mtime_nsec() / 1_000_000) as f64,
        });
    }
    // newest first; equal times by path, so the order is deterministic
    found.sort_by(|a, b| {
        b.mtime_ms
            .total_cmp(&a.mtime_ms)
            .then_with(|| a.path.cmp(&b.path))
    });
    let total_matches = found.len() as u64;
    if found.len() > max_results {
        found.truncate(max_results);
        truncated = true;
    }
    to_json(
        &FindFilesOutput {
            pattern,
            root_path: workspace_relative(workspace, &root_path),
            items: found,
            total_matches,
            truncated,
        },
        ERROR_CLASS,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ToolContext;
    use serde_json::{json, Value};
    use std::fs;

    fn find(ctx: &ToolContext, input: Value) -> Result<Value, ToolError> {
        let rc = RunContext {
            ctx,
            confinement: None,
        };
        run(&rc, &[ArgValue::from(&input)]).map(|s| serde_json::from_str(&s).unwrap())
    }

    fn paths(out: &Value) -> Vec<String> {
        out["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["path"].as_str().unwrap().to_string())
            .collect()
    }

    fn touch(path: &str, secs: i64) {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64);
        fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    #[test]
    fn newest_first_gitignore_hidden_and_skipped_directories() {
        let (_d, ctx) = super::super::temp_workspace();
        let root = ctx.workspace_root.clone().unwrap();
        for dir in ["src/a", "node_modules/x", ".hidden", "gen"] {
            fs::create_dir_all(format!("{root}/{dir}")).unwrap();
        }
        for (file, secs) in [
            ("src/old.rs", 1_000),
            ("src/a/new.rs", 3_000),
            ("src/mid.rs", 2_000),
            ("node_modules/x/dep.rs", 4_000),
            (".hidden/h.rs", 5_000),
            ("gen/out.rs", 6_000),
            ("src/readme.md", 7_000),
        ] {
            fs::write(format!("{root}/{file}"), "x").unwrap();
            touch(&format!("{root}/{file}"), secs);
        }
        fs::write(format!("{root}/.gitignore"), "gen/\n").unwrap();
        let out = find(&ctx, json!({"pattern": "*.rs"})).unwrap();
        assert_eq!(paths(&out), ["src/a/new.rs", "src/mid.rs", "src/old.rs"]);
        assert_eq!(out["truncated"], false);
        assert_eq!(out["total_matches"], 3);
        assert_eq!(out["items"][0]["mtime_ms"], 3_000_000);
        assert_eq!(out["items"][0]["size"], 1);
        let out = find(&ctx, json!({"pattern": "*.rs", "include_hidden": true})).unwrap();
        assert_eq!(paths(&out)[0], ".hidden/h.rs");
        let out = find(&ctx, json!({"pattern": "*.rs", "max_results": 2})).unwrap();
        assert_eq!(paths(&out), ["src/a/new.rs", "src/mid.rs"]);
        assert_eq!(out["truncated"], true);
        assert_eq!(out["total_matches"], 3);
        // a pattern with a slash is matched against the path under root_path
        let out = find(&ctx, json!({"pattern": "src/*.rs"})).unwrap();
        assert_eq!(paths(&out), ["src/mid.rs", "src/old.rs"]);
        let out = find(
            &ctx,
            json!({"pattern": "**/*.{rs,md}", "root_path": format!("{root}/src")}),
        )
        .unwrap();
        assert_eq!(out["root_path"], "src");
        assert_eq!(
            paths(&out),
            ["src/readme.md", "src/a/new.rs", "src/mid.rs", "src/old.rs"]
        );
    }

    #[test]
    fn errors() {
        let (_d, ctx) = super::super::temp_workspace();
        let root = ctx.workspace_root.clone().unwrap();
        fs::write(format!("{root}/f"), "x").unwrap();
        let err = |input: Value| find(&ctx, input).unwrap_err();
        assert_eq!(
            err(json!({})).message,
            "INVALID_ARGUMENT: pattern must be a non-empty string"
        );
        assert_eq!(
            err(json!({"pattern": "[a"})).message,
            "INVALID_ARGUMENT: pattern pattern has unbalanced square brackets"
        );
        assert_eq!(
            err(json!({"pattern": "*", "max_results": 0})).code,
            "INVALID_ARGUMENT"
        );
        assert_eq!(
            err(json!({"pattern": "*", "include_hidden": 1})).code,
            "INVALID_ARGUMENT"
        );
        assert_eq!(
            err(json!({"pattern": "*", "root_path": format!("{root}/none")})).code,
            "NOT_FOUND"
        );
        assert_eq!(
            err(json!({"pattern": "*", "root_path": format!("{root}/f")})).code,
            "NOT_DIRECTORY"
        );
    }

    #[test]
    fn symlinks_are_neither_followed_nor_listed() {
        let (_d, ctx) = super::super::temp_workspace();
        let root = ctx.workspace_root.clone().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.rs"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), format!("{root}/out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.rs"), format!("{root}/s.rs"))
            .unwrap();
        fs::write(format!("{root}/mine.rs"), "x").unwrap();
        let out = find(&ctx, json!({"pattern": "*.rs"})).unwrap();
        assert_eq!(paths(&out), ["mine.rs"]);
    }
}
