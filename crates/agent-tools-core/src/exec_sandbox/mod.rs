//! The opt-in OS sandbox of exec_command (docs/tools/exec_command.md, "OS sandbox"):
//! `context.exec = { sandbox: "off" | "auto" | "required", network: "allow" | "deny" }`.
//!
//! There is no helper binary. Everything that allocates or opens files (the Landlock ruleset
//! with its path descriptors, the seccomp BPF programs, the Seatbelt profile text) is built
//! first, in [`prepare`]; applying it is a few system calls on that memory
//! ([`ChildRestriction::spawn`]):
//!
//! - Linux: a short-lived thread applies `no_new_privs`, a Landlock domain and (network denied)
//!   the seccomp filters to itself — all three are per-thread — and starts the child, which
//!   inherits them; the host's other threads stay unrestricted and the child is still started
//!   with `posix_spawn`, not a `fork` of the whole host. The Landlock domain allows reading and
//!   executing everywhere and writing only where the scope allows (`workspace-write`: the
//!   workspace root, a private temporary directory passed as `TMPDIR` and the usual character
//!   devices; `read-only`: those devices only; `unrestricted`: no file rule); with
//!   `network: "deny"` it also refuses TCP bind and connect (ABI 4 and later), and seccomp
//!   refuses new sockets other than Unix ones, and io_uring (whose requests could create sockets
//!   without the `socket` system call).
//! - macOS: the child applies a Seatbelt profile (`sandbox_init`) with the same write and network
//!   rules between fork and exec (compiled for the darwin targets; it cannot be run here).
//! - Linux with the `portable-unix` feature (crate README): the Landlock and seccomp restriction
//!   as above, applied the macOS way (by the child between fork and exec, no supervisor).
//! - Elsewhere, and on a kernel without Landlock: `"auto"` runs the command unsandboxed and says
//!   so in the result; `"required"` fails the call with `SANDBOX_UNAVAILABLE`.
//!
//! This file holds what every platform shares (the options, the report, preparing and
//! spawning); `landlock.rs` and `seccomp.rs` the Linux mechanisms, `seatbelt.rs` the macOS one.

use std::path::{Path, PathBuf};

use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use crate::context::ToolContext;
use crate::value::ArgValue;

#[cfg(target_os = "linux")]
mod landlock;
mod seatbelt;
#[cfg(target_os = "linux")]
mod seccomp;

#[cfg(target_os = "linux")]
use self::landlock as platform;
#[cfg(target_os = "macos")]
use self::seatbelt::platform;

/// `context.exec.sandbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Off,
    Auto,
    Required,
}

/// `context.exec`, validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecOptions {
    pub mode: Mode,
    pub deny_network: bool,
}

impl ExecOptions {
    /// Reads `context.exec` (`undefined`/`null`: off). A bad value is refused with a message
    /// naming the field, never ignored: a sandbox asked for and silently not applied is worse
    /// than a failed call.
    pub fn from_value(exec: &ArgValue) -> Result<ExecOptions, String> {
        let off = ExecOptions {
            mode: Mode::Off,
            deny_network: false,
        };
        if exec.is_nullish() {
            return Ok(off);
        }
        if !matches!(exec, ArgValue::Object(_)) {
            return Err("context.exec must be an object".into());
        }
        let mode = match exec.get("sandbox") {
            v if v.is_nullish() => Mode::Off,
            ArgValue::String(s) if s == "off" => Mode::Off,
            ArgValue::String(s) if s == "auto" => Mode::Auto,
            ArgValue::String(s) if s == "required" => Mode::Required,
            _ => {
                return Err("context.exec.sandbox must be \"off\", \"auto\" or \"required\"".into())
            }
        };
        let deny_network = match exec.get("network") {
            v if v.is_nullish() => false,
            ArgValue::String(s) if s == "allow" => false,
            ArgValue::String(s) if s == "deny" => true,
            _ => return Err("context.exec.network must be \"allow\" or \"deny\"".into()),
        };
        if deny_network && mode == Mode::Off {
            return Err(
                "context.exec.network \"deny\" needs context.exec.sandbox \"auto\" or \"required\""
                    .into(),
            );
        }
        Ok(ExecOptions { mode, deny_network })
    }
}

/// The environment exec_command's commands get (`context.exec.env`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecEnv {
    /// The host's whole environment (the default, as upstream).
    Inherit,
    /// Only [`BASE_ENV`] and these names.
    Clean(Vec<String>),
}

/// What `"clean"` keeps: what programs need to find their tools, their home and their locale.
pub const BASE_ENV: [&str; 27] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    // Windows
    "PATHEXT",
    "SYSTEMROOT",
    "WINDIR",
    "COMSPEC",
    "TEMP",
    "TMP",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
    "PROGRAMFILES",
    "PROGRAMFILES(X86)",
    "SYSTEMDRIVE",
    "NUMBER_OF_PROCESSORS",
];

impl ExecEnv {
    /// Reads `context.exec.env`: `"inherit"` (or absent), `"clean"`, or an array of names kept
    /// beside [`BASE_ENV`].
    pub fn from_value(exec: &ArgValue) -> Result<ExecEnv, String> {
        let invalid = || {
            "context.exec.env must be \"inherit\", \"clean\" or an array of variable names"
                .to_string()
        };
        if !matches!(exec, ArgValue::Object(_)) {
            return Ok(ExecEnv::Inherit);
        }
        match exec.get("env") {
            v if v.is_nullish() => Ok(ExecEnv::Inherit),
            ArgValue::String(s) if s == "inherit" => Ok(ExecEnv::Inherit),
            ArgValue::String(s) if s == "clean" => Ok(ExecEnv::Clean(Vec::new())),
            ArgValue::Array(items) => items
                .iter()
                .map(|item| match item {
                    ArgValue::String(s) if !s.is_empty() && !s.contains(['=', '\0']) => {
                        Ok(s.clone())
                    }
                    _ => Err(invalid()),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(ExecEnv::Clean),
            _ => Err(invalid()),
        }
    }

    /// Whether a variable of the host is passed on (names compared as the platform does).
    pub fn keeps(&self, name: &str) -> bool {
        let same = |a: &str, b: &str| {
            if cfg!(windows) {
                a.eq_ignore_ascii_case(b)
            } else {
                a == b
            }
        };
        match self {
            ExecEnv::Inherit => true,
            ExecEnv::Clean(extra) => {
                BASE_ENV.iter().any(|k| same(k, name)) || extra.iter().any(|k| same(k, name))
            }
        }
    }
}

/// Where a sandboxed command may write.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "typegen", derive(TS))]
#[serde(rename_all = "lowercase")]
pub enum WriteReach {
    /// `workspace-write`: the workspace, the private `TMPDIR` and the usual devices.
    Workspace,
    /// `read-only`: only the usual devices (`/dev/null`, ...).
    None,
    /// `unrestricted`: anywhere the user may write.
    All,
}

impl WriteReach {
    /// The reach of a `writeScope` (any value but `read-only` and `unrestricted` behaves as
    /// `workspace-write`, as for the file tools).
    pub fn of(ctx: &ToolContext) -> WriteReach {
        match ctx.write_scope.as_str() {
            Some("read-only") => WriteReach::None,
            Some("unrestricted") => WriteReach::All,
            _ => WriteReach::Workspace,
        }
    }
}

#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "typegen", derive(TS))]
#[serde(rename_all = "lowercase")]
pub enum NetworkReach {
    Denied,
    Allowed,
}

/// What was enforced on a command: exec_command's `sandbox` field (present only when
/// `context.exec.sandbox` is `"auto"` or `"required"`), and what the tool loop's review hook sees.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "typegen", derive(TS))]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ExecSandbox {
    /// Linux: Landlock (`abi`: the kernel's Landlock ABI version), `no_new_privs` and, with the
    /// network denied, seccomp.
    Landlock {
        abi: u32,
        write: WriteReach,
        network: NetworkReach,
    },
    /// macOS: a Seatbelt profile.
    Seatbelt {
        write: WriteReach,
        network: NetworkReach,
    },
    /// Nothing was enforced (`"auto"` on a system that cannot), and why.
    None { reason: String },
}

/// Why a sandbox cannot be set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The system cannot enforce it (`"auto"` runs unsandboxed, `"required"` fails).
    Unavailable(String),
    /// Setting it up failed on a system that supports it (the call fails in both modes).
    Failed(String),
}

/// The prepared restriction of one call (built before the spawn; applying it allocates nothing).
#[derive(Clone)]
#[cfg_attr(windows, allow(dead_code))] // never built on Windows (no OS sandbox there)
pub struct ChildRestriction(std::sync::Arc<platform::Restriction>);

impl ChildRestriction {
    /// Linux: starts `image` under its supervisor (crate::supervisor), which applies the
    /// restriction in the command's process right before `execve`.
    #[cfg(linux_native)]
    pub fn spawn_supervised(
        &self,
        image: std::sync::Arc<crate::supervisor::ExecImage>,
        cwd: Option<&Path>,
        stdin_piped: bool,
    ) -> std::io::Result<crate::supervisor::Supervised> {
        crate::supervisor::spawn(
            image,
            self.restrict(),
            cwd,
            stdin_piped,
            crate::supervisor::Streams::Separate,
        )
    }

    /// The restriction as a process applies it to itself before `execve` (the supervisor's
    /// command; elsewhere, with the descriptors above 2 closed too, as `spawn` does).
    pub fn restrict(&self) -> std::sync::Arc<dyn Fn() -> std::io::Result<()> + Send + Sync> {
        let restriction = self.0.clone();
        #[cfg(all(unix, portable))]
        let limit = descriptor_limit();
        std::sync::Arc::new(move || {
            restriction.apply()?;
            #[cfg(all(unix, portable))]
            inherit_only_standard_streams(limit);
            Ok(())
        })
    }

    /// Elsewhere (and on Linux with the `portable-unix` feature, where the restriction stays
    /// Landlock's) the child starts a session, applies the restriction to itself between fork
    /// and exec and std executes the command: no supervisor, so what the command leaves running
    /// outlives the call, as on macOS.
    #[cfg(all(unix, portable))]
    pub fn spawn(
        &self,
        command: &mut std::process::Command,
    ) -> std::io::Result<std::process::Child> {
        use std::os::unix::process::CommandExt;
        let restriction = self.0.clone();
        let limit = descriptor_limit();
        // SAFETY: the closure runs in the child between fork and exec; `apply` only uses
        // memory prepared before the fork (see its platform's notes), the rest is `fcntl`.
        unsafe {
            command.pre_exec(move || {
                // A session of its own, so no controlling terminal, as under Linux's
                // supervisor; the child leads its process group as with `process_group(0)`.
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                restriction.apply()?;
                inherit_only_standard_streams(limit);
                Ok(())
            });
        }
        command.spawn()
    }
}

/// The bound of the descriptors a process can hold (`RLIMIT_NOFILE`), taken before the fork;
/// at most 2^20.
#[cfg(all(portable, unix))]
fn descriptor_limit() -> i32 {
    rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .map_or(1 << 20, |limit| limit.min(1 << 20) as i32)
}

/// Between fork and exec: every descriptor above 2 becomes close-on-exec, so a sandboxed
/// command inherits only its standard streams, as under Linux's supervisor (which has
/// `close_range`; macOS has not, so each number below `limit` is visited). Close-on-exec rather
/// than closed, so that std's error pipe still reports a failed exec.
#[cfg(all(portable, unix))]
fn inherit_only_standard_streams(limit: i32) {
    for fd in 3..limit {
        // SAFETY: plain integer arguments; EBADF for a number that is not open is expected.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
}

/// A private temporary directory for one call, removed when dropped.
#[derive(Debug)]
pub struct PrivateTmp(PathBuf);

impl PrivateTmp {
    fn create(base: &Path) -> std::io::Result<PrivateTmp> {
        Self::create_named(base, "agent-tools-exec")
    }

    /// A new directory `<prefix>-<random>` in `base`, readable by this user only.
    pub(crate) fn create_named(base: &Path, prefix: &str) -> std::io::Result<PrivateTmp> {
        let path = base.join(format!("{prefix}-{}", uuid::Uuid::new_v4().simple()));
        // No mode on Windows: the directory inherits its parent's ACL.
        #[cfg_attr(not(unix), allow(unused_mut))]
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&path)?;
        // Rules are given on the real path (a symlinked /tmp, as on macOS, resolved).
        let real = std::fs::canonicalize(&path).unwrap_or(path);
        Ok(PrivateTmp(real))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for PrivateTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A sandbox ready for one spawn.
pub struct Prepared {
    pub report: ExecSandbox,
    /// `None`: run unsandboxed (`report` says why).
    pub restriction: Option<ChildRestriction>,
    /// The child's `TMPDIR` (`workspace-write` only).
    pub tmpdir: Option<PrivateTmp>,
}

/// What a call with this context would enforce now, without setting anything up (the tool
/// loop's review hook). `Ok(None)`: the option is off.
pub fn preview(ctx: &ToolContext) -> Result<Option<ExecSandbox>, String> {
    let options = ExecOptions::from_value(&ctx.exec)?;
    if options.mode == Mode::Off {
        return Ok(None);
    }
    let write = WriteReach::of(ctx);
    let network = network_reach(options.deny_network);
    Ok(Some(match platform::support() {
        Ok(abi) => platform::report(abi, write, network),
        Err(reason) => ExecSandbox::None { reason },
    }))
}

/// Builds the sandbox of one call (`options.mode` is not `Off`). `tmp_base` is where the private
/// temporary directory goes (the host's `TMPDIR`).
pub fn prepare(
    ctx: &ToolContext,
    options: ExecOptions,
    tmp_base: &Path,
) -> Result<Prepared, Refusal> {
    let write = WriteReach::of(ctx);
    let network = network_reach(options.deny_network);
    let abi = match platform::support() {
        Ok(abi) => abi,
        Err(reason) if options.mode == Mode::Auto => {
            return Ok(Prepared {
                report: ExecSandbox::None { reason },
                restriction: None,
                tmpdir: None,
            })
        }
        Err(reason) => return Err(Refusal::Unavailable(reason)),
    };
    if let Some(missing) = platform::missing_rights(abi, write) {
        if options.mode == Mode::Required {
            return Err(Refusal::Unavailable(missing));
        }
    }
    let (writable, tmpdir) = match write {
        WriteReach::Workspace => {
            let root = ctx.real_root().map_err(Refusal::Failed)?.to_path_buf();
            let tmp = PrivateTmp::create(tmp_base).map_err(|e| {
                Refusal::Failed(format!(
                    "cannot create a private temporary directory in {}: {e}",
                    tmp_base.display()
                ))
            })?;
            (vec![root, tmp.path().to_path_buf()], Some(tmp))
        }
        WriteReach::None | WriteReach::All => (Vec::new(), None),
    };
    let restriction = platform::build(abi, write, &writable, options.deny_network, None)?;
    Ok(Prepared {
        report: platform::report(abi, write, network),
        restriction: Some(ChildRestriction(std::sync::Arc::new(restriction))),
        tmpdir,
    })
}

/// The sandbox for a program the toolkit runs on its own (git, for git_status_summary and the
/// journal's snapshots), wherever the system has one: nothing written but the usual devices and
/// the directories `writable` (the caller's private ones), no network, and on Linux nothing
/// executed but `program` itself (and its program interpreter), so nothing a repository
/// configures can start even if it got past the configuration git is given. `None`: no OS
/// sandbox here (the program runs without one).
pub fn prepare_confined_program(
    program: &Path,
    writable: &[PathBuf],
) -> Result<Option<Prepared>, Refusal> {
    let Ok(abi) = platform::support() else {
        return Ok(None);
    };
    let executables = platform::executables_of(program);
    let restriction = platform::build(
        abi,
        WriteReach::None,
        writable,
        true,
        executables.as_deref(),
    )?;
    Ok(Some(Prepared {
        report: platform::report(abi, WriteReach::None, NetworkReach::Denied),
        restriction: Some(ChildRestriction(std::sync::Arc::new(restriction))),
        tmpdir: None,
    }))
}

fn network_reach(deny: bool) -> NetworkReach {
    if deny {
        NetworkReach::Denied
    } else {
        NetworkReach::Allowed
    }
}

/// The character devices a restricted command may still write (when they exist).
pub const WRITABLE_DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod platform {
    use std::io;
    use std::path::PathBuf;

    use super::{ExecSandbox, NetworkReach, Refusal, WriteReach};

    pub fn support() -> Result<u32, String> {
        Err(format!(
            "no OS sandbox for commands on {}",
            std::env::consts::OS
        ))
    }

    pub fn report(_: u32, _: WriteReach, _: NetworkReach) -> ExecSandbox {
        ExecSandbox::None {
            reason: "no OS sandbox".into(),
        }
    }

    pub fn missing_rights(_: u32, _: WriteReach) -> Option<String> {
        None
    }

    pub fn executables_of(_: &std::path::Path) -> Option<Vec<PathBuf>> {
        None
    }

    pub struct Restriction;

    impl Restriction {
        #[cfg_attr(windows, allow(dead_code))]
        pub fn apply(&self) -> io::Result<()> {
            Err(io::Error::from(io::ErrorKind::Unsupported))
        }
    }

    pub fn build(
        _: u32,
        _: WriteReach,
        _: &[PathBuf],
        _: bool,
        _: Option<&[PathBuf]>,
    ) -> Result<Restriction, Refusal> {
        Err(Refusal::Unavailable(support().unwrap_err()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_strictly() {
        let read = |v: serde_json::Value| ExecOptions::from_value(&ArgValue::from(&v));
        assert_eq!(
            read(serde_json::json!({"sandbox": "required", "network": "deny"})),
            Ok(ExecOptions {
                mode: Mode::Required,
                deny_network: true
            })
        );
        assert_eq!(read(serde_json::json!(null)).unwrap().mode, Mode::Off);
        assert_eq!(
            read(serde_json::json!({"sandbox": null})).unwrap().mode,
            Mode::Off
        );
        assert!(read(serde_json::json!([])).is_err());
        assert!(read(serde_json::json!({"sandbox": "Auto"})).is_err());
    }

    #[test]
    fn the_preview_follows_the_scope_and_the_option() {
        let mut ctx = ToolContext::allow_all("/");
        assert_eq!(preview(&ctx), Ok(None));
        ctx.exec = ArgValue::from(&serde_json::json!({"sandbox": "auto", "network": "deny"}));
        ctx.write_scope = ArgValue::from("read-only");
        match preview(&ctx).unwrap().unwrap() {
            ExecSandbox::Landlock { write, network, .. }
            | ExecSandbox::Seatbelt { write, network } => {
                assert_eq!((write, network), (WriteReach::None, NetworkReach::Denied));
            }
            ExecSandbox::None { reason } => assert!(!reason.is_empty()),
        }
    }
}
