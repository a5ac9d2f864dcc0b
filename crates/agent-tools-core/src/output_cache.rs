//! The tool-output cache (README, "Your own tools"): tool outputs stay whole in the conversation while
//! their total size is under a budget; past it the oldest ones are evicted from the conversation
//! (replaced by a reference id) but stay here, to be paged (`read`) and searched (`grep`) without
//! copying the whole output into JavaScript again.
//!
//! The cache is bounded: it holds at most `max_entries` outputs and `max_bytes` bytes of text
//! (UTF-8). Past either bound it drops the oldest outputs that are no longer whole in the
//! conversation (those it alone holds); outputs still whole in the conversation, at most the budget
//! plus the newest one, are never dropped. Eviction and dropping both go oldest first, so the
//! dropped outputs are always `out-1` ..= `out-D`: one counter tells a dropped id from one that
//! never existed.

use std::collections::VecDeque;
use std::sync::Arc;

/// Default budget: total characters of outputs kept whole in the conversation.
pub const DEFAULT_BUDGET_CHARS: usize = 100_000;
/// Default bounds of what the cache holds: outputs, and bytes of their text.
pub const DEFAULT_MAX_ENTRIES: usize = 256;
pub const DEFAULT_MAX_BYTES: usize = 64 * 1024 * 1024;
/// `read` defaults and limits (lines).
pub const DEFAULT_READ_LINES: usize = 200;
pub const MAX_READ_LINES: usize = 2000;
/// `grep` defaults and limits.
pub const DEFAULT_MAX_MATCHES: usize = 50;
pub const MAX_CONTEXT_LINES: usize = 20;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CacheError {
    #[error("unknown ref_id: {0}")]
    UnknownRef(String),
    #[error(
        "dropped ref_id: {ref_id}: the output was dropped from the bounded output cache (it keeps at \
         most {max_entries} outputs and {max_bytes} bytes, dropping the oldest); run the tool again \
         for a fresh copy"
    )]
    Dropped {
        ref_id: String,
        max_entries: usize,
        max_bytes: usize,
    },
    #[error("invalid pattern: {0}")]
    InvalidPattern(String),
    #[error("{0}")]
    InvalidArgument(String),
}

impl CacheError {
    /// The error's code (the `code` of the JavaScript error).
    pub const fn code(&self) -> &'static str {
        match self {
            CacheError::UnknownRef(_) => "UNKNOWN_REF_ID",
            CacheError::Dropped { .. } => "OUTPUT_DROPPED",
            CacheError::InvalidPattern(_) => "INVALID_REGEX",
            CacheError::InvalidArgument(_) => "INVALID_ARGUMENT",
        }
    }
}

struct Entry {
    text: Arc<str>,
    /// Size counted against the budget (UTF-16 code units, as the conversation measures text).
    size: usize,
    inline: bool,
}

/// What `record` did: the new output's id and the ids evicted from the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub ref_id: String,
    pub evicted: Vec<String>,
}

/// The bounds of an `OutputCache` (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub max_entries: usize,
    pub max_bytes: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_entries: DEFAULT_MAX_ENTRIES,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

pub struct OutputCache {
    budget: usize,
    bounds: Bounds,
    /// The held outputs, oldest first; the front one is `out-{dropped + 1}`.
    entries: VecDeque<Entry>,
    /// How many outputs were dropped (`out-1` ..= `out-{dropped}`).
    dropped: usize,
    inline_total: usize,
    /// Bytes of the held texts (UTF-8).
    bytes: usize,
}

impl OutputCache {
    pub fn new(budget_chars: usize) -> OutputCache {
        OutputCache::with_bounds(budget_chars, Bounds::default())
    }

    pub fn with_bounds(budget_chars: usize, bounds: Bounds) -> OutputCache {
        OutputCache {
            budget: budget_chars,
            bounds,
            entries: VecDeque::new(),
            dropped: 0,
            inline_total: 0,
            bytes: 0,
        }
    }

    /// Stores an output (ids are `out-1`, `out-2`, ... in recording order) and evicts the oldest
    /// inline outputs until the inline total fits the budget again. The newest output is never
    /// evicted by its own recording, so a single huge output stays whole until the next one.
    /// Then drops the oldest evicted outputs while the cache is over one of its bounds.
    pub fn record(&mut self, text: &str) -> Recorded {
        let ref_id = format!("out-{}", self.dropped + self.entries.len() + 1);
        let size = crate::value::utf16_len(text);
        self.entries.push_back(Entry {
            text: Arc::from(text),
            size,
            inline: true,
        });
        self.inline_total += size;
        self.bytes += text.len();
        let mut evicted = Vec::new();
        let newest = self.entries.len() - 1;
        for (i, entry) in self.entries.iter_mut().take(newest).enumerate() {
            if self.inline_total <= self.budget {
                break;
            }
            if entry.inline {
                entry.inline = false;
                self.inline_total -= entry.size;
                evicted.push(format!("out-{}", self.dropped + i + 1));
            }
        }
        while self.entries.len() > self.bounds.max_entries || self.bytes > self.bounds.max_bytes {
            match self.entries.front() {
                Some(oldest) if !oldest.inline => {
                    self.bytes -= oldest.text.len();
                    self.entries.pop_front();
                    self.dropped += 1;
                }
                // Only outputs still whole in the conversation are left: they stay.
                _ => break,
            }
        }
        Recorded { ref_id, evicted }
    }

    /// Total size of the outputs still whole in the conversation.
    pub fn inline_chars(&self) -> usize {
        self.inline_total
    }

    /// How many outputs the cache holds, and the bytes of their text.
    pub fn held(&self) -> (usize, usize) {
        (self.entries.len(), self.bytes)
    }

    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    /// Whether an output is still whole in the conversation; a dropped one is not.
    pub fn is_inline(&self, ref_id: &str) -> Result<bool, CacheError> {
        match self.entry(ref_id) {
            Err(CacheError::Dropped { .. }) => Ok(false),
            found => found.map(|e| e.inline),
        }
    }

    /// The text of an output (shared, not copied).
    pub fn text(&self, ref_id: &str) -> Result<Arc<str>, CacheError> {
        self.entry(ref_id).map(|e| e.text.clone())
    }

    fn entry(&self, ref_id: &str) -> Result<&Entry, CacheError> {
        let unknown = || CacheError::UnknownRef(ref_id.to_string());
        // Only the canonical spelling `out-N` (N >= 1, no sign or leading zero) names an output.
        let n: usize = ref_id
            .strip_prefix("out-")
            .filter(|digits| !digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|digits| digits.parse().ok())
            .ok_or_else(unknown)?;
        if n <= self.dropped {
            return Err(CacheError::Dropped {
                ref_id: ref_id.to_string(),
                max_entries: self.bounds.max_entries,
                max_bytes: self.bounds.max_bytes,
            });
        }
        self.entries.get(n - self.dropped - 1).ok_or_else(unknown)
    }
}

/// Numbered lines `offset..offset+limit` (1-based), `cat -n` style, with a continuation note.
pub fn read(text: &str, offset: Option<f64>, limit: Option<f64>) -> Result<String, CacheError> {
    let offset = whole(offset, 1, 1, usize::MAX, "offset must be an integer >= 1")?;
    let limit = whole(
        limit,
        DEFAULT_READ_LINES,
        1,
        MAX_READ_LINES,
        "limit must be an integer between 1 and 2000",
    )?;
    let lines: Vec<&str> = text.lines().collect();
    if offset > lines.len() {
        return Ok(format!(
            "(no lines at offset {offset}; the output has {} lines)",
            lines.len()
        ));
    }
    let end = lines.len().min(offset - 1 + limit);
    let mut out = String::new();
    for (i, line) in lines[offset - 1..end].iter().enumerate() {
        out.push_str(&format!("{:>6}\t{line}\n", offset + i));
    }
    if end < lines.len() {
        out.push_str(&format!(
            "({} more lines; continue with offset={})\n",
            lines.len() - end,
            end + 1
        ));
    }
    Ok(out)
}

/// Options of `grep`.
pub struct GrepOptions<'a> {
    pub pattern: &'a str,
    pub regex: bool,
    pub before: Option<f64>,
    pub after: Option<f64>,
    pub max_matches: Option<f64>,
}

/// Matching lines as `N:line`, context lines as `N-line`, groups separated by `--` (grep -n style).
pub fn grep(text: &str, options: &GrepOptions) -> Result<String, CacheError> {
    let before = whole(
        options.before,
        0,
        0,
        MAX_CONTEXT_LINES,
        "before must be an integer between 0 and 20",
    )?;
    let after = whole(
        options.after,
        0,
        0,
        MAX_CONTEXT_LINES,
        "after must be an integer between 0 and 20",
    )?;
    let max_matches = whole(
        options.max_matches,
        DEFAULT_MAX_MATCHES,
        1,
        1000,
        "max_matches must be an integer between 1 and 1000",
    )?;
    if options.pattern.is_empty() {
        return Err(CacheError::InvalidArgument(
            "pattern must be a non-empty string".into(),
        ));
    }
    let matcher: Box<dyn Fn(&str) -> bool> = if options.regex {
        let re = regex::Regex::new(options.pattern)
            .map_err(|e| CacheError::InvalidPattern(e.to_string()))?;
        Box::new(move |line| re.is_match(line))
    } else {
        let needle = options.pattern.to_string();
        Box::new(move |line| line.contains(needle.as_str()))
    };
    let lines: Vec<&str> = text.lines().collect();
    let matches: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| matcher(l))
        .map(|(i, _)| i)
        .collect();
    if matches.is_empty() {
        return Ok("(no matches)\n".to_string());
    }
    let shown = &matches[..matches.len().min(max_matches)];
    let mut printed = vec![false; lines.len()];
    for &m in shown {
        for flag in &mut printed[m.saturating_sub(before)..=(m + after).min(lines.len() - 1)] {
            *flag = true;
        }
    }
    let with_context = before + after > 0;
    let mut out = String::new();
    let mut previous: Option<usize> = None;
    for (i, line) in lines.iter().enumerate().filter(|(i, _)| printed[*i]) {
        if with_context && previous.is_some_and(|p| p + 1 < i) {
            out.push_str("--\n");
        }
        let sep = if matches.binary_search(&i).is_ok() {
            ':'
        } else {
            '-'
        };
        out.push_str(&format!("{}{sep}{line}\n", i + 1));
        previous = Some(i);
    }
    if matches.len() > shown.len() {
        out.push_str(&format!(
            "({} more matches not shown; raise max_matches)\n",
            matches.len() - shown.len()
        ));
    }
    Ok(out)
}

fn whole(
    value: Option<f64>,
    default: usize,
    min: usize,
    max: usize,
    message: &str,
) -> Result<usize, CacheError> {
    match value {
        None => Ok(default),
        Some(v) if v.is_finite() && v.fract() == 0.0 && v >= min as f64 && v <= max as f64 => {
            Ok(v as usize)
        }
        Some(_) => Err(CacheError::InvalidArgument(message.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_oldest_first_and_keeps_everything_readable() {
        let mut cache = OutputCache::new(10);
        assert_eq!(
            cache.record("aaaa"),
            Recorded {
                ref_id: "out-1".into(),
                evicted: vec![]
            }
        );
        assert_eq!(cache.record("bbbb").evicted, Vec::<String>::new());
        let third = cache.record("cccc");
        assert_eq!(
            third,
            Recorded {
                ref_id: "out-3".into(),
                evicted: vec!["out-1".into()]
            }
        );
        assert_eq!(cache.inline_chars(), 8);
        let big = cache.record(&"x".repeat(50));
        assert_eq!(big.evicted, vec!["out-2".to_string(), "out-3".to_string()]);
        assert!(
            cache.is_inline("out-4").unwrap(),
            "the newest output is kept whole"
        );
        assert_eq!(&*cache.text("out-1").unwrap(), "aaaa");
        assert_eq!(
            cache.text("out-9").unwrap_err(),
            CacheError::UnknownRef("out-9".into())
        );
    }

    #[test]
    fn bounded_by_entries_dropping_the_oldest_evicted() {
        let bounds = Bounds {
            max_entries: 3,
            max_bytes: usize::MAX,
        };
        let mut cache = OutputCache::with_bounds(0, bounds);
        for i in 1..=5 {
            assert_eq!(
                cache.record(&format!("text {i}")).ref_id,
                format!("out-{i}")
            );
        }
        assert_eq!(cache.held(), (3, 18));
        assert_eq!(&*cache.text("out-3").unwrap(), "text 3");
        assert_eq!(&*cache.text("out-5").unwrap(), "text 5");
        for gone in ["out-1", "out-2"] {
            let error = cache.text(gone).unwrap_err();
            assert!(matches!(&error, CacheError::Dropped { ref_id, .. } if ref_id == gone));
            assert!(error
                .to_string()
                .starts_with(&format!("dropped ref_id: {gone}: ")));
            assert!(error.to_string().contains("at most 3 outputs"));
            assert!(
                !cache.is_inline(gone).unwrap(),
                "a dropped output is not inline"
            );
        }
        for never in [
            "out-6",
            "out-0",
            "out-03",
            "out-+4",
            "out-",
            "x-4",
            "out-99999999999999999999999",
        ] {
            assert_eq!(
                cache.text(never).unwrap_err(),
                CacheError::UnknownRef(never.into())
            );
            assert!(cache.is_inline(never).is_err());
        }
    }

    #[test]
    fn bounded_by_bytes_and_never_drops_inline_outputs() {
        let bounds = Bounds {
            max_entries: 100,
            max_bytes: 10,
        };
        // Budget 8: two 4-char outputs stay inline; the bound of 10 bytes cannot drop them.
        let mut cache = OutputCache::with_bounds(8, bounds);
        cache.record("aaaa");
        cache.record("bbbb");
        cache.record("cccc");
        // out-1 was evicted (budget), then dropped: 12 bytes > 10.
        assert_eq!(cache.held(), (2, 8));
        assert!(matches!(
            cache.text("out-1"),
            Err(CacheError::Dropped { .. })
        ));
        // One output over the bound is kept while it is the newest (inline)...
        let big = "é".repeat(20);
        cache.record(&big);
        assert_eq!(cache.held(), (1, 40));
        assert!(cache.is_inline("out-4").unwrap());
        // ...and dropped once evicted.
        cache.record("z");
        assert_eq!(cache.held(), (1, 1));
        assert!(matches!(
            cache.text("out-4"),
            Err(CacheError::Dropped { .. })
        ));
        assert_eq!(&*cache.text("out-5").unwrap(), "z");
    }

    #[test]
    fn many_large_outputs_stay_within_the_bounds() {
        let bounds = Bounds {
            max_entries: 50,
            max_bytes: 1_000_000,
        };
        let mut cache = OutputCache::with_bounds(DEFAULT_BUDGET_CHARS, bounds);
        let text = "y".repeat(60_000);
        for _ in 0..500 {
            cache.record(&text);
            let (entries, bytes) = cache.held();
            assert!(entries <= 50);
            assert!(bytes <= 1_000_000);
        }
        assert_eq!(cache.held(), (16, 960_000));
        assert_eq!(&*cache.text("out-500").unwrap(), text.as_str());
    }

    #[test]
    fn budget_counts_utf16_units() {
        let mut cache = OutputCache::new(4);
        cache.record("😀😀");
        assert_eq!(cache.inline_chars(), 4);
    }

    #[test]
    fn read_pages_numbered_lines() {
        let text: String = (1..=5).map(|i| format!("line {i}\n")).collect();
        assert_eq!(
            read(&text, Some(2.0), Some(2.0)).unwrap(),
            "     2\tline 2\n     3\tline 3\n(2 more lines; continue with offset=4)\n"
        );
        assert_eq!(read(&text, None, None).unwrap().lines().count(), 5);
        assert_eq!(
            read(&text, Some(9.0), None).unwrap(),
            "(no lines at offset 9; the output has 5 lines)"
        );
        assert!(read(&text, Some(0.0), None).is_err());
        assert!(read(&text, None, Some(2001.0)).is_err());
    }

    #[test]
    fn grep_with_context_like_grep_n() {
        let text = "a\nfoo 1\nb\nc\nd\ne\nfoo 2\nfoo 3\nz\n";
        let opts = |pattern, regex, before, after, max| GrepOptions {
            pattern,
            regex,
            before,
            after,
            max_matches: max,
        };
        assert_eq!(
            grep(text, &opts("foo", false, None, None, None)).unwrap(),
            "2:foo 1\n7:foo 2\n8:foo 3\n"
        );
        assert_eq!(
            grep(text, &opts("foo", false, Some(1.0), Some(1.0), None)).unwrap(),
            "1-a\n2:foo 1\n3-b\n--\n6-e\n7:foo 2\n8:foo 3\n9-z\n"
        );
        assert_eq!(
            grep(text, &opts(r"foo [23]", true, None, None, Some(1.0))).unwrap(),
            "7:foo 2\n(1 more matches not shown; raise max_matches)\n"
        );
        assert_eq!(
            grep(text, &opts("nope", false, None, None, None)).unwrap(),
            "(no matches)\n"
        );
        assert!(matches!(
            grep(text, &opts("(", true, None, None, None)),
            Err(CacheError::InvalidPattern(_))
        ));
        assert!(matches!(
            grep(text, &opts("x", false, Some(21.0), None, None)),
            Err(CacheError::InvalidArgument(_))
        ));
    }
}
