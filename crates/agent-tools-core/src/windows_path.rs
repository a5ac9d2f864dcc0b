//! Windows path rules of the sandbox, as pure string logic: no OS call, compiled and tested on
//! every host, used by the Windows side of the sandbox.
//!
//! # What it guards against
//!
//! On Windows a path string can reach much more than a file below the workspace, and some
//! names are silently rewritten before the file system sees them. A caller's path must be
//! checked for these forms before any OS call, because the OS call itself would already reach
//! the other place (or hang on a device):
//!
//! - **Drive paths** (`C:\x`, `d:/x`) name another tree, and **drive-relative** ones (`C:foo`)
//!   name the current directory of a drive, which is process state the caller cannot see.
//! - **UNC paths** (`\\server\share`, `//server/share`) open a network connection (and send
//!   credentials) before anything can be checked.
//! - **Device and verbatim paths** (`\\.\`, `\\?\`, `\??\`) reach devices and bypass the Win32
//!   normalisation the other checks rely on.
//! - **Alternate data streams** (`a.txt:secret`, `a.txt::$DATA`): any `:` in a name selects a
//!   stream of a file instead of the file, which hides content from listings and size checks.
//! - **Reserved device names** (`CON`, `PRN`, `AUX`, `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9`,
//!   `COM¹²³`, `LPT¹²³`, `CONIN$`, `CONOUT$`), in any case, with any extension (`nul.txt`)
//!   and with trailing spaces: Win32 opens the device, in every directory.
//! - **Names ending in `.` or ` `**: Win32 strips them, so `ws.` aliases `ws` and a check made on
//!   the name as written would be about another file than the one opened.
//! - **Characters invalid in names** (`<`, `>`, `"`, `|`, `?`, `*` and the controls 0–31):
//!   `?` and `*` are wildcards to some APIs; none of them can name a file.
//!
//! Both `/` and `\` are separators in every function here, so `a\..\..\x` is seen as going up
//! twice. Going up (`..`) is not refused here: the sandbox resolves the path and checks the
//! result against the root, which is what catches traversal.
//!
//! # What it leaves to the resolver
//!
//! Two Windows aliases cannot be seen in the string and are handled where the path is opened:
//! 8.3 short names (`PROGRA~1`, valid names that may alias a long one) and reparse points
//! (symbolic links, junctions, mount points). The resolver opens each component without
//! following reparse points, and compares the final path of what it opened (from
//! `GetFinalPathNameByHandleW`, which expands short names) with the real root through
//! [`strip_verbatim`] and [`is_within`].
//!
//! # Absolute paths inside the root
//!
//! agent-tools-ts, on a Windows host, accepts an absolute path that lies inside the root
//! (`c:/WS/src` under `C:\ws`). The lexical rule decides that first; such a path is then
//! checked by [`check_requested`] as its remainder relative to the root (`src`), so it stays
//! accepted, while a drive path that is left over after the lexical rule is refused.
//! A rooted path without a drive (`\x`, the current drive's root) is also left to the lexical
//! rule and not refused here.

use std::borrow::Cow;
use std::fmt;

/// Why a path written by the caller is refused under Windows rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowsPathRefusal {
    /// `C:foo` or `C:`: relative to the current directory of a drive.
    DriveRelative,
    /// `C:\x`, `d:/x`: an absolute path on a drive.
    DriveAbsolute,
    /// `\\server\share`, `//server/share`: a network path.
    Unc,
    /// `\\?\…`, `\\.\…`, `\??\…`: a verbatim or device path.
    Device,
    /// A `:` inside a name: `a.txt:secret`, `a.txt::$DATA`.
    AlternateStream,
    /// A reserved device name such as `CON`, `nul.txt` or `COM1`.
    ReservedName,
    /// A name ending in `.` or ` ` (other than `.` and `..`), which Windows strips.
    TrailingDotOrSpace,
    /// One of `<>"|?*`, a control character (0–31), or a separator inside a single name.
    InvalidCharacter,
}

impl WindowsPathRefusal {
    /// A short English reason, for messages and docs.
    pub fn describe(self) -> &'static str {
        match self {
            WindowsPathRefusal::DriveRelative => "a drive-relative path (such as C:name)",
            WindowsPathRefusal::DriveAbsolute => "an absolute drive path (such as C:\\dir)",
            WindowsPathRefusal::Unc => "a UNC network path (such as \\\\server\\share)",
            WindowsPathRefusal::Device => "a device or verbatim path (\\\\?\\, \\\\.\\ or \\??\\)",
            WindowsPathRefusal::AlternateStream => "an alternate data stream (a ':' in a name)",
            WindowsPathRefusal::ReservedName => {
                "a reserved device name (such as CON, NUL, COM1 or LPT1)"
            }
            WindowsPathRefusal::TrailingDotOrSpace => {
                "a name ending in a dot or a space (Windows strips them)"
            }
            WindowsPathRefusal::InvalidCharacter => {
                "a character not allowed in Windows names (<>\"|?* or a control character)"
            }
        }
    }
}

impl fmt::Display for WindowsPathRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

impl std::error::Error for WindowsPathRefusal {}

fn is_separator(c: char) -> bool {
    c == '/' || c == '\\'
}

/// The components of `path` split at both separators, empty ones (repeated or leading
/// separators) left out; `.` and `..` are kept. `a\..\..\x` gives `a`, `..`, `..`, `x`.
pub fn split_components(path: &str) -> impl Iterator<Item = &str> {
    path.split(is_separator).filter(|c| !c.is_empty())
}

/// Classifies the start of a path: two separators (UNC or device), or a drive.
fn check_prefix(path: &str) -> Result<(), WindowsPathRefusal> {
    let mut chars = path.chars();
    let first = chars.next();
    let second = chars.next();
    match (first, second) {
        (Some(a), Some(b)) if is_separator(a) && is_separator(b) => {
            // `\\?\`, `\\.\` (and `\\?`, `\\.` alone) are device or verbatim paths; anything else
            // after two separators is a server name.
            let rest: Vec<char> = chars.take(2).collect();
            match rest.as_slice() {
                ['?' | '.'] => Err(WindowsPathRefusal::Device),
                ['?' | '.', s] if is_separator(*s) => Err(WindowsPathRefusal::Device),
                _ => Err(WindowsPathRefusal::Unc),
            }
        }
        (Some(a), Some('?')) if is_separator(a) => {
            // `\??\` is the NT object namespace's prefix for DOS devices.
            let rest: Vec<char> = chars.take(2).collect();
            match rest.as_slice() {
                ['?'] => Err(WindowsPathRefusal::Device),
                ['?', s] if is_separator(*s) => Err(WindowsPathRefusal::Device),
                _ => Ok(()),
            }
        }
        // Win32 takes any character before `:` as a drive (drive letters other than A–Z can
        // be assigned), so the first character is not required to be a letter.
        (Some(a), Some(':')) if !is_separator(a) => match chars.next() {
            Some(s) if is_separator(s) => Err(WindowsPathRefusal::DriveAbsolute),
            _ => Err(WindowsPathRefusal::DriveRelative),
        },
        _ => Ok(()),
    }
}

/// Checks a path as the caller wrote it (relative to the workspace, `/` and `\` both
/// separators) before any OS call.
///
/// Refuses drive, UNC and device paths by their start, then checks every component with
/// [`check_component`]. Accepts `.`, `..`, empty components and a leading single separator:
/// traversal and rooted paths are the lexical rule's and the resolver's to judge (see the
/// module's documentation). The empty path is accepted (it is the root).
pub fn check_requested(path: &str) -> Result<(), WindowsPathRefusal> {
    check_prefix(path)?;
    split_components(path).try_for_each(check_component)
}

/// The reserved device names Win32 maps to a device in every directory.
fn is_reserved_base(base: &str) -> bool {
    let lower = base.to_ascii_lowercase();
    match lower.as_str() {
        "con" | "prn" | "aux" | "nul" | "conin$" | "conout$" => return true,
        _ => {}
    }
    let mut chars = lower.chars();
    let stem: String = chars.by_ref().take(3).collect();
    if stem != "com" && stem != "lpt" {
        return false;
    }
    matches!(
        (chars.next(), chars.next()),
        (Some('0'..='9' | '¹' | '²' | '³'), None)
    )
}

/// Checks one component (a file or directory name) — used per component during resolution
/// and for names found on disk.
///
/// The empty name, `.` and `..` are accepted (they are navigation, not names). A name holding
/// a separator is refused as [`WindowsPathRefusal::InvalidCharacter`]. When a name breaks
/// several rules, the first offending character decides, then the trailing dot or space, then
/// the reserved name.
///
/// Reserved names follow Win32's rule for device names: the part before the first `.`, with
/// trailing spaces removed, compared without regard to ASCII case. So `nul.txt`, `NUL .tar.gz`,
/// `con.d` and `Com1` are refused; `c`, `cons`, `console.log`, `com10`, ` con`, `xnul` and
/// `conin` are accepted. `CONIN$` and `CONOUT$` are treated like the others (with an extension
/// too), erring on the strict side.
pub fn check_component(name: &str) -> Result<(), WindowsPathRefusal> {
    if name.is_empty() || name == "." || name == ".." {
        return Ok(());
    }
    for c in name.chars() {
        match c {
            ':' => return Err(WindowsPathRefusal::AlternateStream),
            '<' | '>' | '"' | '|' | '?' | '*' | '/' | '\\' | '\u{0}'..='\u{1f}' => {
                return Err(WindowsPathRefusal::InvalidCharacter);
            }
            _ => {}
        }
    }
    if name.ends_with(['.', ' ']) {
        return Err(WindowsPathRefusal::TrailingDotOrSpace);
    }
    let base = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    if is_reserved_base(base) {
        return Err(WindowsPathRefusal::ReservedName);
    }
    Ok(())
}

/// A final path from `GetFinalPathNameByHandleW` without its `\\?\` prefix
/// (`\\?\UNC\s\x` -> `\\s\x`).
///
/// Only a verbatim drive path (`\\?\C:\x` or `\\?\C:`) and a verbatim UNC path are rewritten;
/// anything else (a volume GUID path, a path without the prefix) comes back unchanged, so it
/// compares only with a path of the same form.
pub fn strip_verbatim(path: &str) -> Cow<'_, str> {
    let Some(rest) = path.strip_prefix("\\\\?\\") else {
        return Cow::Borrowed(path);
    };
    if rest.len() >= 4 && rest.is_char_boundary(4) && rest[..4].eq_ignore_ascii_case("UNC\\") {
        return Cow::Owned(format!("\\\\{}", &rest[4..]));
    }
    let mut chars = rest.chars();
    let drive = chars.next();
    let colon = chars.next();
    let after = chars.next();
    match (drive, colon, after) {
        (Some(d), Some(':'), None | Some('\\')) if d.is_ascii_alphabetic() => Cow::Borrowed(rest),
        _ => Cow::Borrowed(path),
    }
}

/// Uppercase as NTFS compares names: one-to-one per character of the Basic Multilingual Plane
/// (its upcase table has one entry per UTF-16 unit); characters whose uppercase is several
/// characters (`ß`) and characters outside the BMP stay as they are.
fn upcase(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    if u32::from(c) > 0xFFFF {
        return c;
    }
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) if u32::from(u) <= 0xFFFF => u,
        _ => c,
    }
}

fn same_name(a: &str, b: &str) -> bool {
    a.chars().map(upcase).eq(b.chars().map(upcase))
}

/// How a path starts: 0 (relative or drive), 1 (rooted) or 2 (UNC or device) separators.
fn leading_separators(path: &str) -> usize {
    path.chars()
        .take(2)
        .take_while(|c| is_separator(*c))
        .count()
}

/// Whether `candidate` (a final path) is `root` or inside it, comparing as Windows does
/// (case-insensitive, either separator); `C:\ws_evil` and `C:\ws.` are not inside `C:\ws`.
///
/// Both are passed through [`strip_verbatim`] first and compared component by component.
/// Final paths have no `.` or `..` components; a path that has one is never inside (and an
/// empty root contains nothing), rather than guessing how it would resolve.
pub fn is_within(root: &str, candidate: &str) -> bool {
    let root = strip_verbatim(root);
    let candidate = strip_verbatim(candidate);
    if root.is_empty() || leading_separators(&root) != leading_separators(&candidate) {
        return false;
    }
    let navigation = |c: &&str| *c == "." || *c == "..";
    if split_components(&root).any(|c| navigation(&c))
        || split_components(&candidate).any(|c| navigation(&c))
    {
        return false;
    }
    let mut inside = split_components(&candidate);
    let prefix = split_components(&root).all(|r| inside.next().is_some_and(|c| same_name(r, c)));
    prefix
}

/// A relative path as results print it: `\` replaced by `/`.
pub fn to_slash(path: &str) -> Cow<'_, str> {
    if path.contains('\\') {
        Cow::Owned(path.replace('\\', "/"))
    } else {
        Cow::Borrowed(path)
    }
}

#[cfg(test)]
mod tests {
    use super::WindowsPathRefusal::*;
    use super::*;

    #[test]
    fn prefixes_are_classified() {
        let table: &[(&str, WindowsPathRefusal)] = &[
            ("C:foo", DriveRelative),
            ("c:", DriveRelative),
            ("C:..\\x", DriveRelative),
            ("D:\\x", DriveAbsolute),
            ("d:/x", DriveAbsolute),
            ("C:\\", DriveAbsolute),
            ("1:/x", DriveAbsolute),
            ("\\\\server\\share", Unc),
            ("//server/share", Unc),
            ("\\/server/share\\x", Unc),
            ("\\\\", Unc),
            ("\\\\..\\x", Unc),
            ("\\\\?\\C:\\x", Device),
            ("\\\\?\\UNC\\s\\x", Device),
            ("\\\\.\\PhysicalDrive0", Device),
            ("//./pipe/x", Device),
            ("//?/c:/x", Device),
            ("\\\\?", Device),
            ("\\\\.", Device),
            ("\\??\\C:\\x", Device),
            ("/??/C:/x", Device),
        ];
        for &(path, refusal) in table {
            assert_eq!(check_requested(path), Err(refusal), "{path:?}");
        }
    }

    #[test]
    fn components_are_checked() {
        let table: &[(&str, WindowsPathRefusal)] = &[
            ("a.txt:secret", AlternateStream),
            ("a.txt::$DATA", AlternateStream),
            ("dir/a:b/c", AlternateStream),
            ("src\\x:y", AlternateStream),
            ("con", ReservedName),
            ("CON", ReservedName),
            ("nul.txt", ReservedName),
            ("NUL.tar.gz", ReservedName),
            ("nul .txt", ReservedName),
            ("con.d/x", ReservedName),
            ("src/Aux.rs", ReservedName),
            ("prn", ReservedName),
            ("com0", ReservedName),
            ("COM9.log", ReservedName),
            ("lpt1", ReservedName),
            ("LPT0", ReservedName),
            ("com¹", ReservedName),
            ("COM²", ReservedName),
            ("lpt³.txt", ReservedName),
            ("CONIN$", ReservedName),
            ("conout$.txt", ReservedName),
            ("a/b/nul", ReservedName),
            ("ws.", TrailingDotOrSpace),
            ("ws./x", TrailingDotOrSpace),
            ("a\\b ", TrailingDotOrSpace),
            ("...", TrailingDotOrSpace),
            (". ", TrailingDotOrSpace),
            (" ", TrailingDotOrSpace),
            ("nul ", TrailingDotOrSpace),
            ("con.", TrailingDotOrSpace),
            ("a<b", InvalidCharacter),
            ("a>b", InvalidCharacter),
            ("a\"b", InvalidCharacter),
            ("a|b", InvalidCharacter),
            ("a?b", InvalidCharacter),
            ("*.rs", InvalidCharacter),
            ("a\u{0}b", InvalidCharacter),
            ("a\tb", InvalidCharacter),
            ("x/a\u{1f}", InvalidCharacter),
            ("\\?x", InvalidCharacter),
        ];
        for &(path, refusal) in table {
            assert_eq!(check_requested(path), Err(refusal), "{path:?}");
        }
    }

    #[test]
    fn near_misses_are_accepted() {
        let accepted = [
            "",
            ".",
            "..",
            "./src",
            "src/main.rs",
            "src\\main.rs",
            "a\\..\\..\\x",
            "../../etc/passwd",
            "dir/",
            "dir\\\\sub",
            "/ws/src",
            "\\ws\\src",
            "c",
            "C",
            "co",
            "cons",
            "console.log",
            "con_",
            "xcon",
            " con",
            "com",
            "com10",
            "comA",
            "com1x",
            "lpt",
            "lpt¹0",
            "com⁴",
            "conin",
            "conin$x",
            "auxiliary.rs",
            "nul_",
            "null",
            ".gitignore",
            "..foo",
            " lead",
            "PROGRA~1",
            "a$b",
            "a\u{7f}b",
            "日本語.txt",
            "😀/ü.ß",
            "CON\u{200b}",
            "ａ：ｂ",
        ];
        for path in accepted {
            assert_eq!(check_requested(path), Ok(()), "{path:?}");
        }
    }

    #[test]
    fn backslash_separates_components() {
        let parts: Vec<&str> = split_components("a\\..\\..\\x").collect();
        assert_eq!(parts, ["a", "..", "..", "x"]);
        let parts: Vec<&str> = split_components("//a/\\b\\").collect();
        assert_eq!(parts, ["a", "b"]);
        assert_eq!(check_requested("a\\con\\b"), Err(ReservedName));
        assert_eq!(check_requested("a/b.\\c"), Err(TrailingDotOrSpace));
    }

    #[test]
    fn component_rules() {
        assert_eq!(check_component(""), Ok(()));
        assert_eq!(check_component("."), Ok(()));
        assert_eq!(check_component(".."), Ok(()));
        assert_eq!(check_component("a/b"), Err(InvalidCharacter));
        assert_eq!(check_component("a\\b"), Err(InvalidCharacter));
        assert_eq!(check_component("a:b?"), Err(AlternateStream));
        assert_eq!(check_component("a?b:"), Err(InvalidCharacter));
        assert_eq!(check_component("Nul.Txt"), Err(ReservedName));
        assert_eq!(check_component("nul.txt "), Err(TrailingDotOrSpace));
        assert_eq!(check_component("file.txt"), Ok(()));
    }

    #[test]
    fn every_refusal_is_described() {
        let all = [
            DriveRelative,
            DriveAbsolute,
            Unc,
            Device,
            AlternateStream,
            ReservedName,
            TrailingDotOrSpace,
            InvalidCharacter,
        ];
        let mut seen = std::collections::BTreeSet::new();
        for refusal in all {
            let text = refusal.describe();
            assert!(!text.is_empty());
            assert_eq!(refusal.to_string(), text);
            assert!(seen.insert(text), "{text} twice");
        }
    }

    #[test]
    fn verbatim_prefix_is_stripped() {
        assert_eq!(strip_verbatim("\\\\?\\C:\\ws\\a"), "C:\\ws\\a");
        assert_eq!(strip_verbatim("\\\\?\\c:"), "c:");
        assert_eq!(strip_verbatim("\\\\?\\UNC\\s\\x"), "\\\\s\\x");
        assert_eq!(strip_verbatim("\\\\?\\unc\\s\\x"), "\\\\s\\x");
        assert_eq!(strip_verbatim("C:\\ws"), "C:\\ws");
        assert!(matches!(strip_verbatim("C:\\ws"), Cow::Borrowed(_)));
        assert!(matches!(strip_verbatim("\\\\?\\C:\\ws"), Cow::Borrowed(_)));
        let guid = "\\\\?\\Volume{0b1c}\\x";
        assert_eq!(strip_verbatim(guid), guid);
        assert_eq!(strip_verbatim("\\\\?\\C:x"), "\\\\?\\C:x");
        assert_eq!(strip_verbatim("\\\\.\\C:\\x"), "\\\\.\\C:\\x");
        assert_eq!(strip_verbatim("//?/C:/x"), "//?/C:/x");
        assert_eq!(strip_verbatim("\\\\?\\"), "\\\\?\\");
        assert_eq!(strip_verbatim("\\\\?\\UNé"), "\\\\?\\UNé");
    }

    #[test]
    fn within_compares_as_windows() {
        let inside = [
            ("C:\\ws", "C:\\ws"),
            ("C:\\ws", "C:\\ws\\"),
            ("C:\\ws", "C:\\ws\\a\\b.txt"),
            ("C:\\ws\\", "C:\\ws\\a"),
            ("C:\\ws", "c:\\WS\\A"),
            ("C:\\ws", "C:/ws/a"),
            ("C:\\ws", "\\\\?\\C:\\ws\\a"),
            ("\\\\?\\C:\\ws", "C:\\ws\\a"),
            ("C:\\", "C:\\x"),
            ("\\\\s\\share", "\\\\?\\UNC\\s\\share\\x"),
            ("\\\\S\\Share\\ws", "\\\\s\\share\\ws\\x"),
            ("C:\\Über", "C:\\über\\x"),
            ("C:\\ΣΑ", "C:\\σα\\x"),
        ];
        for (root, candidate) in inside {
            assert!(is_within(root, candidate), "{candidate:?} in {root:?}");
        }
        let outside = [
            ("C:\\ws", "C:\\ws_evil"),
            ("C:\\ws", "C:\\ws_evil\\x"),
            ("C:\\ws", "C:\\ws."),
            ("C:\\ws", "C:\\ws.\\x"),
            ("C:\\ws", "C:\\ws \\x"),
            ("C:\\ws", "C:\\"),
            ("C:\\ws", "C:\\w"),
            ("C:\\ws", "D:\\ws"),
            ("C:\\ws", "C:\\ws\\..\\x"),
            ("C:\\ws", "C:\\ws\\.\\x"),
            ("C:\\ws\\..\\x", "C:\\x\\y"),
            ("C:\\ws", "\\\\C:\\ws"),
            ("C:\\ws", "\\ws"),
            ("\\\\s\\share", "C:\\s\\share"),
            ("\\\\s\\share", "\\s\\share\\x"),
            ("\\\\s\\share", "\\\\s\\shared"),
            ("", "C:\\x"),
            ("", ""),
            ("C:\\straße", "C:\\STRASSE"),
            ("C:\\ws", ""),
        ];
        for (root, candidate) in outside {
            assert!(!is_within(root, candidate), "{candidate:?} in {root:?}");
        }
    }

    #[test]
    fn slashes_for_results() {
        assert_eq!(to_slash("src\\a\\b.rs"), "src/a/b.rs");
        assert_eq!(to_slash("src/a"), "src/a");
        assert!(matches!(to_slash("src/a"), Cow::Borrowed(_)));
        assert_eq!(to_slash("."), ".");
        assert_eq!(to_slash(""), "");
    }

    /// Odd but valid Unicode: combining marks, zero-width and direction marks, a BOM,
    /// noncharacters, the last code point, characters whose case mapping changes length or
    /// crosses into ASCII, superscript digits, full-width look-alikes of the special ASCII.
    const ODD: &[char] = &[
        '\u{301}',
        '\u{200b}',
        '\u{200d}',
        '\u{202e}',
        '\u{feff}',
        '\u{fffe}',
        '\u{ffff}',
        '\u{10ffff}',
        '\u{e000}',
        'ß',
        'ẞ',
        'İ',
        'ı',
        'ſ',
        'K',
        'ﬀ',
        'ς',
        'Σ',
        '¹',
        '²',
        '³',
        '⁴',
        '：',
        '＼',
        '／',
        '？',
        '＊',
        '＂',
        '＜',
        '．',
        '\u{3000}',
        '\u{a0}',
        '😀',
        '𐐨',
        '\u{7f}',
        '\u{85}',
        '\u{2028}',
    ];

    #[test]
    fn odd_unicode_never_panics() {
        let specials = [
            "",
            "\\\\?\\",
            "\\\\?\\UNC\\",
            "C:",
            "//",
            "\\??\\",
            "nul.",
            "com",
        ];
        for &odd in ODD {
            for special in specials {
                for path in [
                    format!("{special}{odd}"),
                    format!("{odd}{special}"),
                    format!("{special}{odd}{odd}{odd}{odd}"),
                    format!("a{odd}/{special}\\{odd}"),
                ] {
                    let _ = check_requested(&path);
                    let _ = check_component(&path);
                    let _ = strip_verbatim(&path);
                    let _ = is_within(&path, &path);
                    let _ = is_within("C:\\ws", &path);
                    assert!(!to_slash(&path).contains('\\'));
                }
            }
        }
    }

    mod properties {
        use super::super::*;
        use super::ODD;
        use proptest::prelude::*;

        /// Strings built mostly from the characters the rules look at, with any other
        /// character (never a lone surrogate: a `char` cannot hold one) mixed in.
        fn path() -> impl Strategy<Value = String> {
            let special = proptest::sample::select(vec![
                '/', '\\', ':', '.', ' ', '?', '*', '<', '>', '|', '"', '$', '\0', '\t', 'C', 'c',
                'o', 'n', 'N', 'u', 'U', 'l', 'L', 'x', 'p', 'r', 't', '1', '0',
            ]);
            let odd = proptest::sample::select(ODD.to_vec());
            proptest::collection::vec(
                prop_oneof![4 => special, 1 => odd, 1 => any::<char>()],
                0..24,
            )
            .prop_map(|chars| chars.into_iter().collect())
        }

        /// A name every rule accepts.
        fn plain_name() -> impl Strategy<Value = String> {
            proptest::collection::vec(
                prop_oneof![
                    proptest::sample::select(vec![
                        'a', 'B', 'z', '_', '-', '1', 'ü', 'Σ', '日', '😀'
                    ]),
                    Just('.'),
                ],
                1..8,
            )
            .prop_map(|chars| format!("{}x", chars.into_iter().collect::<String>()))
        }

        fn swap_separators(path: &str) -> String {
            path.chars()
                .map(|c| match c {
                    '/' => '\\',
                    '\\' => '/',
                    other => other,
                })
                .collect()
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]

            /// No input panics; every function's answer is consistent with the others.
            #[test]
            fn never_panics_and_agrees(path in path(), other in path()) {
                let whole = check_requested(&path);
                // The two separators are interchangeable everywhere.
                prop_assert_eq!(whole, check_requested(&swap_separators(&path)));
                if whole.is_ok() {
                    for component in split_components(&path) {
                        prop_assert_eq!(check_component(component), Ok(()));
                        prop_assert!(!component.contains(
                            [':', '<', '>', '"', '|', '?', '*', '/', '\\']
                        ));
                        prop_assert!(!component.chars().any(|c| c < ' '));
                    }
                }
                if let Err(e) = check_component(&path) {
                    prop_assert!(!e.describe().is_empty());
                } else if path != "." && path != ".." {
                    prop_assert!(!path.ends_with(['.', ' ']));
                }
                let slashed = to_slash(&path);
                prop_assert!(!slashed.contains('\\'));
                prop_assert_eq!(slashed.chars().count(), path.chars().count());
                let stripped = strip_verbatim(&path);
                // The same text, a suffix of it, or `\\` and a suffix (a verbatim UNC path).
                prop_assert!(
                    path.ends_with(&*stripped)
                        || (stripped.starts_with("\\\\") && path.ends_with(&stripped[2..]))
                );
                let _ = is_within(&path, &other);
                let _ = is_within(&other, &path);
            }

            /// A root built from plain names contains itself and its children however they
            /// are spelled, and contains no sibling that only starts like it.
            #[test]
            fn containment(
                names in proptest::collection::vec(plain_name(), 1..4),
                child in plain_name(),
                suffix in prop_oneof![Just("."), Just(" "), Just("_evil"), Just("x"), Just("~1")],
                unc in any::<bool>(),
            ) {
                let root = if unc {
                    format!("\\\\server\\share\\{}", names.join("\\"))
                } else {
                    format!("C:\\{}", names.join("\\"))
                };
                prop_assert!(is_within(&root, &root));
                let child_path = format!("{root}\\{child}");
                prop_assert!(is_within(&root, &child_path));
                prop_assert!(is_within(&root, &child_path.to_uppercase().replace('\\', "/")));
                let verbatim = if unc {
                    format!("\\\\?\\UNC\\{}", &child_path[2..])
                } else {
                    format!("\\\\?\\{child_path}")
                };
                prop_assert!(is_within(&root, &verbatim));
                prop_assert!(is_within(&verbatim, &child_path));
                let sibling = format!("{root}{suffix}");
                prop_assert!(!is_within(&root, &sibling));
                let sibling_child = format!("{sibling}\\{child}");
                prop_assert!(!is_within(&root, &sibling_child));
                prop_assert!(!is_within(&child_path, &root));
                let dotdot = format!("{root}\\..\\{child}");
                prop_assert!(!is_within(&root, &dotdot));
            }

            /// A relative path made of plain names is accepted, and refused as soon as one of
            /// its names is replaced by a refused one.
            #[test]
            fn one_bad_name_refuses_the_path(
                names in proptest::collection::vec(plain_name(), 1..5),
                at in any::<proptest::sample::Index>(),
                bad in proptest::sample::select(vec![
                    "ab:c", "nul", "Com1.txt", "x.", "x ", "a*b", "lpt³", "conout$", "a\u{1}",
                ]),
                backslash in any::<bool>(),
            ) {
                let sep = if backslash { "\\" } else { "/" };
                prop_assert_eq!(check_requested(&names.join(sep)), Ok(()));
                let mut names = names;
                let i = at.index(names.len());
                names[i] = bad.to_string();
                let path = names.join(sep);
                prop_assert_eq!(check_requested(&path), check_component(bad));
                prop_assert!(check_requested(&path).is_err());
            }
        }
    }
}
