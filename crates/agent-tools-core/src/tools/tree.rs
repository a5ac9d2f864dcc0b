//! tree (docs/tools/tree.md): a bounded, sorted directory tree. The walk opens every directory
//! relative to its parent without following symlinks, so a directory swapped for a symlink
//! during the walk cannot lead it outside the tree.

use crate::sys::{BorrowedFd, OwnedFd};
use std::ffi::OsStr;

use crate::sys::fs::{Dir, FileType};
use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::{boolean, integer_in, non_blank_string, one_of};
use super::input::{tool_input, Field, ToolInput};
use super::{glob_pattern_problem, nul_path_message, to_json, workspace_root};
use crate::context::RunContext;
use crate::error::{node_io_message, ErrorClass, ErrorCode, ToolError};
use crate::glob::Glob;
use crate::paths::workspace_relative;
use crate::value::ArgValue;

pub const ERROR_CLASS: ErrorClass = ErrorClass("TreeError");

/// The defaults of the options (in the definition and in `from_args`).
const DEFAULT_ENTRY_KIND: TreeEntryKind = TreeEntryKind::Directory;
const DEFAULT_MAX_DEPTH: u32 = 3;
const DEFAULT_MAX_ENTRIES: u32 = 100;

/// Names hidden at every depth, whatever their kind.
const DEFAULT_EXCLUDED: [&str; 7] = [
    ".git",
    "node_modules",
    "dist",
    "build",
    "target",
    ".vscode",
    ".DS_Store",
];

// Which entries tree lists besides directories.
#[derive(JsonSchema, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typegen", derive(TS))]
pub enum TreeEntryKind {
    Directory,
    All,
}

// tree's input: `tree(path, options?)`.
#[tool_input(
    name = "tree",
    description = "Returns a workspace tree: directories only or directories with files.",
    effect = Read,
    class = ERROR_CLASS,
    output = TreeOutput,
    handler = Worker(run),
    shape = PathAndOptions
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TreeInput {
    #[arg(check = non_blank_string)]
    #[schemars(description = "Directory path in workspace.")]
    pub path: String,
    #[arg(flatten)]
    pub options: TreeOptions,
}

// tree's `options`, defaults applied.
#[tool_input]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TreeOptions {
    #[arg(check = one_of(ENTRY_KINDS), default = DEFAULT_ENTRY_KIND)]
    #[schemars(description = "Node types to include (default: directory).")]
    pub entry_kind: TreeEntryKind,
    #[arg(check = integer_in(0.0..=12.0), default = DEFAULT_MAX_DEPTH, schema = f64)]
    #[schemars(description = "Maximum traversal depth (default: 3).")]
    pub max_depth: u32,
    #[arg(check = integer_in(1.0..=1000.0), default = DEFAULT_MAX_ENTRIES, schema = f64)]
    #[schemars(description = "Maximum node count (default: 100).")]
    pub max_entries: u32,
    #[arg(check = boolean, default = false)]
    #[schemars(description = "Include dot-prefixed entries (default: false).")]
    pub include_hidden: bool,
    // Checked as glob patterns after the path (`check_exclude_pattern`), as upstream does.
    #[arg(check = string_array, optional)]
    #[schemars(description = "Glob patterns to exclude paths.")]
    pub exclude: Vec<String>,
}

const ENTRY_KINDS: &[(&str, TreeEntryKind)] = &[
    ("directory", TreeEntryKind::Directory),
    ("all", TreeEntryKind::All),
];

/// `exclude`: absent is none; otherwise an array of strings.
fn string_array(f: Field<Vec<String>>) -> Result<Vec<String>, ToolError> {
    match f.value {
        ArgValue::Undefined => Ok(Vec::new()),
        ArgValue::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| f.must("contain only strings")),
        _ => Err(f.must("be a string array")),
    }
}

macro_rules! literal_kind {
    ($name:ident, $value:literal) => {
        #[derive(Serialize, Debug, Clone, Copy)]
        #[cfg_attr(feature = "typegen", derive(TS))]
        pub enum $name {
            #[serde(rename = $value)]
            #[cfg_attr(feature = "typegen", ts(rename = $value))]
            Kind,
        }
    };
}
literal_kind!(DirectoryKind, "directory");
literal_kind!(FileKind, "file");
literal_kind!(SymlinkKind, "symlink");

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TreeDirectoryNode {
    pub kind: DirectoryKind,
    pub name: String,
    pub path: String,
    pub depth: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub children: Option<Vec<TreeEntry>>,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TreeFileNode {
    pub kind: FileKind,
    pub name: String,
    pub path: String,
    pub depth: u32,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TreeSymlinkNode {
    pub kind: SymlinkKind,
    pub name: String,
    pub path: String,
    pub depth: u32,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
#[serde(untagged)]
pub enum TreeEntry {
    Directory(TreeDirectoryNode),
    File(TreeFileNode),
    Symlink(TreeSymlinkNode),
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TreeOutput {
    pub root: TreeDirectoryNode,
    pub limit_reached: bool,
    pub scanned_entries: u32,
    pub total_dirs: u32,
    pub total_files: u32,
    pub total_symlinks: u32,
}

/// Upstream's late exclude-pattern check; its errors surface double-prefixed as INTERNAL.
fn check_exclude_pattern(pattern: &str) -> Result<(), ToolError> {
    match glob_pattern_problem(pattern) {
        Some(tail) => Err(ERROR_CLASS.coded(
            ErrorCode::Internal,
            format!("INVALID_ARGUMENT: exclude {tail}"),
        )),
        None => Ok(()),
    }
}

/// The handler: parses its arguments, then `walk`s.
pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    walk(rc, TreeInput::from_args(args, rc.ctx)?)
}

pub fn walk(rc: &RunContext, input: TreeInput) -> Result<String, ToolError> {
    let TreeInput { path, options } = input;
    let path = path.as_str();
    let root = workspace_root(rc, ERROR_CLASS)?;
    if path.contains('\0') {
        return Err(ERROR_CLASS.coded(ErrorCode::Internal, nul_path_message(path)));
    }
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(ERROR_CLASS.coded(
                ErrorCode::NotDirectory,
                format!("path is not a directory: {path}"),
            ))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ERROR_CLASS.coded(ErrorCode::NotFound, format!("path not found: {path}")))
        }
        Err(e) => {
            return Err(ERROR_CLASS.coded(ErrorCode::Internal, node_io_message(&e, "lstat", path)))
        }
    }
    for pattern in &options.exclude {
        check_exclude_pattern(pattern)?;
    }
    let globs: Vec<Glob> = options.exclude.iter().map(|p| Glob::new(p)).collect();

    let dir = open_dir(None, OsStr::new(path), path)?;
    rc.confine(&dir, path, ERROR_CLASS)?;
    let rel = workspace_relative(root, path);
    let name = if rel == "." {
        ".".to_string()
    } else {
        path.rsplit(['/', '\\'])
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let mut walk = Walk {
        options: &options,
        globs: &globs,
        root,
        scanned: 1,
        dirs: 1,
        files: 0,
        symlinks: 0,
        limit: options.max_entries <= 1,
    };
    let mut root_node = directory_node(name, rel, 0);
    if !walk.limit {
        walk.visit(&mut root_node, dir, path)?;
    }
    to_json(
        &TreeOutput {
            root: root_node,
            limit_reached: walk.limit,
            scanned_entries: walk.scanned,
            total_dirs: walk.dirs,
            total_files: walk.files,
            total_symlinks: walk.symlinks,
        },
        ERROR_CLASS,
    )
}

fn directory_node(name: String, path: String, depth: u32) -> TreeDirectoryNode {
    TreeDirectoryNode {
        kind: DirectoryKind::Kind,
        name,
        path,
        depth,
        truncated: None,
        children: None,
    }
}

/// Opens a directory (relative to `parent` when given) without following a final symlink.
fn open_dir(parent: Option<BorrowedFd>, name: &OsStr, abs: &str) -> Result<OwnedFd, ToolError> {
    crate::sandbox::open_dir_at(parent, name).map_err(|e| {
        ERROR_CLASS.coded(
            ErrorCode::Internal,
            node_io_message(&e.into(), "scandir", abs),
        )
    })
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Directory,
    File,
    Symlink,
}

struct Walk<'a> {
    options: &'a TreeOptions,
    globs: &'a [Glob],
    root: &'a str,
    scanned: u32,
    dirs: u32,
    files: u32,
    symlinks: u32,
    limit: bool,
}

impl Walk<'_> {
    fn visit(
        &mut self,
        node: &mut TreeDirectoryNode,
        dir: OwnedFd,
        abs: &str,
    ) -> Result<(), ToolError> {
        if self.limit {
            return Ok(());
        }
        if node.depth >= self.options.max_depth {
            node.truncated = Some(true);
            return Ok(());
        }
        // The stream reads through the descriptor itself (no reopen of `.`); children are opened
        // relative to it once all entries are read.
        let io_fail = |e: crate::sys::Errno| {
            ERROR_CLASS.coded(
                ErrorCode::Internal,
                node_io_message(&e.into(), "scandir", abs),
            )
        };
        let mut stream = Dir::new(dir).map_err(io_fail)?;
        let mut entries = self.read_entries(&mut stream, abs)?;
        let dir = stream.fd().map_err(io_fail)?;
        entries.sort_by(|a, b| {
            a.1.cmp(&b.1)
                .then_with(|| a.0.encode_utf16().cmp(b.0.encode_utf16()))
        });
        let mut children = Vec::new();
        for (name, kind) in entries {
            if self.limit || self.scanned >= self.options.max_entries {
                self.limit = true;
                break;
            }
            self.scanned += 1;
            match kind {
                Kind::Directory => self.dirs += 1,
                Kind::File => self.files += 1,
                Kind::Symlink => self.symlinks += 1,
            }
            if self.scanned >= self.options.max_entries {
                self.limit = true;
            }
            let child_abs = format!("{abs}/{name}");
            let rel = workspace_relative(self.root, &child_abs);
            let depth = node.depth + 1;
            children.push(match kind {
                Kind::Directory => {
                    let mut child = directory_node(name.clone(), rel, depth);
                    if !self.limit {
                        let fd = open_dir(Some(dir), OsStr::new(&name), &child_abs)?;
                        self.visit(&mut child, fd, &child_abs)?;
                    }
                    TreeEntry::Directory(child)
                }
                Kind::File => TreeEntry::File(TreeFileNode {
                    kind: FileKind::Kind,
                    name,
                    path: rel,
                    depth,
                }),
                Kind::Symlink => TreeEntry::Symlink(TreeSymlinkNode {
                    kind: SymlinkKind::Kind,
                    name,
                    path: rel,
                    depth,
                }),
            });
        }
        if !children.is_empty() {
            node.children = Some(children);
        }
        Ok(())
    }

    /// The kept entries of one directory: name and kind, filtered as upstream does.
    fn read_entries(&self, stream: &mut Dir, abs: &str) -> Result<Vec<(String, Kind)>, ToolError> {
        let io_fail = |e: crate::sys::Errno| {
            ERROR_CLASS.coded(
                ErrorCode::Internal,
                node_io_message(&e.into(), "scandir", abs),
            )
        };
        let listed = crate::sandbox::read_entries(stream, |raw| {
            (self.options.include_hidden || !raw.starts_with(b"."))
                && !DEFAULT_EXCLUDED.iter().any(|n| n.as_bytes() == raw)
        })
        .map_err(io_fail)?;
        let mut out = Vec::new();
        for (raw, file_type) in listed {
            let name = String::from_utf8_lossy(&raw).into_owned();
            let kind = match file_type {
                FileType::Directory => Kind::Directory,
                FileType::RegularFile => Kind::File,
                FileType::Symlink => Kind::Symlink,
                _ => continue,
            };
            if self.options.entry_kind != TreeEntryKind::All && kind != Kind::Directory {
                continue;
            }
            if !self.globs.is_empty() {
                let rel = workspace_relative(self.root, &format!("{abs}/{name}"));
                let with_slash = format!("{rel}/");
                if self
                    .globs
                    .iter()
                    .any(|g| g.is_match(&rel) || g.is_match(&with_slash))
                {
                    continue;
                }
            }
            out.push((name, kind));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ToolContext;
    use serde_json::{json, Value};
    use std::fs;

    /// Upstream's verified fixture.
    fn fixture() -> (tempfile::TempDir, ToolContext) {
        let (dir, ctx) = super::super::temp_workspace();
        let root = ctx.workspace_root.clone().unwrap();
        for d in [
            "src/logs/deep/deeper/deepest",
            "src/empty",
            "B",
            "a",
            "node_modules/x",
            ".hidden/in",
        ] {
            fs::create_dir_all(format!("{root}/{d}")).unwrap();
        }
        for f in [
            "src/a.log",
            "src/main.ts",
            "build",
            "Zeta.txt",
            "alpha.txt",
            "src/logs/x.log",
            ".env",
        ] {
            fs::write(format!("{root}/{f}"), "x").unwrap();
        }
        crate::sys::symlink("/etc", format!("{root}/etc-link")).unwrap();
        crate::sys::symlink(format!("{root}/missing"), format!("{root}/dangling")).unwrap();
        #[cfg(target_os = "linux")]
        rustix::fs::mknodat(
            rustix::fs::CWD,
            format!("{root}/fifo").as_str(),
            FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        // macOS has neither mknodat nor mkfifoat (Windows has no FIFOs)
        #[cfg(all(unix, not(target_os = "linux")))]
        assert!(std::process::Command::new("mkfifo")
            .arg(format!("{root}/fifo"))
            .status()
            .unwrap()
            .success());
        (dir, ctx)
    }

    fn tree(ctx: &ToolContext, path: &str, options: Value) -> Result<Value, ToolError> {
        let rc = RunContext {
            ctx,
            confinement: None,
        };
        let abs = format!("{}/{path}", ctx.workspace_root.as_ref().unwrap());
        let abs = crate::paths::absolute(&abs);
        run(&rc, &[abs.as_str().into(), ArgValue::from(&options)])
            .map(|s| serde_json::from_str(&s).unwrap())
    }

    fn outline(node: &Value, out: &mut Vec<String>) {
        let mut line = format!(
            "{} {} ({}) d{}",
            node["kind"].as_str().unwrap(),
            node["name"].as_str().unwrap(),
            node["path"].as_str().unwrap(),
            node["depth"]
        );
        if node.get("truncated").is_some() {
            line.push_str(" truncated");
        }
        out.push(line);
        for c in node["children"].as_array().into_iter().flatten() {
            outline(c, out);
        }
    }

    #[test]
    fn default_tree_lists_directories() {
        let (_d, ctx) = fixture();
        let out = tree(&ctx, ".", json!({})).unwrap();
        let mut lines = Vec::new();
        outline(&out["root"], &mut lines);
        assert_eq!(
            lines,
            [
                "directory . (.) d0",
                "directory B (B) d1",
                "directory a (a) d1",
                "directory src (src) d1",
                "directory empty (src/empty) d2",
                "directory logs (src/logs) d2",
                "directory deep (src/logs/deep) d3 truncated",
            ]
        );
        assert_eq!(
            (
                out["limit_reached"].clone(),
                out["scanned_entries"].clone(),
                out["total_dirs"].clone(),
                out["total_files"].clone(),
                out["total_symlinks"].clone()
            ),
            (json!(false), json!(7), json!(7), json!(0), json!(0))
        );
        assert!(
            out["root"]["children"][0].get("children").is_none(),
            "empty B has no children key"
        );
    }

    #[test]
    #[cfg_attr(
        windows,
        ignore = "wine 8's CreateSymbolicLinkW is a stub (reports success, creates nothing): needs real Windows with the symlink privilege"
    )]
    fn all_kinds_at_depth_one() {
        let (_d, ctx) = fixture();
        let out = tree(&ctx, ".", json!({"entry_kind": "all", "max_depth": 1})).unwrap();
        let names: Vec<&str> = out["root"]["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "B",
                "a",
                "src",
                "Zeta.txt",
                "alpha.txt",
                "dangling",
                "etc-link"
            ]
        );
        assert_eq!(out["scanned_entries"], 8);
        assert_eq!(
            (
                out["total_dirs"].clone(),
                out["total_files"].clone(),
                out["total_symlinks"].clone()
            ),
            (json!(4), json!(2), json!(2))
        );
        let out = tree(
            &ctx,
            ".",
            json!({"entry_kind": "all", "max_depth": 1, "include_hidden": true}),
        )
        .unwrap();
        assert_eq!(out["scanned_entries"], 10);
        let out = tree(&ctx, ".", json!({"entry_kind": "all", "max_entries": 3})).unwrap();
        let names: Vec<&str> = out["root"]["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["B", "a"]);
        assert_eq!(
            (out["limit_reached"].clone(), out["scanned_entries"].clone()),
            (json!(true), json!(3))
        );
    }

    #[test]
    fn subdirectory_and_excludes_are_workspace_relative() {
        let (_d, ctx) = fixture();
        let out = tree(
            &ctx,
            "src",
            json!({"entry_kind": "all", "max_depth": 5, "exclude": ["logs"]}),
        )
        .unwrap();
        assert_eq!(out["root"]["name"], "src");
        assert_eq!(out["root"]["path"], "src");
        let names: Vec<&str> = out["root"]["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["empty", "logs", "a.log", "main.ts"]);
        let out = tree(
            &ctx,
            "src",
            json!({"entry_kind": "all", "exclude": ["src/logs", "**/*.log"]}),
        )
        .unwrap();
        let names: Vec<&str> = out["root"]["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["empty", "main.ts"]);
        let out = tree(
            &ctx,
            ".",
            json!({"entry_kind": "all", "max_depth": 1, "exclude": ["*/"]}),
        )
        .unwrap();
        assert!(out["root"].get("children").is_none());
    }

    #[test]
    fn limits_and_depth_zero() {
        let (_d, ctx) = fixture();
        let out = tree(&ctx, ".", json!({"max_depth": 0})).unwrap();
        assert_eq!(out["root"]["truncated"], true);
        assert_eq!(out["scanned_entries"], 1);
        let out = tree(&ctx, ".", json!({"max_entries": 1})).unwrap();
        assert_eq!(out["limit_reached"], true);
        assert!(out["root"].get("truncated").is_none());
    }

    #[test]
    fn validation_and_errors() {
        let (_d, ctx) = fixture();
        let root = ctx.workspace_root.clone().unwrap();
        let cases = [
            (
                json!({"entry_kind": "files"}),
                "INVALID_ARGUMENT: entry_kind must be \"directory\" or \"all\"",
            ),
            (
                json!({"max_depth": 13}),
                "INVALID_ARGUMENT: max_depth must be an integer between 0 and 12",
            ),
            (
                json!({"max_entries": 0}),
                "INVALID_ARGUMENT: max_entries must be an integer between 1 and 1000",
            ),
            (
                json!({"include_hidden": "yes"}),
                "INVALID_ARGUMENT: include_hidden must be a boolean",
            ),
            (
                json!({"exclude": null}),
                "INVALID_ARGUMENT: exclude must be a string array",
            ),
            (
                json!({"exclude": [1]}),
                "INVALID_ARGUMENT: exclude must contain only strings",
            ),
            (
                json!({"exclude": [""]}),
                "INTERNAL: INVALID_ARGUMENT: exclude must not contain empty pattern",
            ),
            (
                json!({"exclude": ["a[b"]}),
                "INTERNAL: INVALID_ARGUMENT: exclude pattern has unbalanced square brackets",
            ),
            (
                json!({"exclude": ["a}{"]}),
                "INTERNAL: INVALID_ARGUMENT: exclude pattern has unbalanced braces",
            ),
        ];
        for (options, message) in cases {
            assert_eq!(tree(&ctx, ".", options).unwrap_err().message, message);
        }
        assert_eq!(
            tree(&ctx, "Zeta.txt", json!({})).unwrap_err().message,
            format!(
                "NOT_DIRECTORY: path is not a directory: {}",
                std::path::Path::new(&root).join("Zeta.txt").display()
            )
        );
        assert_eq!(
            tree(&ctx, "nope", json!({"exclude": [""]}))
                .unwrap_err()
                .code,
            "NOT_FOUND"
        );
        let rc = RunContext {
            ctx: &ctx,
            confinement: None,
        };
        assert_eq!(
            run(&rc, &[root.as_str().into(), ArgValue::Null])
                .unwrap_err()
                .message,
            "INTERNAL: null is not an object (evaluating 'options.entry_kind')"
        );
    }

    #[test]
    #[cfg_attr(
        windows,
        ignore = "wine 8's CreateSymbolicLinkW is a stub (reports success, creates nothing): needs real Windows with the symlink privilege"
    )]
    fn a_symlink_as_the_root_is_not_a_directory() {
        let (_d, ctx) = fixture();
        assert_eq!(
            tree(&ctx, "etc-link", json!({})).unwrap_err().code,
            "NOT_DIRECTORY"
        );
    }

    #[test]
    fn hidden_root_is_listed() {
        let (_d, ctx) = fixture();
        let out = tree(&ctx, ".hidden", json!({})).unwrap();
        assert_eq!(out["root"]["children"][0]["name"], "in");
    }

    #[test]
    fn code_unit_order_is_case_sensitive() {
        let (_dir, ctx) = super::super::temp_workspace();
        let root = ctx.workspace_root.clone().unwrap();
        for f in ["a-file.txt", "z-file.txt", "B", "Zeta"] {
            fs::write(format!("{root}/{f}"), "").unwrap();
        }
        let out = tree(&ctx, ".", json!({"entry_kind": "all"})).unwrap();
        let names: Vec<&str> = out["root"]["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["B", "Zeta", "a-file.txt", "z-file.txt"]);
    }
}
