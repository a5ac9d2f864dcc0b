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

/// A started command.
pub enum Spawned {
    /// A plain child, leader of its own process group (macOS).
    Plain(std::process::Child),
    /// Linux: the command under its supervisor (crate::supervisor).
    #[cfg(target_os = "linux")]
    Supervised(crate::supervisor::Supervised),
}

impl ChildRestriction {
    /// Starts `command` under the restriction.
    ///
    /// Linux: through a supervisor process (crate::supervisor) that ends the command's whole
    /// tree when the call ends; the command's process takes on the restriction between fork and
    /// exec and executes `image` itself. Elsewhere the child applies the restriction to itself
    /// between fork and exec and std executes the command.
    pub fn spawn(
        &self,
        command: &mut std::process::Command,
        #[cfg_attr(not(target_os = "linux"), allow(unused_variables))] image: std::sync::Arc<
            crate::supervisor::ExecImage,
        >,
    ) -> std::io::Result<Spawned> {
        #[cfg(target_os = "linux")]
        {
            let restriction = self.0.clone();
            crate::supervisor::spawn(
                command,
                image,
                std::sync::Arc::new(move || restriction.apply()),
            )
            .map(Spawned::Supervised)
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
            command.process_group(0).spawn().map(Spawned::Plain)
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

/// The sandbox for a program the toolkit runs on its own (git, for git_status_summary), wherever
/// the system has one: nothing written but the usual devices, no network, and on Linux nothing
/// executed but `program` itself (and its program interpreter), so nothing a repository
/// configures can start even if it got past the configuration git is given. `None`: no OS
/// sandbox here (the program runs without one).
pub fn prepare_confined_program(program: &Path) -> Result<Option<Prepared>, Refusal> {
    let Ok(abi) = platform::support() else {
        return Ok(None);
    };
    let executables = platform::executables_of(program);
    let restriction = platform::build(abi, WriteReach::None, &[], true, executables.as_deref())?;
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
        Ruleset, RulesetAttr, RulesetCreatedAttr, Scope, ABI,
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
        if crate::test_hooks::landlock_hidden() {
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

    /// Why `write` cannot be fully enforced with this ABI: refusing truncation (`truncate`,
    /// `O_TRUNC`) of files outside the writable places needs ABI 3.
    pub fn missing_rights(version: u32, write: WriteReach) -> Option<String> {
        (version < 3 && write != WriteReach::All).then(|| {
            format!(
                "the kernel's Landlock ABI {version} cannot refuse truncating files outside the workspace (ABI 3 and later can)"
            )
        })
    }

    /// The files a program needs executed to run: its real path and, for a dynamically linked
    /// ELF program, its interpreter (`PT_INTERP`, the dynamic loader). `None` when `program` is
    /// not an ELF file (a script would need its interpreter and whatever that runs).
    pub fn executables_of(program: &std::path::Path) -> Option<Vec<PathBuf>> {
        let program = std::fs::canonicalize(program).ok()?;
        // The program headers and the interpreter's name are at the start of the file.
        let mut image = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::fs::File::open(&program).ok()?, 64 << 10),
            &mut image,
        )
        .ok()?;
        let mut files = vec![program];
        if let Some(interpreter) = elf_interpreter(&image)? {
            files.push(std::fs::canonicalize(interpreter).ok()?);
        }
        Some(files)
    }

    /// The `PT_INTERP` path of a 64-bit little-endian ELF image: `Some(None)` for a static one,
    /// `None` when `image` is not such an ELF file.
    fn elf_interpreter(image: &[u8]) -> Option<Option<std::path::PathBuf>> {
        use std::os::unix::ffi::OsStrExt;
        let u16_at = |at: usize| Some(u16::from_le_bytes(image.get(at..at + 2)?.try_into().ok()?));
        let u32_at = |at: usize| Some(u32::from_le_bytes(image.get(at..at + 4)?.try_into().ok()?));
        let u64_at = |at: usize| Some(u64::from_le_bytes(image.get(at..at + 8)?.try_into().ok()?));
        // Magic, 64-bit class, little-endian.
        if image.get(..6)? != b"\x7fELF\x02\x01" {
            return None;
        }
        let table = usize::try_from(u64_at(0x20)?).ok()?;
        let entry_size = usize::from(u16_at(0x36)?);
        let entries = usize::from(u16_at(0x38)?);
        for index in 0..entries {
            let header = table.checked_add(index.checked_mul(entry_size)?)?;
            const PT_INTERP: u32 = 3;
            if u32_at(header)? != PT_INTERP {
                continue;
            }
            let offset = usize::try_from(u64_at(header + 8)?).ok()?;
            let size = usize::try_from(u64_at(header + 32)?).ok()?;
            let path = image.get(offset..offset.checked_add(size)?)?;
            let path = path.split(|&b| b == 0).next()?;
            return Some(Some(std::ffi::OsStr::from_bytes(path).into()));
        }
        Some(None)
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
            drop_capabilities()?;
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

    /// Empties the bounding, ambient, inheritable, permitted and effective capability sets of
    /// the calling thread, so that the command keeps no capability even when the host runs as
    /// root (with an empty bounding set, executing a program as root grants none). Bounding set
    /// entries need `CAP_SETPCAP` to drop: without it (not root) there is nothing to drop.
    fn drop_capabilities() -> io::Result<()> {
        for cap in 0..64 {
            // SAFETY: plain integer arguments; EINVAL past the kernel's last capability and
            // EPERM without CAP_SETPCAP are expected and ignored.
            unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) };
        }
        // SAFETY: plain integer arguments.
        unsafe {
            libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_CLEAR_ALL,
                0,
                0,
                0,
            )
        };
        /// `_LINUX_CAPABILITY_VERSION_3`: two 32-bit words per set.
        const VERSION_3: u32 = 0x2008_0522;
        #[repr(C)]
        struct Header {
            version: u32,
            pid: libc::c_int,
        }
        let header = Header {
            version: VERSION_3,
            pid: 0,
        };
        let empty = [0u32; 6]; // (effective, permitted, inheritable) × 2
                               // SAFETY: capset reads a version-3 header and two data structs of three u32 each.
        let done = unsafe { libc::syscall(libc::SYS_capset, &header, empty.as_ptr()) };
        if done != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    fn abi_of(version: u32) -> ABI {
        ABI::from(version.min(i32::MAX as u32) as i32)
    }

    pub fn build(
        version: u32,
        write: WriteReach,
        writable: &[PathBuf],
        deny_network: bool,
        executables: Option<&[PathBuf]>,
    ) -> Result<Restriction, Refusal> {
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            Refusal::Failed(format!("cannot set up the Landlock sandbox ({what}): {e}"))
        };
        let abi = abi_of(version);
        let restrict_files = write != WriteReach::All || executables.is_some();
        // TCP rules exist from ABI 4 on; before that the seccomp filter alone refuses TCP.
        let restrict_tcp = deny_network && abi >= ABI::V4;
        // From ABI 6 on, the command can neither signal nor reach abstract Unix sockets outside
        // its own domain (the host, its supervisor, other programs of the user).
        let scoped = abi >= ABI::V6;
        let ruleset = if restrict_files || restrict_tcp || scoped {
            let mut ruleset = Ruleset::default().set_compatibility(CompatLevel::HardRequirement);
            if scoped {
                ruleset = ruleset
                    .scope(Scope::AbstractUnixSocket | Scope::Signal)
                    .map_err(|e| failed("scopes", &e))?;
            }
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
                // Reading, listing and executing everywhere (executing only the listed files
                // when there is a list); device ioctls too (terminals).
                let mut read: BitFlags<AccessFs> = AccessFs::from_read(abi);
                if abi >= ABI::V5 {
                    read |= AccessFs::IoctlDev;
                }
                if executables.is_some() {
                    read &= !AccessFs::Execute;
                }
                created = created
                    .add_rule(PathBeneath::new(open("/")?, read))
                    .map_err(|e| failed("/", &e))?;
                for file in executables.unwrap_or_default() {
                    created = created
                        .add_rule(PathBeneath::new(
                            open(file)?,
                            (read | AccessFs::Execute) & AccessFs::from_file(abi),
                        ))
                        .map_err(|e| failed(&file.to_string_lossy(), &e))?;
                }
                let writable = if write == WriteReach::All {
                    &[PathBuf::from("/")][..]
                } else {
                    writable
                };
                for dir in writable {
                    let mut all = AccessFs::from_all(abi);
                    if executables.is_some() {
                        all &= !AccessFs::Execute;
                    }
                    created = created
                        .add_rule(PathBeneath::new(open(dir)?, all))
                        .map_err(|e| failed(&dir.to_string_lossy(), &e))?;
                }
                for device in WRITABLE_DEVICES {
                    let Ok(fd) = PathFd::new(device) else {
                        continue; // absent here (no /dev/tty in a container, ...)
                    };
                    created = created
                        .add_rule(PathBeneath::new(
                            fd,
                            AccessFs::from_file(abi) & !AccessFs::Execute,
                        ))
                        .map_err(|e| failed(device, &e))?;
                }
            }
            Option::<OwnedFd>::from(created)
        } else {
            None
        };
        let filters = filters(deny_network)
            .map_err(|e| Refusal::Failed(format!("cannot build the seccomp filter: {e}")))?;
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

    /// The seccomp programs (each has one action):
    /// - always: `ioctl(fd, TIOCSTI | TIOCLINUX)` fails with `EPERM`, so that nothing can type
    ///   into a terminal (the request number is compared on its low 32 bits, as the terminal
    ///   layer reads it);
    /// - with the network denied: `socket()` fails with `EACCES` for every family, Unix
    ///   included (`socketpair` stays: it reaches nothing outside), and `io_uring_setup` with
    ///   `EPERM` (as where io_uring is disabled), because an io_uring request can create a socket
    ///   without the `socket` system call.
    fn filters(deny_network: bool) -> Result<Vec<BpfProgram>, String> {
        let text = |e: &dyn std::fmt::Display| e.to_string();
        let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| text(&e))?;
        // `syscall` and, on x86_64, its x32 number (x32 numbers its system calls from
        // 0x4000_0000 under the x86_64 architecture).
        fn numbers(syscall: libc::c_long) -> Vec<libc::c_long> {
            #[cfg(target_arch = "x86_64")]
            return vec![syscall, 0x4000_0000 | syscall];
            #[cfg(not(target_arch = "x86_64"))]
            return vec![syscall];
        }
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
        // The request numbers (asm-generic, the same on x86_64 and aarch64; libc types them
        // differently for glibc and musl).
        const TIOCSTI: u64 = 0x5412;
        const TIOCLINUX: u64 = 0x541C;
        let request_is = |request: u64| -> Result<SeccompRule, String> {
            let condition =
                SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, request)
                    .map_err(|e| text(&e))?;
            SeccompRule::new(vec![condition]).map_err(|e| text(&e))
        };
        let mut terminal = BTreeMap::new();
        for number in numbers(libc::SYS_ioctl) {
            terminal.insert(number, vec![request_is(TIOCSTI)?, request_is(TIOCLINUX)?]);
        }
        let mut programs = vec![program(terminal, libc::EPERM)?];
        if deny_network {
            let mut sockets = BTreeMap::new();
            for number in numbers(libc::SYS_socket) {
                sockets.insert(number, Vec::new());
            }
            let mut uring = BTreeMap::new();
            uring.insert(libc::SYS_io_uring_setup, Vec::new());
            programs.push(program(sockets, libc::EACCES)?);
            programs.push(program(uring, libc::EPERM)?);
        }
        Ok(programs)
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
        if crate::test_hooks::landlock_hidden() {
            return Err("the OS sandbox is not available (simulated by a test hook)".into());
        }
        Ok(0)
    }

    pub fn report(_: u32, write: WriteReach, network: NetworkReach) -> ExecSandbox {
        ExecSandbox::Seatbelt { write, network }
    }

    pub fn missing_rights(_: u32, _: WriteReach) -> Option<String> {
        None
    }

    /// Seatbelt profiles here do not restrict what runs.
    pub fn executables_of(_: &std::path::Path) -> Option<Vec<PathBuf>> {
        None
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
        _executables: Option<&[PathBuf]>,
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

    pub fn missing_rights(_: u32, _: WriteReach) -> Option<String> {
        None
    }

    pub fn executables_of(_: &std::path::Path) -> Option<Vec<PathBuf>> {
        None
    }

    pub struct Restriction;

    impl Restriction {
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

    #[cfg(target_os = "linux")]
    #[test]
    fn a_kernel_that_cannot_refuse_truncation_is_not_enough_for_a_restricted_scope() {
        for write in [WriteReach::Workspace, WriteReach::None] {
            assert!(platform::missing_rights(2, write).is_some());
            assert_eq!(platform::missing_rights(3, write), None);
        }
        assert_eq!(platform::missing_rights(1, WriteReach::All), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_program_and_its_loader_are_what_it_needs_executed() {
        let sh = platform::executables_of(Path::new("/bin/sh")).unwrap();
        assert_eq!(sh[0], std::fs::canonicalize("/bin/sh").unwrap());
        // Debian's shell is dynamically linked: the loader comes second.
        assert!(
            sh.len() <= 2 && sh.iter().all(|p| p.is_absolute()),
            "{sh:?}"
        );
        let script = std::env::temp_dir().join(format!("atn-script-{}", std::process::id()));
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        assert_eq!(platform::executables_of(&script), None);
        std::fs::remove_file(&script).unwrap();
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
