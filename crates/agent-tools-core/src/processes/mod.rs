//! Processes that outlive a call: the table behind process_start, process_read, process_write,
//! process_list and process_kill (docs/tools/process.md).
//!
//! Each context that enables the process tools has one [`ProcessTable`]. A process in it:
//! - runs as exec_command's commands run (the same program lookup, working directory check and
//!   OS sandbox), its stdout and stderr read by a thread of its own into a bounded [`Ring`]
//!   (1 MiB by default): older output is dropped and counted, memory never grows without bound;
//! - on Linux runs under the supervisor (`crate::supervisor`), always, sandboxed or not: its
//!   whole tree (what it starts in the background, a `setsid` daemon, a double fork) ends when
//!   the process is killed, when it exits, when the table is closed or dropped, and when the
//!   host process dies, even by `SIGKILL` (the control pipe closes with it). Elsewhere it leads
//!   a process group of its own, which is what is signalled, and which the host's watchdog
//!   (`watchdog`) ends when the host dies;
//! - is counted against the table's limit while it runs; once it has exited its status and the
//!   last output stay readable until a read or a list has reported the exit (bounded).

mod ring;
#[cfg(all(unix, portable))]
mod watchdog;

pub use ring::{Ring, Slice};

use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How much of an incomplete last line a wait for a pattern looks at again.
const RESCAN_BYTES: usize = 64 << 10;

/// The most one read of a process's output takes (a pipe's default capacity on Linux).
const READ_BYTES: usize = 64 << 10;

/// The reader thread's stack: its read buffer and what the reads need besides.
const READER_STACK_BYTES: usize = READ_BYTES + (64 << 10);

/// The table's bounds.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Processes running at once.
    pub max_running: usize,
    /// Output kept per process.
    pub buffer_bytes: usize,
    /// A process running longer is killed (`None`: no limit).
    pub max_lifetime: Option<Duration>,
    /// Exited processes kept for a last read; the oldest goes first.
    pub max_exited: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_running: 8,
            buffer_bytes: 1 << 20,
            max_lifetime: None,
            max_exited: 16,
        }
    }
}

/// Why a process could not be started or reached.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("no process with id {0}")]
    Unknown(String),
    #[error("{running} processes are running, the limit of this context")]
    TooMany { running: usize },
    #[error("stdin of process {0} is closed")]
    StdinClosed(String),
    #[error("{0}")]
    Spawn(io::Error),
    #[error("{0}")]
    Unsupported(String),
}

/// What a process is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Running,
    /// Exited with a code, or ended by a signal.
    Exited {
        code: Option<i32>,
        signal: Option<i32>,
    },
}

/// How to run a process.
pub struct StartSpec {
    /// The program (a path: found by the caller as exec_command's runner finds it) and its
    /// arguments.
    pub argv: Vec<String>,
    /// The checked working directory (on Linux the `/proc/self/fd` path of an open directory).
    pub cwd: PathBuf,
    /// The complete environment.
    pub env: Vec<(OsString, OsString)>,
    /// exec_command's OS sandbox, when the context asks for it: applied in the process right
    /// before it executes.
    pub restriction: Option<Restrict>,
    /// Kept as long as the process runs (the sandbox's private `TMPDIR`).
    pub keep: Option<Box<dyn std::any::Any + Send + Sync>>,
    /// A pseudo-terminal of (columns, rows) instead of pipes.
    pub terminal: Option<(u16, u16)>,
}

/// A restriction the process applies to itself before it executes (no allocation).
pub type Restrict = Arc<dyn Fn() -> io::Result<()> + Send + Sync>;

/// A read of a process's output (and its status then).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub text: String,
    pub cursor: u64,
    pub dropped_bytes: u64,
    pub status: Status,
}

/// One line of `process_list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub id: String,
    pub command: Vec<String>,
    pub pid: u32,
    pub started_ms: u64,
    pub status: Status,
    pub buffered_bytes: usize,
}

/// Every process of a context.
#[derive(Debug)]
pub struct ProcessTable {
    limits: Limits,
    state: Mutex<TableState>,
}

#[derive(Default, Debug)]
struct TableState {
    next_id: u64,
    processes: Vec<Arc<Process>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ProcessTable {
    pub fn new(limits: Limits) -> ProcessTable {
        ProcessTable {
            limits,
            state: Mutex::default(),
        }
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Starts a process; refused past the limit of running processes.
    pub fn start(&self, spec: StartSpec) -> Result<Arc<Process>, ProcessError> {
        let mut state = lock(&self.state);
        let running = state.processes.iter().filter(|p| p.is_running()).count();
        if running >= self.limits.max_running {
            return Err(ProcessError::TooMany { running });
        }
        state.next_id += 1;
        let id = format!("p{}", state.next_id);
        let process = Process::spawn(id, spec, self.limits)?;
        state.processes.push(Arc::clone(&process));
        // Bounded: the oldest exited processes nobody read go first.
        let exited: Vec<usize> = (0..state.processes.len())
            .filter(|&i| !state.processes[i].is_running())
            .collect();
        let excess = exited.len().saturating_sub(self.limits.max_exited);
        for &i in exited[..excess].iter().rev() {
            state.processes.remove(i);
        }
        Ok(process)
    }

    /// The process `id`.
    pub fn get(&self, id: &str) -> Result<Arc<Process>, ProcessError> {
        lock(&self.state)
            .processes
            .iter()
            .find(|p| p.id == id)
            .cloned()
            .ok_or_else(|| ProcessError::Unknown(id.to_string()))
    }

    /// Forgets a process whose exit and whole output have been reported.
    pub fn forget_if_exited_and_read(&self, process: &Process) {
        if process.fully_read() {
            self.forget(process);
        }
    }

    /// Forgets a process (ended, or about to be).
    pub fn forget(&self, process: &Process) {
        lock(&self.state).processes.retain(|p| p.id != process.id);
    }

    /// Whether a process of the table is running.
    pub fn any_running(&self) -> bool {
        lock(&self.state).processes.iter().any(|p| p.is_running())
    }

    /// Every process, oldest first; exited ones are then forgotten (their exit is reported).
    pub fn list(&self) -> Vec<Listed> {
        let mut state = lock(&self.state);
        let listed = state.processes.iter().map(|p| p.listed()).collect();
        state.processes.retain(|p| p.is_running());
        listed
    }

    /// Ends every process (their trees) and waits until they are gone.
    pub fn close(&self) {
        let processes = std::mem::take(&mut lock(&self.state).processes);
        for process in &processes {
            process.end();
        }
        for process in &processes {
            process.wait_gone(None);
        }
    }
}

impl Drop for ProcessTable {
    /// Ends every process without waiting (the table may go with a garbage-collected context
    /// on the JavaScript thread): each reader thread reaps its own.
    fn drop(&mut self) {
        for process in std::mem::take(&mut lock(&self.state).processes) {
            process.end();
        }
    }
}

/// A started process.
pub struct Process {
    pub id: String,
    pub command: Vec<String>,
    pub pid: u32,
    pub started_ms: u64,
    shared: Mutex<Shared>,
    changed: Condvar,
    stdin: Mutex<Option<std::fs::File>>,
    /// Runs in a pseudo-terminal: its output is read with escape sequences stripped (unless
    /// raw), and closing its stdin sends end of file (Ctrl-D) instead.
    pub terminal: bool,
    tree: platform::Tree,
    _keep: Option<Box<dyn std::any::Any + Send + Sync>>,
}

impl std::fmt::Debug for Process {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Process")
            .field("id", &self.id)
            .field("pid", &self.pid)
            .field("command", &self.command)
            .finish_non_exhaustive()
    }
}

struct Shared {
    ring: Ring,
    status: Status,
    /// Where the last read stopped.
    cursor: u64,
    /// Both output pipes are at end of file and the process is reaped: nothing will change.
    finished: bool,
}

impl Process {
    fn spawn(id: String, spec: StartSpec, limits: Limits) -> Result<Arc<Process>, ProcessError> {
        let command = spec.argv.clone();
        let started = platform::start(&spec)?;
        let process = Arc::new(Process {
            id,
            command,
            pid: started.pid,
            started_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            shared: Mutex::new(Shared {
                ring: Ring::new(limits.buffer_bytes),
                status: Status::Running,
                cursor: 0,
                finished: false,
            }),
            changed: Condvar::new(),
            stdin: Mutex::new(Some(started.stdin)),
            terminal: spec.terminal.is_some(),
            tree: started.tree,
            _keep: spec.keep,
        });
        let reader = Arc::clone(&process);
        let deadline = limits.max_lifetime.map(|l| Instant::now() + l);
        std::thread::Builder::new()
            .name("atn-process".into())
            .stack_size(READER_STACK_BYTES)
            .spawn(move || platform::read_until_gone(&reader, started.outputs, deadline))
            .map_err(ProcessError::Spawn)?;
        Ok(process)
    }

    pub fn is_running(&self) -> bool {
        lock(&self.shared).status == Status::Running
    }

    pub fn status(&self) -> Status {
        lock(&self.shared).status
    }

    fn listed(&self) -> Listed {
        let shared = lock(&self.shared);
        Listed {
            id: self.id.clone(),
            command: self.command.clone(),
            pid: self.pid,
            started_ms: self.started_ms,
            status: shared.status,
            buffered_bytes: shared.ring.len(),
        }
    }

    /// Output arrived (called by the reader thread).
    fn append(&self, bytes: &[u8]) {
        lock(&self.shared).ring.push(bytes);
        self.changed.notify_all();
    }

    fn set_status(&self, status: Status) {
        let mut shared = lock(&self.shared);
        if shared.status == Status::Running {
            shared.status = status;
        }
        drop(shared);
        self.changed.notify_all();
    }

    fn set_finished(&self) {
        lock(&self.shared).finished = true;
        self.changed.notify_all();
    }

    /// Waits on the process's changes until `done` holds (true) or `deadline` passes (false;
    /// `None`: no deadline).
    fn wait_until(&self, deadline: Option<Instant>, mut done: impl FnMut(&Shared) -> bool) -> bool {
        let mut shared = lock(&self.shared);
        loop {
            if done(&shared) {
                return true;
            }
            shared = match deadline {
                None => self
                    .changed
                    .wait(shared)
                    .unwrap_or_else(PoisonError::into_inner),
                Some(at) => {
                    let now = Instant::now();
                    if now >= at {
                        return false;
                    }
                    self.changed
                        .wait_timeout(shared, at - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
    }

    /// Waits until `deadline` at most, returning early when the process has exited or when the
    /// output after `from` matches `pattern`.
    pub fn wait(&self, from: u64, deadline: Instant, pattern: Option<&regex::Regex>) {
        // Where the pattern has been tried up to (the start of the last line seen, so a line
        // that was incomplete is tried again whole).
        let mut tried = from;
        self.wait_until(Some(deadline), |shared| {
            if shared.status != Status::Running {
                return true;
            }
            let Some(pattern) = pattern else {
                return false;
            };
            let slice = shared.ring.read(tried, usize::MAX, false);
            if pattern.is_match(&String::from_utf8_lossy(&slice.bytes)) {
                return true;
            }
            // Tried again next time: the last, incomplete line (at most its last 64 KiB, so a
            // flood without newlines is not scanned again and again).
            let tail = match slice.bytes.iter().rposition(|&b| b == b'\n') {
                Some(i) => slice.bytes.len() - i - 1,
                None => slice.bytes.len(),
            };
            tried = slice.cursor - tail.min(RESCAN_BYTES) as u64;
            false
        });
    }

    /// The output after `cursor` (the last read's end when `None`), at most `max_bytes`.
    pub fn read(&self, cursor: Option<u64>, max_bytes: usize) -> Output {
        let mut shared = lock(&self.shared);
        let from = cursor.unwrap_or(shared.cursor);
        let slice = shared.ring.read(from, max_bytes, shared.finished);
        shared.cursor = slice.cursor;
        Output {
            text: String::from_utf8_lossy(&slice.bytes).into_owned(),
            cursor: slice.cursor,
            dropped_bytes: slice.dropped,
            status: shared.status,
        }
    }

    /// Where the last read stopped.
    pub fn cursor(&self) -> u64 {
        lock(&self.shared).cursor
    }

    /// The offset after the last byte of output so far.
    pub fn end_offset(&self) -> u64 {
        lock(&self.shared).ring.end()
    }

    /// Whether the process is over and a read has reached the end of its output.
    fn fully_read(&self) -> bool {
        let shared = lock(&self.shared);
        shared.finished && shared.cursor >= shared.ring.end()
    }

    /// Waits until there is output past `seen`, the process has exited, or `deadline`.
    pub fn wait_for_output(&self, seen: u64, deadline: Instant) {
        self.wait_until(Some(deadline), |shared| {
            shared.ring.end() > seen || shared.status != Status::Running
        });
    }

    /// Writes to the process's stdin; `close` closes it afterwards.
    pub fn write(&self, input: &[u8], close: bool) -> Result<(), ProcessError> {
        use std::io::Write;
        let mut stdin = lock(&self.stdin);
        let Some(pipe) = stdin.as_mut() else {
            return Err(ProcessError::StdinClosed(self.id.clone()));
        };
        // A Windows console ends a line at "\r" only ("\n" is Ctrl+Enter there).
        #[cfg(windows)]
        let keys = if self.terminal {
            crate::conpty::enter_as_return(input)
        } else {
            None
        };
        #[cfg(windows)]
        let input = keys.as_deref().unwrap_or(input);
        if !input.is_empty() {
            if let Err(error) = pipe.write_all(input) {
                *stdin = None;
                return Err(if error.kind() == io::ErrorKind::BrokenPipe {
                    ProcessError::StdinClosed(self.id.clone())
                } else {
                    ProcessError::Spawn(error)
                });
            }
        }
        if close {
            if self.terminal {
                // End of file at the start of a line: the terminal stays (closing it would hang
                // up the whole session).
                let _ = pipe.write_all(TERMINAL_EOF);
            } else {
                *stdin = None;
            }
        }
        Ok(())
    }

    /// Sends `signal` to the process's tree.
    pub fn signal(&self, signal: i32) {
        self.tree.signal(signal);
    }

    /// Ends the whole tree at once.
    pub fn end(&self) {
        *lock(&self.stdin) = None;
        self.tree.end();
    }

    /// Waits until nothing of the process is left (its output closed, it and its tree reaped),
    /// for `limit` at most (`None`: as long as it takes). True when it is gone.
    pub fn wait_gone(&self, limit: Option<Duration>) -> bool {
        self.wait_until(limit.map(|l| Instant::now() + l), |shared| shared.finished)
    }
}

/// End of input typed at the start of a line: Ctrl-D on Unix; Ctrl-Z, then Enter, in a Windows
/// console.
#[cfg(unix)]
const TERMINAL_EOF: &[u8] = b"\x04";
#[cfg(windows)]
const TERMINAL_EOF: &[u8] = b"\x1a\r";

/// The command as std starts it (where no supervisor does): the program, its arguments,
/// directory and whole environment, and its standard streams.
#[cfg(any(windows, all(unix, portable)))]
fn command(
    spec: &StartSpec,
    stdin: std::process::Stdio,
    stdout: std::process::Stdio,
    stderr: std::process::Stdio,
) -> std::process::Command {
    let mut command = std::process::Command::new(&spec.argv[0]);
    command
        .args(&spec.argv[1..])
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr);
    command
}

/// A pipe end, as the platform has it.
#[cfg(unix)]
type Pipe = std::os::fd::OwnedFd;
#[cfg(windows)]
type Pipe = std::os::windows::io::OwnedHandle;

/// What a platform's start gives.
struct Started {
    pid: u32,
    stdin: std::fs::File,
    outputs: Vec<Pipe>,
    tree: platform::Tree,
}

/// The reader thread's loop: output into the ring until both pipes are closed. `exit_fd` turns
/// readable when the process has exited (then `on_exit(Some(fd))` records it); without one,
/// `on_exit(None)` is asked every 50 ms and answers whether it has. Past `deadline` (the
/// table's maximum lifetime) the tree is ended.
#[cfg(unix)]
fn pump(
    process: &Process,
    mut outputs: Vec<Pipe>,
    mut exit_fd: Option<Pipe>,
    deadline: Option<Instant>,
    mut on_exit: impl FnMut(Option<&Pipe>) -> bool,
) {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    use smallvec::SmallVec;
    let mut buf = ReadBuffer::new();
    let mut exited = false;
    loop {
        if !exited && exit_fd.is_none() {
            exited = on_exit(None);
        }
        if outputs.is_empty() && exited {
            break;
        }
        let now = Instant::now();
        if let Some(at) = deadline {
            if now >= at && !exited {
                process.end();
            }
        }
        let mut wait = if exit_fd.is_none() && !exited {
            Some(Duration::from_millis(50))
        } else {
            None
        };
        if let Some(at) = deadline.filter(|&at| at > now && !exited) {
            let left = at - now;
            wait = Some(wait.map_or(left, |w| w.min(left)));
        }
        // Inline vectors: this thread allocates nothing, so the allocator never sets up a heap
        // for it (tens of KiB that an idle process would hold).
        let mut fds: SmallVec<[PollFd; 3]> = outputs
            .iter()
            .chain(exit_fd.as_ref())
            .map(|fd| PollFd::new(fd, PollFlags::IN))
            .collect();
        let timeout = wait.map(|d| Timespec {
            tv_sec: d.as_secs() as _,
            tv_nsec: d.subsec_nanos() as _,
        });
        match poll(&mut fds, timeout.as_ref()) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(_) => break,
        }
        let ready: SmallVec<[bool; 3]> = fds.iter().map(|fd| !fd.revents().is_empty()).collect();
        drop(fds);
        if exit_fd.is_some() && ready[outputs.len()] {
            on_exit(exit_fd.as_ref());
            exit_fd = None;
            exited = true;
        }
        let mut index = 0;
        outputs.retain(|fd| {
            let is_ready = ready[index];
            index += 1;
            if !is_ready {
                return true;
            }
            match rustix::io::read(fd, buf.bytes()) {
                Ok(([], _)) => false,
                Ok((read, _)) => {
                    process.append(read);
                    true
                }
                Err(rustix::io::Errno::INTR) | Err(rustix::io::Errno::AGAIN) => true,
                Err(_) => false,
            }
        });
    }
}

/// The reader thread's buffer: a private anonymous mapping, so that only the pages a read has
/// filled are ever resident (an idle process costs none of it, where memory from the allocator
/// may have been touched before); the heap if the mapping fails.
#[cfg(unix)]
enum ReadBuffer {
    Mapped(std::ptr::NonNull<std::mem::MaybeUninit<u8>>),
    Heap(Box<[std::mem::MaybeUninit<u8>]>),
}

#[cfg(unix)]
impl ReadBuffer {
    fn new() -> ReadBuffer {
        use rustix::mm::{mmap_anonymous, MapFlags, ProtFlags};
        // SAFETY: a new private mapping, not aliased; unmapped once, in `drop`.
        let mapped = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                READ_BYTES,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE,
            )
        };
        match mapped.ok().and_then(|at| std::ptr::NonNull::new(at.cast())) {
            Some(at) => ReadBuffer::Mapped(at),
            None => ReadBuffer::Heap(Box::new_uninit_slice(READ_BYTES)),
        }
    }

    fn bytes(&mut self) -> &mut [std::mem::MaybeUninit<u8>] {
        match self {
            // SAFETY: the mapping is READ_BYTES long, readable and writable, and only this
            // owner reaches it; uninitialised bytes are what MaybeUninit allows.
            ReadBuffer::Mapped(at) => unsafe {
                std::slice::from_raw_parts_mut(at.as_ptr(), READ_BYTES)
            },
            ReadBuffer::Heap(bytes) => bytes,
        }
    }
}

#[cfg(unix)]
impl Drop for ReadBuffer {
    fn drop(&mut self) {
        if let ReadBuffer::Mapped(at) = self {
            // SAFETY: the mapping `new` made, unmapped once.
            let _ = unsafe { rustix::mm::munmap(at.as_ptr().cast(), READ_BYTES) };
        }
    }
}

#[cfg(linux_native)]
mod platform {
    use std::os::fd::{AsFd, OwnedFd};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use super::{lock, Process, ProcessError, StartSpec, Started, Status};
    use crate::supervisor::{ExecImage, SupervisorProcess};

    /// The supervisor's control pipe (a signal number to send, or closed to end the tree) and
    /// the supervisor itself, reaped by the reader thread.
    pub struct Tree {
        control: Mutex<Option<OwnedFd>>,
        supervisor: Mutex<Option<SupervisorProcess>>,
        report: Mutex<Option<OwnedFd>>,
    }

    impl Tree {
        pub fn signal(&self, signal: i32) {
            if let Some(control) = lock(&self.control).as_ref() {
                let byte = [u8::try_from(signal).unwrap_or(b'T')];
                let _ = rustix::io::write(control, &byte);
            }
        }

        pub fn end(&self) {
            drop(lock(&self.control).take());
        }
    }

    pub fn start(spec: &StartSpec) -> Result<Started, ProcessError> {
        let image = ExecImage::new(
            std::ffi::OsStr::new(&spec.argv[0]),
            spec.argv.iter().skip(1).map(std::ffi::OsStr::new),
            Some(&spec.env),
        )
        .map_err(ProcessError::Spawn)?;
        let restrict: crate::supervisor::Restrict = match &spec.restriction {
            Some(restriction) => Arc::clone(restriction),
            None => Arc::new(|| Ok(())),
        };
        let supervised = crate::supervisor::spawn(
            Arc::new(image),
            restrict,
            Some(&spec.cwd),
            true,
            match spec.terminal {
                Some((cols, rows)) => crate::supervisor::Streams::Terminal(cols, rows),
                None => crate::supervisor::Streams::Interactive,
            },
        )
        .map_err(ProcessError::Spawn)?;
        let pid = supervised.command_pid;
        let stdin = supervised
            .stdin
            .map(std::fs::File::from)
            .ok_or_else(|| ProcessError::Spawn(std::io::ErrorKind::BrokenPipe.into()))?;
        Ok(Started {
            pid,
            stdin,
            // stderr is the same pipe: one reader end is enough.
            outputs: vec![supervised.stdout],
            tree: Tree {
                control: Mutex::new(Some(supervised.control)),
                supervisor: Mutex::new(Some(supervised.process)),
                report: Mutex::new(Some(supervised.report)),
            },
        })
    }

    /// The reader thread: output into the ring, the exit from the supervisor's report; once the
    /// command has exited its tree is ended (nothing it started outlives it), and once the
    /// output is closed the supervisor is reaped.
    pub fn read_until_gone(
        process: &Arc<Process>,
        outputs: Vec<OwnedFd>,
        deadline: Option<Instant>,
    ) {
        let report = lock(&process.tree.report).take();
        super::pump(process, outputs, report, deadline, |report| {
            let Some(report) = report else {
                return false;
            };
            let mut bytes = [0u8; 8];
            let got = crate::supervisor::read_full(report.as_fd(), &mut bytes);
            let status = if got == bytes.len() {
                match crate::supervisor::exit_of(&bytes) {
                    crate::supervisor::Exit::Code(code) => Status::Exited {
                        code: Some(code),
                        signal: None,
                    },
                    crate::supervisor::Exit::Signal(signal) => Status::Exited {
                        code: None,
                        signal: Some(signal),
                    },
                }
            } else {
                Status::Exited {
                    code: None,
                    signal: None,
                }
            };
            process.set_status(status);
            process.tree.end();
            true
        });
        if let Some(mut supervisor) = lock(&process.tree.supervisor).take() {
            supervisor.wait();
        }
        process.set_finished();
    }
}

#[cfg(all(unix, portable))]
mod platform {
    use std::os::fd::OwnedFd;
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Stdio};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use rustix::process::{Pid, Signal, WaitIdOptions};

    use super::{lock, Process, ProcessError, StartSpec, Started, Status};

    /// The process group the command leads (its pid), and the child until reaped.
    pub struct Tree {
        group: Pid,
        child: Mutex<Option<Child>>,
    }

    impl Tree {
        pub fn signal(&self, signal: i32) {
            if let Some(signal) = Signal::from_named_raw(signal) {
                let _ = rustix::process::kill_process_group(self.group, signal);
            }
        }

        pub fn end(&self) {
            let _ = rustix::process::kill_process_group(self.group, Signal::KILL);
        }
    }

    pub fn start(spec: &StartSpec) -> Result<Started, ProcessError> {
        // stdout and stderr: one pipe, so the output keeps the order it was written in; or
        // all three the slave of a pseudo-terminal.
        let terminal = match spec.terminal {
            Some((cols, rows)) => {
                Some(crate::supervisor::open_terminal(cols, rows).map_err(ProcessError::Spawn)?)
            }
            None => None,
        };
        let (output, output_write, stdin_end) = match &terminal {
            Some((master, slave)) => (
                master.try_clone().map_err(ProcessError::Spawn)?,
                slave.try_clone().map_err(ProcessError::Spawn)?,
                Some(Stdio::from(slave.try_clone().map_err(ProcessError::Spawn)?)),
            ),
            None => {
                // std's pipe: close-on-exec everywhere (macOS has no pipe2).
                let (read, write) = std::io::pipe().map_err(ProcessError::Spawn)?;
                (OwnedFd::from(read), OwnedFd::from(write), None)
            }
        };
        let stderr_write = output_write.try_clone().map_err(ProcessError::Spawn)?;
        let in_terminal = terminal.is_some();
        let mut command = super::command(
            spec,
            stdin_end.unwrap_or_else(Stdio::piped),
            Stdio::from(output_write),
            Stdio::from(stderr_write),
        );
        let restriction = spec.restriction.clone();
        // SAFETY: `sigaction` and `setsid` are async-signal-safe, and the restriction allocates
        // nothing (see `Restrict`); nothing else runs between fork and exec.
        unsafe {
            command.pre_exec(move || {
                crate::supervisor::default_signal_dispositions();
                // A session and group of its own, so no controlling terminal.
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The terminal becomes the new session's controlling terminal.
                if in_terminal && libc::ioctl(0, libc::TIOCSCTTY as _, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                match &restriction {
                    Some(restrict) => restrict(),
                    None => Ok(()),
                }
            });
        }
        let mut child = command.spawn().map_err(ProcessError::Spawn)?;
        let pid = child.id();
        let group = Pid::from_raw(pid as i32)
            .ok_or_else(|| ProcessError::Spawn(std::io::Error::from_raw_os_error(libc::ESRCH)))?;
        super::watchdog::register(group.as_raw_nonzero().get());
        // The parent's write ends went with `command`: only the child holds the pipe open.
        drop(command);
        let stdin = match terminal {
            Some((master, _)) => Some(std::fs::File::from(master)),
            None => child
                .stdin
                .take()
                .map(|p| std::fs::File::from(OwnedFd::from(p))),
        };
        let outputs = vec![output];
        Ok(Started {
            pid,
            stdin: stdin
                .ok_or_else(|| ProcessError::Spawn(std::io::ErrorKind::BrokenPipe.into()))?,
            outputs,
            tree: Tree {
                group,
                child: Mutex::new(Some(child)),
            },
        })
    }

    /// The reader thread: output into the ring until the pipes close; the exit is looked for
    /// every 50 ms (the group is then ended), the child reaped at the end.
    pub fn read_until_gone(
        process: &Arc<Process>,
        outputs: Vec<OwnedFd>,
        deadline: Option<Instant>,
    ) {
        let group = process.tree.group;
        super::pump(process, outputs, None, deadline, |_| {
            let exited = rustix::process::waitid(
                rustix::process::WaitId::Pid(group),
                WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
            );
            match exited {
                Ok(Some(status)) => {
                    process.set_status(Status::Exited {
                        code: status.exit_status(),
                        signal: status.terminating_signal(),
                    });
                    process.tree.end();
                    true
                }
                _ => false,
            }
        });
        // The group was sent SIGKILL when the exit was seen; its leader, not reaped yet, keeps
        // the id from being reused while the watchdog lets it go.
        super::watchdog::forget(group.as_raw_nonzero().get());
        if let Some(mut child) = lock(&process.tree.child).take() {
            let _ = child.wait();
        }
        wait_until_group_empty(group);
        process.set_finished();
    }

    /// How long the rest of a killed group may take to go once its leader is reaped.
    const GROUP_EXIT_LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

    /// Waits until nothing but zombies is left in `group`, which was sent SIGKILL. A member
    /// that did not hold the output (redirected elsewhere) may still be exiting when the output
    /// ends and the leader is reaped: a large one takes a while to give its memory back (and
    /// its ports). Init reaps the members, in its own time, hence the limit.
    fn wait_until_group_empty(group: Pid) {
        let until = Instant::now() + GROUP_EXIT_LIMIT;
        while group_has_living(group) && Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// Whether a process of `group` is still there: on Linux, one that is not a zombie (its
    /// state in /proc); elsewhere any, zombies included.
    fn group_has_living(group: Pid) -> bool {
        if rustix::process::test_kill_process_group(group).is_err() {
            return false;
        }
        #[cfg(target_os = "linux")]
        return living_in_group(group.as_raw_nonzero().get());
        #[cfg(not(target_os = "linux"))]
        true
    }

    #[cfg(target_os = "linux")]
    fn living_in_group(group: i32) -> bool {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return true;
        };
        let group = group.to_string();
        entries.flatten().any(|entry| {
            let is_pid = entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
            is_pid
                && std::fs::read_to_string(entry.path().join("stat")).is_ok_and(|stat| {
                    // after the name in parentheses: the state, the parent, the group
                    let mut fields = stat
                        .rsplit_once(')')
                        .map_or("", |(_, rest)| rest)
                        .split_whitespace();
                    let state = fields.next();
                    fields.next();
                    fields.next() == Some(group.as_str()) && state != Some("Z")
                })
        })
    }
}

#[cfg(windows)]
mod platform {
    use std::io::Read;
    use std::os::windows::io::{AsHandle, AsRawHandle, OwnedHandle};
    use std::os::windows::process::CommandExt;
    use std::process::Stdio;
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use windows_sys::Win32::Foundation::{HANDLE, WAIT_TIMEOUT};
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, WaitForSingleObject, CREATE_NEW_PROCESS_GROUP, CREATE_SUSPENDED,
        INFINITE,
    };

    use super::{lock, Pipe, Process, ProcessError, StartSpec, Started, Status};
    use crate::conpty::PseudoConsole;
    use crate::job::{resume_main_thread, resume_thread, Job, KILLED_EXIT_CODE};

    /// How long a pseudo console's output has to end by itself once the console is closed.
    const OUTPUT_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

    /// The Job Object holding the process and everything it starts (none can break away; the
    /// job kills them all when it is terminated or its last handle closes, the host's death
    /// included), the process's handle until reaped, and with `tty` its pseudo console, closed
    /// when the tree ends. Windows has no signals: any signal ends the tree.
    pub struct Tree {
        job: Job,
        process: Mutex<Option<OwnedHandle>>,
        console: Mutex<Option<PseudoConsole>>,
    }

    impl Tree {
        pub fn signal(&self, _: i32) {
            self.end();
        }

        pub fn end(&self) {
            self.job.terminate();
            // Ends its conhost and whatever is still attached; the output then breaks.
            let console = lock(&self.console).take();
            drop(console);
        }
    }

    pub fn start(spec: &StartSpec) -> Result<Started, ProcessError> {
        if let Some(size) = spec.terminal {
            return start_in_console(spec, size);
        }
        // stdout and stderr: one pipe, so the output keeps the order it was written in.
        let (output, output_write) = std::io::pipe().map_err(ProcessError::Spawn)?;
        let stderr_write = output_write.try_clone().map_err(ProcessError::Spawn)?;
        let mut command = super::command(
            spec,
            Stdio::piped(),
            Stdio::from(output_write),
            Stdio::from(stderr_write),
        );
        command.creation_flags(CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP);
        let job = Job::new().map_err(ProcessError::Spawn)?;
        let mut child = command.spawn().map_err(ProcessError::Spawn)?;
        // The parent's write ends went with `command`: only the child holds the pipe open.
        drop(command);
        if let Err(error) = job
            .assign(&child)
            .and_then(|()| resume_main_thread(child.id()))
        {
            // Still suspended (or not in the job): it has started nothing.
            let _ = child.kill();
            let _ = child.wait();
            return Err(ProcessError::Spawn(error));
        }
        let stdin = child
            .stdin
            .take()
            .map(|p| std::fs::File::from(OwnedHandle::from(p)))
            .ok_or_else(|| ProcessError::Spawn(std::io::ErrorKind::BrokenPipe.into()))?;
        Ok(Started {
            pid: child.id(),
            stdin,
            outputs: vec![OwnedHandle::from(output)],
            tree: Tree {
                job,
                process: Mutex::new(Some(OwnedHandle::from(child))),
                console: Mutex::new(None),
            },
        })
    }

    /// `tty`: the process in a pseudo console of its own (`crate::conpty`), created suspended
    /// and put in the job before it runs, as with pipes. Its input is the console's input, its
    /// output the console's (stdout and stderr are the same screen).
    fn start_in_console(spec: &StartSpec, size: (u16, u16)) -> Result<Started, ProcessError> {
        if let Some(reason) = crate::conpty::unavailable() {
            return Err(ProcessError::Unsupported(reason.to_string()));
        }
        let job = Job::new().map_err(ProcessError::Spawn)?;
        let spawned = crate::conpty::spawn_suspended(&spec.argv, &spec.cwd, &spec.env, size)
            .map_err(ProcessError::Spawn)?;
        if let Err(error) = job
            .assign_process(spawned.process.as_handle())
            .and_then(|()| resume_thread(spawned.thread.as_handle()))
        {
            spawned.abandon();
            return Err(ProcessError::Spawn(error));
        }
        Ok(Started {
            pid: spawned.pid,
            stdin: std::fs::File::from(spawned.input),
            outputs: vec![spawned.output],
            tree: Tree {
                job,
                process: Mutex::new(Some(spawned.process)),
                console: Mutex::new(Some(spawned.console)),
            },
        })
    }

    /// The reader thread: output into the ring until the pipe closes. A second thread waits for
    /// the exit (ending the job then, which closes the pipe of anything the process left running,
    /// and the pseudo console, whose output ends with it) and for the maximum lifetime.
    pub fn read_until_gone(process: &Arc<Process>, outputs: Vec<Pipe>, deadline: Option<Instant>) {
        let handle = lock(&process.tree.process)
            .as_ref()
            .and_then(|p| p.try_clone().ok());
        // A pseudo console's output may stay open after the console is closed (under wine):
        // then this thread's read is cancelled (`crate::conpty::OutputReader`).
        let reader = process
            .terminal
            .then(|| {
                crate::conpty::OutputReader::this_thread()
                    .ok()
                    .map(Arc::new)
            })
            .flatten();
        let stopper = reader.clone();
        let watcher = Arc::clone(process);
        let exit_watch = handle.and_then(|handle| {
            std::thread::Builder::new()
                .name("atn-process-exit".into())
                .stack_size(64 << 10)
                .spawn(move || {
                    let raw = handle.as_raw_handle() as HANDLE;
                    let timeout = deadline.map_or(INFINITE, |at| {
                        at.saturating_duration_since(Instant::now())
                            .as_millis()
                            .min(u128::from(INFINITE - 1)) as u32
                    });
                    // SAFETY: the handle is owned by this thread and open.
                    if unsafe { WaitForSingleObject(raw, timeout) } == WAIT_TIMEOUT {
                        watcher.end();
                        // SAFETY: as above.
                        unsafe { WaitForSingleObject(raw, INFINITE) };
                    }
                    let mut code = KILLED_EXIT_CODE;
                    // SAFETY: as above; `code` is a valid out pointer.
                    unsafe { GetExitCodeProcess(raw, &mut code) };
                    watcher.set_status(Status::Exited {
                        code: Some(code as i32),
                        signal: None,
                    });
                    watcher.tree.end();
                    if let Some(reader) = stopper {
                        reader.stop_after(OUTPUT_GRACE);
                    }
                })
                .ok()
        });
        let mut buf = vec![0u8; super::READ_BYTES];
        for pipe in outputs {
            let mut file = std::fs::File::from(pipe);
            loop {
                match file.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => process.append(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    // ERROR_BROKEN_PIPE: every writer closed its end (or the read was
                    // cancelled: ERROR_OPERATION_ABORTED).
                    Err(_) => break,
                }
            }
        }
        if let Some(reader) = &reader {
            reader.finished();
        }
        match exit_watch {
            Some(watch) => {
                let _ = watch.join();
            }
            None => process.tree.end(),
        }
        if let Some(handle) = lock(&process.tree.process).take() {
            // Reaped: the process is gone once its handle closes.
            // SAFETY: the handle is open until dropped below.
            unsafe { WaitForSingleObject(handle.as_raw_handle() as HANDLE, INFINITE) };
        }
        process.set_finished();
    }
}

/// Tests: waits (generously, for a busy machine) until the output matches `pattern`, then reads.
#[cfg(test)]
fn read_until(p: &Process, pattern: &str) -> Output {
    let re = regex::Regex::new(pattern).unwrap();
    p.wait(
        p.cursor(),
        Instant::now() + Duration::from_secs(30),
        Some(&re),
    );
    p.read(None, usize::MAX)
}

#[cfg(all(test, unix))]
mod tests;
#[cfg(all(test, windows))]
mod windows_tests;
