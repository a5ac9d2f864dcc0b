//! The content index of the search cache: a Bloom filter of each file's trigrams, and the
//! trigram requirement a query puts on a file that can hold a match.
//!
//! Both sides fold ASCII letters to lowercase (other bytes are kept), so one index serves
//! case-sensitive and case-insensitive queries: a file that contains a string also contains, in
//! folded form, the folded string. A requirement is only ever a *necessary* condition: a file it
//! rules out cannot hold a match, a file it lets through is searched as usual.

use regex_syntax::hir::{Class, Hir, HirKind};

/// Largest set of alternative strings tracked for one part of a pattern.
const MAX_ALTERNATIVES: usize = 32;
/// Longest string tracked exactly (longer products end the exact run).
const MAX_STRING: usize = 256;

/// The trigrams of one file's bytes (ASCII folded to lowercase) in a one-hash Bloom filter of
/// about four bits per byte of content: no false negatives, rarely a false positive.
#[derive(Debug)]
pub struct Bloom {
    words: Box<[u64]>,
    log2_bits: u32,
}

fn fold(byte: u8) -> u8 {
    byte.to_ascii_lowercase()
}

impl Bloom {
    /// Bits of the index of a file of `len` bytes (about one per two bytes, a power of two).
    fn bits_for(len: usize) -> usize {
        (len / 2).next_power_of_two().clamp(512, 1 << 20)
    }

    /// Heap bytes the index of a file of `len` bytes holds.
    pub fn size_for(len: usize) -> usize {
        Bloom::bits_for(len) / 8
    }

    pub fn build(bytes: &[u8]) -> Bloom {
        let bits = Bloom::bits_for(bytes.len());
        let log2_bits = bits.trailing_zeros();
        let mut words = vec![0u64; bits / 64].into_boxed_slice();
        let mut window: u32 = 0;
        for (i, &byte) in bytes.iter().enumerate() {
            window = ((window << 8) | u32::from(fold(byte))) & 0x00FF_FFFF;
            if i >= 2 {
                let bit = slot(window, log2_bits);
                words[bit >> 6] |= 1 << (bit & 63);
            }
        }
        Bloom { words, log2_bits }
    }

    /// Whether every trigram of `folded` (already folded) may occur in the file.
    fn may_contain(&self, folded: &[u8]) -> bool {
        folded.windows(3).all(|t| {
            let window = u32::from(t[0]) << 16 | u32::from(t[1]) << 8 | u32::from(t[2]);
            let bit = slot(window, self.log2_bits);
            self.words[bit >> 6] & (1 << (bit & 63)) != 0
        })
    }

    /// Heap bytes held.
    pub fn size(&self) -> usize {
        self.words.len() * 8
    }
}

fn slot(trigram: u32, log2_bits: u32) -> usize {
    (trigram.wrapping_mul(0x9E37_79B1) >> (32 - log2_bits)) as usize
}

/// What a file must contain to hold a match, as strings (folded) combined with and/or.
#[derive(Debug, Clone, PartialEq)]
pub enum Requirement {
    /// Nothing is known: every file may match.
    Anything,
    Contains(Vec<u8>),
    All(Vec<Requirement>),
    Any(Vec<Requirement>),
}

impl Requirement {
    /// Every one of `texts` (ast_grep_search's required texts).
    pub fn all_texts(texts: &[String]) -> Requirement {
        all(texts
            .iter()
            .map(|t| contains(fold_all(t.as_bytes())))
            .collect())
    }

    /// What a match of a `regex`-crate pattern (regexp_search's line-local prefilter, a superset
    /// of the JavaScript pattern) must contain; `Anything` when the pattern does not parse.
    pub fn of_regex(pattern: &str) -> Requirement {
        match regex_syntax::ParserBuilder::new().build().parse(pattern) {
            Ok(hir) => analyze(&hir).requirement(),
            Err(_) => Requirement::Anything,
        }
    }

    /// Whether a file with this index may hold a match.
    pub fn admits(&self, bloom: &Bloom) -> bool {
        match self {
            Requirement::Anything => true,
            Requirement::Contains(text) => bloom.may_contain(text),
            Requirement::All(parts) => parts.iter().all(|p| p.admits(bloom)),
            Requirement::Any(parts) => parts.iter().any(|p| p.admits(bloom)),
        }
    }

    pub fn is_anything(&self) -> bool {
        matches!(self, Requirement::Anything)
    }
}

fn fold_all(bytes: &[u8]) -> Vec<u8> {
    bytes.iter().map(|&b| fold(b)).collect()
}

/// A string shorter than a trigram says nothing.
fn contains(text: Vec<u8>) -> Requirement {
    if text.len() < 3 {
        Requirement::Anything
    } else {
        Requirement::Contains(text)
    }
}

fn all(parts: Vec<Requirement>) -> Requirement {
    let mut kept: Vec<Requirement> = parts.into_iter().filter(|p| !p.is_anything()).collect();
    match kept.len() {
        0 => Requirement::Anything,
        1 => kept.pop().unwrap_or(Requirement::Anything),
        _ => Requirement::All(kept),
    }
}

fn any(parts: Vec<Requirement>) -> Requirement {
    if parts.is_empty() || parts.iter().any(Requirement::is_anything) {
        return Requirement::Anything;
    }
    let mut parts = parts;
    if parts.len() == 1 {
        return parts.pop().unwrap_or(Requirement::Anything);
    }
    Requirement::Any(parts)
}

/// One part of a pattern: the exact (folded) strings it matches when few, else a requirement.
struct Info {
    exact: Option<Vec<Vec<u8>>>,
    requirement: Requirement,
}

impl Info {
    fn exact(strings: Vec<Vec<u8>>) -> Info {
        Info {
            exact: Some(strings),
            requirement: Requirement::Anything,
        }
    }

    fn inexact(requirement: Requirement) -> Info {
        Info {
            exact: None,
            requirement,
        }
    }

    fn requirement(self) -> Requirement {
        match self.exact {
            Some(strings) => any_string(strings),
            None => self.requirement,
        }
    }
}

fn any_string(strings: Vec<Vec<u8>>) -> Requirement {
    any(strings.into_iter().map(contains).collect())
}

fn dedup(mut strings: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    strings.sort_unstable();
    strings.dedup();
    strings
}

fn analyze(hir: &Hir) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Info::exact(vec![Vec::new()]),
        HirKind::Literal(literal) => Info::exact(vec![fold_all(&literal.0)]),
        HirKind::Class(Class::Unicode(class)) => {
            let mut strings = Vec::new();
            for range in class.ranges() {
                for c in range.start()..=range.end() {
                    if strings.len() > 4 * MAX_ALTERNATIVES {
                        return Info::inexact(Requirement::Anything);
                    }
                    let mut buf = [0; 4];
                    strings.push(fold_all(c.encode_utf8(&mut buf).as_bytes()));
                }
            }
            small_set(dedup(strings))
        }
        HirKind::Class(Class::Bytes(class)) => {
            let mut strings = Vec::new();
            for range in class.ranges() {
                for b in range.start()..=range.end() {
                    strings.push(vec![fold(b)]);
                }
            }
            small_set(dedup(strings))
        }
        HirKind::Capture(capture) => analyze(&capture.sub),
        HirKind::Repetition(repetition) => {
            if repetition.min == 0 {
                return Info::inexact(Requirement::Anything);
            }
            let sub = analyze(&repetition.sub);
            if repetition.min == 1 && repetition.max == Some(1) {
                sub
            } else {
                Info::inexact(sub.requirement())
            }
        }
        HirKind::Concat(parts) => concat(parts),
        HirKind::Alternation(parts) => {
            let infos: Vec<Info> = parts.iter().map(analyze).collect();
            if infos.iter().all(|i| i.exact.is_some()) {
                let union: Vec<Vec<u8>> = infos
                    .into_iter()
                    .flat_map(|i| i.exact.unwrap_or_default())
                    .collect();
                return small_set(dedup(union));
            }
            Info::inexact(any(infos.into_iter().map(Info::requirement).collect()))
        }
    }
}

fn small_set(strings: Vec<Vec<u8>>) -> Info {
    if strings.len() <= MAX_ALTERNATIVES {
        Info::exact(strings)
    } else {
        Info::inexact(Requirement::Anything)
    }
}

/// A sequence: runs of exact parts multiply out (while small); everything else is required
/// side by side.
fn concat(parts: &[Hir]) -> Info {
    let mut required = Vec::new();
    let mut run: Vec<Vec<u8>> = vec![Vec::new()];
    let mut whole_is_exact = true;
    for part in parts {
        let info = analyze(part);
        match info.exact {
            Some(strings) => {
                let fits = run.len() * strings.len() <= MAX_ALTERNATIVES
                    && run.iter().map(Vec::len).max().unwrap_or(0)
                        + strings.iter().map(Vec::len).max().unwrap_or(0)
                        <= MAX_STRING;
                if fits {
                    run = run
                        .iter()
                        .flat_map(|a| strings.iter().map(move |b| [a.as_slice(), b].concat()))
                        .collect();
                } else {
                    whole_is_exact = false;
                    required.push(any_string(std::mem::replace(&mut run, strings)));
                }
            }
            None => {
                whole_is_exact = false;
                required.push(any_string(std::mem::replace(&mut run, vec![Vec::new()])));
                required.push(info.requirement);
            }
        }
    }
    if whole_is_exact {
        return Info::exact(dedup(run));
    }
    required.push(any_string(run));
    Info::inexact(all(required))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Requirement {
        Requirement::Contains(s.as_bytes().to_vec())
    }

    #[test]
    fn requirements_of_patterns() {
        assert_eq!(
            Requirement::of_regex("no_such_identifier"),
            c("no_such_identifier")
        );
        assert_eq!(Requirement::of_regex("Foo[Bb]ar"), c("foobar"));
        assert_eq!(
            Requirement::of_regex(r"fn [0-9A-Za-z_]+_9[0-9]{4}"),
            c("fn ")
        );
        assert_eq!(
            Requirement::of_regex("alpha|beta"),
            Requirement::Any(vec![c("alpha"), c("beta")])
        );
        assert_eq!(Requirement::of_regex("ab|alpha"), Requirement::Anything);
        assert_eq!(Requirement::of_regex("a.*b"), Requirement::Anything);
        assert_eq!(Requirement::of_regex("(?:x)?yz"), Requirement::Anything);
        assert_eq!(
            Requirement::of_regex("hello.*world"),
            Requirement::All(vec![c("hello"), c("world")])
        );
        assert_eq!(Requirement::of_regex("é(((x"), Requirement::Anything);
        assert_eq!(
            Requirement::all_texts(&["Console".into(), "ab".into()]),
            c("console")
        );
    }

    /// A file is never ruled out for a requirement its text satisfies, whatever the case.
    #[test]
    fn the_index_has_no_false_negatives() {
        let text = "Some TEXT with Ünïcode — and numbers 12345\nfn value_91234(x)";
        let bloom = Bloom::build(text.as_bytes());
        for pattern in [
            "some text",
            "Ünïcode",
            "Ü",
            "fn [a-z_]+_9[0-9]{4}",
            "numbers|zzzz",
            "TEXT.*12345",
        ] {
            assert!(Requirement::of_regex(pattern).admits(&bloom), "{pattern}");
        }
        for pattern in ["SOME TEXT", "Some Text.*NUMBERS"] {
            let translated =
                crate::tools::regexp_search::prefilter::translate(pattern, "i").unwrap();
            assert!(
                Requirement::of_regex(&translated).admits(&bloom),
                "{pattern}"
            );
        }
        assert!(!Requirement::of_regex("no_such_identifier").admits(&bloom));
        assert!(!Requirement::of_regex("qqqq|zzzz").admits(&bloom));
    }

    /// Property: for random texts and substrings of them, the substring's requirement admits.
    #[test]
    fn substrings_are_always_admitted() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet: Vec<char> = "abcXYZ_ 019éK\u{212A}ſ\t".chars().collect();
        for _ in 0..2000 {
            let len = (next() % 300) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let bloom = Bloom::build(text.as_bytes());
            let chars: Vec<char> = text.chars().collect();
            if chars.is_empty() {
                continue;
            }
            let start = (next() % chars.len() as u64) as usize;
            let end = start + (next() % (chars.len() - start) as u64) as usize;
            let needle: String = chars[start..=end.min(chars.len() - 1)].iter().collect();
            let escaped = regex_syntax::escape(&needle);
            assert!(
                Requirement::of_regex(&escaped).admits(&bloom),
                "{needle:?} in {text:?}"
            );
            if needle.is_ascii() {
                let upper = needle.to_ascii_uppercase();
                assert!(
                    Requirement::all_texts(&[upper]).admits(&bloom),
                    "{needle:?} in {text:?}"
                );
            }
        }
    }
}
