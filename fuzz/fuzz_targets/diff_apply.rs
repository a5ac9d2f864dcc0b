//! The unified-diff parser and applier (`git apply` in process) on arbitrary patches.
//!
//! Input: the target's content, a line `=====`, then the patch (no such line: an empty file).
//! Checks, besides no panic: the exit code is git's (0, 1 or 128), a failed apply changes
//! nothing, a diagnostic is printed for every failure, and an apply is deterministic.
#![no_main]

use agent_tools_gitapply::{apply, Effect, Target};
use libfuzzer_sys::fuzz_target;

const SPLIT: &[u8] = b"=====\n";

fuzz_target!(|data: &[u8]| {
    let (content, patch) = match data.windows(SPLIT.len()).position(|w| w == SPLIT) {
        Some(at) => (&data[..at], &data[at + SPLIT.len()..]),
        None => (&b""[..], data),
    };
    let target = Target {
        rel: "src/a.txt",
        abs: "/ws/src/a.txt",
        content,
        mode: 0o100644,
    };
    let first = apply(patch, &target);
    assert!(
        matches!(first.exit_code, 0 | 1 | 128),
        "exit code {}",
        first.exit_code
    );
    if first.exit_code != 0 {
        assert_eq!(first.effect, Effect::Unchanged);
        assert!(!first.stderr.is_empty(), "a failure without a message");
    }
    if let Effect::Replace { mode, .. } = &first.effect {
        assert!(matches!(*mode, 0o100644 | 0o100755), "mode {mode:o}");
    }
    let again = apply(patch, &target);
    assert_eq!(first.exit_code, again.exit_code);
    assert_eq!(first.stderr, again.stderr);
    assert_eq!(first.effect, again.effect);
});
