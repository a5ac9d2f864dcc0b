//! The priority of helper threads: the threads one call spawns for parallel work.

/// How much lower than the caller's the priority of a call's helper threads is (a nice value).
#[cfg(target_os = "linux")]
const HELPER_THREAD_NICENESS: i32 = 5;

/// Lowers the calling thread's scheduling priority: for threads spawned for one call's parallel
/// work (walks, matching), so on a busy machine they yield the CPU to the JavaScript thread and
/// its timers stay on time. Never for pool or JavaScript threads: niceness cannot be raised back
/// without privilege, and child processes would inherit it. Best effort (errors are ignored).
///
/// Linux only: there a nice value belongs to one thread. Elsewhere (macOS) it belongs to the
/// whole process, so nothing is changed.
pub fn lower_helper_thread_priority() {
    #[cfg(target_os = "linux")]
    if let Ok(current) = rustix::process::getpriority_process(None) {
        // Relative to the thread's own: an absolute value would raise it in a niced process.
        let _ =
            rustix::process::setpriority_process(None, (current + HELPER_THREAD_NICENESS).min(19));
    }
}

/// For visitors built on the calling thread and run on helper threads (the `ignore` crate's
/// parallel walk): lowers the priority once, on the first visit, unless it runs on the thread
/// that built it.
pub struct HelperThreadPriority {
    builder: std::thread::ThreadId,
    lowered: bool,
}

impl HelperThreadPriority {
    /// Made on the thread that builds the visitor.
    pub fn new() -> Self {
        HelperThreadPriority {
            builder: std::thread::current().id(),
            lowered: false,
        }
    }

    /// Called on every visit; only the first call on a helper thread does anything.
    pub fn on_visit(&mut self) {
        if !self.lowered {
            self.lowered = true;
            if std::thread::current().id() != self.builder {
                lower_helper_thread_priority();
            }
        }
    }
}

impl Default for HelperThreadPriority {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn niceness() -> i32 {
        rustix::process::getpriority_process(None).unwrap()
    }

    #[test]
    fn only_helper_threads_are_lowered() {
        let mut priority = HelperThreadPriority::new();
        let before = niceness();
        priority.on_visit();
        assert_eq!(niceness(), before, "the building thread keeps its priority");
        let mut priority = HelperThreadPriority::new();
        let lowered = std::thread::spawn(move || {
            let start = niceness();
            priority.on_visit();
            priority.on_visit();
            niceness() - start
        })
        .join()
        .unwrap();
        assert_eq!(lowered, HELPER_THREAD_NICENESS.min(19 - before));
        assert_eq!(niceness(), before, "other threads are unaffected");
    }
}
