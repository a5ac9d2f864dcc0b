//! find_files (docs/tools/find_files.md), an opt-in tool: the workspace's files whose path
//! matches a glob, newest first. `.gitignore` files (and `.git/info/exclude`) are honoured, the
//! directories regexp_search never enters are skipped, hidden entries only on request, symlinks
//! never followed nor listed.

use crate::sys::OwnedFd;
use std::path::{Path, PathBuf};

use crate::sys::fs::{AtFlags, Dir, FileType, Mode, OFlags};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::{boolean, integer_in, non_blank_string, non_empty_string};
use super::input::{tool_input, Field, ToolInput};
use super::{glob_pattern_problem, to_json, workspace_root};
use crate::context::RunContext;
use crate::error::{node_io_message, ErrorClass, ToolError};
use crate::glob::Glob;
use crate::paths::workspace_relative;
use crate::sandbox::{open_dir_at, read_entries, Confinement};
use crate::value::ArgValue;

pub const ERROR_CLASS: ErrorClass = ErrorClass("FindFilesError");

/// Directory names never entered (as regexp_search).
const SKIPPED_DIRECTORIES: [&str; 6] =
    [".git", "node_modules", "dist", "build", "target", ".vscode"];
/// Entries looked at before the walk gives up and reports `truncated`.
const MAX_VISITED: usize = 200_000;
/// The default of `max_results` (in the definition and in `from_args`).
const DEFAULT_MAX_RESULTS: u32 = 100;

// find_files's input: `find_files(input)`, checked, with defaults applied.
#[tool_input(
    name = "find_files",
    description = "Finds workspace files whose path matches a glob, newest first, honouring .gitignore.",
    effect = Read,
    class = ERROR_CLASS,
    output = FindFilesOutput,
    handler = Worker(run),
    opt_in,
    shape = Object,
    sandboxed = root_path,
    object = plain
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct FindFilesInput {
    #[arg(check = glob_pattern)]
    #[schemars(
        description = "Glob pattern: *, ?, **, [abc], {a,b} (e.g., \"*.rs\" or \"src/**/*.ts\")."
    )]
    pub pattern: String,
    #[arg(check = root_path_or_set_workspace, optional)]
    #[schemars(
        description = "Workspace-root-relative directory to search (default: the workspace root)."
    )]
    pub root_path: String,
    #[arg(check = boolean, default = false)]
    #[schemars(description = "Include hidden files and directories (default: false).")]
    pub include_hidden: bool,
    #[arg(check = integer_in(1.0..=1000.0), default = DEFAULT_MAX_RESULTS, schema = f64)]
    #[schemars(description = "Maximum number of files to return, 1-1000 (default: 100).")]
    pub max_results: usize,
}

/// `pattern`: a non-empty, plausible glob.
fn glob_pattern(f: Field<String>) -> Result<String, ToolError> {
    let pattern = non_empty_string(f.clone())?;
    match glob_pattern_problem(&pattern) {
        Some(problem) => Err(f.error(problem)),
        None => Ok(pattern),
    }
}

/// `root_path`: the workspace root (which must be set) when absent, else a non-blank string.
fn root_path_or_set_workspace(f: Field<String>) -> Result<String, ToolError> {
    let workspace = f.ctx.root().map_err(|m| ERROR_CLASS.internal(m))?;
    match f.value {
        v if v.is_nullish() => Ok(workspace.to_string()),
        _ => non_blank_string(f),
    }
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

/// The handler: parses its arguments, then `find`s.
pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    find(rc, FindFilesInput::from_args(args, rc.ctx)?)
}

/// `find_files({ pattern, root_path?, include_hidden?, max_results? })`.
pub fn find(rc: &RunContext, input: FindFilesInput) -> Result<String, ToolError> {
    let FindFilesInput {
        pattern,
        root_path,
        include_hidden,
        max_results,
    } = input;
    let workspace = workspace_root(rc, ERROR_CLASS)?;
    super::args::require_root_directory(&root_path, ERROR_CLASS)?;
    let root_dir = crate::sys::fs::open(
        root_path.as_str(),
        OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| ERROR_CLASS.internal(node_io_message(&e.into(), "scandir", &root_path)))?;
    rc.confine(&root_dir, &root_path, ERROR_CLASS)?;

    // a pattern without `/` matches a file name at any depth; with one, the path under root_path
    let mut walk = Walk {
        glob: Glob::new(&pattern),
        by_name: !pattern.contains('/'),
        include_hidden,
        confinement: rc.confinement.as_ref(),
        root_path: &root_path,
        workspace,
        found: Vec::new(),
        visited: 0,
        truncated: false,
    };
    walk.run(root_dir);
    let Walk {
        mut found,
        mut truncated,
        ..
    } = walk;
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

/// The walk, by descriptor: each directory is opened relative to its parent's descriptor without
/// following a symlink ([`open_dir_at`]) and each file's size and time come from an `lstat`
/// relative to its directory's descriptor, so a directory swapped for a symlink during the walk
/// cannot lead it outside the tree the checked root descriptor holds. What it lists and counts
/// is what the `ignore` crate's walk (`.gitignore` and `.git/info/exclude` of every directory
/// from the root down, hidden names unless whitelisted, symlinks not followed) yields, in the
/// same depth-first order, and it builds its ignore rules with that crate's `gitignore` module.
struct Walk<'a> {
    glob: Glob,
    by_name: bool,
    include_hidden: bool,
    confinement: Option<&'a Confinement>,
    root_path: &'a str,
    workspace: &'a str,
    found: Vec<FindFilesItem>,
    /// Entries (and unreadable directories) met so far, as the `ignore` walk yields them.
    visited: usize,
    truncated: bool,
}

/// One directory being walked: its stream, the entries left, and the rules its ignore files add.
struct Frame {
    stream: Dir,
    entries: std::vec::IntoIter<(Vec<u8>, FileType)>,
    path: PathBuf,
    /// Root-relative path (`None` when not UTF-8: nothing below is listed).
    rel: Option<String>,
    gitignore: Gitignore,
    exclude: Gitignore,
}

impl Walk<'_> {
    /// Counts one yielded item; false once the walk is over its budget.
    fn count(&mut self) -> bool {
        self.visited += 1;
        if self.visited > MAX_VISITED {
            self.truncated = true;
        }
        !self.truncated
    }

    fn run(&mut self, root_dir: OwnedFd) {
        // the root itself
        if !self.count() {
            return;
        }
        let mut stack: Vec<Frame> = Vec::new();
        let root_path = PathBuf::from(self.root_path);
        if let Some(frame) = self.enter(root_dir, root_path, Some(String::new())) {
            stack.push(frame);
        }
        while let Some(frame) = stack.last_mut() {
            let Some((name, file_type)) = frame.entries.next() else {
                stack.pop();
                continue;
            };
            let name = crate::sys::name_from_bytes(&name);
            let path = frame.path.join(name);
            let is_dir = file_type == FileType::Directory;
            let ignored = match matched(&stack, &path, is_dir) {
                Match::Ignore(_) => true,
                Match::Whitelist(_) => false,
                Match::None => {
                    !self.include_hidden && crate::sys::name_bytes(name).starts_with(b".")
                }
            };
            if ignored
                || (is_dir
                    && name
                        .to_str()
                        .is_some_and(|n| SKIPPED_DIRECTORIES.contains(&n)))
            {
                continue;
            }
            if !self.count() {
                return;
            }
            let Some(frame) = stack.last() else { break };
            let rel = frame.rel.as_ref().and_then(|dir_rel| {
                let name = name.to_str()?;
                Some(if dir_rel.is_empty() {
                    name.to_string()
                } else {
                    format!("{dir_rel}/{name}")
                })
            });
            match file_type {
                FileType::Directory => {
                    let Ok(parent) = frame.stream.fd() else {
                        continue;
                    };
                    match open_dir_at(Some(parent), name) {
                        Ok(dir) => {
                            if let Some(child) = self.enter(dir, path, rel) {
                                stack.push(child);
                            }
                        }
                        // the walk yields an error for a directory it cannot read
                        Err(_) => {
                            if !self.count() {
                                return;
                            }
                        }
                    }
                }
                FileType::RegularFile => {
                    let Some(rel) = rel else { continue };
                    let candidate = if self.by_name {
                        name.to_str().unwrap_or_default()
                    } else {
                        rel.as_str()
                    };
                    if !self.glob.is_match(candidate) {
                        continue;
                    }
                    let Ok(dir) = frame.stream.fd() else { continue };
                    let Ok(st) = crate::sys::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
                    else {
                        continue;
                    };
                    // replaced since the listing: only regular files are listed
                    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
                        continue;
                    }
                    self.found.push(FindFilesItem {
                        path: workspace_relative(
                            self.workspace,
                            &Path::new(self.root_path).join(&rel).to_string_lossy(),
                        ),
                        size: st.st_size as u64,
                        mtime_ms: st.st_mtime as f64 * 1000.0
                            + (st.st_mtime_nsec / 1_000_000) as f64,
                    });
                }
                _ => {}
            }
        }
    }

    /// Reads a directory the walk enters: its ignore files, then its entries. `None` (the error
    /// counted) when it cannot be listed.
    fn enter(&mut self, dir: OwnedFd, path: PathBuf, rel: Option<String>) -> Option<Frame> {
        let gitignore = self.ignore_file(&dir, &path, ".gitignore");
        let exclude = self.git_exclude(&dir, &path);
        let listed = Dir::new(dir).and_then(|mut stream| {
            let entries = read_entries(&mut stream, |_| true)?;
            Ok((stream, entries))
        });
        match listed {
            Ok((stream, entries)) => Some(Frame {
                stream,
                entries: entries.into_iter(),
                path,
                rel,
                gitignore,
                exclude,
            }),
            Err(_) => {
                self.count();
                None
            }
        }
    }

    /// The rules of the ignore file `name` (a path below `dir`) of the directory at `path`; none
    /// when it is missing, unreadable, or (confined) outside the workspace.
    fn ignore_file(&self, dir: &OwnedFd, path: &Path, name: &str) -> Gitignore {
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let Ok(fd) = crate::sys::fs::openat(dir, name, flags, Mode::empty()) else {
            return Gitignore::empty();
        };
        if self.confinement.is_some_and(|c| !c.contains_fd(&fd)) {
            return Gitignore::empty();
        }
        gitignore_rules(std::fs::File::from(fd), path, &path.join(name))
    }

    /// The rules of `.git/info/exclude` when the directory at `path` has a `.git`: below `dir`,
    /// or, when `.git` is a file naming the repository's directory (a worktree), in that
    /// repository's common directory. That one is read by the path the workspace's own `.git`
    /// file names: it is the repository's metadata, often outside the workspace, and only
    /// decides which workspace files are left out.
    fn git_exclude(&self, dir: &OwnedFd, path: &Path) -> Gitignore {
        let Ok(git) = crate::sys::fs::statat(dir, ".git", AtFlags::empty()) else {
            return Gitignore::empty();
        };
        if FileType::from_raw_mode(git.st_mode) != FileType::RegularFile {
            return self.ignore_file(dir, path, ".git/info/exclude");
        }
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let Ok(fd) = crate::sys::fs::openat(dir, ".git", flags, Mode::empty()) else {
            return Gitignore::empty();
        };
        if self.confinement.is_some_and(|c| !c.contains_fd(&fd)) {
            return Gitignore::empty();
        }
        let Some(common) = git_common_dir(std::fs::File::from(fd)) else {
            return Gitignore::empty();
        };
        let exclude = common.join("info/exclude");
        match std::fs::File::open(&exclude) {
            Ok(file) => gitignore_rules(file, path, &exclude),
            Err(_) => Gitignore::empty(),
        }
    }
}

/// Whether the ignore rules of the directories on the stack (innermost first; `.gitignore` before
/// `.git/info/exclude`) ignore or whitelist `path`, as the `ignore` crate decides.
fn matched(stack: &[Frame], path: &Path, is_dir: bool) -> Match<()> {
    let first = |rules: fn(&Frame) -> &Gitignore| {
        stack
            .iter()
            .rev()
            .map(|f| rules(f).matched(path, is_dir).map(|_| ()))
            .find(|m| !m.is_none())
            .unwrap_or(Match::None)
    };
    first(|f| &f.gitignore).or(first(|f| &f.exclude))
}

/// A gitignore file's rules for the directory at `root`, parsed as the `ignore` crate's
/// `GitignoreBuilder::add` does (a leading BOM dropped, reading stops at invalid UTF-8, bad
/// lines skipped); `from` names the file.
fn gitignore_rules(file: std::fs::File, root: &Path, from: &Path) -> Gitignore {
    use std::io::BufRead;
    let mut builder = GitignoreBuilder::new(root);
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let Ok(line) = line else { break };
        let line = if i == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            &line
        };
        let _ = builder.add_line(Some(from.to_path_buf()), line);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// The common directory of the repository a `.git` file (`gitdir: <dir>`) names, as the
/// `ignore` crate resolves it (`<dir>/commondir`, relative when it starts with `.`).
fn git_common_dir(dot_git: std::fs::File) -> Option<PathBuf> {
    use std::io::BufRead;
    let line = std::io::BufReader::new(dot_git).lines().next()?.ok()?;
    let git_dir = PathBuf::from(line.strip_prefix("gitdir: ")?);
    let commondir = std::fs::File::open(git_dir.join("commondir")).ok()?;
    let common = std::io::BufReader::new(commondir).lines().next()?.ok()?;
    Some(if common.starts_with('.') {
        git_dir.join(common)
    } else {
        PathBuf::from(common)
    })
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
        crate::sys::symlink(outside.path(), format!("{root}/out")).unwrap();
        crate::sys::symlink(outside.path().join("secret.rs"), format!("{root}/s.rs")).unwrap();
        fs::write(format!("{root}/mine.rs"), "x").unwrap();
        let out = find(&ctx, json!({"pattern": "*.rs"})).unwrap();
        assert_eq!(paths(&out), ["mine.rs"]);
    }

    /// The previous walk (the `ignore` crate's, by path), to check the descriptor walk lists and
    /// counts the same: (path under the root, size, mtime) of the files it yields, and how many
    /// entries it yields in all.
    fn by_path(root: &str, include_hidden: bool) -> (Vec<(String, u64, f64)>, usize) {
        let mut files = Vec::new();
        let mut visited = 0;
        let walker = ignore::WalkBuilder::new(root)
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
            let Ok(entry) = entry else { continue };
            if entry.file_type().is_some_and(|t| t.is_file()) {
                let meta = entry.metadata().unwrap();
                let rel = entry.path().strip_prefix(root).unwrap().to_str().unwrap();
                // the walk names files with `/` (workspace-relative), the ignore crate with the
                // host's separator
                let rel = if cfg!(windows) {
                    rel.replace('\\', "/")
                } else {
                    rel.to_string()
                };
                files.push((rel, meta.len(), {
                    let (secs, nanos) = crate::sys::mtime(&meta);
                    secs as f64 * 1000.0 + (nanos / 1_000_000) as f64
                }));
            }
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        (files, visited)
    }

    fn by_descriptor(root: &str, include_hidden: bool) -> (Vec<(String, u64, f64)>, usize) {
        let dir =
            crate::sys::fs::open(root, OFlags::DIRECTORY | OFlags::RDONLY, Mode::empty()).unwrap();
        let mut walk = Walk {
            glob: Glob::new("**"),
            by_name: false,
            include_hidden,
            confinement: None,
            root_path: root,
            workspace: root,
            found: Vec::new(),
            visited: 0,
            truncated: false,
        };
        walk.run(dir);
        let mut files: Vec<_> = walk
            .found
            .into_iter()
            .map(|i| (i.path, i.size, i.mtime_ms))
            .collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        (files, walk.visited)
    }

    #[test]
    fn the_descriptor_walk_lists_and_counts_what_the_ignore_walk_does() {
        compare_with_the_ignore_walk(false);
    }

    #[test]
    #[cfg_attr(
        windows,
        ignore = "wine 8's CreateSymbolicLinkW is a stub (reports success, creates nothing): needs real Windows with the symlink privilege"
    )]
    fn the_descriptor_walk_lists_and_counts_symlinks_as_the_ignore_walk_does() {
        compare_with_the_ignore_walk(true);
    }

    /// Both walks over one fixture that meets every ignore rule, with a symlink to a directory
    /// and one to a file when `symlinks`: the same files, sizes and times, the same count of
    /// entries.
    fn compare_with_the_ignore_walk(symlinks: bool) {
        let (_d, ctx) = super::super::temp_workspace();
        let root = ctx.workspace_root.clone().unwrap();
        let put = |rel: &str, text: &str| {
            let path = format!("{root}/{rel}");
            fs::create_dir_all(Path::new(&path).parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        };
        for f in [
            "a.rs",
            "b.log",
            "keep.log",
            "src/c.rs",
            "src/d.tmp",
            "src/deep/e.rs",
            "src/deep/f.gen",
            "src/deep/keep.gen",
            ".hidden/h.rs",
            ".env",
            ".keep-me",
            "notes/x.md",
            "notes/sub/y.md",
            "node_modules/m.rs",
            "build/b.rs",
            "dir.rs/inner.rs",
            "excluded.txt",
            "sub/excluded.txt",
            "sub/.git/info/exclude",
            "sub/local.txt",
            "sub/only.txt",
            "wt/.gitignore",
            "wt/wt-excluded.txt",
            "wt/kept.txt",
            "bom/.gitignore",
            "bom/first.txt",
            "bom/second.txt",
            "bad/.gitignore",
            "bad/before.txt",
            "bad/after.txt",
        ] {
            put(f, f);
        }
        put(
            ".gitignore",
            "*.log\n!keep.log\n/notes/sub/\n!.keep-me\ndir.rs/\n# comment\n[\n",
        );
        put("src/.gitignore", "*.tmp\ndeep/*.gen\n!deep/keep.gen\n");
        put(".git/info/exclude", "excluded.txt\n");
        put("sub/.git/info/exclude", "local.txt\n");
        put("sub/.gitignore", "!only.txt\n");
        put("sub/.git/info/exclude", "local.txt\nonly.txt\n");
        // a worktree: `.git` is a file naming the repository's directory
        let gitdir = tempfile::tempdir().unwrap();
        let common = tempfile::tempdir().unwrap();
        fs::write(
            gitdir.path().join("commondir"),
            common.path().to_str().unwrap(),
        )
        .unwrap();
        fs::create_dir_all(common.path().join("info")).unwrap();
        fs::write(common.path().join("info/exclude"), "wt-excluded.txt\n").unwrap();
        put("wt/.git", &format!("gitdir: {}\n", gitdir.path().display()));
        put("bom/.gitignore", "\u{feff}first.txt\nsecond.txt\n");
        fs::write(
            format!("{root}/bad/.gitignore"),
            b"before.txt\n\xff\nafter.txt\n",
        )
        .unwrap();
        if symlinks {
            crate::sys::symlink("src", format!("{root}/srclink")).unwrap();
            crate::sys::symlink("a.rs", format!("{root}/a-link.rs")).unwrap();
            for link in ["srclink", "a-link.rs"] {
                let meta = fs::symlink_metadata(format!("{root}/{link}")).unwrap();
                assert!(meta.file_type().is_symlink(), "{link}");
            }
        }
        for hidden in [false, true] {
            let (expected, visited) = by_path(&root, hidden);
            // the fixture meets each rule: whitelists (also of a hidden name), nested and
            // anchored patterns, exclude files (a worktree's too), a BOM, invalid UTF-8
            let listed = |rel: &str| expected.iter().any(|f| f.0 == rel);
            for rel in [
                ".keep-me",
                "keep.log",
                "src/deep/keep.gen",
                "sub/only.txt",
                "bad/after.txt",
            ] {
                assert!(listed(rel), "{rel}");
            }
            for rel in [
                "b.log",
                "src/d.tmp",
                "src/deep/f.gen",
                "notes/sub/y.md",
                "dir.rs/inner.rs",
                "excluded.txt",
                "sub/excluded.txt",
                "sub/local.txt",
                "wt/wt-excluded.txt",
                "bom/first.txt",
                "bad/before.txt",
                "node_modules/m.rs",
            ] {
                assert!(!listed(rel), "{rel}");
            }
            if symlinks {
                assert!(!listed("srclink/c.rs") && !listed("a-link.rs"));
                assert!(listed("a.rs") && listed("src/c.rs"));
            }
            assert_eq!(listed(".hidden/h.rs"), hidden);
            assert_eq!(
                by_descriptor(&root, hidden),
                (expected, visited),
                "hidden {hidden}"
            );
            let (expected, visited) = by_path(&format!("{root}/src/"), hidden);
            assert_eq!(
                by_descriptor(&format!("{root}/src/"), hidden),
                (expected, visited)
            );
        }
    }

    /// The walk reads the tree its root descriptor holds: the root path is used only to name
    /// what it finds (here it names another directory, as after a swap).
    #[test]
    fn the_walk_reads_only_through_its_root_descriptor() {
        let (_d, ctx) = super::super::temp_workspace();
        let root = ctx.workspace_root.clone().unwrap();
        let other = tempfile::tempdir().unwrap();
        fs::create_dir_all(format!("{root}/sub")).unwrap();
        fs::write(format!("{root}/sub/mine.rs"), "x").unwrap();
        fs::write(other.path().join("SECRETNAME.rs"), "x").unwrap();
        let other_path = other.path().to_str().unwrap().to_string();
        let dir = crate::sys::fs::open(
            root.as_str(),
            OFlags::DIRECTORY | OFlags::RDONLY,
            Mode::empty(),
        )
        .unwrap();
        let mut walk = Walk {
            glob: Glob::new("*.rs"),
            by_name: true,
            include_hidden: false,
            confinement: None,
            root_path: &other_path,
            workspace: &other_path,
            found: Vec::new(),
            visited: 0,
            truncated: false,
        };
        walk.run(dir);
        let paths: Vec<&str> = walk.found.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(paths, ["sub/mine.rs"]);
        assert_eq!(walk.visited, 3);
    }
}
