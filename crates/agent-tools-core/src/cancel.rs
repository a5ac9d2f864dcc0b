//! Cancellation of a running call (the tool loop's `AbortSignal`). A flag plus a self-pipe, so a
//! thread blocked in `poll(2)` wakes at once: the process runner kills its process group.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};

pub struct Cancellation {
    cancelled: AtomicBool,
    wake_read: OwnedFd,
    wake_write: OwnedFd,
}

impl Cancellation {
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
    pub fn cancel(&self) {
        if !self.cancelled.swap(true, Ordering::SeqCst) {
            let _ = rustix::io::write(&self.wake_write, &[1]);
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// Readable once cancelled.
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
}
