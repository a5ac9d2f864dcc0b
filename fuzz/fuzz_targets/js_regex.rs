//! The JavaScript-regex front end of regexp_search: regress with the contract's exec loop, and
//! the `regex`-crate prefilter that picks the lines regress sees.
//!
//! Input: flags, a newline, the pattern, a newline, one line of text. Checks, besides no panic:
//! the prefilter never rejects a line regress matches (it must be a superset), and every match
//! lies inside the line with columns that never go backwards.
#![no_main]

use agent_tools_core::tools::regexp_search::matcher::{JsRegex, MatchText};
use agent_tools_core::tools::regexp_search::prefilter;
use libfuzzer_sys::fuzz_target;

/// Short subjects keep catastrophic backtracking (which JavaScript has too) within a run.
const MAX_LINE_BYTES: usize = 24;
const MAX_PATTERN_BYTES: usize = 64;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(3, '\n');
    let (Some(raw_flags), Some(pattern), Some(line)) = (parts.next(), parts.next(), parts.next())
    else {
        return;
    };
    if pattern.len() > MAX_PATTERN_BYTES || line.len() > MAX_LINE_BYTES || line.contains('\r') {
        return;
    }
    // The tool accepts only `gimsu`, each once.
    let mut flags = String::new();
    for c in raw_flags.chars().filter(|c| "imsu".contains(*c)) {
        if !flags.contains(c) {
            flags.push(c);
        }
    }
    let line = line.split('\n').next().unwrap_or_default();
    let Ok(regex) = JsRegex::new(pattern, &flags) else {
        return;
    };
    let line_units = line.encode_utf16().count() as u64;
    let mut matches = 0;
    let mut last_column = 0;
    regex.each_match(line, 50, |m| {
        matches += 1;
        assert!(
            m.column >= 1 && m.column <= line_units + 1,
            "column {}",
            m.column
        );
        assert!(m.column >= last_column, "columns went backwards");
        last_column = m.column;
        if let MatchText::Text(found) = &m.text {
            assert!(
                line.contains(found.as_str()),
                "{found:?} is not in the line"
            );
        }
    });
    if matches > 0 {
        if let Some(filter) = prefilter::build(pattern, &flags) {
            assert!(
                filter.is_match(line),
                "prefilter {:?} misses a line regress matches: {pattern:?} /{flags}/ on {line:?}",
                prefilter::translate(pattern, &flags)
            );
        }
    }
});
