//! Glob matching with the semantics of Bun's `new Bun.Glob(pattern).match(candidate)`.
//!
//! Syntax: `*` (any run of characters except `/`), `?` (one character except `/`), `**` (whole path
//! segments), `[...]` classes (`[!...]`/`[^...]` negated, ranges, `]` first is literal, a `-` before
//! `]` is literal), `{a,b}` groups (nestable, empty alternatives allowed), `\` escapes, and leading
//! `!`s (each one toggles negation). Matching is anchored, case-sensitive and works on chars. Dots
//! are not special and paths are not normalised.
//!
//! Bun details reproduced on purpose:
//! * `**` is a globstar only when it starts the pattern (after the `!`s), a brace alternative, or
//!   follows `/`, and is followed by `/` or the end of the pattern; otherwise it is a plain `*`
//!   (`**.ts` == `*.ts`, `a**/**` == `a*/**`, `{src/**,x}` == `{src/*,x}`).
//! * A pattern ending in globstar `**/*` needs a non-empty last name: `src/**/*` does not match
//!   `src/` or `src/x/`.
//! * `\b`, `\n`, `\r`, `\t` escape to control characters; any other escaped character is literal.
//! * A path through more than 10 brace groups never matches (Bun's brace stack holds 10).
//! * An unterminated `[`, or a trailing `\`, can never be passed, so it never matches. An unterminated
//!   `{` tries only the alternatives that a `,` ends, each followed by the end of the pattern.
//!
//! Deliberate difference: character classes never match `/` (Bun's do).
//!
//! The pattern is compiled to a small NFA and run as a set simulation, so matching costs
//! O(len(candidate) * len(pattern)) whatever the pattern.

/// Bun keeps at most this many brace groups on its stack while matching one path.
const MAX_GROUPS: u8 = 10;

#[derive(Debug, Clone)]
enum Inst {
    /// One given character.
    Char(char),
    /// One character except `/`.
    Any,
    /// One character accepted by `classes[index]`.
    Class(usize),
    /// Zero or more characters except `/` (loops on itself, then falls through).
    Star,
    /// Zero or more characters of any kind (loops on itself, then falls through).
    All,
    /// Continue at every listed instruction.
    Split(Vec<usize>),
    Jmp(usize),
    /// Counts one more brace group on the current path.
    EnterGroup,
    /// Dead end.
    Fail,
    Match,
}

#[derive(Debug, Clone)]
struct Class {
    negated: bool,
    ranges: Vec<(char, char)>,
}

impl Class {
    fn accepts(&self, c: char) -> bool {
        self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != self.negated
    }
}

/// A compiled Bun.Glob-compatible pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    prog: Vec<Inst>,
    classes: Vec<Class>,
    negated: bool,
}

impl Glob {
    /// Compiles a pattern. Never fails: malformed patterns (unbalanced brackets/braces) must still
    /// compile to *something* deterministic (callers validate balance before compiling), and must never panic.
    pub fn new(pattern: &str) -> Glob {
        let chars: Vec<char> = pattern.chars().collect();
        let bangs = chars.iter().take_while(|&&c| c == '!').count();
        let mut compiler = Compiler {
            chars: &chars,
            prog: Vec::new(),
            classes: Vec::new(),
        };
        compiler.compile(bangs);
        Glob {
            prog: compiler.prog,
            classes: compiler.classes,
            negated: bangs % 2 == 1,
        }
    }

    /// True when the whole candidate matches (anchored at both ends). Case-sensitive.
    pub fn is_match(&self, candidate: &str) -> bool {
        self.run(candidate) != self.negated
    }

    fn run(&self, candidate: &str) -> bool {
        let mut best = vec![u8::MAX; self.prog.len()];
        let mut stack = Vec::new();
        let mut current = Vec::new();
        let mut next = Vec::new();
        self.add_state(&mut current, &mut best, &mut stack, 0, 0);
        for ch in candidate.chars() {
            if current.is_empty() {
                return false;
            }
            best.fill(u8::MAX);
            next.clear();
            for &(pc, groups) in &current {
                let target = match self.prog.get(pc) {
                    Some(Inst::Char(c)) if *c == ch => pc + 1,
                    Some(Inst::Any) if ch != '/' => pc + 1,
                    Some(Inst::Class(k)) if self.classes.get(*k).is_some_and(|c| c.accepts(ch)) => {
                        pc + 1
                    }
                    Some(Inst::Star) if ch != '/' => pc,
                    Some(Inst::All) => pc,
                    _ => continue,
                };
                self.add_state(&mut next, &mut best, &mut stack, target, groups);
            }
            std::mem::swap(&mut current, &mut next);
        }
        current
            .iter()
            .any(|&(pc, _)| matches!(self.prog.get(pc), Some(Inst::Match)))
    }

    /// Adds `pc` and everything reachable from it without consuming a character. `best[pc]` is the
    /// fewest brace groups any state at `pc` has entered so far in this step: a state with more
    /// can do nothing that one with fewer cannot, so it is dropped.
    fn add_state(
        &self,
        list: &mut Vec<(usize, u8)>,
        best: &mut [u8],
        stack: &mut Vec<(usize, u8)>,
        pc: usize,
        groups: u8,
    ) {
        stack.push((pc, groups));
        while let Some((pc, groups)) = stack.pop() {
            match best.get_mut(pc) {
                Some(seen) if groups < *seen => *seen = groups,
                _ => continue,
            }
            match &self.prog[pc] {
                Inst::Split(targets) => stack.extend(targets.iter().rev().map(|&t| (t, groups))),
                Inst::Jmp(target) => stack.push((*target, groups)),
                Inst::EnterGroup => {
                    if groups < MAX_GROUPS {
                        stack.push((pc + 1, groups + 1));
                    }
                }
                Inst::Fail => {}
                Inst::Star | Inst::All => {
                    list.push((pc, groups));
                    stack.push((pc + 1, groups));
                }
                Inst::Char(_) | Inst::Any | Inst::Class(_) | Inst::Match => list.push((pc, groups)),
            }
        }
    }
}

/// A `{` whose `}` has not been seen yet.
struct OpenGroup {
    split: usize,
    alternatives: Vec<usize>,
    exits: Vec<usize>,
}

struct Compiler<'a> {
    chars: &'a [char],
    prog: Vec<Inst>,
    classes: Vec<Class>,
}

impl Compiler<'_> {
    fn compile(&mut self, start: usize) {
        let chars = self.chars;
        let mut groups: Vec<OpenGroup> = Vec::new();
        let mut i = start;
        // Where the innermost alternative (or the pattern) starts; a `**` there is at a segment start.
        let mut alt_start = start;
        while let Some(&ch) = chars.get(i) {
            match ch {
                '*' => i = self.star(i, alt_start),
                '?' => {
                    self.prog.push(Inst::Any);
                    i += 1;
                }
                '[' => match self.class(i) {
                    Some((class, end)) => {
                        self.prog.push(Inst::Class(self.classes.len()));
                        self.classes.push(class);
                        i = end;
                    }
                    None => {
                        // Bun reads an unterminated class to the end of the pattern and gives up.
                        self.prog.push(Inst::Fail);
                        break;
                    }
                },
                '\\' => match chars.get(i + 1) {
                    Some(&escaped) => {
                        self.prog.push(Inst::Char(unescape(escaped)));
                        i += 2;
                    }
                    None => {
                        self.prog.push(Inst::Fail);
                        break;
                    }
                },
                '{' => {
                    self.prog.push(Inst::EnterGroup);
                    let split = self.prog.len();
                    self.prog.push(Inst::Split(Vec::new()));
                    groups.push(OpenGroup {
                        split,
                        alternatives: vec![split + 1],
                        exits: Vec::new(),
                    });
                    i += 1;
                    alt_start = i;
                }
                ',' if !groups.is_empty() => {
                    let pc = self.prog.len();
                    self.prog.push(Inst::Jmp(0));
                    if let Some(group) = groups.last_mut() {
                        group.exits.push(pc);
                        group.alternatives.push(pc + 1);
                    }
                    i += 1;
                    alt_start = i;
                }
                '}' if !groups.is_empty() => {
                    if let Some(group) = groups.pop() {
                        let end = self.prog.len();
                        self.prog[group.split] = Inst::Split(group.alternatives);
                        for exit in group.exits {
                            self.prog[exit] = Inst::Jmp(end);
                        }
                    }
                    i += 1;
                    alt_start = usize::MAX;
                }
                _ => {
                    self.prog.push(Inst::Char(ch));
                    i += 1;
                }
            }
        }
        // Bun treats the end of the pattern as the `}` of an unterminated group, but only tries the
        // alternatives that a `,` ends.
        let end = self.prog.len();
        for mut group in groups {
            group.alternatives.pop();
            self.prog[group.split] = Inst::Split(group.alternatives);
            for exit in group.exits {
                self.prog[exit] = Inst::Jmp(end);
            }
        }
        self.prog.push(Inst::Match);
    }

    /// Compiles the `*` or `**` at `i`; returns the index after what it consumed.
    fn star(&mut self, i: usize, alt_start: usize) -> usize {
        let chars = self.chars;
        let at_segment_start = i == alt_start || (i > 0 && chars[i - 1] == '/');
        if !at_segment_start || chars.get(i + 1) != Some(&'*') {
            self.prog.push(Inst::Star);
            return i + 1;
        }
        // Absorb `/**/` repeats and a final `/**` into this `**`, as Bun does.
        let mut at = i;
        while chars.get(at + 2..at + 6) == Some(&['/', '*', '*', '/'][..]) {
            at += 3;
        }
        if chars.get(at + 2..) == Some(&['/', '*', '*'][..]) {
            at += 3;
        }
        let after = at + 2;
        if after == chars.len() {
            self.prog.push(Inst::All);
            return after;
        }
        if chars.get(after) == Some(&'/') {
            // `**/`: nothing, or anything that ends with a `/`.
            let pc = self.prog.len();
            self.prog.push(Inst::Split(vec![pc + 3, pc + 1]));
            self.prog.push(Inst::All);
            self.prog.push(Inst::Char('/'));
            if chars.get(after + 1..) == Some(&['*'][..]) {
                // Bun: a final `**/*` never lets the `*` match an empty last name.
                self.prog.push(Inst::Any);
                self.prog.push(Inst::Star);
                return chars.len();
            }
            return after + 1;
        }
        self.prog.push(Inst::Star);
        after
    }

    /// Parses the class starting at the `[` at `i`; returns it and the index after its `]`, or
    /// `None` when it is unterminated.
    fn class(&self, i: usize) -> Option<(Class, usize)> {
        let chars = self.chars;
        let mut k = i + 1;
        let negated = matches!(chars.get(k), Some('^' | '!'));
        if negated {
            k += 1;
        }
        let mut ranges = Vec::new();
        let mut first = true;
        while let Some(&c) = chars.get(k) {
            if c == ']' && !first {
                return Some((Class { negated, ranges }, k + 1));
            }
            let (low, next) = self.class_char(k)?;
            k = next;
            let mut high = low;
            if chars.get(k) == Some(&'-') && chars.get(k + 1).is_some_and(|&c| c != ']') {
                (high, k) = self.class_char(k + 1)?;
            }
            ranges.push((low, high));
            first = false;
        }
        None
    }

    /// Reads one (possibly escaped) class member at `k`.
    fn class_char(&self, k: usize) -> Option<(char, usize)> {
        match *self.chars.get(k)? {
            '\\' => self.chars.get(k + 1).map(|&e| (unescape(e), k + 2)),
            c => Some((c, k + 1)),
        }
    }
}

/// The character an escaped `c` stands for.
fn unescape(c: char) -> char {
    match c {
        'b' => '\u{8}',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::Glob;

    fn yes(pattern: &str, candidates: &[&str]) {
        let glob = Glob::new(pattern);
        for c in candidates {
            assert!(glob.is_match(c), "{pattern:?} should match {c:?}");
        }
    }

    fn no(pattern: &str, candidates: &[&str]) {
        let glob = Glob::new(pattern);
        for c in candidates {
            assert!(!glob.is_match(c), "{pattern:?} should not match {c:?}");
        }
    }

    #[test]
    fn star_matches_any_run_without_slash() {
        yes("*", &["", "a", "abc", ".env", "a.b.c"]);
        no("*", &["a/b", "/", "a/"]);
        yes("*.ts", &["a.ts", ".ts", "x.y.ts"]);
        no("*.ts", &["src/a.ts", "a.tsx", "a.js"]);
        yes("a*b", &["ab", "axxb", "a.b"]);
        no("a*b", &["a/b", "axb/"]);
        yes(".*", &[".env", ".", ".a.b"]);
    }

    #[test]
    fn question_mark_is_one_char_but_not_slash() {
        yes("?.ts", &["a.ts", "..ts"]);
        no("?.ts", &[".ts", "ab.ts", "/.ts"]);
        yes("a?b", &["axb"]);
        no("a?b", &["a/b", "ab", "axxb"]);
        yes("???", &["abc"]);
        no("???", &["ab", "abcd"]);
    }

    #[test]
    fn globstar_leading() {
        yes(
            "**/*.ts",
            &["a.ts", "src/x/a.ts", "src/a.ts", ".hidden/.a.ts"],
        );
        no("**/*.ts", &["a.js", "src/a.tsx", "src/a.ts/"]);
        yes("**", &["", "a", "a/b/c", "a/"]);
    }

    #[test]
    fn globstar_in_the_middle() {
        yes("a/**/b", &["a/b", "a/x/b", "a/x/y/b"]);
        no("a/**/b", &["ab", "a/bb", "a/xb", "a/b/c", "b"]);
        yes("src/**/x", &["src/x", "src/a/x", "src/a/b/x"]);
        no("src/**/x", &["srcx", "src/ax", "x"]);
    }

    #[test]
    fn trailing_globstar_needs_the_slash() {
        no("a/**", &["a", "ab"]);
        yes("a/**", &["a/", "a/b", "a/b/c", "a/b/"]);
        no("src/**", &["src"]);
        yes("src/**", &["src/", "src/a.ts"]);
    }

    #[test]
    fn star_after_slash_matches_empty_name() {
        yes("src/*", &["src/", "src/a"]);
        no("src/*", &["src", "src/a/b", "src/a/"]);
    }

    #[test]
    fn globstar_on_both_sides() {
        yes(
            "**/logs/**",
            &["src/logs/", "logs/", "logs/x.log", "a/b/logs/c/d"],
        );
        no(
            "**/logs/**",
            &["src/logs", "logs", "src/logsx/", "src/xlogs/"],
        );
    }

    #[test]
    fn star_slash_matches_a_name_with_trailing_slash() {
        yes("*/", &["a.txt/", "src/", ".env/"]);
        no("*/", &["a.txt", "a/b/", "/x"]);
        yes("*/", &["/"]);
    }

    #[test]
    fn tree_trailing_slash_consequences() {
        // tree tries `rel` and `rel + "/"` against every exclude glob.
        yes("src/*", &["src/"]);
        yes("src/**", &["src/"]);
        yes("**/*.log", &["a.log", "src/a.log", "src/logs/x.log"]);
        yes("*.log", &["a.log"]);
        no("*.log", &["src/a.log"]);
        yes("**/logs/**", &["src/logs/", "logs/"]);
    }

    #[test]
    fn character_classes() {
        yes("[abc]", &["a", "b", "c"]);
        no("[abc]", &["d", "", "ab", "A"]);
        yes("[a-c].ts", &["a.ts", "b.ts", "c.ts"]);
        no("[a-c].ts", &["d.ts", "-.ts"]);
        yes("[]]", &["]"]);
        no("[]]", &["a", "[]]", ""]);
        yes("[]a]", &["]", "a"]);
        yes("[a-]", &["a", "-"]);
        no("[a-]", &["b"]);
        yes("[0-9a-f]", &["7", "e"]);
        no("[0-9a-f]", &["g"]);
        no("[z-a]", &["a", "m", "z"]);
    }

    #[test]
    fn negated_classes() {
        yes("[^abc]", &["d", "z", "-"]);
        no("[^abc]", &["a", "b", "c", ""]);
        yes("[!abc].ts", &["d.ts"]);
        no("[!abc].ts", &["b.ts", "dd.ts"]);
        yes("[!]]", &["a"]);
        no("[!]]", &["]"]);
        yes("x[!a-c]", &["xd"]);
        no("x[!a-c]", &["xb"]);
    }

    #[test]
    fn classes_may_match_slash_as_bun_does() {
        yes("a[/]b", &["a/b"]);
        yes("a[!x]b", &["a/b"]);
        yes("a[^x]b", &["a/b"]);
        yes("a[.-0]b", &["a/b", "a.b", "a0b"]);
    }

    #[test]
    fn braces() {
        yes("{a,b}", &["a", "b"]);
        no("{a,b}", &["c", "ab", "{a,b}", ""]);
        yes("*.{ts,tsx}", &["a.ts", "a.tsx"]);
        no("*.{ts,tsx}", &["a.js", "a.t"]);
        yes("{a,{b,c}d}", &["a", "bd", "cd"]);
        no("{a,{b,c}d}", &["b", "ad"]);
        yes("a{,b}", &["a", "ab"]);
        no("a{,b}", &["b", "abb"]);
        yes("{}", &[""]);
        yes("{a}", &["a"]);
        no("{a}", &["{a}"]);
        yes("{src,lib}/**/*.ts", &["src/a.ts", "lib/x/y.ts"]);
        yes("{**/a,b}", &["a", "x/y/a", "b"]);
        yes("{a,b}{c,d}", &["ac", "ad", "bc", "bd"]);
        yes("x{[,],y}", &["x,", "xy"]);
    }

    #[test]
    fn comma_and_brace_are_literal_outside_groups() {
        yes("a,b", &["a,b"]);
        yes("a}", &["a}"]);
        yes("]", &["]"]);
    }

    #[test]
    fn backslash_escapes_the_next_char() {
        yes("\\*.ts", &["*.ts"]);
        no("\\*.ts", &["a.ts", ".ts", "\\a.ts"]);
        yes("\\{a,b\\}", &["{a,b}"]);
        no("\\{a,b\\}", &["a"]);
        yes("\\!a", &["!a"]);
        no("\\!a", &["a", "b"]);
        yes("a\\?", &["a?"]);
        no("a\\?", &["ab"]);
        yes("[\\]]", &["]"]);
        yes("a\\/b", &["a/b"]);
        yes("\\a", &["a"]);
    }

    #[test]
    fn control_escapes_like_bun() {
        yes("a\\nb", &["a\nb"]);
        no("a\\nb", &["anb"]);
        yes("\\t\\r\\b", &["\t\r\u{8}"]);
        yes("[\\n]", &["\n"]);
    }

    #[test]
    fn leading_bang_negates() {
        yes("!*.ts", &["a.js", "src/a.ts"]);
        no("!*.ts", &["a.ts"]);
        yes("!!*.ts", &["a.ts"]);
        no("!!*.ts", &["a.js"]);
        yes("!**/*.ts", &["a.js"]);
        no("!**/*.ts", &["a/b/c.ts"]);
        yes("a!", &["a!"]);
        yes("!", &["a"]);
        no("!", &[""]);
    }

    #[test]
    fn patterns_are_not_normalised() {
        no("./src/*", &["src/a"]);
        yes("./src/*", &["./src/a"]);
        no("/src/*", &["src/a"]);
        yes("/src/*", &["/src/a"]);
        no("src//a", &["src/a"]);
        yes("src//a", &["src//a"]);
        no("src/a", &["src/a/", "./src/a"]);
    }

    #[test]
    fn case_sensitive() {
        yes("*.TS", &["a.TS"]);
        no("*.TS", &["a.ts"]);
        no("[A-Z]", &["a"]);
    }

    #[test]
    fn unicode_chars() {
        yes("?", &["é", "日"]);
        no("?", &["é日"]);
        yes("[α-ω]x", &["βx"]);
        no("[α-ω]x", &["ax"]);
        yes("*é", &["日本é"]);
        yes("日/**/*.ts", &["日/a.ts", "日/é/b.ts"]);
        yes("[!é]", &["e"]);
        no("[!é]", &["é"]);
    }

    #[test]
    fn partial_double_star_is_a_single_star() {
        yes("**.ts", &["a.ts"]);
        no("**.ts", &["src/a.ts"]);
        yes("a**b", &["ab", "axyb"]);
        no("a**b", &["a/b"]);
        no("{src/**,x}", &["src/a/b"]);
        yes("{src/**,x}", &["src/a", "x"]);
        yes("***", &["abc"]);
        no("***", &["a/b"]);
        // A partial `**` does not swallow the globstars after it.
        no("a**/**", &["ab", "a"]);
        yes("a**/**", &["ab/", "ab/c/d"]);
        no("a**/**/b", &["ab"]);
        yes("a**/**/b", &["ax/b", "a/y/b"]);
        no("****/**/", &["abc"]);
        yes("****/**/", &["abc/", "a/b/"]);
    }

    #[test]
    fn repeated_globstars_collapse() {
        yes("a/**/**/b", &["a/b", "a/x/y/b"]);
        yes("**/**", &["", "a", "a/b/"]);
        yes("a/**/**", &["a/", "a/b"]);
        no("a/**/**", &["a"]);
    }

    #[test]
    fn final_globstar_star_needs_a_last_name() {
        no("src/**/*", &["src/", "src/x/", "src"]);
        yes("src/**/*", &["src/a", "src/x/y"]);
        no("**/*", &["", "a/"]);
        yes("**/*", &["a", "a/b"]);
        // Only at the very end of the pattern.
        yes("src/**/*/", &["src/a/"]);
        yes("{src/**/*,x}", &["src/a"]);
    }

    #[test]
    fn more_than_ten_brace_groups_never_match() {
        let ten = "{a,b}".repeat(10);
        yes(&ten, &["ababababab"]);
        let eleven = "{a,b}".repeat(11);
        no(&eleven, &["aaaaaaaaaaa", "bbbbbbbbbbb"]);
        let nested = format!("{}x{}", "{".repeat(10), "}".repeat(10));
        yes(&nested, &["x"]);
        let deeper = format!("{}x{}", "{".repeat(11), "}".repeat(11));
        no(&deeper, &["x"]);
    }

    #[test]
    fn malformed_patterns_never_match() {
        no("[abc", &["a", "[abc", ""]);
        no("a[", &["a", "a["]);
        no("*{a", &["a", "xa"]);
        // Unterminated groups: only alternatives ended by `,` count, then the pattern ends.
        yes("{a,b", &["a"]);
        no("{a,b", &["b", "{a,b", "ab"]);
        yes("x{a,b{c,d", &["xa"]);
        no("x{a,b{c,d", &["xbc", "xbd", "xb"]);
        yes("x{a,b{c,d},e", &["xa", "xbc", "xbd"]);
        no("x{a,b{c,d},e", &["xe"]);
        yes("{*,..\\}", &["ab"]);
        no("a\\", &["a", "a\\"]);
        no("[a-\\", &["a"]);
        no("[!]", &["a", "]"]);
        no("{[}]", &["}", "{}]"]);
        // Negation still applies.
        yes("![abc", &["a"]);
    }

    #[test]
    fn empty_pattern_matches_only_empty() {
        yes("", &[""]);
        no("", &["a", "/"]);
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

        fn string(&mut self, alphabet: &[char], max_len: u64) -> String {
            let len = self.next() % (max_len + 1);
            (0..len)
                .map(|_| alphabet[(self.next() % alphabet.len() as u64) as usize])
                .collect()
        }
    }

    #[test]
    fn random_inputs_never_panic() {
        let pattern_chars: Vec<char> = "ab/.*?[]{},!^-\\é".chars().collect();
        let path_chars: Vec<char> = "ab/.-é,!]".chars().collect();
        let mut rng = Lcg(0x5eed);
        for _ in 0..500 {
            let pattern = rng.string(&pattern_chars, 14);
            let glob = Glob::new(&pattern);
            for _ in 0..8 {
                let candidate = rng.string(&path_chars, 12);
                let first = glob.is_match(&candidate);
                assert_eq!(first, glob.clone().is_match(&candidate));
            }
        }
    }

    #[test]
    fn adversarial_patterns_finish() {
        let long_a = "a".repeat(5000);
        no("*a*a*a*a*a*a*a*a*a*a*b", &[long_a.as_str()]);
        yes("*a*a*a*a*a*a*a*a*a*a*", &[long_a.as_str()]);
        let path = ["a"; 500].join("/");
        no("**/a/**/a/**/a/**/a/**/b", &[path.as_str()]);
        yes("**/a/**/a/**/a/**/a/**", &[path.as_str()]);
        let wide = "{a,b,c,d,e,f,g,h,i,j}".repeat(10);
        no(&wide, &["aaaaaaaaaz", long_a.as_str()]);
        let deep = "{".repeat(20_000) + &"}".repeat(20_000);
        no(&deep, &["", "a"]);
        let stars = "*".repeat(1000);
        yes(&stars, &[&long_a[..1000]]);
        no(&(stars + "b"), &[&long_a[..1000]]);
    }
}
