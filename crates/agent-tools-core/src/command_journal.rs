//! The undo journal's checkpoints of commands (exec_command and the process tools), which can
//! change anything in the write scope (`crate::checkpoints` keeps them).
//!
//! In a git work tree, the non-ignored files are snapshotted before the command into a tree of
//! git objects: a copy of the repository's index, `git add -A`, `git write-tree`, all in a
//! private directory outside the workspace (its own index and object directory, the
//! repository's objects read as alternates), so the repository's refs, index, `HEAD` and object
//! store are never touched. After the command a second snapshot and `git diff-tree` name the
//! files it created, modified or deleted; the contents from before of those files are checked
//! out of the first tree into the private directory and kept in the journal like any file
//! tool's, so the checkpoint restores exactly. git runs as git_status_summary's does
//! ([`crate::git::HardenedGit`]): no repository configuration, nothing outside the workspace,
//! the confined-program sandbox (writing only in its private directory). Line-ending and
//! encoding conversions are turned off for these runs (an `info/attributes` of the private
//! directory), so the snapshot holds the bytes on disk; where the repository may convert (a
//! `.gitattributes` file, `core.autocrlf`, `core.eol`), the index is not copied and every file is
//! hashed afresh.
//!
//! Outside a git work tree, the workspace is scanned (paths, sizes, modification times, modes;
//! `.gitignore` rules apply) before and after: the checkpoint names the changed files, and only
//! files the command created can be put back (removed); modified and deleted ones are recorded
//! as not restorable.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::checkpoints::{commit_captured, Captured, FileState, Store};
use crate::context::RunContext;
use crate::error::ToolError;
use crate::git::HardenedGit;
use crate::tools::exec_command::{run_git, GitRun};

/// Files a scan looks at, at most: a larger workspace gets no scan (and no checkpoint).
const MAX_SCANNED: usize = 200_000;
/// Changed files whose contents a checkpoint of a command keeps, at most.
const MAX_CHANGED: usize = 10_000;

/// The state of the workspace before a command.
pub enum Before {
    Git(Box<GitSnapshot>),
    Scan(HashMap<String, Seen>),
    /// Nothing could be taken (a workspace too large to scan): no checkpoint.
    Nothing,
}

/// A file as a scan saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    size: u64,
    mtime: (i64, i64),
    mode: u32,
    /// A symbolic link's target.
    link: Option<String>,
}

pub struct GitSnapshot {
    git: HardenedGit,
    /// The private snapshot directory (its index, objects and checked-out contents).
    work: PathBuf,
    tree: String,
}

/// The workspace's state before a command of the call `rc`.
pub fn before(rc: &RunContext, root: &Path) -> Before {
    if let Some(snapshot) = GitSnapshot::take(rc, root) {
        return Before::Git(Box::new(snapshot));
    }
    match scan(root) {
        Some(seen) => Before::Scan(seen),
        None => Before::Nothing,
    }
}

/// After the command: the checkpoint of what it changed, written to `store` as `tool`'s.
pub fn after(
    rc: &RunContext,
    store: &Store,
    tool: &str,
    before: Before,
) -> Result<Option<String>, ToolError> {
    let root = store.root().to_path_buf();
    let captured = match before {
        Before::Nothing => return Ok(None),
        Before::Git(snapshot) => match snapshot.changes(rc, &root) {
            Some(captured) => captured,
            None => return Ok(None),
        },
        Before::Scan(old) => {
            let Some(new) = scan(&root) else {
                return Ok(None);
            };
            scanned_changes(&root, &old, &new)
        }
    };
    commit_captured(store, tool, &root, captured, None, false)
}

impl GitSnapshot {
    /// The snapshot of the work tree holding the workspace root; `None` when there is none
    /// (not a repository, git missing, a repository reaching outside) or git failed.
    fn take(rc: &RunContext, root: &Path) -> Option<GitSnapshot> {
        let git = HardenedGit::prepare(rc.ctx, root).ok()?;
        let work = git.private_dir().join("snapshot");
        std::fs::create_dir_all(work.join("objects")).ok()?;
        let info = git.private_dir().join("info");
        std::fs::create_dir_all(&info).ok()?;
        let converts = may_convert(&git);
        // the bytes on disk, whatever the repository's attributes say
        std::fs::write(
            info.join("attributes"),
            "* -text -eol -crlf -ident -filter -working-tree-encoding\n",
        )
        .ok()?;
        let index = git.repository.git_dir.join("index");
        if !converts && index.is_file() {
            std::fs::copy(&index, work.join("index")).ok()?;
        }
        let mut snapshot = GitSnapshot {
            git,
            work,
            tree: String::new(),
        };
        snapshot.tree = snapshot.write_tree(rc)?;
        Some(snapshot)
    }

    /// `git <args>` with the snapshot's own index and object directory (the repository's
    /// objects as alternates); its output when it succeeded.
    fn run(&self, rc: &RunContext, args: &[&str], run: GitRun) -> Option<String> {
        self.run_on_index(rc, &self.work.join("index"), args, run)
    }

    fn run_on_index(
        &self,
        rc: &RunContext,
        index: &Path,
        args: &[&str],
        run: GitRun,
    ) -> Option<String> {
        let text = |p: &Path| p.to_string_lossy().into_owned();
        let (index, objects) = (text(index), text(&self.work.join("objects")));
        let alternates = text(&self.git.repository.objects_dir);
        let env = [
            ("GIT_INDEX_FILE", Some(index.as_str())),
            ("GIT_OBJECT_DIRECTORY", Some(objects.as_str())),
            (
                "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                Some(alternates.as_str()),
            ),
        ];
        let mut all_args = vec![
            "-c",
            "core.autocrlf=false",
            "-c",
            "core.safecrlf=false",
            "-c",
            "core.quotePath=false",
        ];
        all_args.extend_from_slice(args);
        let writable = [self.git.private_dir().to_path_buf()];
        let cwd = text(&self.git.repository.work_tree);
        let out = run_git(rc, &self.git, &cwd, &all_args, &env, &writable, run).ok()?;
        (out.exit_code == 0 && !out.stdout.truncated()).then(|| out.stdout.text().to_string())
    }

    /// `git add -A` into the private index, then its tree.
    fn write_tree(&self, rc: &RunContext) -> Option<String> {
        // an unreadable file fails `add` but not the snapshot: write-tree takes what was added
        let _ = self.run(rc, &["add", "-A", "--ignore-errors"], long());
        let tree = self.run(rc, &["write-tree"], GitRun::default())?;
        let tree = tree.trim().to_string();
        tree.bytes().all(|b| b.is_ascii_hexdigit()).then_some(tree)
    }

    /// What changed since the snapshot, each file with its state and content from before.
    fn changes(self, rc: &RunContext, root: &Path) -> Option<Vec<Captured>> {
        let tree = self.write_tree(rc)?;
        if tree == self.tree {
            return Some(Vec::new());
        }
        let mut run = long();
        run.max_output_units = 64 << 20;
        let raw = self.run(
            rc,
            &["diff-tree", "-r", "-z", "--no-renames", &self.tree, &tree],
            run,
        )?;
        let entries = parse_diff_tree(&raw);
        // the contents from before, checked out of the first tree into the private directory
        let wanted: Vec<&DiffEntry> = entries
            .iter()
            .filter(|e| e.old_mode != "000000" && e.old_mode != "160000")
            .take(MAX_CHANGED)
            .collect();
        let out = self.work.join("out");
        if !wanted.is_empty() {
            let index = self.work.join("extract-index");
            // an index of just these paths, as the first tree had them (not the whole tree)
            let mut run = long();
            run.stdin = Some(
                wanted
                    .iter()
                    .map(|e| format!("{} {}\t{}\0", e.old_mode, e.old_object, e.path))
                    .collect(),
            );
            let args = ["update-index", "-z", "--add", "--index-info"];
            self.run_on_index(rc, &index, &args, run)?;
            let prefix = format!("{}/", out.to_string_lossy().replace('\\', "/"));
            let mut run = long();
            run.stdin = Some(wanted.iter().map(|e| format!("{}\0", e.path)).collect());
            let args = [
                "checkout-index",
                "-z",
                "--stdin",
                "--force",
                &format!("--prefix={prefix}"),
            ];
            self.run_on_index(rc, &index, &args, run)?;
        }
        let work_tree = &self.git.repository.work_tree;
        let mut captured = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            if e.old_mode == "160000" || e.new_mode == "160000" {
                continue; // a nested repository: not a file of this work tree
            }
            let abs = work_tree.join(&e.path);
            let Some(rel) = relative(root, &abs) else {
                continue; // part of the work tree outside the workspace
            };
            let state = if e.old_mode == "000000" {
                (FileState::Absent, None)
            } else if i >= MAX_CHANGED {
                let mode = if e.old_mode == "100755" { 0o755 } else { 0o644 };
                (
                    FileState::File {
                        hash: None,
                        size: 0,
                        mode,
                    },
                    None,
                )
            } else {
                let from = out.join(&e.path);
                if e.old_mode == "120000" {
                    let target = std::fs::read_link(&from).ok()?;
                    (
                        FileState::Symlink {
                            target: target.to_string_lossy().into_owned(),
                        },
                        None,
                    )
                } else {
                    let content = std::fs::read(&from).ok()?;
                    let mode = mode_before(&abs, e.old_mode == "100755");
                    (
                        FileState::File {
                            hash: Some(crate::checkpoints::hash_of(&content)),
                            size: content.len() as u64,
                            mode,
                        },
                        Some(content),
                    )
                }
            };
            captured.push(Captured {
                abs,
                rel,
                state: state.0,
                content: state.1,
                linked: None,
            });
        }
        Some(captured)
    }
}

/// Runs that may take a while (a large work tree).
fn long() -> GitRun {
    GitRun {
        timeout: std::time::Duration::from_secs(300),
        ..GitRun::default()
    }
}

/// Whether git could convert line endings or encodings in this repository: a `.gitattributes`
/// anywhere in its index or its work tree's root, attributes in its `info/`, or `core.autocrlf` /
/// `core.eol` set.
fn may_convert(git: &HardenedGit) -> bool {
    let repo = &git.repository;
    let index = std::fs::read(repo.git_dir.join("index")).unwrap_or_default();
    let mentions_attributes = memchr::memmem::find(&index, b"attributes").is_some();
    let root_attributes = repo.work_tree.join(".gitattributes").exists();
    let info_attributes = std::fs::metadata(repo.common_dir.join("info").join("attributes"))
        .is_ok_and(|m| m.len() > 0);
    let mut key = None;
    let converting_setting = git.env().iter().any(|(k, v)| {
        if k.starts_with("GIT_CONFIG_KEY_") {
            key = v.map(|v| v.to_ascii_lowercase());
            false
        } else if k.starts_with("GIT_CONFIG_VALUE_") {
            let value = v.unwrap_or_default().to_ascii_lowercase();
            match key.as_deref() {
                Some("core.autocrlf") => value != "false",
                Some("core.eol") => !value.is_empty(),
                _ => false,
            }
        } else {
            false
        }
    });
    mentions_attributes || root_attributes || info_attributes || converting_setting
}

/// The permission bits a file had before a command: those it has now (the command rarely
/// changes them), with the executable bits git recorded; git's defaults for a file gone now.
fn mode_before(abs: &Path, executable: bool) -> u32 {
    let now = std::fs::symlink_metadata(abs)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| crate::sys::permission_bits(&m));
    match now {
        Some(mode) if executable => mode | ((mode & 0o444) >> 2),
        Some(mode) => mode & !0o111,
        None if executable => 0o755,
        None => 0o644,
    }
}

struct DiffEntry {
    old_mode: String,
    new_mode: String,
    /// The object the path named before.
    old_object: String,
    path: String,
}

/// `git diff-tree -r -z` output: `:<old mode> <new mode> <old> <new> <status>\0<path>\0` each.
fn parse_diff_tree(raw: &str) -> Vec<DiffEntry> {
    let mut fields = raw.split('\0');
    let mut entries = Vec::new();
    while let Some(head) = fields.next() {
        let Some(head) = head.strip_prefix(':') else {
            continue;
        };
        let Some(path) = fields.next() else { break };
        let mut parts = head.split(' ');
        let (Some(old_mode), Some(new_mode), Some(old_object)) =
            (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        entries.push(DiffEntry {
            old_mode: old_mode.to_string(),
            new_mode: new_mode.to_string(),
            old_object: old_object.to_string(),
            path: path.to_string(),
        });
    }
    entries
}

/// `abs` relative to `root`, with `/`; `None` outside it.
fn relative(root: &Path, abs: &Path) -> Option<String> {
    let rel = abs.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Every file below `root` that `.gitignore` rules do not exclude (hidden ones too, `.git`
/// directories not), by workspace-relative path; `None` past [`MAX_SCANNED`] files.
fn scan(root: &Path) -> Option<HashMap<String, Seen>> {
    let mut seen = HashMap::new();
    let walk = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walk.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_dir() {
            continue;
        }
        let Some(rel) = relative(root, entry.path()) else {
            continue;
        };
        seen.insert(
            rel,
            Seen {
                size: meta.len(),
                mtime: crate::sys::mtime(&meta),
                mode: crate::sys::permission_bits(&meta),
                link: meta
                    .file_type()
                    .is_symlink()
                    .then(|| std::fs::read_link(entry.path()).ok())
                    .flatten()
                    .map(|t| t.to_string_lossy().into_owned()),
            },
        );
        if seen.len() > MAX_SCANNED {
            return None;
        }
    }
    Some(seen)
}

/// The files two scans disagree on, with what is known of them from before: a created file's
/// absence (restorable), a modified or deleted file's size and mode without its content (not
/// restorable).
fn scanned_changes(
    root: &Path,
    old: &HashMap<String, Seen>,
    new: &HashMap<String, Seen>,
) -> Vec<Captured> {
    let mut captured = Vec::new();
    let mut paths: Vec<&String> = old
        .keys()
        .chain(new.keys().filter(|k| !old.contains_key(*k)))
        .collect();
    paths.sort();
    for rel in paths {
        let state = match (old.get(rel), new.get(rel)) {
            (Some(a), Some(b)) if a == b => continue,
            (None, _) => FileState::Absent,
            (
                Some(Seen {
                    link: Some(target), ..
                }),
                _,
            ) => FileState::Symlink {
                target: target.clone(),
            },
            (Some(a), _) => FileState::File {
                hash: None,
                size: a.size,
                mode: a.mode,
            },
        };
        captured.push(Captured {
            abs: root.join(rel),
            rel: rel.clone(),
            state,
            content: None,
            linked: None,
        });
    }
    captured
}
