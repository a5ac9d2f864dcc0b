//! Windows: the pseudo console (ConPTY) behind the process tools' `tty: true`
//! (docs/windows-port.md, "Pseudo-consoles (ConPTY)").
//!
//! - `CreatePseudoConsole`, `ResizePseudoConsole` and `ClosePseudoConsole` are looked up in
//!   kernel32 at run time (`GetProcAddress`): they exist from Windows 10 1809 on, and an import
//!   of them would keep the addon from loading on an older Windows. There `tty` is refused
//!   ([`unavailable`]) and pipes work as ever.
//! - The program is created by `CreateProcessW` itself (std's `Command` cannot pass a
//!   pseudo console): `EXTENDED_STARTUPINFO_PRESENT` with `PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE`,
//!   no inherited handles, suspended, so that the caller puts it in its Job Object before it runs
//!   ([`spawn_suspended`]). Not `CREATE_NEW_PROCESS_GROUP`: a process group's first process
//!   ignores Ctrl+C, which `"\x03"` on the console's input is.
//! - Standard handles: when this process's three standard handles are console handles, the
//!   program is given none of its own (Windows replaces inherited console handles with the
//!   pseudo console's). Otherwise `STARTF_USESTDHANDLES` with null handles: without it Windows
//!   duplicates this process's redirected standard handles (a pipe, a file) into the program,
//!   which would then write there instead of to the terminal.
//! - Under wine (8) the program's standard handles reach the pseudo console only when they are
//!   wine's console handles, that is when this process runs on wine's console (a terminal, e.g.
//!   under `script`); with null handles it writes nowhere. [`unavailable`] says so there.
//! - Closing the pseudo console ([`PseudoConsole`]'s drop) ends its conhost and every program
//!   still attached to it; the output pipe then reports a broken pipe, which is the end of the
//!   output. A final frame may still arrive before that, so the output must be read until then
//!   (Windows 10's `ClosePseudoConsole` waits for it to be read). Where the pipe does not break
//!   (measured under wine 8 with node.exe as the host: after a program that read the console's
//!   input has exited and the console is closed, with no process of it left, the pipe stays
//!   open), the read is cancelled once a grace period has passed ([`OutputReader`]).

use std::ffi::{c_void, OsStr, OsString};
use std::io;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle, RawHandle};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use windows_sys::core::HRESULT;
use windows_sys::Win32::Foundation::{E_NOTIMPL, HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Console::{
    GetConsoleMode, GetStdHandle, CONSOLE_MODE, COORD, HPCON, STD_ERROR_HANDLE, STD_HANDLE,
    STD_INPUT_HANDLE, STD_OUTPUT_HANDLE,
};
use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
use windows_sys::Win32::System::Pipes::CreatePipe;
use windows_sys::Win32::System::SystemInformation::GetSystemDirectoryW;
use windows_sys::Win32::System::Threading::{
    CreateProcessW, DeleteProcThreadAttributeList, GetCurrentThreadId,
    InitializeProcThreadAttributeList, OpenThread, TerminateProcess, UpdateProcThreadAttribute,
    WaitForSingleObject, CREATE_SUSPENDED, CREATE_UNICODE_ENVIRONMENT,
    EXTENDED_STARTUPINFO_PRESENT, INFINITE, LPPROC_THREAD_ATTRIBUTE_LIST, PROCESS_INFORMATION,
    PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE, STARTF_USESTDHANDLES, STARTUPINFOEXW, THREAD_TERMINATE,
};
use windows_sys::Win32::System::IO::CancelSynchronousIo;

/// Why `tty` is refused on a Windows without ConPTY.
pub const NO_CONPTY: &str =
    "this Windows has no pseudo consoles (ConPTY: Windows 10 1809 or later)";

/// Why `tty` is refused under wine when this process is not on wine's console.
pub const WINE_WITHOUT_CONSOLE: &str = "under wine a pseudo console reaches the program only when this process runs on wine's console (its standard handles on a terminal)";

type CreateFn = unsafe extern "system" fn(COORD, HANDLE, HANDLE, u32, *mut HPCON) -> HRESULT;
type ResizeFn = unsafe extern "system" fn(HPCON, COORD) -> HRESULT;
type CloseFn = unsafe extern "system" fn(HPCON);

/// The ConPTY functions of this system's kernel32.
struct Api {
    create: CreateFn,
    resize: Option<ResizeFn>,
    close: CloseFn,
    /// This is wine (ntdll exports `wine_get_version`).
    wine: bool,
}

fn wide_nul(text: &OsStr) -> io::Result<Vec<u16>> {
    let wide: Vec<u16> = text.encode_wide().collect();
    if wide.contains(&0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "nul byte found in provided data",
        ));
    }
    Ok(wide.into_iter().chain([0]).collect())
}

/// The ConPTY functions, looked up once (`None`: this Windows has none).
fn api() -> Option<&'static Api> {
    static API: OnceLock<Option<Api>> = OnceLock::new();
    API.get_or_init(|| {
        let module = |name: &str| {
            let name = wide_nul(OsStr::new(name)).ok()?;
            // SAFETY: a NUL-terminated name; kernel32 and ntdll are loaded in every process.
            let module = unsafe { GetModuleHandleW(name.as_ptr()) };
            (!module.is_null()).then_some(module)
        };
        let kernel32 = module("kernel32.dll")?;
        // SAFETY: a loaded module and NUL-terminated names.
        let find =
            |name: &std::ffi::CStr| unsafe { GetProcAddress(kernel32, name.as_ptr().cast()) };
        let create = find(c"CreatePseudoConsole")?;
        let close = find(c"ClosePseudoConsole")?;
        let resize = find(c"ResizePseudoConsole");
        let wine = module("ntdll.dll").is_some_and(|ntdll| {
            // SAFETY: as above.
            unsafe { GetProcAddress(ntdll, c"wine_get_version".as_ptr().cast()) }.is_some()
        });
        // SAFETY: these exports have exactly these signatures (consoleapi.h).
        unsafe {
            Some(Api {
                create: std::mem::transmute::<unsafe extern "system" fn() -> isize, CreateFn>(
                    create,
                ),
                resize: resize.map(|resize| {
                    std::mem::transmute::<unsafe extern "system" fn() -> isize, ResizeFn>(resize)
                }),
                close: std::mem::transmute::<unsafe extern "system" fn() -> isize, CloseFn>(close),
                wine,
            })
        }
    })
    .as_ref()
}

/// Whether this process's standard input, output and error are all console handles.
pub fn on_console() -> bool {
    let is_console = |which: STD_HANDLE| {
        // SAFETY: plain arguments; the handle is only looked at.
        let handle = unsafe { GetStdHandle(which) };
        let mut mode: CONSOLE_MODE = 0;
        !handle.is_null()
            && handle != INVALID_HANDLE_VALUE
            // SAFETY: `mode` is a valid out pointer; a handle of another kind fails the call.
            && unsafe { GetConsoleMode(handle, &mut mode) } != 0
    };
    [STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE]
        .into_iter()
        .all(is_console)
}

/// Whether this is wine (the pseudo console's limits there differ: module docs).
pub fn under_wine() -> bool {
    api().is_some_and(|api| api.wine)
}

/// Why a pseudo console cannot be had here (`None`: it can).
pub fn unavailable() -> Option<&'static str> {
    match api() {
        None => Some(NO_CONPTY),
        Some(api) if api.wine && !on_console() => Some(WINE_WITHOUT_CONSOLE),
        Some(_) => None,
    }
}

fn size(cols: u16, rows: u16) -> COORD {
    let cells = |n: u16| i16::try_from(n.max(1)).unwrap_or(i16::MAX);
    COORD {
        X: cells(cols),
        Y: cells(rows),
    }
}

fn hresult_error(hr: HRESULT) -> io::Error {
    // HRESULT_FROM_WIN32: facility 7 carries a Win32 error code.
    if (hr as u32) & 0xFFFF_0000 == 0x8007_0000 {
        io::Error::from_raw_os_error((hr as u32 & 0xFFFF) as i32)
    } else {
        io::Error::other(format!("HRESULT {:#010x}", hr as u32))
    }
}

/// A pseudo console; dropping it closes it (`ClosePseudoConsole`), which ends the programs
/// still attached to it.
pub struct PseudoConsole {
    handle: HPCON,
    api: &'static Api,
}

impl std::fmt::Debug for PseudoConsole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PseudoConsole").finish_non_exhaustive()
    }
}

impl PseudoConsole {
    /// Gives the console `cols` x `rows` cells. `Ok(false)` when the system cannot resize one
    /// (`E_NOTIMPL`, as wine 8 answers): the console keeps its size and its programs run on.
    /// No tool resizes a terminal yet (process_start's `cols` and `rows` are the size it is
    /// created with).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn resize(&self, cols: u16, rows: u16) -> io::Result<bool> {
        let Some(resize) = self.api.resize else {
            return Ok(false);
        };
        // SAFETY: the handle is open until `self` is dropped.
        match unsafe { resize(self.handle, size(cols, rows)) } {
            E_NOTIMPL => Ok(false),
            hr if hr >= 0 => Ok(true),
            hr => Err(hresult_error(hr)),
        }
    }
}

impl Drop for PseudoConsole {
    fn drop(&mut self) {
        // SAFETY: the handle CreatePseudoConsole gave, closed once.
        unsafe { (self.api.close)(self.handle) };
    }
}

/// A program created suspended in a pseudo console of its own.
pub struct Spawned {
    pub pid: u32,
    pub process: OwnedHandle,
    /// Its main thread, suspended.
    pub thread: OwnedHandle,
    pub console: PseudoConsole,
    /// What is written here is the console's input (keys, as a terminal sends them).
    pub input: OwnedHandle,
    /// The console's output: text and escape sequences, as a terminal receives them.
    pub output: OwnedHandle,
}

impl Spawned {
    /// Ends a program that has not run (still suspended, or not in its job).
    pub fn abandon(self) {
        let process = self.process.as_raw_handle() as HANDLE;
        // SAFETY: the process handle is open; the wait ends with the process.
        unsafe {
            TerminateProcess(process, 1);
            WaitForSingleObject(process, INFINITE);
        }
    }
}

/// The thread that reads a pseudo console's output, and whether its reads are over: once the
/// console is closed, [`stop_after`](OutputReader::stop_after) gives them a grace period to end
/// by themselves (the pipe breaks), then cancels them (`CancelSynchronousIo`) until they have.
pub struct OutputReader {
    thread: OwnedHandle,
    done: AtomicBool,
}

impl OutputReader {
    /// The calling thread, which is about to read.
    pub fn this_thread() -> io::Result<OutputReader> {
        // SAFETY: plain arguments; the handle is owned below.
        let thread = unsafe { OpenThread(THREAD_TERMINATE, 0, GetCurrentThreadId()) };
        if thread.is_null() {
            return Err(io::Error::last_os_error());
        }
        Ok(OutputReader {
            // SAFETY: a fresh handle that nothing else owns.
            thread: unsafe { OwnedHandle::from_raw_handle(thread as RawHandle) },
            done: AtomicBool::new(false),
        })
    }

    /// The reads are over (called by the reading thread, before it does anything else that
    /// waits).
    pub fn finished(&self) {
        self.done.store(true, Ordering::SeqCst);
    }

    /// Returns once the reads are over: by themselves within `grace`, else cancelled.
    pub fn stop_after(&self, grace: Duration) {
        let until = Instant::now() + grace;
        while !self.done.load(Ordering::SeqCst) {
            if Instant::now() >= until {
                // SAFETY: the thread handle is open and has THREAD_TERMINATE; a thread that is
                // not in a synchronous read is not affected.
                unsafe { CancelSynchronousIo(self.thread.as_raw_handle() as HANDLE) };
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn pipe() -> io::Result<(OwnedHandle, OwnedHandle)> {
    let (mut read, mut write): (HANDLE, HANDLE) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: valid out pointers; no security attributes (not inheritable), default size.
    if unsafe { CreatePipe(&mut read, &mut write, std::ptr::null(), 0) } == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: two fresh handles that nothing else owns.
    unsafe {
        Ok((
            OwnedHandle::from_raw_handle(read as RawHandle),
            OwnedHandle::from_raw_handle(write as RawHandle),
        ))
    }
}

/// A process-thread attribute list holding one pseudo console.
struct Attributes {
    buffer: Vec<u64>,
}

impl Attributes {
    fn with_console(console: &PseudoConsole) -> io::Result<Attributes> {
        let mut bytes = 0usize;
        // SAFETY: the size query (no list): fails with ERROR_INSUFFICIENT_BUFFER, sets `bytes`.
        unsafe { InitializeProcThreadAttributeList(std::ptr::null_mut(), 1, 0, &mut bytes) };
        let mut attributes = Attributes {
            buffer: vec![0u64; bytes.div_ceil(8).max(1)],
        };
        // SAFETY: a buffer of at least `bytes` bytes, 8-aligned.
        if unsafe { InitializeProcThreadAttributeList(attributes.list(), 1, 0, &mut bytes) } == 0 {
            let error = io::Error::last_os_error();
            attributes.buffer.clear(); // not initialised: nothing to delete
            return Err(error);
        }
        // SAFETY: an initialised list; the attribute's value is the HPCON itself, which stays
        // open as long as the list is used (the caller holds `console`).
        let updated = unsafe {
            UpdateProcThreadAttribute(
                attributes.list(),
                0,
                PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE as usize,
                console.handle as *const c_void,
                std::mem::size_of::<HPCON>(),
                std::ptr::null_mut(),
                std::ptr::null(),
            )
        };
        if updated == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(attributes)
    }

    fn list(&mut self) -> LPPROC_THREAD_ATTRIBUTE_LIST {
        self.buffer.as_mut_ptr().cast()
    }
}

impl Drop for Attributes {
    fn drop(&mut self) {
        if !self.buffer.is_empty() {
            // SAFETY: an initialised list, deleted once.
            unsafe { DeleteProcThreadAttributeList(self.list()) };
        }
    }
}

/// Starts `argv` (its program a path, found by the caller) in `cwd` with exactly `env`, in a new
/// pseudo console of `cols` x `rows`, suspended. `.bat` and `.cmd` files run through cmd.exe,
/// as std runs them.
pub fn spawn_suspended(
    argv: &[String],
    cwd: &Path,
    env: &[(OsString, OsString)],
    (cols, rows): (u16, u16),
) -> io::Result<Spawned> {
    let api = api().ok_or_else(|| io::Error::new(io::ErrorKind::Unsupported, NO_CONPTY))?;
    let (application, mut line) = command_line(argv)?;
    let environment = environment_block(env)?;
    let cwd = wide_nul(cwd.as_os_str())?;
    let (input_read, input) = pipe()?;
    let (output, output_write) = pipe()?;
    let mut handle: HPCON = 0;
    // SAFETY: open pipe ends (the console duplicates them) and a valid out pointer.
    let hr = unsafe {
        (api.create)(
            size(cols, rows),
            input_read.as_raw_handle() as HANDLE,
            output_write.as_raw_handle() as HANDLE,
            0,
            &mut handle,
        )
    };
    if hr < 0 {
        return Err(hresult_error(hr));
    }
    let console = PseudoConsole { handle, api };
    // The console holds its own ends: the output breaks when it closes.
    drop((input_read, output_write));
    let mut attributes = Attributes::with_console(&console)?;
    // SAFETY: all zeros is a valid value of this plain C struct.
    let mut startup: STARTUPINFOEXW = unsafe { std::mem::zeroed() };
    startup.StartupInfo.cb = std::mem::size_of::<STARTUPINFOEXW>() as u32;
    startup.lpAttributeList = attributes.list();
    if !on_console() {
        // Null handles: this process's redirected ones are not passed on (module docs).
        startup.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    }
    // SAFETY: all zeros is a valid value of this plain C struct.
    let mut info: PROCESS_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: NUL-terminated strings, a writable command line, a Unicode environment block
    // ending in two NULs, an extended startup structure whose list lives past the call.
    let created = unsafe {
        CreateProcessW(
            application.as_ptr(),
            line.as_mut_ptr(),
            std::ptr::null(),
            std::ptr::null(),
            0,
            CREATE_SUSPENDED | EXTENDED_STARTUPINFO_PRESENT | CREATE_UNICODE_ENVIRONMENT,
            environment.as_ptr().cast(),
            cwd.as_ptr(),
            &startup.StartupInfo,
            &mut info,
        )
    };
    if created == 0 {
        return Err(io::Error::last_os_error());
    }
    drop(attributes);
    // SAFETY: two fresh handles that nothing else owns.
    let (process, thread) = unsafe {
        (
            OwnedHandle::from_raw_handle(info.hProcess as RawHandle),
            OwnedHandle::from_raw_handle(info.hThread as RawHandle),
        )
    };
    Ok(Spawned {
        pid: info.dwProcessId,
        process,
        thread,
        console,
        input,
        output,
    })
}

/// Whether `program` is a batch file (std's rule: `.bat` or `.cmd`, any case).
fn is_batch(program: &str) -> bool {
    Path::new(program)
        .extension()
        .and_then(OsStr::to_str)
        .is_some_and(|ext| ext.eq_ignore_ascii_case("bat") || ext.eq_ignore_ascii_case("cmd"))
}

/// The application to start and its command line (both NUL-terminated UTF-16): the program and
/// its arguments quoted as the C runtime's `argv` parsing undoes it; a batch file as
/// `cmd.exe /e:ON /v:OFF /d /c ""script" args"`, with the escaping std gives batch arguments.
fn command_line(argv: &[String]) -> io::Result<(Vec<u16>, Vec<u16>)> {
    let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, what.to_string());
    let program = argv.first().ok_or_else(|| invalid("no program"))?;
    if program.contains('"') {
        return Err(invalid("Windows file names may not contain `\"`"));
    }
    let mut line = String::new();
    if is_batch(program) {
        if program.ends_with('\\') {
            return Err(invalid("Windows file names may not end with `\\`"));
        }
        line.push_str("cmd.exe /e:ON /v:OFF /d /c \"\"");
        line.push_str(program);
        line.push('"');
        for arg in &argv[1..] {
            if arg.contains(['\r', '\n']) {
                return Err(invalid("batch file arguments are invalid"));
            }
            line.push(' ');
            push_batch_arg(&mut line, arg);
        }
        line.push('"');
        let cmd = system_directory()?.join("cmd.exe");
        return Ok((wide_nul(cmd.as_os_str())?, wide_nul(OsStr::new(&line))?));
    }
    // The program's name is read up to its closing quote, without escapes.
    line.push('"');
    line.push_str(program);
    line.push('"');
    for arg in &argv[1..] {
        line.push(' ');
        push_arg(&mut line, arg);
    }
    Ok((wide_nul(OsStr::new(program))?, wide_nul(OsStr::new(&line))?))
}

/// `arg` as `CommandLineToArgvW` and the C runtime read it back: quoted when empty or holding a
/// blank or `"`; inside quotes, backslashes before a `"` (or the closing quote) doubled and the
/// `"` escaped.
fn push_arg(line: &mut String, arg: &str) {
    if !arg.is_empty() && !arg.contains([' ', '\t', '\n', '\x0b', '"']) {
        line.push_str(arg);
        return;
    }
    line.push('"');
    let mut backslashes = 0;
    for c in arg.chars() {
        if c == '\\' {
            backslashes += 1;
        } else {
            if c == '"' {
                line.extend(std::iter::repeat_n('\\', backslashes + 1));
            }
            backslashes = 0;
        }
        line.push(c);
    }
    line.extend(std::iter::repeat_n('\\', backslashes));
    line.push('"');
}

/// A batch file's argument as std passes it: quoted unless it holds only letters, digits,
/// non-ASCII text and `#$*+-./:?@\_` (and does not end with `\`); inside quotes a `"` doubled
/// (the backslashes before it doubled too), and each `%` written `%%cd:~,%`, which cmd.exe
/// expands to a `%` of its own, so no `%NAME%` in an argument is expanded.
fn push_batch_arg(line: &mut String, arg: &str) {
    const UNQUOTED: &str = r"#$*+-./:?@\_";
    let quote = arg.is_empty()
        || arg.ends_with('\\')
        || arg.chars().any(|c| {
            (c.is_ascii() && !(c.is_ascii_alphanumeric() || UNQUOTED.contains(c))) || c.is_control()
        });
    if quote {
        line.push('"');
    }
    let mut backslashes = 0;
    for c in arg.chars() {
        if c == '\\' {
            backslashes += 1;
        } else {
            match c {
                '"' => {
                    line.extend(std::iter::repeat_n('\\', backslashes));
                    line.push('"');
                }
                '%' => line.push_str("%%cd:~,"),
                _ => {}
            }
            backslashes = 0;
        }
        line.push(c);
    }
    if quote {
        line.extend(std::iter::repeat_n('\\', backslashes));
        line.push('"');
    }
}

/// The system directory (where cmd.exe is), as std finds cmd.exe for batch files.
fn system_directory() -> io::Result<std::path::PathBuf> {
    use std::os::windows::ffi::OsStringExt;
    let mut buffer = vec![0u16; 260];
    loop {
        // SAFETY: a writable buffer of the length given.
        let n = unsafe { GetSystemDirectoryW(buffer.as_mut_ptr(), buffer.len() as u32) } as usize;
        if n == 0 {
            return Err(io::Error::last_os_error());
        }
        if n < buffer.len() {
            return Ok(OsString::from_wide(&buffer[..n]).into());
        }
        buffer.resize(n + 1, 0);
    }
}

/// `env` as a Unicode environment block: `name=value` entries sorted by name without regard to
/// case (one entry per name: the last one given), each NUL-terminated, then one more NUL.
fn environment_block(env: &[(OsString, OsString)]) -> io::Result<Vec<u16>> {
    let mut entries: Vec<(Vec<u16>, &OsString, &OsString)> = Vec::with_capacity(env.len());
    for (name, value) in env {
        let key: Vec<u16> = name
            .encode_wide()
            .map(|u| u8::try_from(u).map_or(u, |b| b.to_ascii_uppercase().into()))
            .collect();
        entries.retain(|(k, _, _)| *k != key);
        entries.push((key, name, value));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut block = Vec::new();
    for (_, name, value) in entries {
        let mut entry = name.clone();
        entry.push("=");
        entry.push(value);
        block.extend(wide_nul(&entry)?);
    }
    if block.is_empty() {
        block.push(0);
    }
    block.push(0);
    Ok(block)
}

/// A console's Enter is `"\r"` (a `"\n"` is Ctrl+Enter there, which ends no line): `input`
/// with each `"\r\n"` and each `"\n"` as `"\r"`; `None` when it has no `"\n"`. Every other
/// byte, control characters included, is kept.
pub fn enter_as_return(input: &[u8]) -> Option<Vec<u8>> {
    if !input.contains(&b'\n') {
        return None;
    }
    let mut keys = Vec::with_capacity(input.len());
    for &byte in input {
        match byte {
            b'\n' if keys.last() == Some(&b'\r') => {}
            b'\n' => keys.push(b'\r'),
            _ => keys.push(byte),
        }
    }
    Some(keys)
}

#[cfg(test)]
mod tests;
