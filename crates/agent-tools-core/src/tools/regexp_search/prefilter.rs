//! A fast, conservative prefilter for regexp_search: a `regex`-crate pattern derived from the
//! JavaScript pattern that finds a superset of the lines regress can match.
//!
//! The answer always comes from regress; the prefilter only says which lines to give it, so it
//! must never miss a line with a match. Two properties make that hold:
//!
//! * **Superset.** Every string the JavaScript pattern matches (within one line), the
//!   translation matches too. Constructs are translated exactly where that is easy and widened
//!   otherwise: assertions (`^ $ \b \B` and lookarounds) become empty, negated sets under `i`
//!   become "any character", `.`/`[^…]`/`\D\W\S` may, without `u`, also match an astral
//!   character or nothing (they match single code units there, i.e. halves of a pair).
//!   Anything else (backreferences, `\u`/`\x`/`\c`/`\p`, Annex B literal braces, …) is not
//!   translated: then there is no prefilter and every line is searched.
//! * **Line-local.** The translation never matches `\n` or `\r`, so each of its matches lies
//!   inside one line, and a leftmost-first scan finds a match in every line that has one.
//!
//! Case-insensitive patterns are not given to `regex` with `(?i)` (its Unicode tables can be
//! older than regress's): every literal character and class range is widened to its *case
//! closure* instead — everything connected to it by single-character upper/lowercase mappings
//! of the standard library, which covers both regress's `i` rules (uppercase without `u`, simple
//! case folding with `u`). The tests check this exhaustively over all cased characters.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

/// JavaScript's `\s` without `\n` and `\r` (which never occur inside a line).
const SPACE_SET: &str = r"\x{9}\x{B}\x{C}\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
const DIGIT_SET: &str = r"0-9";
const WORD_SET: &str = r"0-9A-Za-z_";
/// `\w` as ranges, for its case closure.
const WORD_RANGES: [(char, char); 4] = [('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
/// Any character except the line breaks.
const ANY_IN_LINE: &str = r"[^\n\r]";
/// What a single-code-unit element may stand for besides itself, without `u`.
const ASTRAL_OR_NOTHING: &str = r"[\x{10000}-\x{10FFFF}]|";
/// Deeper nesting is not translated.
const MAX_DEPTH: usize = 64;
/// Larger counted repetitions are not translated.
const MAX_COUNT: u32 = 1000;

/// The prefilter for `pattern` with validated `flags`, or `None` when there is no useful one
/// (an unsupported construct, or a translation that matches the empty string and so every line).
pub fn build(pattern: &str, flags: &str) -> Option<Regex> {
    let translated = translate(pattern, flags)?;
    let regex = regex::RegexBuilder::new(&translated).build().ok()?;
    if regex.is_match("") {
        return None;
    }
    Some(regex)
}

/// The `regex`-syntax translation, or `None` for patterns outside the supported subset.
pub fn translate(pattern: &str, flags: &str) -> Option<String> {
    let unicode = flags.contains('u');
    if pattern.contains(['\n', '\r']) || (!unicode && pattern.chars().any(|c| c > '\u{FFFF}')) {
        return None;
    }
    let mut t = Translator {
        chars: pattern.chars().collect(),
        pos: 0,
        unicode,
        icase: flags.contains('i'),
    };
    let body = t.disjunction(0)?;
    if t.pos != t.chars.len() {
        return None;
    }
    Some(body)
}

/// Simple case foldings (CaseFolding.txt status `S`) that no single-character upper/lowercase
/// mapping connects; found by the exhaustive test below.
const EXTRA_FOLDS: [(char, char); 3] = [
    ('\u{1FD3}', '\u{390}'),
    ('\u{1FE3}', '\u{3B0}'),
    ('\u{FB05}', '\u{FB06}'),
];

/// Case closures: each cased character's set of case variants (itself included).
struct CaseClosure {
    members: HashMap<char, Vec<char>>,
    /// Every cased character, sorted.
    cased: Vec<char>,
}

static CASE_CLOSURE: LazyLock<CaseClosure> = LazyLock::new(|| {
    fn find(parent: &mut HashMap<char, char>, c: char) -> char {
        let mut root = c;
        while let Some(&p) = parent.get(&root) {
            if p == root {
                break;
            }
            root = p;
        }
        parent.insert(c, root);
        root
    }
    let mut parent: HashMap<char, char> = HashMap::new();
    let mappings = (0..=0x10FFFFu32).filter_map(char::from_u32).flat_map(|c| {
        [one_char(c.to_uppercase()), one_char(c.to_lowercase())]
            .into_iter()
            .flatten()
            .map(move |mapped| (c, mapped))
    });
    for (c, mapped) in mappings.chain(EXTRA_FOLDS) {
        {
            if mapped != c {
                parent.entry(c).or_insert(c);
                parent.entry(mapped).or_insert(mapped);
                let (a, b) = (find(&mut parent, c), find(&mut parent, mapped));
                parent.insert(a, b);
            }
        }
    }
    let cased: Vec<char> = {
        let mut all: Vec<char> = parent.keys().copied().collect();
        all.sort_unstable();
        all
    };
    let mut groups: HashMap<char, Vec<char>> = HashMap::new();
    for &c in &cased {
        let root = find(&mut parent, c);
        groups.entry(root).or_default().push(c);
    }
    let mut members = HashMap::new();
    for &c in &cased {
        let root = find(&mut parent, c);
        if let Some(group) = groups.get(&root) {
            members.insert(c, group.clone());
        }
    }
    CaseClosure { members, cased }
});

/// The single character a case mapping yields, if it yields exactly one.
fn one_char(mut mapped: impl Iterator<Item = char>) -> Option<char> {
    let first = mapped.next()?;
    mapped.next().is_none().then_some(first)
}

/// Class-body text for the case variants of the characters in `low..=high` (not the range
/// itself).
fn case_variants(low: char, high: char) -> String {
    let closure = &*CASE_CLOSURE;
    let start = closure.cased.partition_point(|&c| c < low);
    let mut out = String::new();
    for c in closure.cased[start..].iter().take_while(|&&c| c <= high) {
        for &variant in closure.members.get(c).into_iter().flatten() {
            if variant < low || variant > high {
                out.push_str(&hex(variant));
            }
        }
    }
    out
}

struct Translator {
    chars: Vec<char>,
    pos: usize,
    unicode: bool,
    icase: bool,
}

/// One translated atom.
struct Atom {
    text: String,
    /// An assertion: matches the empty string only, so it and any quantifier on it vanish.
    assertion: bool,
}

impl Atom {
    fn plain(text: String) -> Atom {
        Atom {
            text,
            assertion: false,
        }
    }

    fn assertion() -> Atom {
        Atom {
            text: String::new(),
            assertion: true,
        }
    }
}

impl Translator {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn disjunction(&mut self, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut out = self.alternative(depth)?;
        while self.eat('|') {
            out.push('|');
            out.push_str(&self.alternative(depth)?);
        }
        Some(out)
    }

    fn alternative(&mut self, depth: usize) -> Option<String> {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom(depth)?;
            let quantifier = self.quantifier()?;
            if !atom.assertion {
                out.push_str("(?:");
                out.push_str(&atom.text);
                out.push(')');
                out.push_str(&quantifier);
            }
        }
        Some(out)
    }

    /// An optional quantifier (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each optionally lazy,
    /// which does not change what can match).
    fn quantifier(&mut self) -> Option<String> {
        let q = match self.peek() {
            Some(c @ ('*' | '+' | '?')) => {
                self.pos += 1;
                c.to_string()
            }
            Some('{') => {
                self.pos += 1;
                let low = self.number()?;
                let text = if self.eat(',') {
                    if self.peek() == Some('}') {
                        format!("{{{low},}}")
                    } else {
                        let high = self.number()?;
                        format!("{{{low},{high}}}")
                    }
                } else {
                    format!("{{{low}}}")
                };
                if !self.eat('}') {
                    return None;
                }
                text
            }
            _ => return Some(String::new()),
        };
        self.eat('?');
        Some(q)
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.pos;
        let mut value: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            value = value.checked_mul(10)?.checked_add(d)?;
            self.pos += 1;
        }
        (self.pos > start && value <= MAX_COUNT).then_some(value)
    }

    fn atom(&mut self, depth: usize) -> Option<Atom> {
        let c = self.peek()?;
        self.pos += 1;
        match c {
            '^' | '$' => Some(Atom::assertion()),
            '.' => Some(Atom::plain(self.code_unit_element(ANY_IN_LINE.to_string()))),
            '(' => self.group(depth),
            '[' => self.class(),
            '\\' => self.escape(),
            // Annex B literal braces and stray quantifiers are left to regress.
            '{' | '}' | '*' | '+' | '?' | ')' | '|' => None,
            ']' => Some(Atom::plain(self.literal(']'))),
            other => Some(Atom::plain(self.literal(other))),
        }
    }

    fn group(&mut self, depth: usize) -> Option<Atom> {
        let mut lookaround = false;
        if self.eat('?') {
            match (self.peek(), self.peek_at(1)) {
                (Some(':'), _) => self.pos += 1,
                (Some('=' | '!'), _) => {
                    self.pos += 1;
                    lookaround = true;
                }
                (Some('<'), Some('=' | '!')) => {
                    self.pos += 2;
                    lookaround = true;
                }
                (Some('<'), _) => {
                    let close = self.chars[self.pos..].iter().position(|&c| c == '>')?;
                    self.pos += close + 1;
                }
                _ => return None,
            }
        }
        let inner = self.disjunction(depth + 1)?;
        if !self.eat(')') {
            return None;
        }
        Some(if lookaround {
            Atom::assertion()
        } else {
            Atom::plain(inner)
        })
    }

    fn escape(&mut self) -> Option<Atom> {
        let c = self.peek()?;
        self.pos += 1;
        let text = match c {
            'b' | 'B' => return Some(Atom::assertion()),
            'd' => format!("[{DIGIT_SET}]"),
            'w' => format!("[{}]", self.word_set()),
            's' => format!("[{SPACE_SET}]"),
            'D' => self.negated_set(DIGIT_SET),
            'W' => self.negated_set(WORD_SET),
            'S' => self.negated_set(SPACE_SET),
            _ => self.literal(simple_escape(c)?),
        };
        Some(Atom::plain(text))
    }

    /// A literal character: itself, or under `i` the class of its case variants.
    fn literal(&self, c: char) -> String {
        if self.icase {
            format!("[{}{}]", hex(c), case_variants(c, c))
        } else {
            hex(c)
        }
    }

    /// The body of a class for `\w`, with case variants under `i`.
    fn word_set(&self) -> String {
        let mut set = WORD_SET.to_string();
        if self.icase {
            for (low, high) in WORD_RANGES {
                set.push_str(&case_variants(low, high));
            }
        }
        set
    }

    /// `[^set]` within a line.
    fn negated_set(&self, set: &str) -> String {
        if self.icase {
            // Case folding may widen `set` differently from JavaScript; its complement could
            // then be too narrow. "Any character" is always a superset.
            return self.code_unit_element(ANY_IN_LINE.to_string());
        }
        self.code_unit_element(format!(r"[^{set}\n\r]"))
    }

    /// An element that, without `u`, matches one code unit: it may also take a whole astral
    /// character (both halves) or nothing (the other half went to a neighbour or outside).
    fn code_unit_element(&self, element: String) -> String {
        if self.unicode {
            element
        } else {
            format!("{element}|{ASTRAL_OR_NOTHING}")
        }
    }

    fn class(&mut self) -> Option<Atom> {
        let negated = self.eat('^');
        if self.peek() == Some(']') {
            return None; // `[]` / `[^]`
        }
        let mut body = String::new();
        let mut has_negated_part = false;
        loop {
            let c = self.peek()?;
            self.pos += 1;
            if c == ']' {
                break;
            }
            let low = match self.class_member(c)? {
                ClassMember::Char(low) => low,
                ClassMember::Set(set) => {
                    body.push_str(&set);
                    continue;
                }
                ClassMember::NegatedSet(set) => {
                    has_negated_part = true;
                    body.push_str(&set);
                    continue;
                }
                ClassMember::Nothing => continue,
            };
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                self.pos += 1;
                let c = self.peek()?;
                self.pos += 1;
                let ClassMember::Char(high) = self.class_member(c)? else {
                    return None;
                };
                body.push_str(&format!("{}-{}", hex(low), hex(high)));
                if self.icase {
                    body.push_str(&case_variants(low, high));
                }
            } else {
                body.push_str(&hex(low));
                if self.icase {
                    body.push_str(&case_variants(low, low));
                }
            }
        }
        if negated || has_negated_part {
            if self.icase {
                return Some(Atom::plain(self.code_unit_element(ANY_IN_LINE.to_string())));
            }
            let text = if negated {
                format!(r"[^{body}\n\r]")
            } else {
                format!("[{body}]")
            };
            return Some(Atom::plain(self.code_unit_element(text)));
        }
        if body.is_empty() {
            return None; // only line breaks: can never match within a line
        }
        Some(Atom::plain(format!("[{body}]")))
    }

    /// One member of a class, its first character `c` already consumed.
    fn class_member(&mut self, c: char) -> Option<ClassMember> {
        if c != '\\' {
            return Some(ClassMember::Char(c));
        }
        let e = self.peek()?;
        self.pos += 1;
        Some(match e {
            'd' => ClassMember::Set(DIGIT_SET.to_string()),
            'w' => ClassMember::Set(self.word_set()),
            's' => ClassMember::Set(SPACE_SET.to_string()),
            'D' => ClassMember::NegatedSet(format!(r"[^{DIGIT_SET}\n\r]")),
            'W' => ClassMember::NegatedSet(format!(r"[^{WORD_SET}\n\r]")),
            'S' => ClassMember::NegatedSet(format!(r"[^{SPACE_SET}\n\r]")),
            'n' | 'r' => ClassMember::Nothing,
            'b' => ClassMember::Char('\u{8}'),
            _ => ClassMember::Char(simple_escape(e)?),
        })
    }
}

enum ClassMember {
    Char(char),
    Set(String),
    NegatedSet(String),
    /// A line break: never inside a line.
    Nothing,
}

/// The character a simple escape stands for: control escapes and escaped syntax characters.
fn simple_escape(c: char) -> Option<char> {
    match c {
        't' => Some('\t'),
        'f' => Some('\u{C}'),
        'v' => Some('\u{B}'),
        '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
        | '/' | '-' => Some(c),
        _ => None,
    }
}

/// A character as a `regex` escape, safe inside and outside classes.
fn hex(c: char) -> String {
    format!(r"\x{{{:X}}}", c as u32)
}

#[cfg(test)]
mod tests {
    use super::super::matcher::JsRegex;
    use super::*;

    #[test]
    fn translations() {
        let t = |p: &str, f: &str| translate(p, f);
        assert_eq!(t("ab", "").as_deref(), Some(r"(?:\x{61})(?:\x{62})"));
        assert_eq!(
            t("a+?|^b$", "i").as_deref(),
            Some(r"(?:[\x{61}\x{41}])+|(?:[\x{62}\x{42}])")
        );
        assert_eq!(t("k", "i").as_deref(), Some(r"(?:[\x{6B}\x{4B}\x{212A}])"));
        assert_eq!(t(r"(?<=x)y\b", "").as_deref(), Some(r"(?:\x{79})"));
        assert_eq!(t("[a-c]", "u").as_deref(), Some(r"(?:[\x{61}-\x{63}])"));
        assert_eq!(t("[^a]", "u").as_deref(), Some(r"(?:[^\x{61}\n\r])"));
        for unsupported in [
            r"(a)\1", r"\u0041", r"\x41", r"\cA", r"\p{L}", "a{", "x{1,a}", "[]", "[^]", r"[\n]",
            "(?i:a)", "a\nb", r"\n", r"\0",
        ] {
            assert_eq!(t(unsupported, "u"), None, "{unsupported}");
        }
        assert_eq!(t("😀", ""), None);
        assert!(t("😀", "u").is_some());
    }

    #[test]
    fn empty_matching_translations_give_no_prefilter() {
        for p in ["^", "x*", "(?:)", "a?", "\\b", "(?=a)"] {
            assert!(build(p, "").is_none(), "{p}");
        }
        assert!(build("TODO", "").is_some());
    }

    /// Tiny deterministic LCG.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }

        fn pick<T: Copy>(&mut self, items: &[T]) -> T {
            items[(self.next() % items.len() as u64) as usize]
        }
    }

    fn random_pattern(rng: &mut Lcg, depth: u32) -> String {
        const ATOMS: &[&str] = &[
            "a", "b", "A", "é", "É", "k", "s", "ß", "σ", "ς", ".", "\\d", "\\w", "\\s", "\\D",
            "\\W", "\\S", "[a-c]", "[^ab]", "[\\w-]", "[\\D]", "[é-ë]", "^", "$", "\\b", "\\B",
            " ", "\\.", "\\t", "[^\\n]", "(?=a)", "(?!b)", "(?<=a)", "(?<!a)", "-", "_", "0",
        ];
        const QUANTIFIERS: &[&str] = &["", "", "", "*", "+", "?", "{2}", "{1,2}", "*?", "{0,}"];
        let len = 1 + rng.next() % 4;
        let mut out = String::new();
        for _ in 0..len {
            if depth < 2 && rng.next().is_multiple_of(6) {
                // Groups stay unquantified: nested quantifiers make backtracking exponential.
                let inner = random_pattern(rng, depth + 1);
                let other = random_pattern(rng, depth + 1);
                let open = rng.pick(&["(", "(?:", "(?<n>"]);
                if open == "(?<n>" && out.contains("(?<n>") {
                    out.push_str(&format!("(?:{inner}|{other})"));
                } else {
                    out.push_str(&format!("{open}{inner}|{other})"));
                }
            } else {
                out.push_str(rng.pick(ATOMS));
                out.push_str(rng.pick(QUANTIFIERS));
            }
        }
        out
    }

    fn random_text(rng: &mut Lcg) -> String {
        const CHARS: &[char] = &[
            'a', 'b', 'c', 'A', 'B', 'k', 'K', 's', 'S', 'é', 'É', 'ë', 'ß', 'ẞ', 'σ', 'ς', 'Σ',
            'ſ', '\u{212A}', ' ', '\t', '\u{a0}', '\u{feff}', '0', '9', '_', '-', '.', '😀', '𝐀',
            '\n', '\r', 'x',
        ];
        let len = rng.next() % 24;
        (0..len).map(|_| rng.pick(CHARS)).collect()
    }

    /// Lines (split as the tool does) on which regress finds at least one match.
    fn lines_with_matches(re: &JsRegex, text: &str) -> Vec<usize> {
        let normalised = text.replace("\r\n", "\n").replace('\r', "\n");
        normalised
            .split('\n')
            .enumerate()
            .filter(|(_, line)| re.each_match(line, 1, |_| {}) > 0)
            .map(|(i, _)| i)
            .collect()
    }

    /// Line indexes where the prefilter's leftmost-first scan has a match starting.
    fn lines_hit(prefilter: &Regex, text: &str) -> Vec<usize> {
        let normalised = text.replace("\r\n", "\n").replace('\r', "\n");
        let starts: Vec<usize> = prefilter
            .find_iter(&normalised)
            .map(|m| m.start())
            .collect();
        let mut lines: Vec<usize> = starts
            .iter()
            .map(|&s| normalised[..s].matches('\n').count())
            .collect();
        lines.dedup();
        lines
    }

    /// The prefilter never misses a line regress matches, on random patterns, flags and text.
    #[test]
    fn differential_superset_against_regress() {
        let mut rng = Lcg(0xC0FFEE);
        let flag_sets = ["", "i", "u", "iu", "s", "m", "imsu"];
        let mut checked = 0;
        for _ in 0..3000 {
            let pattern = random_pattern(&mut rng, 0);
            let flags = rng.pick(&flag_sets);
            let t0 = std::time::Instant::now();
            eprintln!("P {pattern:?} {flags}");
            let Ok(re) = JsRegex::new(&pattern, flags) else {
                continue;
            };
            let Some(prefilter) = build(&pattern, flags) else {
                continue;
            };
            checked += 1;
            for _ in 0..20 {
                let text = random_text(&mut rng);
                let expected = lines_with_matches(&re, &text);
                let hit = lines_hit(&prefilter, &text);
                if t0.elapsed().as_millis() > 500 {
                    eprintln!("SLOW {:?}", t0.elapsed());
                }
                for line in &expected {
                    assert!(
                        hit.contains(line),
                        "pattern {pattern:?} flags {flags:?} text {text:?}: line {line} missed \
                         (prefilter {prefilter})"
                    );
                }
            }
        }
        assert!(checked > 1000, "only {checked} patterns had a prefilter");
    }

    /// Case-insensitive equivalence: for every cased BMP/astral character `c`, every character
    /// regress considers equal to `c` under `i` / `iu` is matched by the translation too.
    #[test]
    fn case_folding_is_a_superset_of_javascript() {
        let cased: Vec<char> = (0..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|c| {
                c.to_lowercase().ne(std::iter::once(*c)) || c.to_uppercase().ne(std::iter::once(*c))
            })
            .collect();
        let mut haystack: Vec<char> = cased.clone();
        haystack.extend(['ſ', '\u{212A}', 'ß', 'ẞ', 'ı', 'İ', '\u{345}', 'ͅ']);
        let line: String = haystack.iter().collect();
        let mut misses = Vec::new();
        for flags in ["i", "iu"] {
            for &c in &cased {
                if flags == "i" && c > '\u{FFFF}' {
                    continue; // not translated without `u`
                }
                let pattern = c.to_string();
                let re = JsRegex::new(&pattern, flags).unwrap();
                let prefilter = build(&pattern, flags).unwrap();
                let mut js = Vec::new();
                re.each_match(&line, usize::MAX, |m| {
                    if let super::super::matcher::MatchText::Text(t) = m.text {
                        js.push(t)
                    }
                });
                for found in js {
                    if !prefilter.is_match(&found) {
                        misses.push(format!(
                            "{c:?} (U+{:04X}) with {flags}: regress matches {found:?}",
                            c as u32
                        ));
                    }
                }
            }
        }
        assert!(misses.is_empty(), "{}", misses.join("\n"));
    }
}
