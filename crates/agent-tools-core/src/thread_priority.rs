//! The priority of helper threads: the threads one call spawns for parallel work.

/// Makes the calling thread one that runs only when nothing else wants the CPU (Linux `SCHED_IDLE`,
/// or if refused the lowest nice value; elsewhere a nice value belongs to the whole process, so
/// nothing is changed, and neither with the `portable-unix` feature). A waking JavaScript thread
/// takes the CPU from such a thread at once, where a merely niced thread keeps it until the next
/// scheduler tick (4 ms at 250 Hz), and a CPU running only such threads counts as free when the
/// scheduler places a waking thread. Under load from other programs such a thread barely runs: use
/// it only for work that is never waited for (the search cache's housekeeping); helpers a call
/// waits for take [`become_helper_thread`]. Irreversible: only for
/// threads that end with their work. On Windows, `THREAD_PRIORITY_IDLE` for the thread: CPU
/// priority only, like `SCHED_IDLE` (not the background mode, which would also lower its I/O
/// priority for work a caller may be waiting on).
pub fn become_idle_priority_thread() {
    #[cfg(windows)]
    {
        use windows_sys::Win32::System::Threading::{
            GetCurrentThread, SetThreadPriority, THREAD_PRIORITY_IDLE,
        };
        // SAFETY: the pseudo handle of the calling thread; a failure changes nothing.
        unsafe { SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_IDLE) };
    }
    #[cfg(linux_native)]
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

/// Makes the calling thread a helper of a call: the lowest share of the CPU that still always
/// progresses (Linux: nice 19 for this thread, a weight of 15 against a normal thread's 1024;
/// Windows: `THREAD_PRIORITY_LOWEST`; elsewhere a nice value belongs to the whole process, so
/// nothing is changed). Not `SCHED_IDLE` ([`become_idle_priority_thread`]): a call waits for its
/// helpers' last items, and on a saturated machine an idle-priority thread barely runs, so one
/// search of a 1 000-call load test waited past its 30 s timeout for one. Such a thread cannot
/// be raised again without privileges, so the lowering has to be one that never starves.
/// Irreversible: only for threads that end with their work.
pub fn become_helper_thread() {
    #[cfg(windows)]
    {
        use windows_sys::Win32::System::Threading::{
            GetCurrentThread, SetThreadPriority, THREAD_PRIORITY_LOWEST,
        };
        // SAFETY: the pseudo handle of the calling thread; a failure changes nothing.
        unsafe { SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_LOWEST) };
    }
    // On Linux a nice value is the calling thread's own (`PRIO_PROCESS` with pid 0).
    #[cfg(linux_native)]
    let _ = rustix::process::setpriority_process(None, 19);
}

/// Runs `work` on `threads` threads at once and returns when all are done: the calling thread
/// at its own priority (so the work always progresses at a fair share of a busy machine) and
/// `threads - 1` low-priority helpers ([`become_helper_thread`]: they give most of the CPU to
/// everything else, and a waking JavaScript thread preempts them). `work` should use a
/// `PeriodicYield`, so that each thread gives way about once a millisecond.
pub fn run_on_threads(threads: usize, work: impl Fn() + Sync) {
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(|| {
                become_helper_thread();
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

/// `items.sort_by(compare)`, yielding once a millisecond (`PeriodicYield`): for sorts long
/// enough to hold a core (collating 20 000 paths takes about 10 ms).
pub fn sort_by_yielding<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> std::cmp::Ordering) {
    let mut turns = PeriodicYield::new();
    items.sort_by(|a, b| {
        turns.between_items();
        compare(a, b)
    });
}

impl Default for PeriodicYield {
    fn default() -> Self {
        Self::new()
    }
}

/// The priorities of the threads of a parallel walk by the `ignore` crate, which runs each
/// visitor on a thread of its own while the calling thread waits: as in `run_on_threads`, the
/// first walker thread to visit keeps its priority (the walk progresses at a fair share of a
/// busy machine) and the others become low-priority helpers. Every visitor yields once a
/// millisecond (`PeriodicYield`).
pub struct WalkerPriorities {
    builder: std::thread::ThreadId,
    fair_share_taken: std::sync::atomic::AtomicBool,
}

impl WalkerPriorities {
    /// Made on the thread that builds the walk's visitors.
    pub fn new() -> Self {
        WalkerPriorities {
            builder: std::thread::current().id(),
            fair_share_taken: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The priority of one visitor.
    pub fn visitor(&self) -> VisitorPriority<'_> {
        VisitorPriority {
            walk: self,
            applied: false,
            turns: PeriodicYield::new(),
        }
    }
}

impl Default for WalkerPriorities {
    fn default() -> Self {
        Self::new()
    }
}

/// One visitor's side of `WalkerPriorities`.
pub struct VisitorPriority<'w> {
    walk: &'w WalkerPriorities,
    applied: bool,
    turns: PeriodicYield,
}

impl VisitorPriority<'_> {
    /// Called on every visit: sets the thread's priority on the first (never the building
    /// thread's), then yields once a millisecond.
    pub fn on_visit(&mut self) {
        if !self.applied {
            self.applied = true;
            let on_builder = std::thread::current().id() == self.walk.builder;
            let fair_share = || {
                !self
                    .walk
                    .fair_share_taken
                    .swap(true, std::sync::atomic::Ordering::Relaxed)
            };
            if !on_builder && !fair_share() {
                become_helper_thread();
            }
        }
        self.turns.between_items();
    }
}

#[cfg(all(test, linux_native))]
mod tests {
    use super::*;

    /// The calling thread's scheduling policy and nice value.
    fn policy() -> (i32, i32) {
        // SAFETY: the system call only reads the calling thread's policy (musl's wrapper fails).
        let policy = unsafe { libc::syscall(libc::SYS_sched_getscheduler, 0) as i32 };
        (policy, rustix::process::getpriority_process(None).unwrap())
    }

    /// A helper: the normal policy (never idle: it must progress on a saturated machine) at
    /// the lowest nice value.
    const HELPER: (i32, i32) = (libc::SCHED_OTHER, 19);

    /// The building thread and the first walker thread keep their policy, later walker
    /// threads run at helper priority.
    #[test]
    fn one_walker_thread_keeps_its_priority_the_others_are_idle() {
        let before = policy();
        let walk = WalkerPriorities::new();
        let mut on_builder = walk.visitor();
        on_builder.on_visit();
        assert_eq!(policy(), before, "the building thread keeps its policy");
        let policies: Vec<(i32, i32)> = std::thread::scope(|scope| {
            let walkers: Vec<_> = (0..3)
                .map(|_| walk.visitor())
                .map(|mut priority| {
                    // One after the other: the first to visit is the fair-share thread.
                    scope
                        .spawn(move || {
                            priority.on_visit();
                            priority.on_visit();
                            policy()
                        })
                        .join()
                        .unwrap()
                })
                .collect();
            walkers
        });
        assert_eq!(policies, vec![before, HELPER, HELPER]);
        assert_eq!(policy(), before, "other threads are unaffected");
    }

    /// The calling thread works at its own priority, the helpers at helper priority.
    #[test]
    fn run_on_threads_uses_the_caller_and_low_priority_helpers() {
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
                assert_eq!(*policy, HELPER, "a helper runs at the lowest fair share");
            }
        }
        assert_eq!(seen.iter().filter(|(t, _)| *t == caller).count(), 1);
        assert_eq!(policy(), before);
    }
}

#[cfg(all(test, windows))]
mod windows_tests {
    use super::*;
    use windows_sys::Win32::System::Threading::{
        GetCurrentThread, GetThreadPriority, THREAD_PRIORITY_LOWEST,
    };

    fn priority() -> i32 {
        // SAFETY: the pseudo handle of the calling thread.
        unsafe { GetThreadPriority(GetCurrentThread()) }
    }

    /// The calling thread works at its own priority, the helpers at the lowest one above idle.
    #[test]
    fn run_on_threads_uses_the_caller_and_low_priority_helpers() {
        let caller = std::thread::current().id();
        let before = priority();
        assert_ne!(before, THREAD_PRIORITY_LOWEST);
        let seen = std::sync::Mutex::new(Vec::new());
        run_on_threads(3, || {
            seen.lock()
                .unwrap()
                .push((std::thread::current().id(), priority()));
        });
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), 3);
        for (thread, priority) in &seen {
            let expected = if *thread == caller {
                before
            } else {
                THREAD_PRIORITY_LOWEST
            };
            assert_eq!(*priority, expected);
        }
        assert_eq!(priority(), before);
    }
}
