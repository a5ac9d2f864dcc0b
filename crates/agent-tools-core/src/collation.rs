//! JavaScript's `a.localeCompare(b)` with no locale argument, as Node and Bun run it for the
//! `en-US` default locale: ICU collation with the root rules (English has no tailoring) at the
//! default tertiary strength, punctuation non-ignorable, no numeric ordering. Implemented with
//! ICU4X's collator and its compiled root data, so no system ICU is needed.

use std::cmp::Ordering;
use std::sync::LazyLock;

use icu_collator::options::CollatorOptions;
use icu_collator::{CollatorBorrowed, CollatorPreferences};

/// The root collator. `None` only if the compiled-in data were unusable, which the unit tests
/// rule out; callers then fall back to code point order instead of panicking.
static ROOT: LazyLock<Option<CollatorBorrowed<'static>>> = LazyLock::new(|| {
    CollatorBorrowed::try_new(CollatorPreferences::default(), CollatorOptions::default()).ok()
});

/// `a.localeCompare(b)`: `Equal` for strings that collate alike (e.g. differing only in
/// ignorable characters, or NFC vs NFD forms).
pub fn locale_compare(a: &str, b: &str) -> Ordering {
    match ROOT.as_ref() {
        Some(collator) => collator.compare(a, b),
        None => a.cmp(b),
    }
}

/// `locale_compare`, with ties between different strings broken by UTF-16 code units (the order
/// JavaScript's default `sort()` uses), so the result is a total order.
pub fn locale_compare_total(a: &str, b: &str) -> Ordering {
    locale_compare(a, b).then_with(|| a.encode_utf16().cmp(b.encode_utf16()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// regexp_search.md: the verified sorted order (Node and Bun agree on it).
    const CONTRACT_ORDER: [&str; 30] = [
        "_a", "-a", ".a", "~a", "😀", "10", "9", "ä", "a b", "a_b", "a-b", "a.b", "a.ts", "A.ts",
        "a.ts/x", "a/b", "ab", "b.ts", "B.ts", "e", "é", "f", "src_a", "src-a", "src/a", "srcA",
        "\u{0}x", "Z", "ｱ", "中",
    ];

    #[test]
    fn collator_data_is_available() {
        assert!(ROOT.is_some());
    }

    #[test]
    fn contract_vector_is_sorted() {
        for pair in CONTRACT_ORDER.windows(2) {
            assert_eq!(
                locale_compare(pair[0], pair[1]),
                Ordering::Less,
                "{:?} < {:?}",
                pair[0],
                pair[1]
            );
        }
    }

    #[test]
    fn sorting_any_permutation_gives_the_contract_order() {
        let mut shuffled: Vec<&str> = CONTRACT_ORDER.iter().rev().copied().collect();
        shuffled.rotate_left(7);
        shuffled.sort_by(|a, b| locale_compare(a, b));
        assert_eq!(shuffled, CONTRACT_ORDER);
    }

    #[test]
    fn equal_collation_and_total_tie_break() {
        // NFC and NFD forms collate equal, like localeCompare returns 0.
        assert_eq!(locale_compare("\u{e9}", "e\u{301}"), Ordering::Equal);
        assert_eq!(locale_compare("a", "a"), Ordering::Equal);
        assert_eq!(
            locale_compare_total("\u{e9}", "e\u{301}"),
            Ordering::Greater
        );
        assert_eq!(locale_compare_total("a", "b"), Ordering::Less);
        // Case is a tertiary difference: lowercase first on ties.
        assert_eq!(locale_compare("a", "A"), Ordering::Less);
        assert_eq!(locale_compare("A", "b"), Ordering::Less);
    }

    #[test]
    fn contract_paths_of_ast_grep_search() {
        let mut files = ["src/sub/x.ts", "B/b.ts", "src/main.ts", "a.ts"];
        files.sort_by(|a, b| locale_compare(a, b));
        assert_eq!(files, ["a.ts", "B/b.ts", "src/main.ts", "src/sub/x.ts"]);
    }
}
