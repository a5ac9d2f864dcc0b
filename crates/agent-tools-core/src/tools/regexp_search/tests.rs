//! regexp_search against upstream's fixture and examples, plus a sequential reference walk.

use super::*;
use crate::context::ToolContext;
use crate::sandbox::Confinement;
use crate::sys::symlink;
use crate::value::js_trim;
use serde_json::{json, Value};
use std::fs;

/// Upstream's verified fixture (root `/ws` there).
fn fixture() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir
        .path()
        .canonicalize()
        .map(crate::sys::plain_path)
        .unwrap();
    let root = base.join("ws");
    let put = |rel: &str, data: &[u8]| {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, data).unwrap();
    };
    put("src/a.ts", b"TODO one\nfoo TODO\n");
    put("src/sub/b.ts", b"TODO\r\nx\rTODO\n");
    put("src/build", b"TODO file named build\n");
    for f in [
        "dist/d.ts",
        ".git/g",
        ".hidden/h.ts",
        ".env",
        "B.txt",
        "a.txt",
        "_u.txt",
        "-d.txt",
        "10.txt",
        "9.txt",
        "é.txt",
        "z.txt",
    ] {
        put(f, b"TODO\n");
    }
    put("bom.txt", "\u{feff}TODO\n".as_bytes());
    put("bad.txt", b"TODO\xff");
    put("uni.txt", "😀TODO é TODO\n".as_bytes());
    symlink("a.txt", root.join("link.txt")).unwrap();
    symlink("src", root.join("srclink")).unwrap();
    (dir, root.to_string_lossy().into_owned())
}

fn call_with(
    root: &str,
    confined: bool,
    input: Value,
    max_file_size: u64,
) -> Result<Value, ToolError> {
    let ctx = ToolContext::allow_all(root);
    let rc = RunContext {
        ctx: &ctx,
        confinement: confined.then(|| Confinement::new(root).unwrap()),
    };
    // The front doors hand the handler an absolute root_path.
    let mut input = ArgValue::from(&input);
    if let ArgValue::String(p) = input.get("root_path").clone() {
        if js_trim(&p).is_empty() {
            return search(&rc, &[input], max_file_size).map(|s| serde_json::from_str(&s).unwrap());
        }
        let abs = crate::paths::resolve(root, &p);
        input = input.with_field("root_path", ArgValue::String(abs));
    }
    search(&rc, &[input], max_file_size).map(|s| serde_json::from_str(&s).unwrap())
}

fn call(root: &str, input: Value) -> Result<Value, ToolError> {
    call_with(root, true, input, MAX_FILE_SIZE)
}

/// `path line:column` of every item.
fn located(out: &Value) -> Vec<String> {
    out["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{} {}:{}",
                i["path"].as_str().unwrap(),
                i["line"],
                i["column"]
            )
        })
        .collect()
}

#[test]
fn default_search_matches_the_contract() {
    let (_d, root) = fixture();
    let out = call(&root, json!({"pattern": "TODO"})).unwrap();
    assert_eq!(
        located(&out),
        [
            "_u.txt 1:1",
            "-d.txt 1:1",
            ".env 1:1",
            ".hidden/h.ts 1:1",
            "10.txt 1:1",
            "9.txt 1:1",
            "a.txt 1:1",
            "B.txt 1:1",
            "bom.txt 1:1",
            "é.txt 1:1",
            "src/a.ts 1:1",
            "src/a.ts 2:5",
            "src/build 1:1",
            "src/sub/b.ts 1:1",
            "src/sub/b.ts 3:1",
            "uni.txt 1:3",
            "uni.txt 1:10",
            "z.txt 1:1",
        ]
    );
    assert_eq!(out["scanned_files"], 15);
    assert_eq!(out["warnings"], json!(["skipped_binary_files=1"]));
    assert_eq!(out["truncated"], false);
    assert_eq!(out["root_path"], ".");
    assert_eq!(out["query"], json!({"pattern": "TODO", "flags": ""}));
    let keys: Vec<&String> = out.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "query",
            "root_path",
            "took_ms",
            "truncated",
            "scanned_files",
            "items",
            "warnings"
        ]
    );
    assert_eq!(
        out["items"][11],
        json!({"path": "src/a.ts", "line": 2, "column": 5, "match": "TODO", "line_text": "foo TODO"})
    );
    assert_eq!(out["items"][16]["line_text"], "😀TODO é TODO");
    assert_eq!(out["items"][8]["line_text"], "TODO", "BOM removed");
}

#[test]
fn include_is_relative_to_root_path() {
    let (_d, root) = fixture();
    let out = call(&root, json!({"pattern": "TODO", "include": ["*.ts"]})).unwrap();
    assert_eq!(out["scanned_files"], 0);
    assert_eq!(out["items"], json!([]));
    assert_eq!(out["warnings"], json!([]));
    let out = call(&root, json!({"pattern": "TODO", "include": ["**/*.ts"]})).unwrap();
    assert_eq!(
        located(&out),
        [
            ".hidden/h.ts 1:1",
            "src/a.ts 1:1",
            "src/a.ts 2:5",
            "src/sub/b.ts 1:1",
            "src/sub/b.ts 3:1"
        ]
    );
    let out = call(
        &root,
        json!({"pattern": "TODO", "root_path": "src", "include": ["*.ts"]}),
    )
    .unwrap();
    assert_eq!(located(&out), ["src/a.ts 1:1", "src/a.ts 2:5"]);
    assert_eq!(out["root_path"], "src");
}

#[test]
fn exclude_is_relative_to_root_path() {
    let (_d, root) = fixture();
    let out = call(
        &root,
        json!({"pattern": "TODO", "root_path": "src", "exclude": ["sub"]}),
    )
    .unwrap();
    assert_eq!(
        located(&out),
        ["src/a.ts 1:1", "src/a.ts 2:5", "src/build 1:1"]
    );
    let out = call(
        &root,
        json!({"pattern": "TODO", "root_path": "src", "exclude": ["src/sub"]}),
    )
    .unwrap();
    assert_eq!(out["items"].as_array().unwrap().len(), 5);
    // exclude beats include; include cannot reopen skipped directories
    let out = call(
        &root,
        json!({"pattern": "TODO", "include": ["**/*.ts"], "exclude": ["src/**"]}),
    )
    .unwrap();
    assert_eq!(located(&out), [".hidden/h.ts 1:1"]);
    let out = call(
        &root,
        json!({"pattern": "TODO", "include": ["dist/**", ".git/**", "src/**"]}),
    )
    .unwrap();
    assert_eq!(out["scanned_files"], 3);
    // The skipped directory names apply below the root, not to the root itself.
    let out = call(&root, json!({"pattern": "TODO", "root_path": "dist"})).unwrap();
    assert_eq!(located(&out), ["dist/d.ts 1:1"]);
    let out = call(&root, json!({"pattern": "TODO", "root_path": ".git"})).unwrap();
    assert_eq!(located(&out), [".git/g 1:1"]);
    // exclude also tries `rel + "/"`, so `*/` drops every top-level directory
    let out = call(&root, json!({"pattern": "TODO", "exclude": ["*/"]})).unwrap();
    assert!(located(&out).iter().all(|l| !l.contains('/')));
}

#[test]
fn truncation_counts_like_the_sequential_walk() {
    let (_d, root) = fixture();
    let out = call(
        &root,
        json!({"pattern": "TODO", "root_path": "src", "max_results": 3}),
    )
    .unwrap();
    assert_eq!(
        located(&out),
        ["src/a.ts 1:1", "src/a.ts 2:5", "src/build 1:1"]
    );
    assert_eq!(out["truncated"], true);
    assert_eq!(out["scanned_files"], 2);
    // Exactly max_results matches also counts as truncated.
    let out = call(
        &root,
        json!({"pattern": "TODO", "root_path": "src", "max_results": 5}),
    )
    .unwrap();
    assert_eq!(out["truncated"], true);
    assert_eq!(out["scanned_files"], 3);
    // The walk stops before bad.txt is met: no warning then.
    let out = call(&root, json!({"pattern": "TODO", "max_results": 2})).unwrap();
    assert_eq!(located(&out), ["_u.txt 1:1", "-d.txt 1:1"]);
    assert_eq!(out["warnings"], json!([]));
    assert_eq!(out["scanned_files"], 2);
    let out = call(&root, json!({"pattern": "TODO", "max_results": 9})).unwrap();
    assert_eq!(out["warnings"], json!(["skipped_binary_files=1"]));
}

#[test]
fn empty_matches_and_line_splitting() {
    let (_d, root) = fixture();
    let out = call(&root, json!({"pattern": "^", "root_path": "src/sub"})).unwrap();
    assert_eq!(
        located(&out),
        [
            "src/sub/b.ts 1:1",
            "src/sub/b.ts 2:1",
            "src/sub/b.ts 3:1",
            "src/sub/b.ts 4:1"
        ]
    );
    assert!(out["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["match"] == ""));
    let out = call(&root, json!({"pattern": "x*", "root_path": "src/sub"})).unwrap();
    let expected: Vec<String> = (1..=5)
        .map(|c| format!("src/sub/b.ts 1:{c}"))
        .chain(["src/sub/b.ts 2:1".into(), "src/sub/b.ts 2:2".into()])
        .chain((1..=5).map(|c| format!("src/sub/b.ts 3:{c}")))
        .chain(["src/sub/b.ts 4:1".into()])
        .collect();
    assert_eq!(located(&out), expected);
    assert_eq!(out["items"][5]["match"], "x");
}

#[test]
fn javascript_regex_features() {
    let (_d, root) = fixture();
    let out = call(&root, json!({"pattern": "(?<=foo )TODO"})).unwrap();
    assert_eq!(located(&out), ["src/a.ts 2:5"]);
    let out = call(&root, json!({"pattern": "(?<w>O)\\k<w>", "flags": "i"})).unwrap();
    assert_eq!(located(&out), ["src/a.ts 2:2"]);
    assert_eq!(out["items"][0]["match"], "oo");
    let out = call(&root, json!({"pattern": "todo", "flags": "ig"})).unwrap();
    assert_eq!(out["query"]["flags"], "ig");
    assert_eq!(out["items"].as_array().unwrap().len(), 18);
    // Without `u`, `.` matches half of the emoji: a lone surrogate survives JSON.
    let (_d2, other) = fixture();
    fs::write(format!("{other}/only.txt"), "😀\n").unwrap();
    let ctx = ToolContext::allow_all(&other);
    let rc = RunContext {
        ctx: &ctx,
        confinement: None,
    };
    let input = ArgValue::from(&json!({"pattern": "^.", "include": ["only.txt"]}));
    let text = search(&rc, &[input], MAX_FILE_SIZE).unwrap();
    assert!(text.contains(r#""match":"\ud83d""#), "{text}");
}

#[test]
fn validation_messages_in_contract_order() {
    let (_d, root) = fixture();
    let cases = [
        (
            json!({}),
            "INVALID_ARGUMENT: pattern must be a non-empty string",
        ),
        (
            json!({"pattern": ""}),
            "INVALID_ARGUMENT: pattern must be a non-empty string",
        ),
        (
            json!({"pattern": 1}),
            "INVALID_ARGUMENT: pattern must be a non-empty string",
        ),
        (
            json!({"pattern": "x", "flags": null}),
            "INVALID_ARGUMENT: flags must be a string",
        ),
        (
            json!({"pattern": "x", "flags": "gg"}),
            "INVALID_ARGUMENT: flags must not contain duplicate flag: g",
        ),
        (
            json!({"pattern": "x", "flags": "y"}),
            "INVALID_ARGUMENT: flags must contain only g, i, m, s, u",
        ),
        (
            json!({"pattern": "(", "flags": "x", "max_results": 0}),
            "INVALID_ARGUMENT: flags must contain only g, i, m, s, u",
        ),
        (
            json!({"pattern": "("}),
            "INVALID_REGEX: Invalid regular expression: missing )",
        ),
        (
            json!({"pattern": "a{2,1}"}),
            "INVALID_REGEX: Invalid regular expression: numbers out of order in {} quantifier",
        ),
        (
            json!({"pattern": "\\p{Foo}", "flags": "u"}),
            "INVALID_REGEX: Invalid regular expression: invalid property expression",
        ),
        (
            json!({"pattern": "(", "root_path": 5}),
            "INVALID_REGEX: Invalid regular expression: missing )",
        ),
        (
            json!({"pattern": "x", "root_path": "  "}),
            "INVALID_ARGUMENT: root_path must be a non-empty string",
        ),
        (
            json!({"pattern": "x", "root_path": 5, "max_results": 0}),
            "INVALID_ARGUMENT: root_path must be a non-empty string",
        ),
        (
            json!({"pattern": "x", "max_results": 0, "include": [""]}),
            "INVALID_ARGUMENT: max_results must be an integer between 1 and 500",
        ),
        (
            json!({"pattern": "x", "max_results": 501}),
            "INVALID_ARGUMENT: max_results must be an integer between 1 and 500",
        ),
        (
            json!({"pattern": "x", "max_results": 1.5}),
            "INVALID_ARGUMENT: max_results must be an integer between 1 and 500",
        ),
        (
            json!({"pattern": "x", "timeout_ms": 0, "max_file_size_bytes": 1}),
            "INVALID_ARGUMENT: timeout_ms must be an integer between 1 and 30000",
        ),
        (
            json!({"pattern": "x", "timeout_ms": 30001}),
            "INVALID_ARGUMENT: timeout_ms must be an integer between 1 and 30000",
        ),
        (
            json!({"pattern": "x", "max_file_size_bytes": 1048577, "include": null}),
            "INVALID_ARGUMENT: max_file_size_bytes must be 1048576",
        ),
        (
            json!({"pattern": "x", "max_file_size_bytes": "1048576"}),
            "INVALID_ARGUMENT: max_file_size_bytes must be 1048576",
        ),
        (
            json!({"pattern": "x", "include": null}),
            "INVALID_ARGUMENT: include must be a string array",
        ),
        (
            json!({"pattern": "x", "include": "*.ts"}),
            "INVALID_ARGUMENT: include must be a string array",
        ),
        (
            json!({"pattern": "x", "include": ["a", 1, ""]}),
            "INVALID_ARGUMENT: include[1] must be a string",
        ),
        (
            json!({"pattern": "x", "include": ["", 1]}),
            "INVALID_ARGUMENT: include must not contain empty pattern",
        ),
        (
            json!({"pattern": "x", "include": ["a\u{0}"]}),
            "INVALID_ARGUMENT: include pattern must not contain null char",
        ),
        (
            json!({"pattern": "x", "include": ["a]["]}),
            "INVALID_ARGUMENT: include pattern has unbalanced square brackets",
        ),
        (
            json!({"pattern": "x", "include": ["{a"]}),
            "INVALID_ARGUMENT: include pattern has unbalanced braces",
        ),
        (
            json!({"pattern": "x", "include": ["{a"], "exclude": [1]}),
            "INVALID_ARGUMENT: include pattern has unbalanced braces",
        ),
        (
            json!({"pattern": "x", "exclude": null}),
            "INVALID_ARGUMENT: exclude must be a string array",
        ),
        (
            json!({"pattern": "x", "exclude": [1]}),
            "INVALID_ARGUMENT: exclude[0] must be a string",
        ),
        (
            json!({"pattern": "x", "exclude": ["}"]}),
            "INVALID_ARGUMENT: exclude pattern has unbalanced braces",
        ),
    ];
    for (input, message) in cases {
        let err = call(&root, input.clone()).unwrap_err();
        assert_eq!(err.message, message, "{input}");
        assert_eq!(err.class_name, "RegexpSearchError");
        let code = message.split(':').next().unwrap();
        assert_eq!(err.code, code);
    }
    let ctx = ToolContext::allow_all(&root);
    let rc = RunContext {
        ctx: &ctx,
        confinement: None,
    };
    for input in [ArgValue::Null, ArgValue::from("x"), ArgValue::Array(vec![])] {
        assert_eq!(
            search(&rc, &[input], MAX_FILE_SIZE).unwrap_err().message,
            "INVALID_ARGUMENT: input must be an object"
        );
    }
    assert_eq!(
        search(&rc, &[], MAX_FILE_SIZE).unwrap_err().message,
        "INVALID_ARGUMENT: input must be an object"
    );
}

#[test]
fn defaults_and_accepted_limits() {
    let (_d, root) = fixture();
    let out = call(
        &root,
        json!({"pattern": "TODO", "max_results": null, "timeout_ms": null,
               "max_file_size_bytes": null, "flags": "gimsu", "root_path": null}),
    )
    .unwrap();
    assert_eq!(out["items"].as_array().unwrap().len(), 18);
    let out = call(
        &root,
        json!({"pattern": "TODO", "max_results": 500, "timeout_ms": 30000,
               "max_file_size_bytes": 1048576, "include": [], "exclude": []}),
    )
    .unwrap();
    assert_eq!(out["truncated"], false);
    let out = call(&root, json!({"pattern": "TODO", "max_results": 1})).unwrap();
    assert_eq!(located(&out), ["_u.txt 1:1"]);
    assert_eq!(out["truncated"], true);
}

#[test]
fn root_path_errors_and_normalisation() {
    let (_d, root) = fixture();
    // Messages hold the normalised root_path: every `\` a `/`, on Windows too (docs/compat.md).
    let slashed = root.replace('\\', "/");
    let err = call(&root, json!({"pattern": "x", "root_path": "a.txt"})).unwrap_err();
    assert_eq!(
        err.message,
        format!("NOT_DIRECTORY: root_path is not a directory: {slashed}/a.txt")
    );
    let err = call(&root, json!({"pattern": "x", "root_path": "nope"})).unwrap_err();
    assert_eq!(
        err.message,
        format!("NOT_FOUND: root_path does not exist: {slashed}/nope")
    );
    assert_eq!(err.code, "NOT_FOUND");
    assert_eq!(normalise_root("a\\\\b//c/"), "a/b/c");
    assert_eq!(normalise_root("/"), ".");
    assert_eq!(normalise_root("src/"), "src");
    assert_eq!(normalise_root("//x"), "/x");
    // Raw handler: the unnormalised path is normalised before the stat and in messages.
    let ctx = ToolContext::allow_all(&root);
    let rc = RunContext {
        ctx: &ctx,
        confinement: None,
    };
    let input = ArgValue::from(&json!({"pattern": "x", "root_path": format!("{root}//nope/")}));
    assert_eq!(
        search(&rc, &[input], MAX_FILE_SIZE).unwrap_err().message,
        format!("NOT_FOUND: root_path does not exist: {slashed}/nope")
    );
    let input =
        ArgValue::from(&json!({"pattern": "TODO", "root_path": format!("{}\\src\\sub\\", root)}));
    let out: Value = serde_json::from_str(&search(&rc, &[input], MAX_FILE_SIZE).unwrap()).unwrap();
    assert_eq!(out["root_path"], "src/sub");
    assert_eq!(out["items"][0]["path"], "src/sub/b.ts");
}

#[test]
#[cfg_attr(
    windows,
    ignore = "wine 8's CreateSymbolicLinkW is a stub (reports success, creates nothing): needs real Windows with the symlink privilege"
)]
fn symlinks_below_root_are_skipped_but_a_symlinked_root_is_followed() {
    let (_d, root) = fixture();
    let out = call(&root, json!({"pattern": "TODO", "root_path": "srclink"})).unwrap();
    assert_eq!(out["root_path"], "srclink");
    assert_eq!(
        located(&out),
        [
            "srclink/a.ts 1:1",
            "srclink/a.ts 2:5",
            "srclink/build 1:1",
            "srclink/sub/b.ts 1:1",
            "srclink/sub/b.ts 3:1"
        ]
    );
    // A root that leads outside the workspace is refused when confined, searched when raw.
    let outside = format!("{root}/../outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(format!("{outside}/secret.txt"), "TODO secret\n").unwrap();
    symlink(&outside, format!("{root}/out")).unwrap();
    let err = call(&root, json!({"pattern": "TODO", "root_path": "out"})).unwrap_err();
    assert_eq!(err.code, "INTERNAL");
    assert!(
        err.message.contains("[Sandbox Violation]"),
        "{}",
        err.message
    );
    let out = call_with(
        &root,
        false,
        json!({"pattern": "TODO", "root_path": "out"}),
        MAX_FILE_SIZE,
    )
    .unwrap();
    assert_eq!(located(&out), ["out/secret.txt 1:1"]);
    // Without confinement a root outside the workspace gives `../` paths (raw handler).
    let out = call_with(
        &root,
        false,
        json!({"pattern": "TODO", "root_path": "../outside"}),
        MAX_FILE_SIZE,
    )
    .unwrap();
    assert_eq!(out["root_path"], "../outside");
    assert_eq!(located(&out), ["../outside/secret.txt 1:1"]);
}

#[test]
fn size_limit_and_binary_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir
        .path()
        .canonicalize()
        .map(crate::sys::plain_path)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    fs::create_dir_all(format!("{root}/src")).unwrap();
    fs::write(format!("{root}/src/big.ts"), "TODO TODO\n").unwrap();
    fs::write(format!("{root}/src/bin.ts"), b"TO\0").unwrap();
    fs::write(format!("{root}/src/ok.ts"), "TODO\n").unwrap();
    let out = call_with(
        &root,
        true,
        json!({"pattern": "TODO", "root_path": "src"}),
        5,
    )
    .unwrap();
    assert_eq!(
        out["warnings"],
        json!(["skipped_binary_files=1", "skipped_size_limit_files=1"])
    );
    assert_eq!(out["root_path"], "src");
    assert_eq!(located(&out), ["src/ok.ts 1:1"]);
    assert_eq!(out["scanned_files"], 1);
}

#[test]
fn upstream_pinned_examples() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir
        .path()
        .canonicalize()
        .map(crate::sys::plain_path)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    fs::create_dir_all(format!("{root}/src")).unwrap();
    fs::write(
        format!("{root}/src/main.ts"),
        "const a = 1;\n// TODO(task)\nconst b = 2;\n",
    )
    .unwrap();
    let out = call(&root, json!({"pattern": "TODO\\(.*\\)"})).unwrap();
    assert_eq!(
        out["items"],
        json!([{"path": "src/main.ts", "line": 2, "column": 4, "match": "TODO(task)", "line_text": "// TODO(task)"}])
    );
    assert_eq!(out["root_path"], ".");
    fs::write(format!("{root}/src/a.ts"), "TODO TODO\n").unwrap();
    fs::write(format!("{root}/src/b.ts"), "TODO\n").unwrap();
    let out = call(
        &root,
        json!({"pattern": "TODO", "include": ["src/[ab].ts"]}),
    )
    .unwrap();
    assert_eq!(
        located(&out),
        ["src/a.ts 1:1", "src/a.ts 1:6", "src/b.ts 1:1"]
    );
}

#[test]
fn timeout_and_walk_failures() {
    let (_d, root) = fixture();
    let regex = JsRegex::new("TODO", "").unwrap();
    let root_dir: crate::sys::OwnedFd =
        crate::sandbox::open_dir_at(None, std::path::Path::new(&root).as_os_str()).unwrap();
    let spec = |deadline| SearchSpec {
        regex: &regex,
        prefilter: None,
        include: Vec::new(),
        exclude: Vec::new(),
        max_results: 100,
        max_file_size: MAX_FILE_SIZE,
        deadline,
        root_dir: &root_dir,
        confinement: None,
        cache: None,
        requirement: &crate::search_cache::trigrams::Requirement::Anything,
        call_start_ns: 0,
    };
    let past = Instant::now()
        .checked_sub(Duration::from_millis(5))
        .unwrap();
    assert_eq!(
        walk::search(&root, &spec(past)).unwrap_err(),
        SearchError::Timeout
    );
    let future = Instant::now() + Duration::from_secs(60);
    assert!(walk::search(&root, &spec(future)).is_ok());
}

/// The walk lists directories by path; when the path no longer leads to the checked root (a
/// directory swapped for a symlink after the check, here the walk's path simply names another
/// directory), files are still read only beneath the root descriptor, and an entry that exists
/// only in the other directory is never named, in a result or in an error.
#[test]
fn a_listing_of_another_directory_never_names_its_entries() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir
        .path()
        .canonicalize()
        .map(crate::sys::plain_path)
        .unwrap();
    let (checked, other) = (base.join("ws/swap"), base.join("outside"));
    for (d, text) in [(&checked, "TODO checked"), (&other, "TODO other")] {
        fs::create_dir_all(d.join("sub")).unwrap();
        fs::write(d.join("same.txt"), text).unwrap();
        fs::write(d.join("sub/same.txt"), text).unwrap();
    }
    fs::write(other.join("SECRETNAME.ts"), "TODO").unwrap();
    fs::create_dir_all(other.join("SECRETNAME-dir")).unwrap();
    fs::write(other.join("SECRETNAME-dir/f.ts"), "TODO").unwrap();
    fs::write(other.join("sub/SECRETNAME.ts"), "TODO").unwrap();
    let regex = JsRegex::new("TODO", "").unwrap();
    let root_dir: crate::sys::OwnedFd =
        crate::sandbox::open_dir_at(None, checked.as_os_str()).unwrap();
    let spec = SearchSpec {
        regex: &regex,
        prefilter: None,
        include: Vec::new(),
        exclude: Vec::new(),
        max_results: 100,
        max_file_size: MAX_FILE_SIZE,
        deadline: Instant::now() + Duration::from_secs(60),
        root_dir: &root_dir,
        confinement: None,
        cache: None,
        requirement: &crate::search_cache::trigrams::Requirement::Anything,
        call_start_ns: 0,
    };
    let found = walk::search(&other.to_string_lossy(), &spec).unwrap();
    let files: Vec<(&str, &str)> = found
        .files
        .iter()
        .map(|(rel, hits)| (rel.as_str(), hits[0].line_text.as_str()))
        .collect();
    assert_eq!(
        files,
        [
            ("same.txt", "TODO checked"),
            ("sub/same.txt", "TODO checked")
        ]
    );
    assert_eq!(found.scanned_files, 2);
}

/// A plain sequential implementation of upstream's walk, to check the parallel one.
fn reference(root: &str, pattern: &str, max_results: usize) -> (Vec<String>, bool, u64, u64) {
    let regex = JsRegex::new(pattern, "").unwrap();
    let mut items = Vec::new();
    let (mut scanned, mut binary, mut truncated) = (0u64, 0u64, false);
    fn walk(
        dir: &std::path::Path,
        rel: &str,
        regex: &JsRegex,
        max: usize,
        state: &mut (Vec<(String, u64, u64)>, u64, u64, bool),
    ) {
        let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap()).collect();
        entries.sort_by(|a, b| {
            crate::collation::locale_compare_total(
                &a.file_name().to_string_lossy(),
                &b.file_name().to_string_lossy(),
            )
        });
        for e in entries {
            if state.3 {
                return;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            let child = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let ft = e.file_type().unwrap();
            if ft.is_symlink() {
                continue;
            }
            if ft.is_dir() {
                if ![".git", "node_modules", "dist", "build", "target", ".vscode"]
                    .contains(&name.as_str())
                {
                    walk(&e.path(), &child, regex, max, state);
                }
                continue;
            }
            let bytes = fs::read(e.path()).unwrap();
            let text = std::str::from_utf8(&bytes)
                .ok()
                .filter(|_| !bytes.contains(&0));
            let Some(text) = text else {
                state.2 += 1;
                continue;
            };
            state.1 += 1;
            let normalised = text.replace("\r\n", "\n").replace('\r', "\n");
            for (i, line) in normalised.split('\n').enumerate() {
                regex.each_match(line, usize::MAX, |m| {
                    if state.0.len() < max {
                        state.0.push((child.clone(), i as u64 + 1, m.column));
                    }
                });
                if state.0.len() >= max {
                    state.3 = true;
                    return;
                }
            }
        }
    }
    let mut state = (Vec::new(), 0, 0, false);
    walk(
        std::path::Path::new(root),
        "",
        &regex,
        max_results,
        &mut state,
    );
    let mut found = state.0;
    found.sort_by(|a, b| {
        crate::collation::locale_compare(&a.0, &b.0)
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
    items.extend(found.into_iter().map(|(p, l, c)| format!("{p} {l}:{c}")));
    scanned += state.1;
    binary += state.2;
    truncated |= state.3;
    (items, truncated, scanned, binary)
}

#[test]
fn parallel_walk_equals_sequential_reference() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir
        .path()
        .canonicalize()
        .map(crate::sys::plain_path)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let names = [
        "a", "B", "b", "_x", "-y", "10", "9", "é", "e", "src", "src-a", "src_a", "Z",
    ];
    let mut seed: u64 = 42;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for i in 0..400 {
        let depth = next() % 4;
        let mut path = root.clone();
        for _ in 0..depth {
            path.push('/');
            path.push_str(names[next() % names.len()]);
        }
        fs::create_dir_all(&path).unwrap();
        let file = format!("{path}/{}{i}.txt", names[next() % names.len()]);
        if fs::metadata(&file).is_ok() {
            continue;
        }
        let content = match next() % 7 {
            0 => "no match here\n".to_string(),
            1 => "bad \u{0} binary".to_string(),
            2 => format!("{}\n", "hit ".repeat(next() % 4)),
            3 => "hit\r\nhit\rmiss\n".to_string(),
            _ => format!("x{}hit y\n", " ".repeat(next() % 3)),
        };
        if next() % 11 == 0 {
            fs::write(&file, b"hit \xfe").unwrap();
        } else {
            fs::write(&file, content).unwrap();
        }
    }
    fs::create_dir_all(format!("{root}/node_modules")).unwrap();
    fs::write(format!("{root}/node_modules/x.txt"), "hit\n").unwrap();
    // The longest timeout allowed: the walk is what is tested, not the default 5 s (which a
    // loaded machine running the other tests beside this one can exceed).
    for max in [1, 2, 3, 7, 50, 137, 500] {
        let out = call(
            &root,
            json!({"pattern": "hit", "max_results": max, "timeout_ms": 30000}),
        )
        .unwrap();
        let (items, truncated, scanned, binary) = reference(&root, "hit", max);
        assert_eq!(located(&out), items, "max_results {max}");
        assert_eq!(out["truncated"], truncated, "max_results {max}");
        assert_eq!(out["scanned_files"], scanned, "max_results {max}");
        let warnings: Vec<String> = if binary > 0 {
            vec![format!("skipped_binary_files={binary}")]
        } else {
            vec![]
        };
        assert_eq!(out["warnings"], json!(warnings), "max_results {max}");
    }
}

/// Patterns beyond the engine's safe size are refused with INVALID_ARGUMENT before compiling
/// (20 000 alternatives overflowed the compiler's stack and ended the process).
#[test]
fn oversized_patterns_are_refused_before_compiling() {
    let (_dir, root) = fixture();
    let alternatives = |n: usize| {
        (0..n)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join("|")
    };
    for (what, pattern) in [
        ("20 000 alternatives", alternatives(20_000)),
        (
            "5 000 nested groups",
            format!("{}a{}", "(".repeat(5000), ")".repeat(5000)),
        ),
        ("9 MB", "a".repeat(9 << 20)),
    ] {
        let e = call(&root, json!({"pattern": pattern})).unwrap_err();
        assert_eq!(
            e.code.to_string(),
            "INVALID_ARGUMENT",
            "{what}: {}",
            e.message
        );
        assert!(e.message.contains("at most"), "{what}: {}", e.message);
    }
    // Escaped bars and bars in classes are not alternatives; the limits themselves pass.
    let at_limit = alternatives(matcher::MAX_ALTERNATIVES + 1);
    call(&root, json!({"pattern": at_limit})).unwrap();
    call(
        &root,
        json!({"pattern": format!("{}[|]", "\\|".repeat(5000))}),
    )
    .unwrap();
    assert!(matcher::check_pattern_size(&"(".repeat(matcher::MAX_GROUP_DEPTH)).is_ok());
}
