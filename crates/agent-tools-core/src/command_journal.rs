//! The undo journal's checkpoints of commands (exec_command and the process tools), which can
//! change anything in the write scope (`crate::checkpoints` keeps them).
//!
//! In a git work tree, the non-ignored files are snapshotted before the command into a tree of
//! git objects: a private index (at first a copy of the repository's), the paths `git status`
//! names as changed or untracked added to it, `git write-tree`, all in a private directory
//! outside the workspace (its own index and object directory, the repository's objects read as
//! alternates), so the repository's refs, index, `HEAD` and object store are never touched. The
//! private index is kept between commands with git's untracked cache in it, so a snapshot reads
//! again only the directories whose modification time changed; it is copied afresh when the
//! repository's index changes. After the command a second snapshot and `git diff-tree` name the
//! files it created, modified or deleted; the contents from before of those files are checked
//! out of the first tree into the private directory and kept in the journal like any file
//! tool's, so the checkpoint restores exactly. git runs as git_status_summary's does
//! ([`crate::git::HardenedGit`]): no repository configuration, nothing outside the workspace,
//! the confined-program sandbox (writing only in its private directory). Line-ending and
//! encoding conversions are turned off for these runs (an `info/attributes` of the private
//! directory), so the snapshot holds the bytes on disk; where the repository may convert (a
//! `.gitattributes` file, `core.autocrlf`, `core.eol`), the index is not copied and every file is
//! hashed afresh. git keeps only the executable bit of a mode, so each snapshot also keeps the
//! permission bits of every file it holds (a change of the bits alone is a modification).
//!
//! While processes of the context run in the background, [`Background`] keeps the state from
//! after the last call, and the next call that looks records what changed since as a
//! checkpoint of its own.
//!
//! Outside a git work tree, the workspace is scanned (paths, sizes, modification times, modes;
//! `.gitignore` rules apply) before and after: the checkpoint names the changed files, and only
//! files the command created can be put back (removed); modified and deleted ones are recorded
//! as not restorable.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::checkpoints::{commit_captured, new_dirs, relative, Captured, FileState, Store};
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
    dir: SnapshotDir,
    tree: String,
    /// Each snapshotted file's permission bits (work-tree-relative paths), which git records
    /// only as "executable or not".
    modes: Modes,
}

/// Each file's permission bits, with the index's stat data of the file when they were read.
type Modes = HashMap<String, (u32, [u32; 7])>;

/// A snapshot's private directory: its index (with git's untracked cache) and the objects of
/// the files it added, outside the workspace, removed when dropped.
pub struct SnapshotDir {
    tmp: crate::exec_sandbox::PrivateTmp,
    /// The repository's index when it was copied into this one.
    copied_from: Option<IndexStamp>,
}

/// A file's identity and modification: what changes when git writes an index (by rename).
type IndexStamp = (u64, Option<std::time::SystemTime>, u64);

/// The private objects a kept snapshot directory may hold, at most (bytes, compressed): above
/// it the next snapshot starts afresh from the repository's index.
const MAX_KEPT_OBJECT_BYTES: u64 = 64 << 20;
/// Paths `git status` names that are added one by one, at most: more are added by `git add -A`.
const MAX_LISTED: usize = 2_000;

/// What the last snapshot leaves to the next one of the same work tree.
struct Kept {
    work_tree: PathBuf,
    /// Its permission bits, to be reused where a file's stat data did not change.
    modes: Modes,
    /// Its private directory, when no background state holds the snapshot.
    dir: Option<SnapshotDir>,
}

/// The tool of a checkpoint of what background processes changed between calls.
pub const BACKGROUND_TOOL: &str = "background_processes";

/// The workspace as the journal last saw it while processes of the context ran in the
/// background (process_start): what changed since was made by them. A journalled call first
/// records those changes as a checkpoint of their own ([`BACKGROUND_TOOL`]); a call that changes
/// files then takes its own changes into the state, so that they are not counted twice.
#[derive(Default)]
pub struct Background {
    pending: std::sync::Mutex<Option<Pending>>,
    /// What the last snapshot leaves to the next one (a call running at the same time as
    /// another starts without it).
    kept: std::sync::Mutex<Option<Kept>>,
}

struct Pending {
    root: PathBuf,
    state: Before,
}

impl std::fmt::Debug for Background {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Background")
    }
}

/// One operation of the journal of `ctx`'s workspace, as JSON text: `list` (the checkpoints,
/// oldest first), `diff` (the unified diff restoring `id` would make, a JSON string),
/// `restore` (what it did) or `settle` (`null`: for when the context is closed, its processes
/// ended; the kept snapshot directory is removed). What background processes changed since the
/// last call is recorded first.
pub fn operate(
    edits: &crate::context::EditHooks,
    ctx: &crate::context::ToolContext,
    op: &str,
    id: Option<&str>,
    force: bool,
) -> Result<String, ToolError> {
    use crate::checkpoints::ERROR_CLASS;
    if op == "settle" && edits.journal.is_none() {
        return Ok("null".into());
    }
    let store = edits.journal_store(ctx)?;
    let id = || id.ok_or_else(|| ERROR_CLASS.invalid("id must be a checkpoint id"));
    let rc = RunContext {
        ctx,
        confinement: None,
    };
    let watch = match edits.journal.as_ref().and_then(background) {
        Some(background) => Some(background.watch(&rc, &store)?),
        None => None,
    };
    let json = match op {
        "list" => serde_json::to_string(&store.list()?),
        "diff" => serde_json::to_string(&store.diff(id()?)?),
        "settle" => {
            drop(watch);
            // the context is done with: its kept snapshot directory goes now, not at exit
            if let Some(background) = edits.journal.as_ref().and_then(background) {
                background.release();
            }
            Ok("null".into())
        }
        "restore" => {
            let outcome = store.restore(id()?, force);
            if let Some(watch) = watch {
                watch.finish(&rc);
            }
            serde_json::to_string(&outcome?)
        }
        other => return Err(ERROR_CLASS.invalid(format!("unknown journal operation: {other}"))),
    };
    json.map_err(|e| ERROR_CLASS.internal(e.to_string()))
}

/// The background state of `journal`'s context.
pub fn background(journal: &crate::checkpoints::Journal) -> Option<&Background> {
    journal
        .background
        .get_or_init(|| Box::new(Background::default()))
        .downcast_ref()
}

/// Whether processes of the context run in the background.
fn background_running(rc: &RunContext) -> bool {
    rc.ctx.processes.as_ref().is_some_and(|t| t.any_running())
}

impl Background {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Pending>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Drops what the last snapshot left to the next one (its private directory is removed).
    pub fn release(&self) {
        drop(self.kept.lock().unwrap_or_else(|e| e.into_inner()).take());
    }

    /// The workspace's state before a command (no background state kept).
    pub fn before(&self, rc: &RunContext, root: &Path) -> Before {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner()).take();
        before(rc, root, kept)
    }

    /// Before a command: what background processes changed since the last call, recorded; the
    /// workspace's state now when one was taken (the command's state from before).
    pub fn catch_up(&self, rc: &RunContext, store: &Store) -> Result<Option<Before>, ToolError> {
        record_pending(rc, store, &mut self.lock())
    }

    /// After a command: its state from after is where the next look for background changes
    /// starts, while processes run.
    pub fn keep(&self, rc: &RunContext, store: &Store, now: Before) {
        let mut pending = self.lock();
        // the command's own changes are in `now` already (a call holding a watch has taken its
        // own out before the lock is free)
        store.take_recorded();
        self.settle(&mut pending, rc, store, now);
    }

    /// `now`, the workspace's state just taken: kept in `pending` while processes run; else
    /// its snapshot's private directory and permission bits kept for the next snapshot (only
    /// the bits while it is kept itself).
    fn settle(&self, pending: &mut Option<Pending>, rc: &RunContext, store: &Store, now: Before) {
        let running = background_running(rc);
        let kept = match &now {
            Before::Git(snapshot) if running => Some(Kept {
                work_tree: snapshot.git.repository.work_tree.clone(),
                modes: snapshot.modes.clone(),
                dir: None,
            }),
            _ => None,
        };
        let kept = if running {
            *pending = Some(Pending {
                root: store.root().to_path_buf(),
                state: now,
            });
            kept
        } else {
            match now {
                Before::Git(snapshot) => {
                    let GitSnapshot {
                        git, dir, modes, ..
                    } = *snapshot;
                    Some(Kept {
                        work_tree: git.repository.work_tree.clone(),
                        modes,
                        dir: Some(dir),
                    })
                }
                _ => None,
            }
        };
        if let Some(kept) = kept {
            *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(kept);
        }
    }

    /// Before a call that changes files or reads processes or the journal: what background
    /// processes changed since the last call, recorded. A call that changes files holds the
    /// returned watch until it ends ([`Watch::finish`]).
    pub fn watch<'a>(&'a self, rc: &RunContext, store: &Store) -> Result<Watch<'a>, ToolError> {
        let mut pending = self.lock();
        if let Some(now) = record_pending(rc, store, &mut pending)? {
            self.settle(&mut pending, rc, store, now);
        }
        store.take_recorded();
        Ok(Watch {
            pending,
            store: store.clone(),
        })
    }
}

/// The state of a context's background changes, held by a call that changes files.
pub struct Watch<'a> {
    pending: std::sync::MutexGuard<'a, Option<Pending>>,
    store: Store,
}

impl Watch<'_> {
    /// After the call: the changes it recorded taken into the state.
    pub fn finish(mut self, rc: &RunContext) {
        let recorded = self.store.take_recorded();
        if let Some(pending) = self.pending.as_mut() {
            refresh(rc, &pending.root, &mut pending.state, &recorded);
        }
    }
}

/// The checkpoint of what changed since `pending` (taken out); the workspace's state now.
fn record_pending(
    rc: &RunContext,
    store: &Store,
    pending: &mut Option<Pending>,
) -> Result<Option<Before>, ToolError> {
    let Some(Pending { root, state }) = pending.take() else {
        return Ok(None);
    };
    if root != store.root() {
        return Ok(None);
    }
    let (_, now) = after(rc, store, BACKGROUND_TOOL, state)?;
    Ok(Some(now))
}

/// The workspace's state before a command of the call `rc`.
fn before(rc: &RunContext, root: &Path, kept: Option<Kept>) -> Before {
    if let Some(snapshot) = GitSnapshot::take(rc, root, kept) {
        return Before::Git(Box::new(snapshot));
    }
    match scan(root) {
        Some(seen) => Before::Scan(seen),
        None => Before::Nothing,
    }
}

/// After the command: the checkpoint of what it changed, written to `store` as `tool`'s, and
/// the workspace's state now (what a later look for changes starts from).
pub fn after(
    rc: &RunContext,
    store: &Store,
    tool: &str,
    before: Before,
) -> Result<(Option<String>, Before), ToolError> {
    let root = store.root().to_path_buf();
    let (captured, now) = match before {
        Before::Nothing => return Ok((None, Before::Nothing)),
        Before::Git(mut snapshot) => match snapshot.advance(rc, &root) {
            Some(captured) => (captured, Before::Git(snapshot)),
            None => return Ok((None, Before::Nothing)),
        },
        Before::Scan(old) => {
            let Some(new) = scan(&root) else {
                return Ok((None, Before::Nothing));
            };
            (scanned_changes(&root, &old, &new), Before::Scan(new))
        }
    };
    let id = commit_captured(store, tool, &root, captured, None, false)?;
    Ok((id, now))
}

/// Takes the changes the journal recorded itself (`paths`, workspace-relative: a file tool's or
/// a restore's) into `state`, so that a later look for changes made by others does not count
/// them again.
pub fn refresh(rc: &RunContext, root: &Path, state: &mut Before, paths: &[String]) {
    if paths.is_empty() {
        return;
    }
    match state {
        Before::Nothing => {}
        Before::Git(snapshot) => {
            if !snapshot.refresh(rc, root, paths) {
                *state = Before::Nothing;
            }
        }
        Before::Scan(seen) => {
            for rel in paths {
                match seen_now(&root.join(rel)) {
                    Some(now) => seen.insert(rel.clone(), now),
                    None => seen.remove(rel),
                };
            }
        }
    }
}

impl GitSnapshot {
    /// The snapshot of the work tree holding the workspace root, continuing from `kept` where it
    /// is of the same work tree; `None` when there is none (not a repository, git missing, a
    /// repository reaching outside) or git failed.
    fn take(rc: &RunContext, root: &Path, kept: Option<Kept>) -> Option<GitSnapshot> {
        let git = HardenedGit::prepare(rc.ctx, root).ok()?;
        let info = git.private_dir().join("info");
        std::fs::create_dir_all(&info).ok()?;
        // the bytes on disk, whatever the repository's attributes say
        std::fs::write(
            info.join("attributes"),
            "* -text -eol -crlf -ident -filter -working-tree-encoding\n",
        )
        .ok()?;
        let repo_index = git.repository.git_dir.join("index");
        let stamp = index_stamp(&repo_index);
        let kept = kept.filter(|k| k.work_tree == git.repository.work_tree);
        let (known, dir) = match kept {
            Some(Kept { modes, dir, .. }) => (Some(modes), dir),
            None => (None, None),
        };
        // a kept directory serves while the repository's index is the one it was copied from
        let dir = dir.filter(|d| {
            d.copied_from == stamp
                && loose_object_bytes(&d.tmp.path().join("objects")) <= MAX_KEPT_OBJECT_BYTES
        });
        let reused = dir.is_some();
        let dir = match dir {
            Some(dir) => dir,
            None => SnapshotDir::fresh(&git, stamp)?,
        };
        let mut snapshot = GitSnapshot {
            git,
            dir,
            tree: String::new(),
            modes: HashMap::new(),
        };
        snapshot.tree = match snapshot.write_tree(rc) {
            Some(tree) => tree,
            // a kept index git no longer takes: once more from the repository's
            None if reused => {
                snapshot.dir = SnapshotDir::fresh(&snapshot.git, stamp)?;
                snapshot.write_tree(rc)?
            }
            None => return None,
        };
        snapshot.modes = snapshot.file_modes(rc, known.as_ref())?;
        Some(snapshot)
    }

    fn work(&self) -> &Path {
        self.dir.tmp.path()
    }

    /// `git <args>` with the snapshot's own index and object directory (the repository's
    /// objects as alternates); its output when it succeeded.
    fn run(&self, rc: &RunContext, args: &[&str], run: GitRun) -> Option<String> {
        self.run_on_index(rc, &self.work().join("index"), args, run)
    }

    fn run_on_index(
        &self,
        rc: &RunContext,
        index: &Path,
        args: &[&str],
        run: GitRun,
    ) -> Option<String> {
        let text = |p: &Path| p.to_string_lossy().into_owned();
        let (index, objects) = (text(index), text(&self.work().join("objects")));
        let alternates = text(&self.git.repository.objects_dir);
        let env = [
            ("GIT_INDEX_FILE", Some(index.as_str())),
            // the private index is ours: `git status` writes it back (the stat data it
            // refreshed, its untracked cache)
            ("GIT_OPTIONAL_LOCKS", Some("1")),
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
            // a change of the permission bits alone is seen (`file_modes`)
            "-c",
            "core.trustctime=true",
            "-c",
            "core.checkStat=default",
        ];
        all_args.extend_from_slice(args);
        let writable = [
            self.git.private_dir().to_path_buf(),
            self.work().to_path_buf(),
        ];
        let cwd = text(&self.git.repository.work_tree);
        let out = run_git(rc, &self.git, &cwd, &all_args, &env, &writable, run).ok()?;
        (out.exit_code == 0 && !out.stdout.truncated()).then(|| out.stdout.text().to_string())
    }

    /// The work tree's changes taken into the private index, then its tree.
    fn write_tree(&self, rc: &RunContext) -> Option<String> {
        self.add_changes(rc);
        let tree = self.run(rc, &["write-tree"], GitRun::default())?;
        let tree = tree.trim().to_string();
        tree.bytes().all(|b| b.is_ascii_hexdigit()).then_some(tree)
    }

    /// The work tree's changes since the private index was last brought up to date, added to
    /// it: the paths `git status` names (modified, deleted, untracked; the untracked cache in
    /// the private index spares it reading unchanged directories), or all of `git add -A` when
    /// status fails, names too many, or adding them fails (a path gone in between).
    fn add_changes(&self, rc: &RunContext) {
        let mut run = long();
        run.max_output_units = 64 << 20;
        let status = [
            "-c",
            "core.untrackedCache=true",
            "status",
            "--porcelain",
            "-z",
            "--no-renames",
            "--untracked-files=normal",
            "--ignore-submodules=all",
        ];
        let listed = self.run(rc, &status, run);
        let added = match listed.as_deref().map(changed_paths) {
            Some(paths) if paths.is_empty() => true,
            Some(paths) if paths.len() <= MAX_LISTED => {
                let mut run = long();
                run.stdin = Some(paths.iter().map(|path| format!("{path}\0")).collect());
                let args = [
                    "--literal-pathspecs",
                    "add",
                    "-A",
                    "--pathspec-from-file=-",
                    "--pathspec-file-nul",
                ];
                self.run(rc, &args, run).is_some()
            }
            _ => false,
        };
        if !added {
            // an unreadable file fails `add` but not the snapshot: write-tree takes what was
            // added
            let _ = self.run(rc, &["add", "-A", "--ignore-errors"], long());
        }
    }

    /// The permission bits of every file in the snapshot's index, as they are now. Read from
    /// the disk for each file whose stat data in the index differs from `known`'s (all of them
    /// without), or whose bits were read in the second its ctime changed: a change of the bits
    /// alone changes a file's ctime, which `git status` takes into the index (the snapshot's
    /// runs trust ctime).
    fn file_modes(&self, rc: &RunContext, known: Option<&Modes>) -> Option<Modes> {
        let work_tree = &self.git.repository.work_tree;
        let index = std::fs::read(self.work().join("index")).ok()?;
        let entries = match crate::git::index_file::read_entries(&index) {
            Some(entries) => entries,
            None => {
                // an index this reader does not take: the paths from git, every file read
                let mut run = long();
                run.max_output_units = 64 << 20;
                let listed = self.run(rc, &["ls-files", "-z"], run)?;
                listed
                    .split('\0')
                    .filter(|path| !path.is_empty())
                    .map(|path| crate::git::index_file::Entry {
                        path: path.to_string(),
                        stat: [u32::MAX; 7],
                    })
                    .collect()
            }
        };
        let unknown = |e: &crate::git::index_file::Entry| {
            e.stat == [u32::MAX; 7]
                || known
                    .and_then(|k| k.get(&e.path))
                    .is_none_or(|(_, stat)| *stat != e.stat)
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let read = |e: &crate::git::index_file::Entry| {
            let meta = std::fs::symlink_metadata(work_tree.join(&e.path)).ok()?;
            // git compares whole seconds of ctime: a change of the bits in the second they
            // were read would not show in the index, so such a file is read again next time
            let stat = if changed_within_a_second(&meta, now) {
                [u32::MAX; 7]
            } else {
                e.stat
            };
            meta.is_file()
                .then(|| (e.path.clone(), (crate::sys::permission_bits(&meta), stat)))
        };
        let (to_read, kept): (Vec<_>, Vec<_>) = entries.iter().partition(|e| unknown(e));
        let mut modes: Modes = kept
            .into_iter()
            .filter_map(|e| known?.get(&e.path).map(|m| (e.path.clone(), *m)))
            .collect();
        // two threads for a large tree (its paths' lookups are most of the cost)
        let half = to_read.len() / 2;
        if half < 1000 {
            modes.extend(to_read.iter().filter_map(|e| read(e)));
        } else {
            let (first, second) = to_read.split_at(half);
            std::thread::scope(|scope| {
                let other =
                    scope.spawn(|| first.iter().filter_map(|e| read(e)).collect::<Vec<_>>());
                let mine: Vec<_> = second.iter().filter_map(|e| read(e)).collect();
                modes.extend(mine);
                modes.extend(other.join().unwrap_or_default());
            });
        }
        Some(modes)
    }

    /// `paths` (workspace-relative) added to the snapshot as they are now; `false` when git
    /// failed (the snapshot is then of no use).
    fn refresh(&mut self, rc: &RunContext, root: &Path, paths: &[String]) -> bool {
        let work_tree = self.git.repository.work_tree.clone();
        let mut run = long();
        run.stdin = Some(
            paths
                .iter()
                .filter_map(|rel| relative(&work_tree, &root.join(rel)))
                .map(|path| format!("{path}\0"))
                .collect(),
        );
        let args = [
            "--literal-pathspecs",
            "add",
            "-A",
            "--ignore-errors",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
        ];
        // an ignored path fails `add` but not the others
        let _ = self.run(rc, &args, run);
        let (Some(tree), Some(modes)) = (
            self.run(rc, &["write-tree"], GitRun::default()),
            self.file_modes(rc, Some(&self.modes)),
        ) else {
            return false;
        };
        self.tree = tree.trim().to_string();
        self.modes = modes;
        true
    }

    /// What changed since the snapshot, each file with its state and content from before; the
    /// snapshot is then of the work tree now.
    fn advance(&mut self, rc: &RunContext, root: &Path) -> Option<Vec<Captured>> {
        let tree = self.write_tree(rc)?;
        let modes = self.file_modes(rc, Some(&self.modes))?;
        let old_modes = std::mem::replace(&mut self.modes, modes);
        let old_tree = std::mem::replace(&mut self.tree, tree.clone());
        let mut entries = Vec::new();
        if tree != old_tree {
            let mut run = long();
            run.max_output_units = 64 << 20;
            let raw = self.run(
                rc,
                &["diff-tree", "-r", "-z", "--no-renames", &old_tree, &tree],
                run,
            )?;
            entries = parse_diff_tree(&raw);
        }
        // files whose bits alone changed (git sees only the executable bit): modified, their
        // content as it is (the same as before)
        let in_diff: std::collections::HashSet<&str> =
            entries.iter().map(|e| e.path.as_str()).collect();
        let mut mode_only: Vec<(&String, u32)> = old_modes
            .iter()
            .filter(|(path, mode)| {
                !in_diff.contains(path.as_str())
                    && self.modes.get(*path).is_some_and(|now| now.0 != mode.0)
            })
            .map(|(path, mode)| (path, mode.0))
            .collect();
        mode_only.sort();
        // the contents from before, checked out of the first tree into the private directory
        let wanted: Vec<&DiffEntry> = entries
            .iter()
            .filter(|e| e.old_mode != "000000" && e.old_mode != "160000")
            .take(MAX_CHANGED)
            .collect();
        let out = self.work().join("out");
        let index = self.work().join("extract-index");
        // what an earlier command checked out (the directory is kept between commands)
        let _ = std::fs::remove_dir_all(&out);
        let _ = std::fs::remove_file(&index);
        if !wanted.is_empty() {
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
        // the bits from before; git's executable bit where the file was not seen then
        let mode_of = |e: &DiffEntry| match old_modes.get(&e.path) {
            Some((mode, _)) => *mode,
            None if e.old_mode == "100755" => 0o755,
            None => 0o644,
        };
        // the directories that held a file before (made once a created file asks): a created
        // file's others are new
        let old_dirs = std::cell::OnceCell::new();
        let existed = |dir: &str| {
            old_dirs
                .get_or_init(|| directories_of(old_modes.keys()))
                .contains(dir)
        };
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
                (
                    FileState::File {
                        hash: None,
                        size: 0,
                        mode: mode_of(e),
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
                    (file_state(&content, mode_of(e)), Some(content))
                }
            };
            let new_dirs = if e.old_mode == "000000" {
                new_dirs(&e.path, existed, root, work_tree)
            } else {
                Vec::new()
            };
            captured.push(Captured {
                abs,
                rel,
                state: state.0,
                content: state.1,
                linked: None,
                new_dirs,
            });
        }
        for (path, mode) in mode_only {
            let abs = work_tree.join(path);
            let Some(rel) = relative(root, &abs) else {
                continue;
            };
            let Ok(content) = std::fs::read(&abs) else {
                continue;
            };
            captured.push(Captured {
                abs,
                rel,
                state: file_state(&content, mode),
                content: Some(content),
                linked: None,
                new_dirs: Vec::new(),
            });
        }
        Some(captured)
    }
}

impl SnapshotDir {
    /// A new private directory beside `git`'s, its index a copy of the repository's (stamped
    /// `stamp`) unless git could convert contents there (every file is then hashed afresh).
    fn fresh(git: &HardenedGit, stamp: Option<IndexStamp>) -> Option<SnapshotDir> {
        let base = git.private_dir().parent()?;
        remove_abandoned(base);
        let name = format!("{SNAPSHOT_DIR_PREFIX}{}", std::process::id());
        let tmp = crate::exec_sandbox::PrivateTmp::create_named(base, &name).ok()?;
        std::fs::create_dir(tmp.path().join("objects")).ok()?;
        let index = git.repository.git_dir.join("index");
        if !may_convert(git) && index.is_file() {
            std::fs::copy(&index, tmp.path().join("index")).ok()?;
        }
        Some(SnapshotDir {
            tmp,
            copied_from: stamp,
        })
    }
}

/// The start of a snapshot directory's name, before its owner's process id.
const SNAPSHOT_DIR_PREFIX: &str = "agent-tools-snapshot-";

/// Removes the snapshot directories in `base` that a process which ended without removing its
/// own left behind (killed, or exited while a toolkit still kept one): its process id runs no
/// process, and the directory has not changed for an hour (a process in another PID namespace
/// sharing `base` is not mistaken for gone while it uses its directory).
fn remove_abandoned(base: &Path) {
    #[cfg(unix)]
    {
        let Ok(entries) = std::fs::read_dir(base) else {
            return;
        };
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(rest) = name
                .to_str()
                .and_then(|n| n.strip_prefix(SNAPSHOT_DIR_PREFIX))
            else {
                continue;
            };
            let Some(pid) = rest
                .split('-')
                .next()
                .and_then(|pid| pid.parse::<i32>().ok())
                .and_then(rustix::process::Pid::from_raw)
            else {
                continue;
            };
            let gone = rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH);
            let idle = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|modified| modified < hour_ago);
            if gone && idle {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    #[cfg(not(unix))]
    let _ = base;
}

/// Whether the file's status (its ctime) changed in the second before `now` or later.
fn changed_within_a_second(meta: &std::fs::Metadata, now: i64) -> bool {
    #[cfg(unix)]
    return std::os::unix::fs::MetadataExt::ctime(meta) + 1 >= now;
    #[cfg(not(unix))]
    {
        let _ = (meta, now);
        false
    }
}

/// The stamp of the index file at `path`; `None` when there is none.
fn index_stamp(path: &Path) -> Option<IndexStamp> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let identity = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let identity = 0;
    Some((meta.len(), meta.modified().ok(), identity))
}

/// The bytes of the loose objects in `objects` (a git object directory).
fn loose_object_bytes(objects: &Path) -> u64 {
    let Ok(fan_out) = std::fs::read_dir(objects) else {
        return 0;
    };
    fan_out
        .flatten()
        .filter_map(|dir| std::fs::read_dir(dir.path()).ok())
        .flat_map(|files| files.flatten())
        .filter_map(|file| file.metadata().ok())
        .map(|meta| meta.len())
        .sum()
}

/// The paths of `git status --porcelain -z --no-renames` output whose work-tree file differs
/// from the index (modified, deleted, a type change, unmerged) or is untracked (a directory
/// named with its `/`).
fn changed_paths(raw: &str) -> Vec<&str> {
    raw.split('\0')
        .filter(|entry| entry.len() > 3)
        .filter(|entry| entry.as_bytes()[1] != b' ')
        .map(|entry| &entry[3..])
        .collect()
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

/// A file's state with `content`.
fn file_state(content: &[u8], mode: u32) -> FileState {
    FileState::File {
        hash: Some(crate::checkpoints::hash_of(content)),
        size: content.len() as u64,
        mode,
    }
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
        seen.insert(rel, seen_with(entry.path(), &meta));
        if seen.len() > MAX_SCANNED {
            return None;
        }
    }
    Some(seen)
}

/// The file at `path` as a scan sees it now; `None` when there is none (or a directory).
fn seen_now(path: &Path) -> Option<Seen> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    (!meta.is_dir()).then(|| seen_with(path, &meta))
}

fn seen_with(path: &Path, meta: &std::fs::Metadata) -> Seen {
    Seen {
        size: meta.len(),
        mtime: crate::sys::mtime(meta),
        mode: crate::sys::permission_bits(meta),
        link: meta
            .file_type()
            .is_symlink()
            .then(|| std::fs::read_link(path).ok())
            .flatten()
            .map(|t| t.to_string_lossy().into_owned()),
    }
}

/// The files two scans disagree on, with what is known of them from before: a created file's
/// absence (restorable), a modified or deleted file's size and mode without its content (not
/// restorable).
fn scanned_changes(
    root: &Path,
    old: &HashMap<String, Seen>,
    new: &HashMap<String, Seen>,
) -> Vec<Captured> {
    let old_dirs = std::cell::OnceCell::new();
    let existed = |dir: &str| {
        old_dirs
            .get_or_init(|| directories_of(old.keys()))
            .contains(dir)
    };
    let mut captured = Vec::new();
    let mut paths: Vec<&String> = old
        .keys()
        .chain(new.keys().filter(|k| !old.contains_key(*k)))
        .collect();
    paths.sort();
    for rel in paths {
        let state = match (old.get(rel), new.get(rel)) {
            (Some(a), Some(b)) if a == b => continue,
            // there, but left out of the scan now (an ignore rule): not a change
            (Some(_), None)
                if crate::checkpoints::link_on_the_way(&root.join(rel), root).is_none()
                    && seen_now(&root.join(rel)).is_some() =>
            {
                continue
            }
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
        let new_dirs = match state {
            FileState::Absent => new_dirs(rel, existed, root, root),
            _ => Vec::new(),
        };
        captured.push(Captured {
            abs: root.join(rel),
            rel: rel.clone(),
            state,
            content: None,
            linked: None,
            new_dirs,
        });
    }
    captured
}

/// Every directory that holds one of `paths` (relative, with `/`), at any depth.
fn directories_of<'a>(
    paths: impl Iterator<Item = &'a String>,
) -> std::collections::HashSet<&'a str> {
    paths
        .flat_map(|path| path.match_indices('/').map(|(i, _)| &path[..i]))
        .collect()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn only_old_directories_of_ended_processes_are_removed() {
        let base = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let ended = child.id();
        child.wait().unwrap();
        let hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
        let make = |name: &str, old: bool| {
            let dir = base.path().join(name);
            std::fs::create_dir(&dir).unwrap();
            std::fs::write(dir.join("index"), "x").unwrap();
            if old {
                let handle = std::fs::File::open(&dir).unwrap();
                handle.set_modified(hours_ago).unwrap();
            }
            dir
        };
        let abandoned = make(&format!("{SNAPSHOT_DIR_PREFIX}{ended}-a"), true);
        let recent = make(&format!("{SNAPSHOT_DIR_PREFIX}{ended}-b"), false);
        let own = make(
            &format!("{SNAPSHOT_DIR_PREFIX}{}-c", std::process::id()),
            true,
        );
        let other = make(&format!("agent-tools-git-{ended}"), true);
        remove_abandoned(base.path());
        assert!(!abandoned.exists());
        assert!(recent.exists() && own.exists() && other.exists());
    }
}
