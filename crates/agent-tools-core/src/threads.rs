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

/// Makes the calling thread one that runs only when nothing else wants the CPU (Linux
/// `SCHED_IDLE`, or if refused the lowest nice value; elsewhere a nice value belongs to the
/// whole process, so nothing is changed). A waking JavaScript thread
/// takes the CPU from such a thread at once, where a merely niced thread keeps it until the next
/// scheduler tick (4 ms at 250 Hz), and a CPU running only such threads counts as free when the
/// scheduler places a waking thread. Under load from other programs such a thread barely runs:
/// use it only for work that is never waited for (the search cache's housekeeping), or next to
/// a thread of normal priority doing the same work (the cached walk's helpers). Irreversible:
/// only for threads that end with their work.
pub fn become_idle_priority_thread() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `sched_param` is a plain C struct of integers (more of them with musl), for
        // which all zeros (priority 0, the one SCHED_IDLE takes) is a valid value.
        let param: libc::sched_param = unsafe { std::mem::zeroed() };
        // The system call itself: musl's `sched_setscheduler` always fails (ENOSYS), by design.
        // SAFETY: `param` is a valid `sched_param` alive for the call; pid 0 is the calling
        // thread. A failure changes nothing.
        let set = unsafe {
            libc::syscall(
                libc::SYS_sched_setscheduler,
                0,
                libc::SCHED_IDLE,
                &param as *const libc::sched_param,
            )
        };
        if set != 0 {
            let _ = rustix::process::setpriority_process(None, 19);
        }
    }
}

/// Runs `work` on `threads` threads at once and returns when all are done: the calling thread
/// at its own priority (so the work always progresses at a fair share of a busy machine) and
/// `threads - 1` idle-priority helpers (`become_idle_priority_thread`: they give way to a
/// waking JavaScript thread at once, so its timers stay on time). `work` should use a
/// `PeriodicYield`, for the calling thread's share of that.
pub fn run_on_threads(threads: usize, work: impl Fn() + Sync) {
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(|| {
                become_idle_priority_thread();
                work()
            });
        }
        work();
    });
}

/// Lets a thread that works for a long stretch give its CPU to a waiting thread (such as the
/// JavaScript thread, woken by a timer) about once a millisecond; the scheduler would otherwise
/// switch only at its next tick (4 ms at 250 Hz). Costs a clock read per item and a
/// `sched_yield` per millisecond, which returns at once when nothing waits.
pub struct PeriodicYield {
    last: std::time::Instant,
}

impl PeriodicYield {
    pub fn new() -> Self {
        PeriodicYield {
            last: std::time::Instant::now(),
        }
    }

    /// Called between two items of work.
    pub fn between_items(&mut self) {
        if self.last.elapsed() >= std::time::Duration::from_millis(1) {
            std::thread::yield_now();
            self.last = std::time::Instant::now();
        }
    }
}

impl Default for PeriodicYield {
    fn default() -> Self {
        Self::new()
    }
}

/// For visitors built on the calling thread and run on helper threads (the `ignore` crate's
/// parallel walk): lowers the priority once, on the first visit, unless it runs on the thread
/// that built it, and yields once a millisecond (`PeriodicYield`).
pub struct HelperThreadPriority {
    builder: std::thread::ThreadId,
    lowered: bool,
    turns: PeriodicYield,
}

impl HelperThreadPriority {
    /// Made on the thread that builds the visitor.
    pub fn new() -> Self {
        HelperThreadPriority {
            builder: std::thread::current().id(),
            lowered: false,
            turns: PeriodicYield::new(),
        }
    }

    /// Called on every visit.
    pub fn on_visit(&mut self) {
        if !self.lowered {
            self.lowered = true;
            if std::thread::current().id() != self.builder {
                lower_helper_thread_priority();
            }
        }
        self.turns.between_items();
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

    /// The calling thread works at its own priority, the helpers at idle priority.
    #[test]
    fn run_on_threads_uses_the_caller_and_idle_helpers() {
        // SAFETY: the system call only reads the calling thread's policy (musl's wrapper fails).
        let policy = || unsafe { libc::syscall(libc::SYS_sched_getscheduler, 0) } as i32;
        let caller = std::thread::current().id();
        let before = policy();
        let seen = std::sync::Mutex::new(Vec::new());
        run_on_threads(3, || {
            seen.lock()
                .unwrap()
                .push((std::thread::current().id(), policy()));
        });
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), 3);
        for (thread, policy) in &seen {
            if *thread == caller {
                assert_eq!(*policy, before, "the caller keeps its policy");
            } else {
                assert_eq!(*policy, libc::SCHED_IDLE, "a helper runs at idle priority");
            }
        }
        assert_eq!(seen.iter().filter(|(t, _)| *t == caller).count(), 1);
        assert_eq!(policy(), before);
    }
}
