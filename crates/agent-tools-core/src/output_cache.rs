//! The tool-output cache (README, "Your own tools"): tool outputs stay whole in the conversation while
//! their total size is under a budget; past it the oldest ones are evicted from the conversation
//! (replaced by a reference id) but stay here, to be paged (`read`) and searched (`grep`) without
//! copying the whole output into JavaScript again.

use std::sync::Arc;

/// Default budget: total characters of outputs kept whole in the conversation.
pub const DEFAULT_BUDGET_CHARS: usize = 100_000;
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
    #[error("invalid pattern: {0}")]
    InvalidPattern(String),
    #[error("{0}")]
    InvalidArgument(String),
}

struct Entry {
    id: String,
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

pub struct OutputCache {
    budget: usize,
    entries: Vec<Entry>,
    inline_total: usize,
}

impl OutputCache {
    pub fn new(budget_chars: usize) -> OutputCache {
        OutputCache {
            budget: budget_chars,
            entries: Vec::new(),
            inline_total: 0,
        }
    }

    /// Stores an output (ids are `out-1`, `out-2`, ... in recording order) and evicts the oldest
    /// inline outputs until the inline total fits the budget again. The newest output is never
    /// evicted by its own recording, so a single huge output stays whole until the next one.
    pub fn record(&mut self, text: &str) -> Recorded {
        let ref_id = format!("out-{}", self.entries.len() + 1);
        let size = crate::value::utf16_len(text);
        self.entries.push(Entry {
            id: ref_id.clone(),
            text: Arc::from(text),
            size,
            inline: true,
        });
        self.inline_total += size;
        let mut evicted = Vec::new();
        let newest = self.entries.len() - 1;
        for entry in &mut self.entries[..newest] {
            if self.inline_total <= self.budget {
                break;
            }
            if entry.inline {
                entry.inline = false;
                self.inline_total -= entry.size;
                evicted.push(entry.id.clone());
            }
        }
        Recorded { ref_id, evicted }
    }

    /// Total size of the outputs still whole in the conversation.
    pub fn inline_chars(&self) -> usize {
        self.inline_total
    }

    pub fn is_inline(&self, ref_id: &str) -> Result<bool, CacheError> {
        self.entry(ref_id).map(|e| e.inline)
    }

    /// The text of an output (shared, not copied).
    pub fn text(&self, ref_id: &str) -> Result<Arc<str>, CacheError> {
        self.entry(ref_id).map(|e| e.text.clone())
    }

    fn entry(&self, ref_id: &str) -> Result<&Entry, CacheError> {
        self.entries
            .iter()
            .find(|e| e.id == ref_id)
            .ok_or_else(|| CacheError::UnknownRef(ref_id.to_string()))
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
