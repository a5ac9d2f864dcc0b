//! Going back: the files a checkpoint and every later one changed are put back to their state
//! before that checkpoint's call, all or nothing, as a checkpoint of its own (so a restore can be
//! undone too).

use std::path::{Component, Path, PathBuf};

use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::capture::{
    commit_changes, link_on_the_way, missing_dirs, read_state, relative, Captured,
};
use super::{checkpoint_id, Change, Checkpoint, CheckpointFile, FileState, Store, ERROR_CLASS};
use crate::error::{ErrorCode, Reason, ToolError};
use crate::sandbox::Confinement;

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct RestoreOutcome {
    /// The checkpoint gone back to: the workspace's files are as before its call.
    pub restored: String,
    /// The checkpoint of the restore itself (restore it to undo the restore); `null` when
    /// nothing had to change.
    pub checkpoint: Option<String>,
    /// The files the restore changed.
    pub files: Vec<CheckpointFile>,
}

/// One file a restore puts back: its path in the journal, where it is, the state to give it, and
/// the state the journal last left it in.
struct Target {
    rel: String,
    abs: PathBuf,
    want: FileState,
    last: FileState,
}

/// What restoring a checkpoint puts back: the files, and the directories the calls since
/// created (deepest first), removed again when nothing is left in them.
struct Plan {
    targets: Vec<Target>,
    dirs: Vec<String>,
}

/// A file's state now and, for a regular file, its content.
type StateNow = (FileState, Option<Vec<u8>>);

/// Why a journalled path cannot be restored whatever `force` says.
enum Refusal {
    /// A directory the journal did not create where its file belongs, a file or a link where
    /// one of its directories belongs.
    Blocked(String),
    /// A link on the way leads out of the workspace.
    Outside,
}

impl Store {
    /// The files checkpoint `id` and every later one changed, each with the state it had before
    /// the first of those calls and the state the last one left, and the directories they
    /// created. A checkpoint record in that range that cannot be read fails the plan: what it
    /// changed would be left as it is.
    fn plan(&self, id: &str) -> Result<Plan, ToolError> {
        let (all, unreadable) = self.load_all_checked()?;
        let Some(start) = all.iter().position(|c| c.id == id) else {
            if unreadable.iter().any(|seq| id == checkpoint_id(*seq)) {
                return Err(super::corrupt(format!(
                    "the record of checkpoint {id} cannot be read"
                )));
            }
            return Err(ERROR_CLASS.coded(
                ErrorCode::CheckpointNotFound,
                format!("no checkpoint {id:?} in the journal"),
            ));
        };
        let unknown = |seq: u64, what: &str| {
            super::corrupt(format!(
                "the record of checkpoint {}, after {id}, {what}: what it changed is unknown, so nothing was restored",
                checkpoint_id(seq)
            ))
        };
        if let Some(seq) = unreadable.iter().find(|seq| **seq > all[start].seq) {
            return Err(unknown(*seq, "cannot be read"));
        }
        // a record missing in between (removed by hand)
        for (expected, cp) in (all[start].seq..).zip(&all[start..]) {
            if cp.seq != expected {
                return Err(unknown(expected, "is missing"));
            }
        }
        if all[start].pruned {
            return Err(ERROR_CLASS.coded(
                ErrorCode::CheckpointPruned,
                format!("checkpoint {id} was pruned: its contents are no longer kept"),
            ));
        }
        let later: &[Checkpoint] = &all[start..];
        let mut targets: Vec<Target> = Vec::new();
        let mut unkept = Vec::new();
        let mut dirs: Vec<String> = Vec::new();
        for cp in later {
            for f in &cp.files {
                match targets.iter_mut().find(|t| t.rel == f.path) {
                    Some(t) => t.last = f.after.clone(),
                    None => {
                        if matches!(f.before, FileState::File { hash: None, .. }) {
                            unkept.push((f.path.clone(), cp.id.clone()));
                        }
                        targets.push(Target {
                            rel: f.path.clone(),
                            abs: self.resolve(&f.path)?,
                            want: f.before.clone(),
                            last: f.after.clone(),
                        });
                    }
                }
            }
            for dir in &cp.dirs {
                self.resolve(dir)?;
                if !dirs.contains(dir) {
                    dirs.push(dir.clone());
                }
            }
        }
        if !unkept.is_empty() {
            let named: Vec<String> = unkept
                .iter()
                .map(|(path, by)| {
                    if by == id {
                        path.clone()
                    } else {
                        format!("{path} (changed by {by})")
                    }
                })
                .collect();
            return Err(ERROR_CLASS.coded(
                ErrorCode::CheckpointNotRestorable,
                format!(
                    "checkpoint {id} cannot be restored: the journal did not keep the content of {}",
                    named.join(", ")
                ),
            ));
        }
        dirs.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
        Ok(Plan { targets, dirs })
    }

    /// The place of a journalled path: relative, plain components only, so inside the workspace
    /// (a tampered journal cannot lead a restore outside; the links on the way are looked at
    /// with the file's state, [`read_now`]).
    fn resolve(&self, rel: &str) -> Result<PathBuf, ToolError> {
        let outside = || outside_workspace(rel);
        if rel.is_empty() || rel.contains('\0') || rel.contains('\\') {
            return Err(outside());
        }
        let mut abs = self.root.clone();
        for part in rel.split('/') {
            let mut components = Path::new(part).components();
            match (components.next(), components.next()) {
                (Some(Component::Normal(name)), None) if name == part => abs.push(name),
                _ => return Err(outside()),
            }
        }
        if cfg!(windows)
            && rel
                .split('/')
                .any(|p| crate::windows_path::check_component(p).is_err())
        {
            return Err(outside());
        }
        Ok(abs)
    }

    /// Each planned file's state now and, for a regular file, its content; a directory the
    /// calls since created counts as absent (the restore removes it). The journalled paths that
    /// cannot be restored whatever `force` says are a conflict.
    fn read_targets(&self, plan: &Plan) -> Result<Vec<StateNow>, ToolError> {
        let mut now = Vec::with_capacity(plan.targets.len());
        let mut blocked = Vec::new();
        for t in &plan.targets {
            match read_now(t, &self.root, plan) {
                Ok(state) => now.push(state),
                Err(Refusal::Blocked(why)) => blocked.push((t.rel.clone(), why)),
                Err(Refusal::Outside) => return Err(outside_workspace(&t.rel)),
            }
        }
        if !blocked.is_empty() {
            let files: Vec<&String> = blocked.iter().map(|(rel, _)| rel).collect();
            let why: Vec<String> = blocked
                .iter()
                .map(|(rel, why)| format!("{rel} ({why})"))
                .collect();
            return Err(ERROR_CLASS
                .coded(
                    ErrorCode::CheckpointConflict,
                    format!(
                        "cannot be put back, even with force, nothing was restored: {}",
                        why.join(", ")
                    ),
                )
                .with_details(serde_json::json!({ "files": files })));
        }
        Ok(now)
    }

    /// What restoring `id` would change, as a unified diff from the files now to the files
    /// restored (`/dev/null` for a file that is absent on one side).
    pub fn diff(&self, id: &str) -> Result<String, ToolError> {
        let _lock = self.lock(false)?;
        let plan = self.plan(id)?;
        let now = self.read_targets(&plan)?;
        let mut out = String::new();
        for (t, (now, now_content)) in plan.targets.iter().zip(now) {
            let want_content = match &t.want {
                FileState::File { hash: Some(h), .. } => Some(self.get_object(h)?),
                _ => None,
            };
            out.push_str(&file_diff(
                &t.rel,
                &now,
                now_content.as_deref(),
                &t.want,
                want_content.as_deref(),
            ));
        }
        Ok(out)
    }

    /// Puts the files back to their state before checkpoint `id`. A file changed since the
    /// journal last saw it is a conflict (`CHECKPOINT_CONFLICT`, nothing touched) unless `force`.
    ///
    /// In three steps, so that a file can take the place of a directory and the other way
    /// round: the files to remove, then the directories the calls created (when empty), then
    /// the files to write. A failure undoes every step done, last first.
    pub fn restore(&self, id: &str, force: bool) -> Result<RestoreOutcome, ToolError> {
        let _lock = self.lock(true)?;
        let plan = self.plan(id)?;
        // Each file's state now, read once: the conflicts, and what a rollback puts back and the
        // restore's own checkpoint keeps.
        let now = self.read_targets(&plan)?;
        let mut conflicts = Vec::new();
        let mut before: Vec<Captured> = Vec::with_capacity(plan.targets.len());
        for (t, (state, content)) in plan.targets.iter().zip(now) {
            if state != t.last {
                conflicts.push(t.rel.clone());
            }
            before.push(Captured {
                abs: t.abs.clone(),
                rel: t.rel.clone(),
                state,
                content,
                linked: None,
                new_dirs: Vec::new(),
            });
        }
        if !conflicts.is_empty() && !force {
            return Err(ERROR_CLASS
                .coded(
                    ErrorCode::CheckpointConflict,
                    format!(
                        "changed since the journal recorded them, nothing was restored (force to overwrite): {}",
                        conflicts.join(", ")
                    ),
                )
                .with_details(serde_json::json!({ "files": conflicts })));
        }
        // every content needed, read and checked before anything is written
        let mut contents = Vec::with_capacity(plan.targets.len());
        for t in &plan.targets {
            contents.push(match &t.want {
                FileState::File { hash: Some(h), .. } => Some(self.get_object(h)?),
                _ => None,
            });
        }
        // a file about to be replaced keeps its content for the restore's own checkpoint by a
        // link, as before a tool's write (the copy read above is for a rollback)
        for (b, t) in before.iter_mut().zip(&plan.targets) {
            if let FileState::File {
                hash: Some(hash), ..
            } = &b.state
            {
                if b.state != t.want {
                    b.linked = self.link_incoming(&b.abs).map(|link| (link, hash.clone()));
                }
            }
        }
        // the files whose state changes: removed, or written
        let (removals, writes): (Vec<usize>, Vec<usize>) = (0..plan.targets.len())
            .filter(|&i| before[i].state != plan.targets[i].want)
            .partition(|&i| plan.targets[i].want == FileState::Absent);
        let mut writer = StateWriter::new(&self.root);
        let mut done: Vec<usize> = Vec::new();
        let mut removed_dirs: Vec<&String> = Vec::new();
        let mut failure = None;
        for &i in &removals {
            let t = &plan.targets[i];
            match writer.put(&t.abs, &t.want, None) {
                Ok(()) => done.push(i),
                Err(e) => {
                    failure = Some((t.rel.clone(), e));
                    break;
                }
            }
        }
        if failure.is_none() {
            for dir in &plan.dirs {
                match writer.remove_dir(&self.root, &self.root.join(dir)) {
                    Ok(true) => removed_dirs.push(dir),
                    Ok(false) => {}
                    Err(e) => {
                        failure = Some((dir.clone(), e));
                        break;
                    }
                }
            }
        }
        if failure.is_none() {
            for &i in &writes {
                let t = &plan.targets[i];
                before[i].new_dirs = missing_dirs(&t.rel, &self.root);
                match writer.put(&t.abs, &t.want, contents[i].as_deref()) {
                    Ok(()) => done.push(i),
                    Err(e) => {
                        failure = Some((t.rel.clone(), e));
                        break;
                    }
                }
            }
        }
        if let Some((rel, e)) = failure {
            // back as it was, last first: the files written, the directories made for them,
            // the directories removed, the files removed
            let (written, removed): (Vec<usize>, Vec<usize>) = done
                .iter()
                .partition(|&&i| plan.targets[i].want != FileState::Absent);
            for &i in written.iter().rev() {
                let _ = writer.put(
                    &before[i].abs,
                    &before[i].state,
                    before[i].content.as_deref(),
                );
            }
            writer.remove_created_dirs();
            for dir in removed_dirs.iter().rev() {
                let _ = writer.confinement.create_dir_all(&self.root.join(dir));
            }
            for &i in removed.iter().rev() {
                let _ = writer.put(
                    &before[i].abs,
                    &before[i].state,
                    before[i].content.as_deref(),
                );
            }
            for (link, _) in before.iter().filter_map(|b| b.linked.as_ref()) {
                let _ = std::fs::remove_file(link);
            }
            if e.get_ref().is_some_and(|r| r.is::<Outside>())
                || e.raw_os_error() == Some(crate::sys::Errno::XDEV.raw_os_error())
            {
                return Err(ERROR_CLASS
                    .coded(
                        ErrorCode::SandboxViolation,
                        format!("[Sandbox Violation] restoring {rel} would write outside the workspace, nothing was restored"),
                    )
                    .refused(Reason::Sandbox));
            }
            return Err(
                ERROR_CLASS.internal(format!("restoring {rel} failed, nothing was restored: {e}"))
            );
        }
        let files = before
            .iter()
            .zip(&plan.targets)
            .filter(|(b, t)| b.state != t.want)
            .map(|(b, t)| CheckpointFile {
                path: t.rel.clone(),
                change: match (&b.state, &t.want) {
                    (FileState::Absent, _) => Change::Created,
                    (_, FileState::Absent) => Change::Deleted,
                    _ => Change::Modified,
                },
            })
            .collect();
        // the restore's own checkpoint, written under the lock held: each file is now as it was
        // put (its mode set exactly, not through the umask)
        let changes = before
            .into_iter()
            .zip(plan.targets)
            .map(|(b, t)| (b, t.want))
            .collect();
        let checkpoint = commit_changes(
            self,
            "checkpoint_restore",
            changes,
            Some(id.to_string()),
            true,
        )?;
        Ok(RestoreOutcome {
            restored: id.to_string(),
            checkpoint,
            files,
        })
    }
}

/// The file's state now and, for a regular file, its content. A directory where the file
/// belongs counts as absent when the calls since created it (the restore removes it), else it
/// blocks the restore; so does a file where one of its directories belongs, unless the restore
/// removes that file, and a link on the way, unless the restore replaces that link (a link
/// leading outside is refused as such).
fn read_now(t: &Target, root: &Path, plan: &Plan) -> Result<StateNow, Refusal> {
    if let Some(link) = link_on_the_way(&t.abs, root) {
        let rel = relative(root, &link).unwrap_or_default();
        let replaced = plan
            .targets
            .iter()
            .any(|o| o.rel == rel && !matches!(o.want, FileState::Symlink { .. }));
        if replaced {
            // removed before anything is written: the file is not there now
            return Ok((FileState::Absent, None));
        }
        let inside = crate::sandbox::real_path(&link)
            .is_ok_and(|real| crate::sandbox::is_within(root, &real));
        return Err(if inside {
            Refusal::Blocked(format!("{rel} is a link now"))
        } else {
            Refusal::Outside
        });
    }
    match read_state(&t.abs, root, Some(u64::MAX)) {
        Ok((Some(state), content)) => {
            if state == FileState::Absent && t.want != FileState::Absent {
                // the nearest of its directories that is there must be one, or go first
                let missing = missing_dirs(&t.rel, root);
                let deepest_missing = missing.last().map_or(t.rel.as_str(), String::as_str);
                if let Some((nearest, _)) = deepest_missing.rsplit_once('/') {
                    let is_dir =
                        std::fs::symlink_metadata(root.join(nearest)).is_ok_and(|m| m.is_dir());
                    let removed = plan
                        .targets
                        .iter()
                        .any(|o| o.rel == nearest && o.want == FileState::Absent);
                    if !is_dir && !removed {
                        return Err(Refusal::Blocked(format!(
                            "{nearest} is not a directory now"
                        )));
                    }
                }
            }
            Ok((state, content))
        }
        Ok((None, _)) if plan.dirs.contains(&t.rel) => Ok((FileState::Absent, None)),
        Ok((None, _)) => Err(Refusal::Blocked("a directory now".into())),
        Err(e) => Err(Refusal::Blocked(format!("cannot be read: {e}"))),
    }
}

/// The error of a journalled path that leads outside the workspace.
fn outside_workspace(rel: &str) -> ToolError {
    ERROR_CLASS
        .coded(
            ErrorCode::SandboxViolation,
            format!("[Sandbox Violation] the journal names a path outside the workspace: {rel:?}"),
        )
        .refused(Reason::Sandbox)
}

/// A directory that lies outside the workspace (what [`StateWriter`] fails with).
#[derive(Debug)]
struct Outside;

impl std::fmt::Display for Outside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("outside the workspace")
    }
}

impl std::error::Error for Outside {}

/// Which paths the test hook fails at.
#[cfg(test)]
pub(super) type FaultAt = Box<dyn Fn(&Path) -> bool>;

#[cfg(test)]
thread_local! {
    /// Test hook: a file state put, or a directory removed, at a path for which this returns
    /// true fails with `EIO`, to provoke a restore that fails halfway.
    pub(super) static FAIL_AT: std::cell::RefCell<Option<FaultAt>> =
        const { std::cell::RefCell::new(None) };
}

/// `EIO` when the test hook asks for a failure at `abs`.
fn fault_at(abs: &Path) -> std::io::Result<()> {
    #[cfg(test)]
    if FAIL_AT.with(|hook| hook.borrow().as_ref().is_some_and(|fail| fail(abs))) {
        return Err(std::io::Error::from_raw_os_error(
            crate::sys::Errno::IO.raw_os_error(),
        ));
    }
    let _ = abs;
    Ok(())
}

/// Gives files the states a restore wants, inside the workspace only. The directory of the last
/// file is kept open for the next one in it (a restore's files mostly share a few directories);
/// that it lies inside the workspace is checked again for every file. The directories it
/// creates are recorded, so that a failed restore can remove them again.
struct StateWriter {
    root: PathBuf,
    confinement: Confinement,
    parent: Option<(PathBuf, crate::sys::OwnedFd)>,
    created: Vec<(crate::sys::OwnedFd, std::ffi::OsString)>,
}

impl StateWriter {
    fn new(root: &Path) -> StateWriter {
        StateWriter {
            root: root.to_path_buf(),
            confinement: Confinement::at(root.to_path_buf()),
            parent: None,
            created: Vec::new(),
        }
    }

    /// Gives the file at `abs` the state `want` (its content in `content`): atomically
    /// replaced, removed, or a link made. Its directories are created inside the workspace only.
    fn put(&mut self, abs: &Path, want: &FileState, content: Option<&[u8]>) -> std::io::Result<()> {
        let outside = || std::io::Error::other(Outside);
        let parent = abs.parent().unwrap_or(&self.root);
        let name = abs
            .file_name()
            .ok_or_else(|| std::io::Error::other("a journalled path without a name"))?;
        if self.parent.as_ref().is_none_or(|(p, _)| p != parent) {
            self.parent = None;
            if let FileState::Absent = want {
                if std::fs::symlink_metadata(abs).is_err() {
                    return Ok(());
                }
            } else {
                self.confinement
                    .create_dir_all_recording(parent, &mut self.created)?;
            }
            let (dir, _) = crate::atomic_write::open_parent(abs)?;
            self.parent = Some((parent.to_path_buf(), dir));
        }
        let Some((_, dir)) = &self.parent else {
            unreachable!("the parent was just opened")
        };
        if !self.confinement.contains_fd(dir) {
            return Err(outside());
        }
        fault_at(abs)?;
        match want {
            FileState::Absent => {
                if let Err(e) =
                    crate::sys::fs::unlinkat(dir, name, crate::sys::fs::AtFlags::empty())
                {
                    let e = std::io::Error::from(e);
                    if e.kind() != std::io::ErrorKind::NotFound {
                        return Err(e);
                    }
                }
            }
            FileState::File { mode, .. } => {
                let bytes = content.ok_or_else(|| std::io::Error::other("content not kept"))?;
                // the permission bits only: a journal cannot make a file set-user-ID
                let mode = mode & 0o1777;
                crate::atomic_write::replace_atomically(dir, name, bytes, Some(mode))?;
            }
            FileState::Symlink { target } => {
                #[cfg(unix)]
                {
                    let temp = format!(".atn-link-{}.tmp", uuid::Uuid::new_v4().simple());
                    rustix::fs::symlinkat(target.as_str(), dir, temp.as_str())?;
                    if let Err(e) = rustix::fs::renameat(dir, temp.as_str(), dir, name) {
                        let _ =
                            rustix::fs::unlinkat(dir, temp.as_str(), rustix::fs::AtFlags::empty());
                        return Err(e.into());
                    }
                }
                #[cfg(windows)]
                {
                    let _ = (target, dir, name);
                    return Err(std::io::Error::other(
                        "symbolic links are not restored on Windows",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Removes the directory at `abs` when it is there and empty (not through a link, in a
    /// parent checked to lie inside the workspace): true when it was removed, false when there
    /// was nothing to remove (not there, not a directory, not empty: a file of the user's in
    /// it), an error when it could not be removed.
    fn remove_dir(&mut self, root: &Path, abs: &Path) -> std::io::Result<bool> {
        self.parent = None;
        let is_dir = std::fs::symlink_metadata(abs).is_ok_and(|m| m.is_dir());
        if !is_dir || link_on_the_way(abs, root).is_some() {
            return Ok(false);
        }
        fault_at(abs)?;
        let (dir, name) = crate::atomic_write::open_parent(abs)?;
        if !self.confinement.contains_fd(&dir) {
            return Ok(false);
        }
        match crate::sys::fs::unlinkat(&dir, name, crate::sys::fs::AtFlags::REMOVEDIR) {
            Ok(()) => Ok(true),
            Err(e) => {
                let e = std::io::Error::from(e);
                let empty_or_gone = matches!(
                    e.kind(),
                    std::io::ErrorKind::DirectoryNotEmpty | std::io::ErrorKind::NotFound
                );
                if empty_or_gone {
                    Ok(false)
                } else {
                    Err(e)
                }
            }
        }
    }

    /// Removes the directories [`StateWriter::put`] created, the last made first (those not
    /// empty stay).
    fn remove_created_dirs(&mut self) {
        self.parent = None;
        for (parent, name) in self.created.drain(..).rev() {
            let _ = crate::sys::fs::unlinkat(&parent, &name, crate::sys::fs::AtFlags::REMOVEDIR);
        }
    }
}

/// One file's part of a diff.
fn file_diff(
    rel: &str,
    now: &FileState,
    now_content: Option<&[u8]>,
    want: &FileState,
    want_content: Option<&[u8]>,
) -> String {
    if now == want {
        return String::new();
    }
    let mut out = format!("diff --checkpoint a/{rel} b/{rel}\n");
    let mode_of = |s: &FileState| match s {
        FileState::File { mode, .. } => Some(*mode),
        _ => None,
    };
    match (now, want) {
        (FileState::Absent, FileState::File { mode, .. }) => {
            out.push_str(&format!("new file mode {:06o}\n", 0o100000 | mode));
        }
        (FileState::File { mode, .. }, FileState::Absent) => {
            out.push_str(&format!("deleted file mode {:06o}\n", 0o100000 | mode));
        }
        _ => {
            if let (Some(a), Some(b)) = (mode_of(now), mode_of(want)) {
                if a != b {
                    out.push_str(&format!(
                        "old mode {:06o}\nnew mode {:06o}\n",
                        0o100000 | a,
                        0o100000 | b
                    ));
                }
            }
        }
    }
    let link = |s: &FileState| match s {
        FileState::Symlink { target } => Some(format!("-> {target}\n")),
        _ => None,
    };
    let text_of = |s: &FileState, c: Option<&[u8]>| -> Option<String> {
        link(s).or_else(|| c.map(|c| String::from_utf8_lossy(c).into_owned()))
    };
    let (a, b) = (text_of(now, now_content), text_of(want, want_content));
    let binary =
        |c: Option<&[u8]>| c.is_some_and(|c| c.contains(&0) || std::str::from_utf8(c).is_err());
    if binary(now_content) || binary(want_content) {
        out.push_str(&format!("Binary files a/{rel} and b/{rel} differ\n"));
        return out;
    }
    let (a_name, b_name) = (
        if a.is_some() {
            format!("a/{rel}")
        } else {
            "/dev/null".into()
        },
        if b.is_some() {
            format!("b/{rel}")
        } else {
            "/dev/null".into()
        },
    );
    let (a, b) = (a.unwrap_or_default(), b.unwrap_or_default());
    if a != b {
        let diff = similar::TextDiff::from_lines(&a, &b);
        out.push_str(
            &diff
                .unified_diff()
                .context_radius(3)
                .header(&a_name, &b_name)
                .missing_newline_hint(true)
                .to_string(),
        );
    }
    out
}
