//! Cancellation of a running call (the tool loop's `AbortSignal`). A flag plus a self-pipe, so a
//! thread blocked in `poll(2)` wakes at once: the process runner kills its process group. On
//! Windows the self-pipe is a manual-reset event, which a thread blocked in
//! `WaitForMultipleObjects` sees at once: the process runner kills its Job Object.

use std::io;
#[cfg(unix)]
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
#[cfg(windows)]
use std::os::windows::io::{AsHandle, BorrowedHandle, FromRawHandle, OwnedHandle};
use std::sync::atomic::{AtomicBool, Ordering};

pub struct Cancellation {
    cancelled: AtomicBool,
    #[cfg(unix)]
    wake_read: OwnedFd,
    #[cfg(unix)]
    wake_write: OwnedFd,
    /// Signalled once cancelled (manual reset: it stays signalled).
    #[cfg(windows)]
    event: OwnedHandle,
}

impl Cancellation {
    #[cfg(windows)]
    pub fn new() -> io::Result<Cancellation> {
        use windows_sys::Win32::System::Threading::CreateEventW;
        // SAFETY: no security attributes, no name; manual reset, initially not signalled.
        let event = unsafe { CreateEventW(std::ptr::null(), 1, 0, std::ptr::null()) };
        if event.is_null() {
            return Err(io::Error::last_os_error());
        }
        Ok(Cancellation {
            cancelled: AtomicBool::new(false),
            // SAFETY: a fresh handle that nothing else owns.
            event: unsafe { OwnedHandle::from_raw_handle(event) },
        })
    }

    /// Marks the call cancelled and signals `wake_handle`. Idempotent.
    #[cfg(windows)]
    pub fn cancel(&self) {
        use std::os::windows::io::AsRawHandle;
        if !self.cancelled.swap(true, Ordering::SeqCst) {
            // SAFETY: the event is owned by `self` and open.
            unsafe { windows_sys::Win32::System::Threading::SetEvent(self.event.as_raw_handle()) };
        }
    }

    /// Signalled once cancelled.
    #[cfg(windows)]
    pub fn wake_handle(&self) -> BorrowedHandle<'_> {
        self.event.as_handle()
    }

    #[cfg(unix)]
    pub fn new() -> io::Result<Cancellation> {
        // std's pipe is close-on-exec everywhere; `pipe2` flags are not (macOS lacks pipe2)
        let (wake_read, wake_write) = std::io::pipe()?;
        let (wake_read, wake_write) = (OwnedFd::from(wake_read), OwnedFd::from(wake_write));
        rustix::io::ioctl_fionbio(&wake_read, true)?;
        rustix::io::ioctl_fionbio(&wake_write, true)?;
        Ok(Cancellation {
            cancelled: AtomicBool::new(false),
            wake_read,
            wake_write,
        })
    }

    /// Marks the call cancelled and wakes whoever polls `wake_fd`. Idempotent.
    #[cfg(unix)]
    pub fn cancel(&self) {
        if !self.cancelled.swap(true, Ordering::SeqCst) {
            let _ = rustix::io::write(&self.wake_write, &[1]);
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// Readable once cancelled.
    #[cfg(unix)]
    pub fn wake_fd(&self) -> BorrowedFd<'_> {
        self.wake_read.as_fd()
    }
}

impl std::fmt::Debug for Cancellation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cancellation")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn cancel_wakes_a_poller() {
        let c = Cancellation::new().unwrap();
        assert!(!c.is_cancelled());
        c.cancel();
        c.cancel();
        assert!(c.is_cancelled());
        let fd = c.wake_fd();
        let mut fds = [rustix::event::PollFd::new(
            &fd,
            rustix::event::PollFlags::IN,
        )];
        let ready = rustix::event::poll(
            &mut fds,
            Some(&rustix::event::Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            }),
        )
        .unwrap();
        assert_eq!(ready, 1);
    }

    #[cfg(windows)]
    #[test]
    fn cancel_signals_the_event() {
        use std::os::windows::io::AsRawHandle;
        use windows_sys::Win32::Foundation::{WAIT_OBJECT_0, WAIT_TIMEOUT};
        use windows_sys::Win32::System::Threading::WaitForSingleObject;
        let c = Cancellation::new().unwrap();
        let wait = |c: &Cancellation| {
            // SAFETY: the event is open for as long as `c` lives.
            unsafe { WaitForSingleObject(c.wake_handle().as_raw_handle(), 0) }
        };
        assert_eq!(wait(&c), WAIT_TIMEOUT);
        assert!(!c.is_cancelled());
        c.cancel();
        c.cancel();
        assert!(c.is_cancelled());
        assert_eq!(wait(&c), WAIT_OBJECT_0);
        assert_eq!(wait(&c), WAIT_OBJECT_0, "it stays signalled");
    }
}
