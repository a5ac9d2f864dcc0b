//! Going back: the files a checkpoint and every later one changed are put back to their state
//! before that checkpoint's call, all or nothing, as a checkpoint of its own (so a restore can be
//! undone too).

use std::path::{Component, Path, PathBuf};

use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::capture::{commit_changes, read_state, Captured};
use super::{Change, Checkpoint, CheckpointFile, FileState, Store, ERROR_CLASS};
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

impl Store {
    /// The files checkpoint `id` and every later one changed, each with the state it had before
    /// the first of those calls and the state the last one left.
    fn targets(&self, id: &str) -> Result<Vec<Target>, ToolError> {
        let all = self.load_all()?;
        let Some(start) = all.iter().position(|c| c.id == id) else {
            return Err(ERROR_CLASS.coded(
                ErrorCode::CheckpointNotFound,
                format!("no checkpoint {id:?} in the journal"),
            ));
        };
        if all[start].pruned {
            return Err(ERROR_CLASS.coded(
                ErrorCode::CheckpointPruned,
                format!("checkpoint {id} was pruned: its contents are no longer kept"),
            ));
        }
        let later: &[Checkpoint] = &all[start..];
        let mut targets: Vec<Target> = Vec::new();
        let mut unkept = Vec::new();
        for cp in later {
            for f in &cp.files {
                match targets.iter_mut().find(|t| t.rel == f.path) {
                    Some(t) => t.last = f.after.clone(),
                    None => {
                        if matches!(f.before, FileState::File { hash: None, .. }) {
                            unkept.push(f.path.clone());
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
        }
        if !unkept.is_empty() {
            return Err(ERROR_CLASS.coded(
                ErrorCode::CheckpointNotRestorable,
                format!(
                    "checkpoint {id} cannot be restored: the journal did not keep the content of {}",
                    unkept.join(", ")
                ),
            ));
        }
        Ok(targets)
    }

    /// The place of a journalled path: relative, plain components only, inside the workspace
    /// (a tampered journal cannot lead a restore outside).
    fn resolve(&self, rel: &str) -> Result<PathBuf, ToolError> {
        let outside = || {
            ERROR_CLASS
                .coded(
                    ErrorCode::SandboxViolation,
                    format!(
                        "[Sandbox Violation] the journal names a path outside the workspace: {rel:?}"
                    ),
                )
                .refused(Reason::Sandbox)
        };
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

    /// What restoring `id` would change, as a unified diff from the files now to the files
    /// restored (`/dev/null` for a file that is absent on one side).
    pub fn diff(&self, id: &str) -> Result<String, ToolError> {
        let _lock = self.lock(false)?;
        let mut out = String::new();
        for t in self.targets(id)? {
            let (now, now_content) = read_now(&t, &self.root)?;
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
    pub fn restore(&self, id: &str, force: bool) -> Result<RestoreOutcome, ToolError> {
        let _lock = self.lock(true)?;
        let targets = self.targets(id)?;
        // Each file's state now, read once: the conflicts, and what a rollback puts back and the
        // restore's own checkpoint keeps.
        let mut conflicts = Vec::new();
        let mut before: Vec<Captured> = Vec::with_capacity(targets.len());
        for t in &targets {
            let (state, content) = read_now(t, &self.root)?;
            if state != t.last {
                conflicts.push(t.rel.clone());
            }
            before.push(Captured {
                abs: t.abs.clone(),
                rel: t.rel.clone(),
                state,
                content,
                linked: None,
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
        let mut contents = Vec::with_capacity(targets.len());
        for t in &targets {
            contents.push(match &t.want {
                FileState::File { hash: Some(h), .. } => Some(self.get_object(h)?),
                _ => None,
            });
        }
        // a file about to be replaced keeps its content for the restore's own checkpoint by a
        // link, as before a tool's write (the copy read above is for a rollback)
        for (b, t) in before.iter_mut().zip(&targets) {
            if let FileState::File {
                hash: Some(hash), ..
            } = &b.state
            {
                if b.state != t.want {
                    b.linked = self.link_incoming(&b.abs).map(|link| (link, hash.clone()));
                }
            }
        }
        let mut writer = StateWriter::new(&self.root);
        for (i, (t, content)) in targets.iter().zip(&contents).enumerate() {
            if let Err(e) = writer.put(&t.abs, &t.want, content.as_deref()) {
                // roll back what was done, last first
                for (done, b) in targets[..i].iter().zip(&before[..i]).rev() {
                    let _ = writer.put(&done.abs, &b.state, b.content.as_deref());
                }
                for (link, _) in before.iter().filter_map(|b| b.linked.as_ref()) {
                    let _ = std::fs::remove_file(link);
                }
                return Err(ERROR_CLASS.internal(format!(
                    "restoring {} failed, nothing was restored: {e}",
                    t.rel
                )));
            }
        }
        let files = before
            .iter()
            .zip(&targets)
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
            .zip(targets)
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

/// The file's state now and, for a regular file, its content (a directory where a file was is a
/// conflict that cannot be forced).
fn read_now(t: &Target, root: &Path) -> Result<(FileState, Option<Vec<u8>>), ToolError> {
    match read_state(&t.abs, root, Some(u64::MAX)) {
        Ok((Some(state), content)) => Ok((state, content)),
        Ok((None, _)) => Err(ERROR_CLASS.coded(
            ErrorCode::CheckpointConflict,
            format!("{} is a directory now, nothing was restored", t.rel),
        )),
        Err(e) => Err(ERROR_CLASS.internal(format!("cannot read {}: {e}", t.rel))),
    }
}

/// Gives files the states a restore wants, inside the workspace only. The directory of the last
/// file is kept open for the next one in it (a restore's files mostly share a few directories);
/// that it lies inside the workspace is checked again for every file.
struct StateWriter {
    root: PathBuf,
    confinement: Confinement,
    parent: Option<(PathBuf, crate::sys::OwnedFd)>,
}

impl StateWriter {
    fn new(root: &Path) -> StateWriter {
        StateWriter {
            root: root.to_path_buf(),
            confinement: Confinement::at(root.to_path_buf()),
            parent: None,
        }
    }

    /// Gives the file at `abs` the state `want` (its content in `content`): atomically
    /// replaced, removed, or a link made. Its directories are created inside the workspace only.
    fn put(&mut self, abs: &Path, want: &FileState, content: Option<&[u8]>) -> std::io::Result<()> {
        let outside = || std::io::Error::other("outside the workspace");
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
                self.confinement.create_dir_all(parent)?;
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
                crate::atomic_write::replace_atomically(dir, name, bytes, Some(*mode))?;
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
