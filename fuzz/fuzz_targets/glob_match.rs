//! The Bun.Glob-compatible matcher on arbitrary patterns and candidates.
//!
//! Input: the pattern, a newline, the candidate. Checks, besides no panic and no blow-up:
//! negation (`!p`) is exactly the opposite of `p`, doubling it changes nothing, and a pattern
//! without special characters matches itself.
#![no_main]

use agent_tools_core::glob::Glob;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (pattern, candidate) = text.split_once('\n').unwrap_or((text, ""));
    let matched = Glob::new(pattern).is_match(candidate);
    if !pattern.starts_with('!') {
        assert_eq!(
            Glob::new(&format!("!{pattern}")).is_match(candidate),
            !matched
        );
        assert_eq!(
            Glob::new(&format!("!!{pattern}")).is_match(candidate),
            matched
        );
    }
    let literal = !pattern.is_empty()
        && pattern
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '));
    if literal {
        assert!(
            Glob::new(pattern).is_match(pattern),
            "{pattern:?} must match itself"
        );
    }
});
