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
//! - Elsewhere, and on a kernel without Landlock: `"auto"` runs the command unsandboxed and says
//!   so in the result; `"required"` fails the call with `SANDBOX_UNAVAILABLE`.

use std::path::{Path, PathBuf};

use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use crate::context::ToolContext;
use crate::value::ArgValue;

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
pub struct ChildRestriction(std::sync::Arc<platform::Restriction>);

impl ChildRestriction {
    /// Starts `command` under the restriction.
    ///
    /// Linux: Landlock domains, seccomp filters and `no_new_privs` belong to a thread, and a
    /// child inherits those of the thread that starts it. A short-lived thread takes them on,
    /// starts the child — still with `posix_spawn` (`clone(CLONE_VM | CLONE_VFORK)`), not a
    /// `fork` of the whole host process — and ends; the host's other threads are untouched.
    /// Elsewhere the child applies the restriction to itself between fork and exec.
    pub fn spawn(
        &self,
        command: &mut std::process::Command,
    ) -> std::io::Result<std::process::Child> {
        #[cfg(target_os = "linux")]
        {
            std::thread::scope(|scope| {
                let spawner = std::thread::Builder::new()
                    .name("atn-exec-sandbox".into())
                    .stack_size(256 << 10)
                    .spawn_scoped(scope, || {
                        self.0.apply()?;
                        command.spawn()
                    })?;
                spawner
                    .join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("the spawning thread panicked")))
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            use std::os::unix::process::CommandExt;
            let restriction = self.0.clone();
            // SAFETY: the closure runs in the child between fork and exec; `apply` only uses
            // memory prepared before the fork (see its platform's notes).
            unsafe {
                command.pre_exec(move || restriction.apply());
            }
            command.spawn()
        }
    }
}

/// A private temporary directory for one call, removed when dropped.
#[derive(Debug)]
pub struct PrivateTmp(PathBuf);

impl PrivateTmp {
    fn create(base: &Path) -> std::io::Result<PrivateTmp> {
        use std::os::unix::fs::DirBuilderExt;
        let path = base.join(format!(
            "agent-tools-exec-{}",
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
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
    let restriction = platform::build(abi, write, &writable, options.deny_network)?;
    Ok(Prepared {
        report: platform::report(abi, write, network),
        restriction: Some(ChildRestriction(std::sync::Arc::new(restriction))),
        tmpdir,
    })
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

/// The Seatbelt (SBPL) profile of macOS: everything allowed, then writes outside the allowed
/// places and (when denied) IP networking refused. Built on every platform so that its text is
/// tested here; only macOS applies it.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
fn seatbelt_profile(write: WriteReach, writable: &[PathBuf], deny_network: bool) -> String {
    // An SBPL string literal.
    fn quoted(path: &Path) -> String {
        let text = path.to_string_lossy();
        format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
    }
    let mut profile = String::from("(version 1)\n(allow default)\n");
    if write != WriteReach::All {
        let mut allowed: Vec<String> = writable
            .iter()
            .map(|dir| format!("(subpath {})", quoted(dir)))
            .collect();
        allowed.extend(
            WRITABLE_DEVICES
                .iter()
                .map(|d| format!("(literal {})", quoted(Path::new(d)))),
        );
        profile.push_str(&format!(
            "(deny file-write* (require-not (require-any {})))\n",
            allowed.join(" ")
        ));
    }
    if deny_network {
        profile.push_str(
            "(deny network-outbound (remote ip))\n(deny network-bind (local ip))\n(deny network-inbound (local ip))\n",
        );
    }
    profile
}

#[cfg(target_os = "linux")]
mod platform {
    use std::collections::BTreeMap;
    use std::io;
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::path::PathBuf;

    use landlock::{
        Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
        Ruleset, RulesetAttr, RulesetCreatedAttr, ABI,
    };
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };

    use super::{ExecSandbox, NetworkReach, Refusal, WriteReach, WRITABLE_DEVICES};

    /// `LANDLOCK_CREATE_RULESET_VERSION`: asks `landlock_create_ruleset` for the ABI version.
    const CREATE_RULESET_VERSION: libc::c_uint = 1;

    /// The Landlock ABI version of the running kernel, or why there is none.
    pub fn support() -> Result<u32, String> {
        if crate::fault::landlock_hidden() {
            return Err("Landlock is not available (simulated by a test hook)".into());
        }
        // SAFETY: the version query takes no attribute pointer (NULL, size 0) and only returns
        // a number.
        let version = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                CREATE_RULESET_VERSION,
            )
        };
        if version >= 1 {
            return Ok(version as u32);
        }
        let error = io::Error::last_os_error();
        Err(match error.raw_os_error() {
            Some(libc::ENOSYS) => "the kernel has no Landlock support".to_string(),
            Some(libc::EOPNOTSUPP) => {
                "Landlock is built into the kernel but not enabled (lsm= boot parameter)"
                    .to_string()
            }
            _ => format!("Landlock is not available: {error}"),
        })
    }

    pub fn report(abi: u32, write: WriteReach, network: NetworkReach) -> ExecSandbox {
        ExecSandbox::Landlock {
            abi,
            write,
            network,
        }
    }

    /// The prepared restriction: the Landlock ruleset's descriptor (close-on-exec) and the
    /// seccomp programs.
    pub struct Restriction {
        ruleset: Option<OwnedFd>,
        filters: Vec<BpfProgram>,
    }

    impl Restriction {
        /// Restricts the calling thread (and what it starts from now on): `prctl`,
        /// `landlock_restrict_self` and `seccomp` on memory built beforehand. No allocation and
        /// no lock, so it would also be safe between fork and exec.
        pub fn apply(&self) -> io::Result<()> {
            // SAFETY: PR_SET_NO_NEW_PRIVS takes plain integer arguments.
            if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
                return Err(io::Error::last_os_error());
            }
            if let Some(ruleset) = &self.ruleset {
                // SAFETY: a ruleset descriptor owned by `self`, flags 0.
                let done = unsafe {
                    libc::syscall(
                        libc::SYS_landlock_restrict_self,
                        ruleset.as_raw_fd(),
                        0 as libc::c_uint,
                    )
                };
                if done != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            for filter in &self.filters {
                // Installs one program on this thread (no_new_privs is already set); neither
                // allocates on success nor takes a lock.
                seccompiler::apply_filter(filter).map_err(|e| match e {
                    seccompiler::Error::Seccomp(e) | seccompiler::Error::Prctl(e) => e,
                    _ => io::Error::from(io::ErrorKind::InvalidInput),
                })?;
            }
            Ok(())
        }
    }

    fn abi_of(version: u32) -> ABI {
        ABI::from(version.min(i32::MAX as u32) as i32)
    }

    pub fn build(
        version: u32,
        write: WriteReach,
        writable: &[PathBuf],
        deny_network: bool,
    ) -> Result<Restriction, Refusal> {
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            Refusal::Failed(format!("cannot set up the Landlock sandbox ({what}): {e}"))
        };
        let abi = abi_of(version);
        let restrict_files = write != WriteReach::All;
        // TCP rules exist from ABI 4 on; before that the seccomp filter alone refuses TCP.
        let restrict_tcp = deny_network && abi >= ABI::V4;
        let ruleset = if restrict_files || restrict_tcp {
            let mut ruleset = Ruleset::default().set_compatibility(CompatLevel::HardRequirement);
            if restrict_files {
                ruleset = ruleset
                    .handle_access(AccessFs::from_all(abi))
                    .map_err(|e| failed("file rights", &e))?;
            }
            if restrict_tcp {
                ruleset = ruleset
                    .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
                    .map_err(|e| failed("network rights", &e))?;
            }
            let mut created = ruleset.create().map_err(|e| failed("ruleset", &e))?;
            if restrict_files {
                // Reading, listing and executing everywhere; device ioctls too (terminals).
                let mut read: BitFlags<AccessFs> = AccessFs::from_read(abi);
                if abi >= ABI::V5 {
                    read |= AccessFs::IoctlDev;
                }
                created = created
                    .add_rule(PathBeneath::new(open("/")?, read))
                    .map_err(|e| failed("/", &e))?;
                for dir in writable {
                    created = created
                        .add_rule(PathBeneath::new(open(dir)?, AccessFs::from_all(abi)))
                        .map_err(|e| failed(&dir.to_string_lossy(), &e))?;
                }
                for device in WRITABLE_DEVICES {
                    let Ok(fd) = PathFd::new(device) else {
                        continue; // absent here (no /dev/tty in a container, ...)
                    };
                    created = created
                        .add_rule(PathBeneath::new(fd, AccessFs::from_file(abi)))
                        .map_err(|e| failed(device, &e))?;
                }
            }
            Option::<OwnedFd>::from(created)
        } else {
            None
        };
        let filters = if deny_network {
            network_filters()
                .map_err(|e| Refusal::Failed(format!("cannot build the seccomp filter: {e}")))?
        } else {
            Vec::new()
        };
        Ok(Restriction { ruleset, filters })
    }

    fn open(path: impl AsRef<std::path::Path>) -> Result<PathFd, Refusal> {
        let path = path.as_ref();
        PathFd::new(path).map_err(|e| {
            Refusal::Failed(format!(
                "cannot set up the Landlock sandbox: cannot open {}: {e}",
                path.display()
            ))
        })
    }

    /// Two programs (each has one action): `socket()` for any family but `AF_UNIX` fails with
    /// `EACCES`; `io_uring_setup` fails with `EPERM` (as where io_uring is disabled), because an
    /// io_uring request can create a socket without the `socket` system call.
    fn network_filters() -> Result<Vec<BpfProgram>, String> {
        let text = |e: &dyn std::fmt::Display| e.to_string();
        let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| text(&e))?;
        let not_unix = || -> Result<Vec<SeccompRule>, String> {
            let family = SeccompCondition::new(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Ne,
                libc::AF_UNIX as u64,
            )
            .map_err(|e| text(&e))?;
            Ok(vec![SeccompRule::new(vec![family]).map_err(|e| text(&e))?])
        };
        let mut sockets = BTreeMap::new();
        sockets.insert(libc::SYS_socket, not_unix()?);
        // The x32 ABI numbers its system calls from 0x4000_0000 under the x86_64 architecture.
        #[cfg(target_arch = "x86_64")]
        sockets.insert(0x4000_0000 | libc::SYS_socket, not_unix()?);
        let mut uring = BTreeMap::new();
        uring.insert(libc::SYS_io_uring_setup, Vec::new());
        let program = |rules, errno: i32| -> Result<BpfProgram, String> {
            let filter = SeccompFilter::new(
                rules,
                SeccompAction::Allow,
                SeccompAction::Errno(errno as u32),
                arch,
            )
            .map_err(|e| text(&e))?;
            BpfProgram::try_from(filter).map_err(|e| text(&e))
        };
        Ok(vec![
            program(sockets, libc::EACCES)?,
            program(uring, libc::EPERM)?,
        ])
    }
}

#[cfg(target_os = "macos")]
mod platform {
    use std::ffi::{c_char, c_int, CString};
    use std::io;
    use std::path::PathBuf;

    use super::{ExecSandbox, NetworkReach, Refusal, WriteReach};

    extern "C" {
        /// libsystem_sandbox: applies an SBPL profile (flags 0: `profile` is the profile text).
        fn sandbox_init(profile: *const c_char, flags: u64, errorbuf: *mut *mut c_char) -> c_int;
        fn sandbox_free_error(errorbuf: *mut c_char);
    }

    /// Seatbelt has no version; 0 stands for "available".
    pub fn support() -> Result<u32, String> {
        if crate::fault::landlock_hidden() {
            return Err("the OS sandbox is not available (simulated by a test hook)".into());
        }
        Ok(0)
    }

    pub fn report(_: u32, write: WriteReach, network: NetworkReach) -> ExecSandbox {
        ExecSandbox::Seatbelt { write, network }
    }

    /// The profile text, made before the fork.
    pub struct Restriction {
        profile: CString,
    }

    impl Restriction {
        /// Applies the profile. libsystem_sandbox compiles it, which allocates: tolerated on
        /// macOS, whose allocator is fork-safe (its atfork handlers reset its locks).
        pub fn apply(&self) -> io::Result<()> {
            let mut error: *mut c_char = std::ptr::null_mut();
            // SAFETY: a NUL-terminated profile owned by `self`; `error` is a local out-pointer.
            let status = unsafe { sandbox_init(self.profile.as_ptr(), 0, &mut error) };
            if status != 0 {
                if !error.is_null() {
                    // SAFETY: the error buffer sandbox_init handed back, freed once.
                    unsafe { sandbox_free_error(error) };
                }
                return Err(io::Error::from(io::ErrorKind::PermissionDenied));
            }
            Ok(())
        }
    }

    pub fn build(
        _: u32,
        write: WriteReach,
        writable: &[PathBuf],
        deny_network: bool,
    ) -> Result<Restriction, Refusal> {
        let profile = CString::new(super::seatbelt_profile(write, writable, deny_network))
            .map_err(|_| Refusal::Failed("a path holds a NUL byte".into()))?;
        Ok(Restriction { profile })
    }
}

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

    pub struct Restriction;

    impl Restriction {
        pub fn apply(&self) -> io::Result<()> {
            Err(io::Error::from(io::ErrorKind::Unsupported))
        }
    }

    pub fn build(_: u32, _: WriteReach, _: &[PathBuf], _: bool) -> Result<Restriction, Refusal> {
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
    fn the_seatbelt_profile_allows_writes_only_where_the_scope_does() {
        let dirs = [
            PathBuf::from("/ws/a \"b\""),
            PathBuf::from("/private/tmp/x"),
        ];
        let workspace = seatbelt_profile(WriteReach::Workspace, &dirs, true);
        assert!(workspace.starts_with("(version 1)\n(allow default)\n"));
        assert!(workspace.contains(
            "(deny file-write* (require-not (require-any (subpath \"/ws/a \\\"b\\\"\") (subpath \"/private/tmp/x\") (literal \"/dev/null\")"
        ), "{workspace}");
        assert!(workspace.contains("(deny network-outbound (remote ip))"));
        let none = seatbelt_profile(WriteReach::None, &[], false);
        assert!(
            none.contains("(require-any (literal \"/dev/null\")"),
            "{none}"
        );
        assert!(!none.contains("network"));
        assert_eq!(
            seatbelt_profile(WriteReach::All, &[], false),
            "(version 1)\n(allow default)\n"
        );
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
