//! Linux: the seccomp programs of a sandboxed command (`filters`), built before the spawn, and
//! their installation on the spawning thread (`install`).

use std::collections::BTreeMap;
use std::io;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The seccomp programs (each has one action):
/// - always: `ioctl(fd, TIOCSTI | TIOCLINUX)` fails with `EPERM`, so that nothing can type
///   into a terminal (the request number is compared on its low 32 bits, as the terminal
///   layer reads it);
/// - with the network denied: `socket()` fails with `EACCES` for every family, Unix
///   included (`socketpair` stays: it reaches nothing outside), and `io_uring_setup` with
///   `EPERM` (as where io_uring is disabled), because an io_uring request can create a socket
///   without the `socket` system call.
pub fn filters(deny_network: bool) -> Result<Vec<BpfProgram>, String> {
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

/// Installs one program on the calling thread (`no_new_privs` must already be set); neither
/// allocates on success nor takes a lock.
pub fn install(filter: &BpfProgram) -> io::Result<()> {
    seccompiler::apply_filter(filter).map_err(|e| match e {
        seccompiler::Error::Seccomp(e) | seccompiler::Error::Prctl(e) => e,
        _ => io::Error::from(io::ErrorKind::InvalidInput),
    })
}
