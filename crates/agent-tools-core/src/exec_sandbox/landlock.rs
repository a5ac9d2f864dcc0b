//! Linux, the platform part of the exec sandbox: Landlock (file rules; TCP rules from ABI 4;
//! signal and abstract-socket scopes from ABI 6), `no_new_privs`, emptied capabilities and the
//! seccomp programs of [`super::seccomp`], all built before the spawn and applied by the thread
//! that starts the child.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;

use ::landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, Scope, ABI,
};
use seccompiler::BpfProgram;

use super::{seccomp, ExecSandbox, NetworkReach, Refusal, WriteReach, WRITABLE_DEVICES};

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
            "Landlock is built into the kernel but not enabled (lsm= boot parameter)".to_string()
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
            seccomp::install(filter)?;
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
    // (effective, permitted, inheritable) × 2
    let empty = [0u32; 6];
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
    let filters = seccomp::filters(deny_network)
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn a_kernel_that_cannot_refuse_truncation_is_not_enough_for_a_restricted_scope() {
        for write in [WriteReach::Workspace, WriteReach::None] {
            assert!(missing_rights(2, write).is_some());
            assert_eq!(missing_rights(3, write), None);
        }
        assert_eq!(missing_rights(1, WriteReach::All), None);
    }

    #[test]
    fn a_program_and_its_loader_are_what_it_needs_executed() {
        let sh = executables_of(Path::new("/bin/sh")).unwrap();
        assert_eq!(sh[0], std::fs::canonicalize("/bin/sh").unwrap());
        // Debian's shell is dynamically linked: the loader comes second.
        assert!(
            sh.len() <= 2 && sh.iter().all(|p| p.is_absolute()),
            "{sh:?}"
        );
        let script = std::env::temp_dir().join(format!("atn-script-{}", std::process::id()));
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        assert_eq!(executables_of(&script), None);
        std::fs::remove_file(&script).unwrap();
    }
}
