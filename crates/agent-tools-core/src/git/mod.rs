//! git that no repository can program: how the toolkit starts git in a workspace.
//!
//! A repository in the workspace is written by the model, and git's configuration can name
//! programs (`core.fsmonitor`, filter drivers, hooks, transports, `diff.external`, ...) that plain
//! `git status` runs with the host's rights. A list of keys to turn off has been bypassed before,
//! so git never reads the repository's configuration at all:
//!
//! - The repository is found in-process (the `.git` directory or file, `commondir`,
//!   `core.worktree`, object alternates), and every directory git would use must lie inside the
//!   workspace, or the call is refused as a sandbox violation.
//! - Its configuration files are parsed here ([`config`], strict: fail closed). Only settings that
//!   change what git reports and can name no program are passed on ([`ALLOWED_KEYS`]), as
//!   command-scope configuration (`GIT_CONFIG_COUNT`, ...).
//! - git runs with `GIT_DIR` set to a private directory outside the workspace: its `config` holds
//!   only the repository format, `HEAD`, the refs it needs and `info/` files are copies, and the
//!   objects and the index are read in place (`GIT_OBJECT_DIRECTORY`, `GIT_INDEX_FILE`). With no
//!   driver defined, the attributes of the work tree name nothing that can run.
//! - The host's `GIT_*` variables never reach git. The user's global configuration is read by git
//!   only when it lies outside the workspace and includes nothing inside it.
//! - git itself is found on the `PATH` entries that are absolute and lie outside the workspace.

pub mod config;
pub mod index_file;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::context::ToolContext;
use crate::sandbox::{is_within, real_path};

/// Settings copied from the repository's configuration: they change what git reports and can
/// name no program (`section.key`, or `section.*.key` for any subsection).
pub const ALLOWED_KEYS: [&str; 34] = [
    "core.filemode",
    "core.symlinks",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.trustctime",
    "core.checkstat",
    "core.autocrlf",
    "core.eol",
    "core.safecrlf",
    "core.untrackedcache",
    "core.splitindex",
    "core.sparsecheckout",
    "core.sparsecheckoutcone",
    "core.protectntfs",
    "core.protecthfs",
    "core.fscache",
    "core.longpaths",
    "core.checkroundtripencoding",
    "status.showuntrackedfiles",
    "status.renames",
    "status.renamelimit",
    "status.aheadbehind",
    "diff.renames",
    "diff.renamelimit",
    "index.version",
    "index.sparse",
    "index.skiphash",
    "index.threads",
    "feature.manyfiles",
    "branch.*.remote",
    "branch.*.merge",
    "remote.*.fetch",
    "remote.*.url",
    "core.quotepath",
];

/// Command-scope configuration given last, so it wins: no fsmonitor, no hooks, no transport.
const SAFE_CONFIG: [(&str, &str); 6] = [
    ("core.fsmonitor", "false"),
    ("core.useBuiltinFSMonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("protocol.allow", "never"),
    ("diff.external", ""),
    ("status.submoduleSummary", "false"),
];

/// The locale git answers in, and no optional locks (git writes nothing), lazy fetches or prompts.
const FIXED_ENV: [(&str, Option<&str>); 5] = [
    ("LC_ALL", Some("C")),
    ("LANGUAGE", None),
    ("GIT_OPTIONAL_LOCKS", Some("0")),
    ("GIT_NO_LAZY_FETCH", Some("1")),
    ("GIT_TERMINAL_PROMPT", Some("0")),
];

/// Largest file copied into the private directory or read as a repository file.
const MAX_FILE_BYTES: u64 = 64 << 20;

/// Why git was not started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No `git` on the usable `PATH` entries.
    GitNotFound,
    /// No repository holds the directory (inside the workspace or above it).
    NotRepository,
    /// Something git would use lies outside the workspace: what, as the repository names it.
    Outside(String),
    /// git's own failure text (`fatal: ...`), for a repository it would refuse too.
    Git(String),
}

/// The repository holding a directory, every part of it inside the workspace (real paths).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repository {
    pub work_tree: PathBuf,
    pub git_dir: PathBuf,
    pub common_dir: PathBuf,
    pub objects_dir: PathBuf,
}

/// A git ready to run: the program, the environment changes for it and the private directory,
/// removed when this is dropped.
pub struct HardenedGit {
    pub program: String,
    pub repository: Repository,
    env: Vec<(String, Option<String>)>,
    _private: crate::exec_sandbox::PrivateTmp,
}

impl HardenedGit {
    /// Finds git and the repository holding `target` (a directory inside the workspace) and
    /// sets up the private git directory.
    pub fn prepare(ctx: &ToolContext, target: &Path) -> Result<HardenedGit, Refusal> {
        let root = ctx
            .real_root()
            .map_err(|e| Refusal::Git(format!("fatal: {e}")))?
            .to_path_buf();
        let program = find_git(ctx, &root).ok_or(Refusal::GitNotFound)?;
        let target = real_path(target).map_err(|e| Refusal::Git(format!("fatal: {e}")))?;
        let mut repository = discover(&target, &root, &ceilings(ctx))?;
        let settings = RepositorySettings::read(&repository, &root)?;
        if let Some(work_tree) = &settings.work_tree {
            repository.work_tree = work_tree.clone();
        }
        let private = private_dir(ctx, &root)?;
        settings.populate(&repository, &root, private.path())?;
        let mut env = host_git_variables(ctx);
        env.extend(
            FIXED_ENV
                .iter()
                .map(|(k, v)| (k.to_string(), v.map(String::from))),
        );
        // Plain paths (a `\\?\` prefix taken off on Windows: git joins names to them with `/`).
        let path = |p: &Path| {
            let text = p.to_string_lossy();
            #[cfg(windows)]
            let text = crate::windows_path::strip_verbatim(&text);
            Some(text.to_string())
        };
        env.push(("GIT_DIR".into(), path(private.path())));
        env.push(("GIT_WORK_TREE".into(), path(&repository.work_tree)));
        env.push(("GIT_OBJECT_DIRECTORY".into(), path(&repository.objects_dir)));
        env.push((
            "GIT_INDEX_FILE".into(),
            path(&repository.git_dir.join("index")),
        ));
        if !global_config_is_outside(ctx, &root) {
            env.push(("GIT_CONFIG_GLOBAL".into(), Some("/dev/null".into())));
        }
        let config: Vec<(String, String)> = settings
            .passed_on
            .into_iter()
            .chain(
                SAFE_CONFIG
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string())),
            )
            .collect();
        env.push(("GIT_CONFIG_COUNT".into(), Some(config.len().to_string())));
        for (index, (key, value)) in config.into_iter().enumerate() {
            env.push((format!("GIT_CONFIG_KEY_{index}"), Some(key)));
            env.push((format!("GIT_CONFIG_VALUE_{index}"), Some(value)));
        }
        Ok(HardenedGit {
            program,
            repository,
            env,
            _private: private,
        })
    }

    /// The changes to the host's environment git runs with (`Some` sets, `None` removes).
    pub fn env(&self) -> Vec<(&str, Option<&str>)> {
        self.env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_deref()))
            .collect()
    }

    /// The private git directory (outside the workspace, removed with this).
    pub fn private_dir(&self) -> &Path {
        self._private.path()
    }
}

/// Every `GIT_*` variable of the host, to be removed.
fn host_git_variables(ctx: &ToolContext) -> Vec<(String, Option<String>)> {
    let names: Vec<String> = match &ctx.process_env {
        Some(vars) => vars.iter().map(|(k, _)| k.clone()).collect(),
        None => std::env::vars_os()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect(),
    };
    names
        .into_iter()
        .filter(|k| k.to_ascii_uppercase().starts_with("GIT_"))
        .map(|k| (k, None))
        .collect()
}

/// `git` (with `PATHEXT` on Windows) from the `PATH` entries that are absolute and whose real
/// location is outside the workspace: a relative entry or one the model can write never supplies
/// the program.
pub fn find_git(ctx: &ToolContext, root: &Path) -> Option<String> {
    let path_var = ctx.host_var("PATH")?;
    let names: Vec<String> = if cfg!(windows) {
        let pathext = ctx
            .host_var("PATHEXT")
            .map(|v| v.to_string_lossy().into_owned())
            .unwrap_or_else(|| ".COM;.EXE;.BAT;.CMD".into());
        pathext
            .split(';')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(|e| format!("git{}", e.to_ascii_lowercase()))
            .collect()
    } else {
        vec!["git".into()]
    };
    std::env::split_paths(&path_var)
        .filter(|dir| dir.is_absolute())
        .filter(|dir| real_path(dir).is_ok_and(|real| !is_within(root, &real)))
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| is_program(candidate, root))
        .map(|p| p.to_string_lossy().into_owned())
}

fn is_program(candidate: &Path, root: &Path) -> bool {
    let Ok(real) = real_path(candidate) else {
        return false;
    };
    if is_within(root, &real) || !std::fs::metadata(&real).is_ok_and(|m| m.is_file()) {
        return false;
    }
    #[cfg(unix)]
    {
        rustix::fs::access(&real, rustix::fs::Access::EXEC_OK).is_ok()
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// `GIT_CEILING_DIRECTORIES` of the host: where the search for a repository above the
/// workspace stops (it only decides between "not a repository" and "outside the workspace").
fn ceilings(ctx: &ToolContext) -> Vec<PathBuf> {
    ctx.host_var("GIT_CEILING_DIRECTORIES")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| p.is_absolute())
                .map(|p| real_path(&p).unwrap_or(p))
                .collect()
        })
        .unwrap_or_default()
}

/// `path` when its real location lies inside `root`; `what` names it in the refusal.
fn inside(root: &Path, path: &Path, what: &str) -> Result<PathBuf, Refusal> {
    match real_path(path) {
        Ok(real) if is_within(root, &real) => Ok(real),
        _ => Err(Refusal::Outside(what.to_string())),
    }
}

/// A repository file's text (`None` when missing), read only when it lies inside the workspace.
fn read_inside(root: &Path, path: &Path, what: &str) -> Result<Option<String>, Refusal> {
    let real = inside(root, path, what)?;
    match std::fs::metadata(&real) {
        Err(_) => return Ok(None),
        Ok(m) if !m.is_file() || m.len() > MAX_FILE_BYTES => {
            return Err(Refusal::Git(format!("fatal: cannot read {what}")))
        }
        Ok(_) => {}
    }
    std::fs::read(&real)
        .map(|bytes| Some(String::from_utf8_lossy(&bytes).into_owned()))
        .map_err(|_| Refusal::Git(format!("fatal: cannot read {what}")))
}

/// git's test for a git directory: a `HEAD` file, and `objects/` and `refs` in its common
/// directory. Returns the common directory.
fn git_directory(dir: &Path) -> Option<PathBuf> {
    if !dir.join("HEAD").is_file() {
        return None;
    }
    let common = match std::fs::read_to_string(dir.join("commondir")) {
        Ok(text) => dir.join(text.trim_end_matches(['\n', '\r'])),
        Err(_) => dir.to_path_buf(),
    };
    (common.join("objects").is_dir() && common.join("refs").exists()).then_some(common)
}

const NO_WORK_TREE: &str = "fatal: this operation must be run in a work tree";

/// Finds the repository holding `target` as git would, walking up to the workspace root; every
/// directory it names must lie inside the workspace.
pub fn discover(target: &Path, root: &Path, ceilings: &[PathBuf]) -> Result<Repository, Refusal> {
    let mut dir = target.to_path_buf();
    loop {
        let dot_git = dir.join(".git");
        let rel = |p: &Path| {
            p.strip_prefix(root)
                .map(|r| r.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default()
        };
        let found = if dot_git.is_file() {
            let what = format!("{}/.git", rel(&dir))
                .trim_start_matches('/')
                .to_string();
            let text = read_inside(root, &dot_git, &what)?.unwrap_or_default();
            let named = text
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("gitdir: "))
                .map(|l| l.trim_end_matches('\r'))
                .filter(|l| !l.is_empty())
                .ok_or_else(|| Refusal::Git(format!("fatal: invalid gitfile format: {what}")))?;
            let git_dir = inside(root, &dir.join(named), named)?;
            Some(git_dir)
        } else if dot_git.is_dir() && git_directory(&dot_git).is_some() {
            Some(inside(root, &dot_git, ".git")?)
        } else {
            None
        };
        if let Some(git_dir) = found {
            let common = git_directory(&git_dir).ok_or(Refusal::NotRepository)?;
            let common_dir = inside(root, &common, "commondir")?;
            let objects_dir = inside(root, &common_dir.join("objects"), "objects")?;
            check_alternates(root, &objects_dir, 0)?;
            return Ok(Repository {
                work_tree: dir,
                git_dir,
                common_dir,
                objects_dir,
            });
        }
        if git_directory(&dir).is_some() {
            // Inside a git directory (or a bare repository): no work tree.
            return Err(Refusal::Git(NO_WORK_TREE.into()));
        }
        if dir == root {
            break;
        }
        match dir.parent() {
            Some(parent) => dir = parent.to_path_buf(),
            None => break,
        }
    }
    // Above the workspace: a repository there is outside it.
    let mut dir = root.to_path_buf();
    while let Some(parent) = dir.parent() {
        if ceilings.iter().any(|c| c == parent) {
            break;
        }
        if parent.join(".git").exists() || git_directory(parent).is_some() {
            return Err(Refusal::Outside(
                "the repository holding the workspace".into(),
            ));
        }
        dir = parent.to_path_buf();
    }
    Err(Refusal::NotRepository)
}

/// Each alternate object directory (`objects/info/alternates`, and theirs) lies inside.
fn check_alternates(root: &Path, objects: &Path, depth: usize) -> Result<(), Refusal> {
    let file = objects.join("info").join("alternates");
    let Some(text) = read_inside(root, &file, "objects/info/alternates")? else {
        return Ok(());
    };
    if depth >= 5 {
        return Err(Refusal::Git("fatal: alternates nested too deeply".into()));
    }
    for line in text.lines().map(|l| l.trim_end_matches('\r')) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // A quoted line (C-style escapes) is refused rather than decoded.
        if line.starts_with('"') {
            return Err(Refusal::Outside(line.to_string()));
        }
        let alternate = inside(root, &objects.join(line), line)?;
        check_alternates(root, &alternate, depth + 1)?;
    }
    Ok(())
}

/// What the repository's configuration says, as far as it is passed on.
struct RepositorySettings {
    /// `core.worktree`, resolved (inside the workspace).
    work_tree: Option<PathBuf>,
    format_version: u32,
    /// `extensions.*` (but `worktreeconfig`, merged here), for the private `config` file.
    extensions: Vec<(String, String)>,
    /// Allowed settings, in the order the files give them.
    passed_on: Vec<(String, String)>,
}

impl RepositorySettings {
    fn read(repo: &Repository, root: &Path) -> Result<RepositorySettings, Refusal> {
        let mut entries = parse_file(root, &repo.common_dir.join("config"), "config")?;
        let worktree_config = entries.iter().rev().find_map(|e| {
            (e.section == "extensions" && e.key == "worktreeconfig")
                .then(|| config::parse_bool(e.value.as_deref()) == Some(true))
        });
        if worktree_config == Some(true) {
            entries.extend(parse_file(
                root,
                &repo.git_dir.join("config.worktree"),
                "config.worktree",
            )?);
        }
        let last = |section: &str, key: &str| {
            entries
                .iter()
                .rev()
                .find(|e| e.section == section && e.subsection.is_none() && e.key == key)
        };
        let format_version = match last("core", "repositoryformatversion") {
            None => 0,
            Some(e) => e
                .value
                .as_deref()
                .and_then(|v| v.parse::<u32>().ok())
                .ok_or_else(|| Refusal::Git("fatal: bad repository format version".into()))?,
        };
        if last("core", "bare")
            .is_some_and(|e| config::parse_bool(e.value.as_deref()) == Some(true))
        {
            return Err(Refusal::Git(NO_WORK_TREE.into()));
        }
        let work_tree = match last("core", "worktree").and_then(|e| e.value.as_deref()) {
            // Relative to the git directory, as git takes it.
            Some(value) => Some(inside(root, &repo.git_dir.join(value), value)?),
            None => None,
        };
        let mut extensions = Vec::new();
        for e in entries.iter().filter(|e| e.section == "extensions") {
            if e.key == "worktreeconfig" || e.subsection.is_some() {
                continue;
            }
            let value = e.value.clone().unwrap_or_else(|| "true".into());
            if !value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
            {
                return Err(Refusal::Git(format!(
                    "fatal: unsupported value of extensions.{}",
                    e.key
                )));
            }
            extensions.push((e.key.clone(), value));
        }
        let passed_on = entries
            .iter()
            .filter(|e| is_allowed(e))
            // A bare key is boolean true.
            .map(|e| (e.name(), e.value.clone().unwrap_or_else(|| "true".into())))
            .collect();
        Ok(RepositorySettings {
            work_tree,
            format_version,
            extensions,
            passed_on,
        })
    }

    /// Writes the private git directory: `config`, `HEAD`, the refs `status` reads, `info/`.
    fn populate(&self, repo: &Repository, root: &Path, private: &Path) -> Result<(), Refusal> {
        let failed = |e: std::io::Error| Refusal::Git(format!("fatal: {e}"));
        let mut config = format!(
            "[core]\n\trepositoryformatversion = {}\n\tbare = false\n",
            self.format_version
        );
        if !self.extensions.is_empty() {
            config.push_str("[extensions]\n");
            for (key, value) in &self.extensions {
                config.push_str(&format!("\t{key} = {value}\n"));
            }
        }
        std::fs::write(private.join("config"), config).map_err(failed)?;
        let head =
            read_inside(root, &repo.git_dir.join("HEAD"), "HEAD")?.ok_or(Refusal::NotRepository)?;
        std::fs::write(private.join("HEAD"), &head).map_err(failed)?;
        for dir in ["refs/heads", "refs/tags", "objects", "info"] {
            std::fs::create_dir_all(private.join(dir)).map_err(failed)?;
        }
        let reftable = self
            .extensions
            .iter()
            .any(|(k, v)| k == "refstorage" && v == "reftable");
        if reftable {
            if repo.git_dir != repo.common_dir {
                return Err(Refusal::Git(
                    "fatal: linked work trees of reftable repositories are not supported".into(),
                ));
            }
            copy_dir_files(
                root,
                &repo.common_dir.join("reftable"),
                &private.join("reftable"),
            )?;
        } else {
            copy_if_present(
                root,
                &repo.common_dir.join("packed-refs"),
                &private.join("packed-refs"),
            )?;
            for name in self.refs_to_copy(head.trim()) {
                let per_worktree = ["refs/bisect/", "refs/worktree/", "refs/rewritten/"]
                    .iter()
                    .any(|p| name.starts_with(p));
                let from = if per_worktree {
                    &repo.git_dir
                } else {
                    &repo.common_dir
                };
                let target = private.join(&name);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent).map_err(failed)?;
                }
                copy_if_present(root, &from.join(&name), &target)?;
            }
        }
        copy_if_present(
            root,
            &repo.common_dir.join("shallow"),
            &private.join("shallow"),
        )?;
        for name in ["exclude", "attributes"] {
            copy_if_present(
                root,
                &repo.common_dir.join("info").join(name),
                &private.join("info").join(name),
            )?;
        }
        copy_if_present(
            root,
            &repo.git_dir.join("info").join("sparse-checkout"),
            &private.join("info").join("sparse-checkout"),
        )?;
        Ok(())
    }

    /// The branch `HEAD` names and its upstream's remote-tracking ref (loose refs to copy).
    fn refs_to_copy(&self, head: &str) -> Vec<String> {
        let Some(branch_ref) = head.strip_prefix("ref: ").filter(|r| is_safe_ref(r)) else {
            return Vec::new();
        };
        let mut refs = vec![branch_ref.to_string()];
        let Some(branch) = branch_ref.strip_prefix("refs/heads/") else {
            return refs;
        };
        let value = |name: &str| {
            self.passed_on
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let remote = value(&format!("branch.{branch}.remote"));
        let merge = value(&format!("branch.{branch}.merge"));
        if let (Some(remote), Some(merge)) = (remote, merge) {
            if remote == "." {
                refs.push(merge.to_string());
            } else {
                let key = format!("remote.{remote}.fetch");
                for (_, spec) in self.passed_on.iter().filter(|(k, _)| *k == key) {
                    if let Some(tracking) = map_refspec(spec, merge) {
                        refs.push(tracking);
                    }
                }
            }
        }
        refs.retain(|r| is_safe_ref(r));
        refs
    }
}

/// The destination of `name` under a fetch refspec (`+refs/heads/*:refs/remotes/origin/*`).
fn map_refspec(spec: &str, name: &str) -> Option<String> {
    let (src, dst) = spec.trim_start_matches('+').split_once(':')?;
    match (src.split_once('*'), dst.split_once('*')) {
        (Some((src_pre, src_post)), Some((dst_pre, dst_post))) => {
            let middle = name.strip_prefix(src_pre)?.strip_suffix(src_post)?;
            Some(format!("{dst_pre}{middle}{dst_post}"))
        }
        (None, None) if src == name => Some(dst.to_string()),
        _ => None,
    }
}

/// A ref name that is safe to join to a directory: `refs/...`, no empty, `.` or `..` component.
fn is_safe_ref(name: &str) -> bool {
    name.starts_with("refs/")
        && !name.contains(['\\', '\0', ':'])
        && name
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

fn is_allowed(entry: &config::Entry) -> bool {
    ALLOWED_KEYS.iter().any(|allowed| {
        let mut parts = allowed.split('.');
        let (section, middle, key) = match (parts.next(), parts.next(), parts.next()) {
            (Some(s), Some(m), Some(k)) => (s, Some(m), k),
            (Some(s), Some(k), None) => (s, None, k),
            _ => return false,
        };
        entry.section == section
            && entry.key == key
            && match middle {
                Some(_) => entry.subsection.is_some(),
                None => entry.subsection.is_none(),
            }
    })
}

fn parse_file(root: &Path, path: &Path, what: &str) -> Result<Vec<config::Entry>, Refusal> {
    let Some(text) = read_inside(root, path, what)? else {
        return Ok(Vec::new());
    };
    config::parse(&text).map_err(|e| Refusal::Git(format!("fatal: {e} in file {what}")))
}

fn copy_if_present(root: &Path, from: &Path, to: &Path) -> Result<(), Refusal> {
    let what = from.file_name().map(|n| n.to_string_lossy().into_owned());
    let real = inside(root, from, what.as_deref().unwrap_or_default())?;
    match std::fs::metadata(&real) {
        Ok(m) if m.is_file() && m.len() <= MAX_FILE_BYTES => std::fs::copy(&real, to)
            .map(|_| ())
            .map_err(|e| Refusal::Git(format!("fatal: {e}"))),
        _ => Ok(()),
    }
}

fn copy_dir_files(root: &Path, from: &Path, to: &Path) -> Result<(), Refusal> {
    let real = inside(root, from, "reftable")?;
    std::fs::create_dir_all(to).map_err(|e| Refusal::Git(format!("fatal: {e}")))?;
    let Ok(entries) = std::fs::read_dir(&real) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        copy_if_present(root, &entry.path(), &to.join(entry.file_name()))?;
    }
    Ok(())
}

/// The private git directory: under the host's temporary directory, which must lie outside the
/// workspace (else the system's; else refused).
fn private_dir(ctx: &ToolContext, root: &Path) -> Result<crate::exec_sandbox::PrivateTmp, Refusal> {
    let host_tmp = ctx
        .host_var("TMPDIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let outside = |p: &PathBuf| real_path(p).is_ok_and(|real| !is_within(root, &real));
    let base = host_tmp
        .into_iter()
        .chain(std::iter::once(std::env::temp_dir()))
        .find(outside)
        .ok_or_else(|| {
            Refusal::Git("fatal: no temporary directory outside the workspace".into())
        })?;
    crate::exec_sandbox::PrivateTmp::create_named(&base, "agent-tools-git")
        .map_err(|e| Refusal::Git(format!("fatal: {e}")))
}

/// Whether git may read the user's global configuration: every file of it lies outside the
/// workspace and includes nothing that could lie inside (an include this reader cannot
/// follow, or a file it cannot parse, counts as inside).
fn global_config_is_outside(ctx: &ToolContext, root: &Path) -> bool {
    let home = ctx.host_var("HOME").or_else(|| ctx.host_var("USERPROFILE"));
    let xdg = ctx
        .host_var("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| PathBuf::from(h).join(".config")));
    let files: Vec<PathBuf> = home
        .iter()
        .map(|h| PathBuf::from(h).join(".gitconfig"))
        .chain(xdg.map(|x| x.join("git").join("config")))
        .collect();
    files
        .iter()
        .all(|file| file_is_outside(file, root, home.as_ref(), 0))
}

fn file_is_outside(file: &Path, root: &Path, home: Option<&OsString>, depth: usize) -> bool {
    let Ok(real) = real_path(file) else {
        return false;
    };
    if is_within(root, &real) {
        return false;
    }
    let text = match std::fs::read(&real) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return e.kind() == std::io::ErrorKind::NotFound,
    };
    let Ok(entries) = config::parse(&text) else {
        return false;
    };
    entries
        .iter()
        .filter(|e| (e.section == "include" || e.section == "includeif") && e.key == "path")
        .all(|e| {
            let Some(value) = e.value.as_deref() else {
                return true;
            };
            let included = match (value.strip_prefix("~/"), home) {
                (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
                (Some(_), None) => return false,
                (None, _) => real.parent().unwrap_or(Path::new("/")).join(value),
            };
            depth < 10 && file_is_outside(&included, root, home, depth + 1)
        })
}

#[cfg(test)]
mod tests;
