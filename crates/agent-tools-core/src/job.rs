//! Windows: the Job Object a command and everything it starts run in (the process runner's and
//! the process tools'): no process of it can break away, terminating the job ends them all,
//! and so does closing its last handle (the host's death included).

use std::io;
use std::os::windows::io::{
    AsHandle, AsRawHandle, BorrowedHandle, FromRawHandle, OwnedHandle, RawHandle,
};

use windows_sys::Win32::Foundation::{HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};
use windows_sys::Win32::System::Threading::{OpenThread, ResumeThread, THREAD_SUSPEND_RESUME};

/// The exit code a job's processes get when the job is terminated (what `taskkill /F` leaves).
pub(crate) const KILLED_EXIT_CODE: u32 = 1;

/// A Job Object that kills its processes when its last handle closes.
pub(crate) struct Job(OwnedHandle);

impl Job {
    pub(crate) fn new() -> io::Result<Job> {
        // SAFETY: no security attributes, no name.
        let raw = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if raw.is_null() {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh handle that nothing else owns.
        let job = Job(unsafe { OwnedHandle::from_raw_handle(raw as RawHandle) });
        // SAFETY: all zeros is a valid value of this plain C struct.
        let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        // SAFETY: `limits` is the structure this information class takes, alive for the call.
        let set = unsafe {
            SetInformationJobObject(
                job.raw(),
                JobObjectExtendedLimitInformation,
                (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
                std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            )
        };
        if set == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(job)
    }

    fn raw(&self) -> HANDLE {
        self.0.as_raw_handle() as HANDLE
    }

    pub(crate) fn assign(&self, child: &std::process::Child) -> io::Result<()> {
        self.assign_process(child.as_handle())
    }

    /// Puts the process `process` (a handle to it) in the job.
    pub(crate) fn assign_process(&self, process: BorrowedHandle<'_>) -> io::Result<()> {
        // SAFETY: both handles are open for the call.
        match unsafe { AssignProcessToJobObject(self.raw(), process.as_raw_handle() as HANDLE) } {
            0 => Err(io::Error::last_os_error()),
            _ => Ok(()),
        }
    }

    /// Kills every process of the job (idempotent; a job already empty is fine).
    pub(crate) fn terminate(&self) {
        // SAFETY: the job handle is open.
        unsafe { TerminateJobObject(self.raw(), KILLED_EXIT_CODE) };
    }
}

/// Resumes the suspended thread `thread` (a handle with `THREAD_SUSPEND_RESUME`).
pub(crate) fn resume_thread(thread: BorrowedHandle<'_>) -> io::Result<()> {
    // SAFETY: the thread handle is open for the call.
    if unsafe { ResumeThread(thread.as_raw_handle() as HANDLE) } == u32::MAX {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Resumes the only thread of a process created suspended. std does not hand out the thread's
/// handle, so it is found in a snapshot of the system's threads.
pub(crate) fn resume_main_thread(pid: u32) -> io::Result<()> {
    // SAFETY: plain arguments; the handle is closed below.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh handle that nothing else owns.
    let snapshot = unsafe { OwnedHandle::from_raw_handle(snapshot as RawHandle) };
    // SAFETY: all zeros is a valid value of this plain C struct; `dwSize` is set as required.
    let mut entry: THREADENTRY32 = unsafe { std::mem::zeroed() };
    entry.dwSize = std::mem::size_of::<THREADENTRY32>() as u32;
    let snap = snapshot.as_raw_handle() as HANDLE;
    // SAFETY: `entry` is a valid THREADENTRY32 with its size set, alive for each call.
    let mut more = unsafe { Thread32First(snap, &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: plain arguments; the handle is closed below.
            let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) };
            if thread.is_null() {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: a fresh handle that nothing else owns.
            let thread = unsafe { OwnedHandle::from_raw_handle(thread as RawHandle) };
            return resume_thread(thread.as_handle());
        }
        // SAFETY: as above.
        more = unsafe { Thread32Next(snap, &mut entry) } != 0;
    }
    Err(io::Error::other("the new process has no thread to resume"))
}
