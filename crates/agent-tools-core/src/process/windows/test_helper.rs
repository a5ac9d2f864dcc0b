//! Tests only: the Windows tests' child program is this test binary itself, started with
//! `ATN_PROCESS_HELPER=<role>` in its environment. A C runtime initializer (`.CRT$XCU`, run
//! before `main`) sees the variable, plays the role and exits, so libtest never starts and the
//! child's output and arguments are exactly the role's. Windows ships no `sh`, `sleep` or `cat`,
//! and wine has no PowerShell; this gives the tests the same programs on Windows and under wine.
//!
//! Roles: `argv` prints its arguments (after the program) as a JSON array; `cwd` its working
//! directory; `cat` copies stdin
//! to stdout; `exit` prints `out`/`err` and exits with code 3; `ntstatus` exits with
//! 0xC0000005 (an access violation's code); `sleep` prints its pid and sleeps 30 s; `tree` starts
//! a `sleep` child (sharing its output), prints its own pid and sleeps 30 s; `detach` starts a
//! `sleep` child that does not get its output handles, prints the child's pid and exits;
//! `git` plays git for git_status_summary; `endless` writes `y\n` for ever; `line` reads a line,
//! prints `got <line>` and exits with code 4; `size` prints its console window's size
//! (`<columns>x<rows>`), then again after each line it reads, until the end of its input.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

const ROLE_VAR: &str = "ATN_PROCESS_HELPER";

#[used]
#[link_section = ".CRT$XCU"]
static RUN_AS_HELPER: extern "C" fn() = run_as_helper;

extern "C" fn run_as_helper() {
    let Some(role) = std::env::var_os(ROLE_VAR) else {
        return;
    };
    let mut out = std::io::stdout().lock();
    let code = match role.to_str().unwrap_or_default() {
        "argv" => {
            let args: Vec<String> = std::env::args().skip(1).collect();
            let _ = writeln!(out, "{}", serde_json::to_string(&args).unwrap_or_default());
            0
        }
        "cwd" => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let _ = writeln!(out, "{}", cwd.display());
            0
        }
        "cat" => {
            let mut input = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut input);
            let _ = out.write_all(&input);
            0
        }
        "exit" => {
            let _ = write!(out, "out");
            let _ = write!(std::io::stderr(), "err");
            3
        }
        // ExitProcess(0xC0000005)
        "ntstatus" => 0xC000_0005_u32 as i32,
        "sleep" => {
            let _ = writeln!(out, "{}", std::process::id());
            let _ = out.flush();
            std::thread::sleep(Duration::from_secs(30));
            0
        }
        "tree" => {
            let started = std::env::current_exe().and_then(|exe| {
                std::process::Command::new(exe)
                    .env(ROLE_VAR, "sleep")
                    .stdin(std::process::Stdio::null())
                    .spawn()
            });
            if started.is_err() {
                std::process::exit(98);
            }
            let _ = writeln!(out, "{}", std::process::id());
            let _ = out.flush();
            std::thread::sleep(Duration::from_secs(30));
            0
        }
        "detach" => {
            use std::os::windows::io::AsRawHandle;
            use windows_sys::Win32::Foundation::{SetHandleInformation, HANDLE_FLAG_INHERIT};
            // Our output handles stay ours (std would let the child inherit them).
            for handle in [
                std::io::stdout().as_raw_handle(),
                std::io::stderr().as_raw_handle(),
            ] {
                // SAFETY: this process's own standard handles, open for its lifetime.
                unsafe { SetHandleInformation(handle, HANDLE_FLAG_INHERIT, 0) };
            }
            let started = std::env::current_exe().and_then(|exe| {
                std::process::Command::new(exe)
                    .env(ROLE_VAR, "sleep")
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
            });
            match started {
                Ok(child) => {
                    let _ = writeln!(out, "{}", child.id());
                    0
                }
                Err(_) => 98,
            }
        }
        // Enough of git for git_status_summary: `rev-parse` prints the directory as git does
        // (forward slashes), `status` a porcelain listing and what it was given: the locale,
        // the git directory, that directory's `config` and the command-scope settings.
        "git" => {
            let args: Vec<String> = std::env::args().skip(1).collect();
            let var = |name: &str| std::env::var(name).unwrap_or_default();
            if args.iter().any(|a| a == "rev-parse") {
                let cwd = std::env::current_dir().unwrap_or_default();
                let _ = writeln!(out, "{}", cwd.to_string_lossy().replace('\\', "/"));
                0
            } else if args.iter().any(|a| a == "status") {
                let _ = write!(out, "## main\n M a.txt\n");
                let _ = writeln!(out, "LC_ALL={}", var("LC_ALL"));
                let _ = writeln!(out, "GIT_DIR={}", var("GIT_DIR"));
                let config = std::fs::read_to_string(format!("{}/config", var("GIT_DIR")));
                let _ = writeln!(
                    out,
                    "config={}",
                    config.unwrap_or_default().replace('\n', "|")
                );
                let count: usize = var("GIT_CONFIG_COUNT").parse().unwrap_or(0);
                for n in 0..count {
                    let key = var(&format!("GIT_CONFIG_KEY_{n}"));
                    let _ = writeln!(out, "{key}={}", var(&format!("GIT_CONFIG_VALUE_{n}")));
                }
                0
            } else {
                2
            }
        }
        "line" => {
            let mut line = String::new();
            let _ = std::io::stdin().read_line(&mut line);
            let _ = writeln!(out, "got {}", line.trim_end());
            4
        }
        "size" => {
            let _ = writeln!(out, "{}", console_size());
            let _ = out.flush();
            for _ in std::io::stdin().lines().map_while(Result::ok) {
                let _ = writeln!(out, "{}", console_size());
                let _ = out.flush();
            }
            0
        }
        "endless" => loop {
            if out.write_all(&b"y\n".repeat(4096)).is_err() {
                break 0;
            }
        },
        _ => 99,
    };
    let _ = out.flush();
    drop(out);
    std::process::exit(code);
}

/// `<columns>x<rows>` of the console window stdout is on, or `no console`.
fn console_size() -> String {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::System::Console::{
        GetConsoleScreenBufferInfo, CONSOLE_SCREEN_BUFFER_INFO,
    };
    // SAFETY: all zeros is a valid value of this plain C struct.
    let mut info: CONSOLE_SCREEN_BUFFER_INFO = unsafe { std::mem::zeroed() };
    // SAFETY: this process's stdout handle, open; `info` is a valid out pointer.
    if unsafe { GetConsoleScreenBufferInfo(std::io::stdout().as_raw_handle(), &mut info) } == 0 {
        return "no console".into();
    }
    let window = info.srWindow;
    format!(
        "{}x{}",
        window.Right - window.Left + 1,
        window.Bottom - window.Top + 1
    )
}

/// This test binary.
pub fn exe() -> PathBuf {
    std::env::current_exe().expect("the test binary's path")
}

/// This process's environment plus the role: a complete environment for `RunSpec::env`.
pub fn env(role: &str) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> =
        std::env::vars_os().filter(|(k, _)| k != ROLE_VAR).collect();
    env.push((ROLE_VAR.into(), role.into()));
    env
}

/// The role's variable, for a context's `process_env`.
pub fn role_var(role: &str) -> (String, String) {
    (ROLE_VAR.to_string(), role.to_string())
}

/// A copy of this test binary named `name` in `dir` (a hard link where the file system allows).
pub fn install_as(dir: &std::path::Path, name: &str) -> PathBuf {
    let target = dir.join(name);
    if std::fs::hard_link(exe(), &target).is_err() {
        std::fs::copy(exe(), &target).expect("a copy of the test binary");
    }
    target
}

/// Whether the process `pid` has ended within 20 s (or no longer exists).
pub fn process_ends_soon(pid: u32) -> bool {
    use windows_sys::Win32::Foundation::{CloseHandle, WAIT_OBJECT_0};
    use windows_sys::Win32::System::Threading::{OpenProcess, WaitForSingleObject};
    const SYNCHRONIZE: u32 = 0x0010_0000;
    // SAFETY: plain arguments; the handle is closed below.
    let process = unsafe { OpenProcess(SYNCHRONIZE, 0, pid) };
    if process.is_null() {
        return true; // gone (and its id not reused by a process we may open)
    }
    // SAFETY: the handle is open until closed right after.
    let ended = unsafe { WaitForSingleObject(process, 20_000) } == WAIT_OBJECT_0;
    // SAFETY: as above.
    unsafe { CloseHandle(process) };
    ended
}

/// The pseudo console tests, one at a time (see `console`).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A pseudo console can be had for the test (or the test fails, saying why not); one test at
/// a time, so that the consoles a test sees are its own.
pub fn console() -> MutexGuard<'static, ()> {
    if let Some(reason) = crate::conpty::unavailable() {
        panic!(
            "no pseudo console for this test: {reason}. Under wine, run the test binary on \
             wine's console: script -qec \"cargo test --target x86_64-pc-windows-gnu \
             conpty\" /dev/null (scripts/test-windows.sh does)"
        );
    }
    ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The pids of the conhost processes this process started (a pseudo console's).
pub fn consoles() -> Vec<u32> {
    use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, Process32FirstW, Process32NextW, PROCESSENTRY32W,
        TH32CS_SNAPPROCESS,
    };
    // SAFETY: plain arguments; the handle is owned below.
    let raw = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) };
    assert_ne!(raw, windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE);
    // SAFETY: a fresh handle that nothing else owns.
    let snapshot = unsafe { OwnedHandle::from_raw_handle(raw) };
    // SAFETY: all zeros is a valid value; the size is set as required.
    let mut entry: PROCESSENTRY32W = unsafe { std::mem::zeroed() };
    entry.dwSize = std::mem::size_of::<PROCESSENTRY32W>() as u32;
    let mut found = Vec::new();
    let snap = snapshot.as_raw_handle();
    // SAFETY: `entry` is valid with its size set, alive for each call.
    let mut more = unsafe { Process32FirstW(snap, &mut entry) } != 0;
    while more {
        let len = entry.szExeFile.iter().position(|&c| c == 0).unwrap_or(0);
        let name = String::from_utf16_lossy(&entry.szExeFile[..len]).to_ascii_lowercase();
        if entry.th32ParentProcessID == std::process::id()
            && (name.ends_with("conhost.exe") || name.ends_with("openconsole.exe"))
        {
            found.push(entry.th32ProcessID);
        }
        // SAFETY: as above.
        more = unsafe { Process32NextW(snap, &mut entry) } != 0;
    }
    found
}
