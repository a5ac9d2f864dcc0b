use super::*;
use crate::context::{ReadLedger, ToolContext};
use serde_json::{json, Value};
#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

fn ok(text: &str, old: &str, new: &str) -> Plan {
    plan(text, old, new, false).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn exact_match_first() {
    let p = ok("a\nfoo\nb\n", "foo", "bar");
    assert_eq!(p.stage, MatchStage::Exact);
    assert_eq!(p.text, "a\nbar\nb\n");
    assert_eq!(p.lines, [2]);
}

#[test]
fn exact_ambiguity_names_every_line_unless_replace_all() {
    let text = "x = 1\ny = 2\nx = 1\n\nx = 1\n";
    assert_eq!(
        plan(text, "x = 1", "x = 3", false),
        Err(EditFailure::Ambiguous(MatchStage::Exact, vec![1, 3, 5]))
    );
    let p = plan(text, "x = 1", "x = 3", true).unwrap();
    assert_eq!(p.text, "x = 3\ny = 2\nx = 3\n\nx = 3\n");
    assert_eq!(p.lines, [1, 3, 5]);
}

#[test]
fn line_endings_stage_keeps_crlf() {
    let text = "one\r\ntwo\r\nthree\r\n";
    let p = ok(text, "one\ntwo\n", "uno\ndos\n");
    assert_eq!(p.stage, MatchStage::LineEndings);
    assert_eq!(p.text, "uno\r\ndos\r\nthree\r\n");
    // LF old_string in a CRLF file: the new text takes CRLF even at the exact stage
    let p = ok(text, "two", "2\n2");
    assert_eq!(p.stage, MatchStage::Exact);
    assert_eq!(p.text, "one\r\n2\r\n2\r\nthree\r\n");
    // CRLF old_string in an LF file
    let p = ok("a\nb\nc\n", "a\r\nb", "x\r\ny");
    assert_eq!(p.stage, MatchStage::LineEndings);
    assert_eq!(p.text, "x\ny\nc\n");
}

#[test]
fn mixed_line_endings_keep_each_places_own() {
    let text = "a\r\nb\r\nc\nd\ne\n";
    let p = ok(text, "c\nd\n", "C\nD\n");
    assert_eq!(p.stage, MatchStage::Exact);
    assert_eq!(
        p.text, "a\r\nb\r\nC\nD\ne\n",
        "untouched lines keep their endings"
    );
    let p = ok(text, "a\nb\n", "A\nB\n");
    assert_eq!(p.stage, MatchStage::LineEndings);
    assert_eq!(p.text, "A\r\nB\r\nc\nd\ne\n");
}

#[test]
fn trailing_whitespace_stage() {
    let text = "fn a() {  \n    let x = 1;\t\n}\n";
    let p = ok(
        text,
        "fn a() {\n    let x = 1;\n}",
        "fn a() {\n    let x = 2;\n}",
    );
    assert_eq!(p.stage, MatchStage::TrailingWhitespace);
    assert_eq!(p.text, "fn a() {\n    let x = 2;\n}\n");
    // the model's trailing whitespace where the file has none
    let p = ok("a\nb\n", "a  \nb ", "c\nd");
    assert_eq!(p.stage, MatchStage::TrailingWhitespace);
    assert_eq!(p.text, "c\nd\n");
}

#[test]
fn indentation_stage_uniform_shift() {
    let text = "class A {\n    run() {\n        go();\n    }\n}\n";
    let p = ok(
        text,
        "run() {\n    go();\n}",
        "run() {\n    stop();\n    go();\n}",
    );
    assert_eq!(p.stage, MatchStage::Indentation);
    assert_eq!(
        p.text,
        "class A {\n    run() {\n        stop();\n        go();\n    }\n}\n"
    );
}

#[test]
fn indentation_stage_tabs_vs_spaces() {
    let text = "func main() {\n\tif x {\n\t\ty()\n\t}\n}\n";
    // the model wrote two spaces per level
    let p = ok(
        text,
        "  if x {\n    y()\n  }",
        "  if x {\n    y()\n    z()\n  }",
    );
    assert_eq!(p.stage, MatchStage::Indentation);
    assert_eq!(
        p.text,
        "func main() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n"
    );
    // four spaces per level
    let p = ok(
        text,
        "    if x {\n        y()\n    }",
        "    if !x {\n        y()\n    }",
    );
    assert_eq!(p.text, "func main() {\n\tif !x {\n\t\ty()\n\t}\n}\n");
}

#[test]
fn indentation_must_agree_in_structure() {
    // same words, but a different nesting: not the same code
    let text = "if a:\n    b()\n    c()\n";
    assert!(matches!(
        plan(text, "if a:\n    b()\nc()", "x", false),
        Err(EditFailure::NotFound(_))
    ));
}

#[test]
fn stricter_stage_wins_over_looser_duplicates() {
    // exact once, and once more with other indentation: the exact place is edited
    let text = "  foo()\nfoo()\n";
    let p = ok(text, "  foo()", "  bar()");
    assert_eq!(p.stage, MatchStage::Exact);
    assert_eq!(p.text, "  bar()\nfoo()\n");
}

#[test]
fn looser_stage_ambiguity() {
    let text = "\tx = 1\n  x = 1\n";
    assert_eq!(
        plan(text, "    x = 1\n", "    x = 2\n", false),
        Err(EditFailure::Ambiguous(MatchStage::Indentation, vec![1, 2]))
    );
}

#[test]
fn whole_line_deletion() {
    let text = "a\n  b  \nc\n";
    let p = ok(text, "b  \n", "");
    assert_eq!(p.stage, MatchStage::Exact);
    assert_eq!(p.text, "a\n  c\n", "exact is a substring replacement");
    let p = ok(text, "b\n", "");
    assert_eq!(p.stage, MatchStage::Indentation);
    assert_eq!(p.text, "a\nc\n", "a loose match is whole lines");
    let p = ok(text, "  b\n", "");
    assert_eq!(p.stage, MatchStage::TrailingWhitespace);
    assert_eq!(p.text, "a\nc\n");
}

#[test]
fn not_found_names_the_closest_region() {
    let text = "fn main() {\n    let total = a + b;\n    println!(\"{total}\");\n}\n";
    let Err(EditFailure::NotFound(region)) = plan(
        text,
        "let total = a - b;\nprintln!(\"{total}\");",
        "x",
        false,
    ) else {
        panic!("expected NOT_FOUND")
    };
    assert!(region.starts_with("closest region: lines 2-3"), "{region}");
    assert!(region.contains("line 2:"), "{region}");
    assert!(region.contains("a - b"), "{region}");
    assert!(region.contains("a + b"), "{region}");
    let Err(EditFailure::NotFound(region)) = plan(text, "zzz", "x", false) else {
        panic!()
    };
    assert_eq!(region, "no line of the file resembles old_string");
    // whitespace-only old_string is never matched loosely
    assert!(matches!(
        plan("a\n\n  \nb\n", "\t\n", "x", false),
        Err(EditFailure::NotFound(_))
    ));
}

#[test]
fn diff_of_an_edit() {
    let text = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    let p = ok(text, "5\n", "five\nFIVE\n");
    let d = unified_diff("f.txt", text, &p.text, &p.edits);
    assert_eq!(
        d,
        "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,8 @@\n 2\n 3\n 4\n-5\n+five\n+FIVE\n 6\n 7\n 8\n"
    );
    let p = plan("a\nb\na\n", "a", "c", true).unwrap();
    let d = unified_diff("f", "a\nb\na\n", &p.text, &p.edits);
    assert_eq!(d, "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n+c\n b\n-a\n+c\n");
    let p = ok("x\ny", "y", "z");
    let d = unified_diff("f", "x\ny", &p.text, &p.edits);
    assert_eq!(
        d,
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+z\n\\ No newline at end of file\n"
    );
}

fn edit(ctx: &ToolContext, path: &str, options: Value) -> Result<Value, ToolError> {
    let rc = RunContext {
        ctx,
        confinement: None,
    };
    run(&rc, &[path.into(), ArgValue::from(&options)]).map(|s| serde_json::from_str(&s).unwrap())
}

#[cfg(unix)] // Unix permission bits
#[test]
fn run_keeps_bom_crlf_final_newline_and_mode() {
    let (_d, ctx) = super::super::temp_workspace();
    let root = ctx.workspace_root.clone().unwrap();
    let p = format!("{root}/a.cs");
    fs::write(&p, "\u{feff}class A\r\n{\r\n\tint x = 1;\r\n}").unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o751)).unwrap();
    let out = edit(
        &ctx,
        &p,
        json!({"old_string": "    int x = 1;\n", "new_string": "    int x = 2;\n    int y = 3;\n"}),
    )
    .unwrap();
    assert_eq!(out["stage"], "indentation");
    assert_eq!(out["replacements"], 1);
    assert_eq!(out["lines"], json!([3]));
    assert_eq!(out["dry_run"], false);
    assert_eq!(out["path"], "a.cs");
    assert_eq!(
        fs::read_to_string(&p).unwrap(),
        "\u{feff}class A\r\n{\r\n\tint x = 2;\r\n\tint y = 3;\r\n}"
    );
    assert_eq!(
        fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o751
    );
    assert!(out["diff"]
        .as_str()
        .unwrap()
        .contains("-\tint x = 1;\n+\tint x = 2;\n+\tint y = 3;\n"));
    let names: Vec<_> = fs::read_dir(&root).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary file is left behind");
}

#[test]
fn dry_run_writes_nothing() {
    let (_d, ctx) = super::super::temp_workspace();
    let root = ctx.workspace_root.clone().unwrap();
    let p = format!("{root}/x.txt");
    fs::write(&p, "hello\n").unwrap();
    let out = edit(
        &ctx,
        &p,
        json!({"old_string": "hello", "new_string": "bye", "dry_run": true}),
    )
    .unwrap();
    assert_eq!(out["dry_run"], true);
    assert_eq!(
        out["diff"],
        "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-hello\n+bye\n"
    );
    assert_eq!(fs::read_to_string(&p).unwrap(), "hello\n");
}

#[test]
fn run_errors() {
    let (_d, ctx) = super::super::temp_workspace();
    let root = ctx.workspace_root.clone().unwrap();
    let p = format!("{root}/x.txt");
    fs::write(&p, "a\na\n").unwrap();
    let err = |options: Value| edit(&ctx, &p, options).unwrap_err();
    assert_eq!(
        err(json!({"old_string": "", "new_string": "b"})).code,
        "INVALID_ARGUMENT"
    );
    assert_eq!(
        err(json!({"old_string": "a", "new_string": "a"})).code,
        "INVALID_ARGUMENT"
    );
    assert_eq!(
        err(json!({"new_string": "a"})).message,
        "INVALID_ARGUMENT: old_string must be a string"
    );
    assert_eq!(
        err(json!({"old_string": "a", "new_string": "b", "replace_all": "yes"})).message,
        "INVALID_ARGUMENT: replace_all must be a boolean"
    );
    let ambiguous = err(json!({"old_string": "a", "new_string": "b"}));
    assert_eq!(ambiguous.code, "AMBIGUOUS");
    assert!(
        ambiguous.message.contains("at lines 1, 2"),
        "{}",
        ambiguous.message
    );
    assert_eq!(
        err(json!({"old_string": "q", "new_string": "b"})).code,
        "NOT_FOUND"
    );
    assert_eq!(
        edit(
            &ctx,
            &format!("{root}/none"),
            json!({"old_string": "a", "new_string": "b"})
        )
        .unwrap_err()
        .message,
        format!("NOT_FOUND: path not found: {root}/none")
    );
    assert_eq!(
        edit(&ctx, &root, json!({"old_string": "a", "new_string": "b"}))
            .unwrap_err()
            .code,
        "NOT_FILE"
    );
    fs::write(format!("{root}/bin"), b"a\0b").unwrap();
    assert_eq!(
        edit(
            &ctx,
            &format!("{root}/bin"),
            json!({"old_string": "a", "new_string": "b"})
        )
        .unwrap_err()
        .code,
        "BINARY_NOT_SUPPORTED"
    );
    assert_eq!(
        fs::read_to_string(&p).unwrap(),
        "a\na\n",
        "failed edits write nothing"
    );
}

#[test]
fn stale_read_guard() {
    let (_d, mut ctx) = super::super::temp_workspace();
    ctx.reads = Some(Arc::new(ReadLedger::default()));
    let root = ctx.workspace_root.clone().unwrap();
    let p = format!("{root}/s.txt");
    fs::write(&p, "one\n").unwrap();
    // never read: allowed, and recorded
    edit(&ctx, &p, json!({"old_string": "one", "new_string": "two"})).unwrap();
    // the agent's own edit is what it has seen
    edit(
        &ctx,
        &p,
        json!({"old_string": "two", "new_string": "three"}),
    )
    .unwrap();
    // someone else changes the file
    fs::write(&p, "three\nfour\n").unwrap();
    let e = edit(&ctx, &p, json!({"old_string": "three", "new_string": "3"})).unwrap_err();
    assert_eq!(e.code, "STALE_READ");
    assert_eq!(fs::read_to_string(&p).unwrap(), "three\nfour\n");
    // reading it again (read_file records) lifts the guard
    let rc = RunContext {
        ctx: &ctx,
        confinement: None,
    };
    super::super::read_file::run(&rc, &[p.as_str().into()], None).unwrap();
    edit(&ctx, &p, json!({"old_string": "three", "new_string": "3"})).unwrap();
    assert_eq!(fs::read_to_string(&p).unwrap(), "3\nfour\n");
    // a dry run records nothing new: the file is unchanged, so the guard still passes
    edit(
        &ctx,
        &p,
        json!({"old_string": "four", "new_string": "4", "dry_run": true}),
    )
    .unwrap();
    edit(&ctx, &p, json!({"old_string": "four", "new_string": "4"})).unwrap();
}

#[test]
fn single_depth_match_takes_the_scale_from_the_indentation_units() {
    // the matched lines share one depth, so the match alone does not tell the scale: the file
    // indents with tabs, the model with two spaces per level
    let text = "func f() {\n\tif ok {\n\t\ta()\n\t\tb()\n\t}\n}\n";
    let p = ok(
        text,
        "    a()\n    b()",
        "    a()\n    if x {\n      c()\n    }\n    b()",
    );
    assert_eq!(p.stage, MatchStage::Indentation);
    assert_eq!(
        p.text,
        "func f() {\n\tif ok {\n\t\ta()\n\t\tif x {\n\t\t\tc()\n\t\t}\n\t\tb()\n\t}\n}\n"
    );
    // a file indented by two spaces, the model by a tab
    let text = "a {\n  b {\n    x;\n    y;\n  }\n}\n";
    let p = ok(
        text,
        "\t\tx;\n\t\ty;",
        "\t\tx;\n\t\tif (z) {\n\t\t\tw;\n\t\t}\n\t\ty;",
    );
    assert_eq!(
        p.text,
        "a {\n  b {\n    x;\n    if (z) {\n      w;\n    }\n    y;\n  }\n}\n"
    );
}

#[test]
fn replace_all_on_one_line_makes_one_change() {
    let text = "a a\nb\n";
    let p = plan(text, "a", "c", true).unwrap();
    assert_eq!(p.text, "c c\nb\n");
    assert_eq!(
        unified_diff("f", text, &p.text, &p.edits),
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a a\n+c c\n b\n"
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("a"),
                Just("b"),
                Just(" "),
                Just("\t"),
                Just("\n"),
                Just("\r\n"),
                Just("x;")
            ],
            0..40,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Any text, any strings: a plan or a failure, never a panic; an exact plan is the
        /// plain replacement; the diff of any plan is well-formed.
        #[test]
        fn plans_never_panic(text in text(), old in text(), new in text(), all in any::<bool>()) {
            prop_assume!(!old.is_empty());
            if let Ok(p) = plan(&text, &old, &new, all) {
                let diff = unified_diff("f", &text, &p.text, &p.edits);
                prop_assert!(diff.starts_with("--- a/f\n+++ b/f\n"));
                if p.stage == MatchStage::Exact && !new.contains('\n') && !new.contains('\r') {
                    prop_assert_eq!(&p.text, &text.replace(&old, &new));
                }
                prop_assert_eq!(p.lines.len(), p.edits.len());
                if !all {
                    prop_assert_eq!(p.edits.len(), 1);
                }
            }
        }
    }
}

#[test]
fn overlapping_places_are_ambiguous_at_every_stage() {
    // exact
    assert_eq!(
        plan("}\n}\n}\n", "}\n}\n", "}\n", false),
        Err(EditFailure::Ambiguous(MatchStage::Exact, vec![1, 2]))
    );
    assert_eq!(
        plan("aaa", "aa", "b", false),
        Err(EditFailure::Ambiguous(MatchStage::Exact, vec![1, 1]))
    );
    assert_eq!(
        plan("x\nabab\nabab", "abab\nabab", "y", false),
        Ok(Plan {
            stage: MatchStage::Exact,
            text: "x\ny".to_string(),
            lines: vec![2],
            edits: vec![(2..11, "y".to_string())],
        }),
        "one place, no overlap"
    );
    // line endings ignored
    assert_eq!(
        plan("}\r\n}\r\n}\r\n", "}\n}\n", "}\n", false),
        Err(EditFailure::Ambiguous(MatchStage::LineEndings, vec![1, 2]))
    );
    // trailing whitespace ignored (whole lines)
    assert_eq!(
        plan(
            "  end \n  end \n  end \nx\n",
            "  end\n  end",
            "  END",
            false
        ),
        Err(EditFailure::Ambiguous(
            MatchStage::TrailingWhitespace,
            vec![1, 2]
        ))
    );
    // indentation ignored (whole lines)
    assert_eq!(
        plan("    }\n    }\n    }\n", "}\n}", "}", false),
        Err(EditFailure::Ambiguous(MatchStage::Indentation, vec![1, 2]))
    );
    // replace_all takes the non-overlapping places from the first on
    let p = plan("aaa", "aa", "b", true).unwrap();
    assert_eq!((p.text.as_str(), p.lines), ("ba", vec![1]));
    let p = plan("    }\n    }\n    }\n", "}\n}", "]", true).unwrap();
    assert_eq!(p.stage, MatchStage::Indentation);
    assert_eq!((p.text.as_str(), p.lines), ("    ]\n    }\n", vec![1]));
}

#[test]
fn overlapping_search_finds_every_place() {
    assert_eq!(overlapping_occurrences("aaaa", "aa"), [0, 1, 2]);
    assert_eq!(overlapping_occurrences("abababa", "aba"), [0, 2, 4]);
    assert_eq!(overlapping_occurrences("aabaabaaab", "aab"), [0, 3, 7]);
    assert_eq!(overlapping_occurrences("héhéhé", "héhé"), [0, 3]);
    assert_eq!(overlapping_occurrences("abc", "abcd"), Vec::<usize>::new());
    assert_eq!(overlapping_occurrences("abc", "x"), Vec::<usize>::new());
    // the same as a naive search on a generated text
    let hay: String = (0..2000u32)
        .map(|i| if (i * 7919) % 13 < 6 { 'a' } else { 'b' })
        .collect();
    for needle in ["ab", "aab", "aba", "bab", "aaaa", "abba"] {
        let naive: Vec<usize> = (0..hay.len())
            .filter(|&i| hay[i..].starts_with(needle))
            .collect();
        assert_eq!(overlapping_occurrences(&hay, needle), naive, "{needle}");
    }
}

#[test]
fn replace_all_on_a_huge_line_is_linear() {
    // 4 MiB on one line, 2 Mi places: with a scan from the start of the text for each place
    // (what made it quadratic) about 4 * 10^12 bytes are scanned, over a minute even optimised;
    // linear, 2.4 s unoptimised here, so the bound is generous for a busy machine
    let text = "ab".repeat(2 << 20);
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let p = plan(&text, "a", "xy", true).unwrap();
        let diff = unified_diff("f", &text, &p.text, &p.edits);
        done.send((
            p.lines.len(),
            p.lines[p.lines.len() - 1],
            p.text.len(),
            diff.len(),
        ))
        .unwrap();
    });
    let (places, last_line, len, diff_len) = result
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("replace_all of 2 MiB places finishes in linear time");
    assert_eq!((places, last_line, len), (2 << 20, 1, 6 << 20));
    assert!(diff_len > 10 << 20);
}
