//! JavaScript's `a.localeCompare(b)` (no locale argument): ICU collation with the root rules, which
//! the `en-US` default of Node and Bun uses. Punctuation sorts before digits before letters, case
//! and accents only break ties, `/` has no special meaning.

use std::cmp::Ordering;
use std::sync::LazyLock;

use icu_collator::options::CollatorOptions;
use icu_collator::CollatorBorrowed;

static ROOT_COLLATOR: LazyLock<Option<CollatorBorrowed<'static>>> = LazyLock::new(|| {
    CollatorBorrowed::try_new(Default::default(), CollatorOptions::default()).ok()
});

/// `a.localeCompare(b)` as an ordering. Falls back to code unit order if the compiled-in
/// collation data were unusable (it is baked into the binary, so this does not happen).
pub fn locale_compare(a: &str, b: &str) -> Ordering {
    match ROOT_COLLATOR.as_ref() {
        Some(collator) => collator.compare(a, b),
        None => a.encode_utf16().cmp(b.encode_utf16()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_contracts_locale_compare_vector() {
        // regexp_search.md, "Ordering: localeCompare": verified with Node and Bun.
        let expected = [
            "_a", "-a", ".a", "~a", "😀", "10", "9", "ä", "a b", "a_b", "a-b", "a.b", "a.ts",
            "A.ts", "a.ts/x", "a/b", "ab", "b.ts", "B.ts", "e", "é", "f", "src_a", "src-a",
            "src/a", "srcA", "\u{0}x", "Z", "ｱ", "中",
        ];
        let mut shuffled: Vec<&str> = expected.iter().rev().copied().collect();
        shuffled.rotate_left(7);
        shuffled.sort_by(|a, b| locale_compare(a, b));
        assert_eq!(shuffled, expected);
    }

    #[test]
    fn contract_paths_of_ast_grep_search() {
        let mut files = ["src/sub/x.ts", "B/b.ts", "src/main.ts", "a.ts"];
        files.sort_by(|a, b| locale_compare(a, b));
        assert_eq!(files, ["a.ts", "B/b.ts", "src/main.ts", "src/sub/x.ts"]);
    }
}
