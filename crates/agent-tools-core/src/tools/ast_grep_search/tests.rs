use super::output::SgMatch;
use super::*;
use crate::context::ToolContext;
use serde_json::{json, Value};

#[test]
fn required_texts_are_named_leaves_of_a_plain_pattern() {
    let ts = SupportLang::TypeScript;
    let texts = |rule: Value| required_texts(&rule, ts);
    assert_eq!(
        texts(json!({"pattern": "const $A = nonexistent($B)"})),
        ["nonexistent"]
    );
    assert_eq!(
        texts(json!({"pattern": "console.log($X)"})),
        ["console", "log"]
    );
    assert_eq!(
        texts(json!({"pattern": "a.b.c(d)", "inside": {"kind": "program"}})),
        ["a", "b"]
    );
    assert!(texts(json!({"pattern": "$A + $B"})).is_empty());
    assert!(texts(json!({"pattern": {"context": "foo()", "strictness": "signature"}})).is_empty());
    assert!(texts(json!({"any": [{"pattern": "foo()"}]})).is_empty());
    assert!(texts(json!({"kind": "identifier"})).is_empty());
}

#[test]
fn a_file_without_a_required_text_holds_no_match() {
    let sources = [
        "console.log(1); console.log(2)",
        "console . log ( x ) ;",
        "const x = nonexistent(1)",
        "let y = 1 + 2; foo(); a.b.c(d); a?.b.c(d)",
        "/* console */ window.log(3); logger.console(4)",
    ];
    let patterns = [
        "console.log($X)",
        "const $A = nonexistent($B)",
        "$A + 2",
        "foo()",
        "a.b.c(d)",
        "log",
    ];
    for pattern in patterns {
        let rule = json!({"pattern": pattern});
        let config = compile_rule("typescript", &rule).unwrap();
        let required = required_texts(&rule, SupportLang::TypeScript);
        assert!(!required.is_empty(), "{pattern}");
        for source in sources {
            let doc = AstGrep::doc(stoppable::StoppableDoc::new(
                StrDoc::new(source, SupportLang::TypeScript),
                Arc::default(),
            ));
            let found = doc.root().find_all(&config.matcher).count();
            let has_all = required.iter().all(|t| source.contains(t.as_str()));
            assert!(found == 0 || has_all, "{pattern} in {source}");
        }
    }
}

#[test]
fn rule_matcher_finds_what_the_combined_scan_finds_without_suppressions() {
    let source = "const a = f(1);\nfunction g() { const b = f(a); let c = f(f(2)); }\n\
                  class K { m() { return f(3) + 1; } }\nconst d = 1; /* f(4) */\n";
    let rules = [
        json!({"pattern": "f($X)"}),
        json!({"pattern": "const $A = $B"}),
        json!({"kind": "call_expression"}),
        json!({"kind": "call_expression", "inside": {"kind": "function_declaration", "stopBy": "end"}}),
        json!({"pattern": "f($X)", "not": {"has": {"kind": "number"}}}),
        json!({"any": [{"pattern": "f($X)"}, {"kind": "class_declaration"}]}),
        json!({"regex": "^f", "kind": "identifier"}),
        json!({"kind": "comment"}),
    ];
    for rule in rules {
        let config = compile_rule("typescript", &rule).unwrap();
        let doc = AstGrep::doc(stoppable::StoppableDoc::new(
            StrDoc::new(source, SupportLang::TypeScript),
            Arc::default(),
        ));
        let ranges = |ms: Vec<SgMatch>| {
            let mut r: Vec<_> = ms.iter().map(|m| m.range()).collect();
            r.sort_by_key(|r| (r.start, r.end));
            r
        };
        let direct = ranges(doc.root().find_all(&config.matcher).collect());
        let combined = CombinedScan::new(vec![&config]);
        let scanned = combined
            .scan(&doc, false)
            .matches
            .into_iter()
            .flat_map(|(_, m)| m)
            .collect();
        let scanned = ranges(scanned);
        assert!(!scanned.is_empty(), "{rule}");
        assert_eq!(direct, scanned, "{rule}");
    }
}

struct Workspace {
    _dir: tempfile::TempDir,
    root: String,
    ctx: ToolContext,
}

impl Workspace {
    fn new(files: &[(&str, &str)]) -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let root = dir
            .path()
            .canonicalize()
            .map(crate::sys::plain_path)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let ws = Workspace {
            ctx: ToolContext::allow_all(&root),
            root,
            _dir: dir,
        };
        for (path, content) in files {
            ws.write(path, content.as_bytes());
        }
        ws
    }

    /// Upstream's fixture: `src/main.ts`, `src/sub/x.ts`, `dist/d.ts`, `B/b.ts`, `a.ts`.
    fn contract() -> Workspace {
        Workspace::new(&[
            ("src/main.ts", "const a = 1;\nconst b = 2;\n"),
            ("src/sub/x.ts", "const c = 3;\n"),
            ("dist/d.ts", "const d = 4;\n"),
            ("B/b.ts", "const e = 5;\n"),
            ("a.ts", "const f = 6;\n"),
        ])
    }

    fn write(&self, path: &str, content: &[u8]) {
        let full = format!("{}/{path}", self.root);
        fs::create_dir_all(Path::new(&full).parent().unwrap()).unwrap();
        fs::write(full, content).unwrap();
    }

    fn search_with(
        &self,
        input: Value,
        confinement: Option<Confinement>,
    ) -> Result<Value, ToolError> {
        let rc = RunContext {
            ctx: &self.ctx,
            confinement,
        };
        run(&rc, &[ArgValue::from(&input)]).map(|out| serde_json::from_str(&out).unwrap())
    }

    fn search(&self, input: Value) -> Result<Value, ToolError> {
        self.search_with(input, None)
    }

    /// `file@line:column` of every item.
    fn found(&self, input: Value) -> Vec<String> {
        let out = self.search(input).unwrap();
        locations(&out)
    }
}

fn locations(out: &Value) -> Vec<String> {
    out["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{}@{}:{}",
                i["file"].as_str().unwrap(),
                i["range"]["start"]["line"],
                i["range"]["start"]["column"]
            )
        })
        .collect()
}

fn ts_const(extra: Value) -> Value {
    let mut input = json!({"language": "typescript", "rule": {"pattern": "const $A = $B"}});
    for (k, v) in extra.as_object().unwrap() {
        input[k] = v.clone();
    }
    input
}

fn error(result: Result<Value, ToolError>) -> (String, String) {
    let e = result.unwrap_err();
    assert_eq!(e.class_name, ERROR_CLASS.0);
    (e.code.to_string(), e.message)
}

#[test]
fn contract_defaults() {
    let ws = Workspace::contract();
    let out = ws.search(ts_const(json!({}))).unwrap();
    assert_eq!(
        locations(&out),
        [
            "a.ts@0:0",
            "B/b.ts@0:0",
            "src/main.ts@0:0",
            "src/main.ts@1:0",
            "src/sub/x.ts@0:0"
        ]
    );
    assert_eq!(out["truncated"], false);
    assert_eq!(out["root_path"], ".");
    assert_eq!(out["warnings"], json!([]));
    assert_eq!(
        out["query"],
        json!({"language": "typescript", "rule": {"pattern": "const $A = $B"}})
    );
    let keys: Vec<&String> = out.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "query",
            "root_path",
            "took_ms",
            "truncated",
            "items",
            "warnings"
        ]
    );
}

#[test]
fn items_are_the_clis_json_objects() {
    let ws = Workspace::contract();
    let out = ws
        .search(ts_const(
            json!({"root_path": format!("{}/src/sub", ws.root)}),
        ))
        .unwrap();
    // Upstream's example line (ast-grep 0.45.3), with upstream's rule id and the
    // meta variables in name order.
    let expected = r#"{"text":"const c = 3;","range":{"byteOffset":{"start":0,"end":12},"start":{"line":0,"column":0},"end":{"line":0,"column":12}},"file":"src/sub/x.ts","lines":"const c = 3;","charCount":{"leading":0,"trailing":0},"language":"TypeScript","metaVariables":{"single":{"A":{"text":"c","range":{"byteOffset":{"start":6,"end":7},"start":{"line":0,"column":6},"end":{"line":0,"column":7}}},"B":{"text":"3","range":{"byteOffset":{"start":10,"end":11},"start":{"line":0,"column":10},"end":{"line":0,"column":11}}}},"multi":{},"transformed":{}},"ruleId":"ast-grep-search-rule","severity":"hint","note":null,"message":"","labels":[{"text":"const c = 3;","range":{"byteOffset":{"start":0,"end":12},"start":{"line":0,"column":0},"end":{"line":0,"column":12}},"style":"primary"}]}"#;
    assert_eq!(serde_json::to_string(&out["items"][0]).unwrap(), expected);
    assert_eq!(out["root_path"], "src/sub");
}

#[test]
fn max_results_and_truncated() {
    let ws = Workspace::contract();
    let out = ws.search(ts_const(json!({"max_results": 2}))).unwrap();
    assert_eq!(locations(&out), ["a.ts@0:0", "B/b.ts@0:0"]);
    assert_eq!(out["truncated"], true);
    // docs/compat.md, "truncated is also true when exactly max_results items exist": exactly max_results matches also count as truncated.
    let out = ws.search(ts_const(json!({"max_results": 5}))).unwrap();
    assert_eq!(
        (out["items"].as_array().unwrap().len(), &out["truncated"]),
        (5, &json!(true))
    );
    let out = ws
        .search(ts_const(json!({"max_results": 6, "timeout_ms": null})))
        .unwrap();
    assert_eq!(
        (out["items"].as_array().unwrap().len(), &out["truncated"]),
        (5, &json!(false))
    );
}

#[test]
fn root_path_and_globs() {
    let ws = Workspace::contract();
    let src = ["src/main.ts@0:0", "src/main.ts@1:0", "src/sub/x.ts@0:0"];
    let abs_src = format!("{}/src", ws.root);
    assert_eq!(ws.found(ts_const(json!({"root_path": abs_src}))), src);
    let out = ws
        .search(ts_const(
            json!({"root_path": format!("{}\\src\\", ws.root)}),
        ))
        .unwrap();
    assert_eq!(out["root_path"], "src");
    // ripgrep/gitignore globs relative to the workspace root (docs/compat.md, "Glob rules differ between the tools").
    assert_eq!(
        ws.found(ts_const(json!({"root_path": abs_src, "include": ["*.ts"]}))),
        src
    );
    assert_eq!(ws.found(ts_const(json!({"include": ["src/**"]}))), src);
    assert_eq!(ws.found(ts_const(json!({"include": ["src\\**"]}))), src);
    assert_eq!(
        ws.found(ts_const(json!({"exclude": ["src/sub/**"]}))),
        [
            "a.ts@0:0",
            "B/b.ts@0:0",
            "src/main.ts@0:0",
            "src/main.ts@1:0"
        ]
    );
    assert_eq!(ws.found(ts_const(json!({"exclude": ["sub/**"]}))).len(), 5);
    assert_eq!(
        ws.found(ts_const(json!({"exclude": ["x.ts", "b.ts"]})))
            .len(),
        3
    );
    // A later glob wins: the caller's include re-opens dist (the CLI's --globs order).
    assert_eq!(
        ws.found(ts_const(json!({"include": ["dist/**"]}))),
        ["dist/d.ts@0:0"]
    );
    assert_eq!(
        ws.found(ts_const(
            json!({"include": ["**/*.ts"], "exclude": ["**/*.ts"]})
        ))
        .len(),
        0
    );
}

#[test]
fn language_names_follow_ast_grep() {
    let ws = Workspace::contract();
    for name in ["  typescript ", "TypeScript", "ts", "TS"] {
        let out = ws
            .search(json!({"language": name, "rule": {"pattern": "const $A = $B"}}))
            .unwrap();
        assert_eq!(out["items"].as_array().unwrap().len(), 5, "{name}");
        assert_eq!(out["query"]["language"], name.trim());
    }
    let (code, message) =
        error(ws.search(json!({"language": "klingon", "rule": {"pattern": "x"}})));
    assert_eq!(code, "UNSUPPORTED_LANGUAGE");
    assert!(
        message.starts_with("UNSUPPORTED_LANGUAGE: Error: Cannot parse rule"),
        "{message}"
    );
    assert!(message.contains("untagged enum SgLang"), "{message}");
    assert!(message.contains("\"klingon\""), "{message}");
    // The language is checked before the rule, as the CLI reads the language line first.
    let (code, _) = error(ws.search(json!({"language": "klingon", "rule": {"bogus": 1}})));
    assert_eq!(code, "UNSUPPORTED_LANGUAGE");
}

#[test]
fn invalid_rules() {
    let ws = Workspace::contract();
    for (rule, cause) in [
        (json!({"bogus": 1}), "unknown field `bogus`"),
        (json!({"kind": null}), "Maybe field cannot be null."),
        (json!({}), "Rule must have one positive matcher."),
        (
            json!({"kind": "no_such_kind"}),
            "Kind `no_such_kind` is invalid.",
        ),
        (json!({"regex": "("}), "unclosed group"),
        (json!({"pattern": ""}), "No AST root is detected"),
        (json!({"pattern": 1}), "untagged enum PatternStyle"),
    ] {
        let (code, message) = error(ws.search(json!({"language": "ts", "rule": rule})));
        assert_eq!(code, "INVALID_RULE", "{rule}");
        assert!(
            message.starts_with("INVALID_RULE: Error: Cannot parse rule"),
            "{message}"
        );
        assert!(message.contains(cause), "{rule}: {message}");
    }
}

#[test]
fn validation_order_and_messages() {
    let ws = Workspace::contract();
    let cases = [
        (json!("x"), "input must be an object"),
        (json!([]), "input must be an object"),
        (json!({"rule": {}}), "language must be a non-empty string"),
        (
            json!({"language": " \n", "rule": {}}),
            "language must be a non-empty string",
        ),
        (
            json!({"language": 1, "rule": null}),
            "language must be a non-empty string",
        ),
        (json!({"language": "ts"}), "rule must be an object"),
        (
            json!({"language": "ts", "rule": null}),
            "rule must be an object",
        ),
        (
            json!({"language": "ts", "rule": []}),
            "rule must be an object",
        ),
        (
            json!({"language": "ts", "rule": "x"}),
            "rule must be an object",
        ),
        (
            json!({"language": "ts", "rule": {}, "root_path": " "}),
            "root_path must be a non-empty string",
        ),
        (
            json!({"language": "ts", "rule": {}, "root_path": 1, "include": 1}),
            "root_path must be a non-empty string",
        ),
        (
            json!({"language": "ts", "rule": {}, "include": null}),
            "include must be a string array",
        ),
        (
            json!({"language": "ts", "rule": {}, "include": "*.ts"}),
            "include must be a string array",
        ),
        (
            json!({"language": "ts", "rule": {}, "include": ["a", 1]}),
            "include[1] must be a string",
        ),
        (
            json!({"language": "ts", "rule": {}, "include": [""]}),
            "include must not contain empty pattern",
        ),
        (
            json!({"language": "ts", "rule": {}, "include": ["a\u{0}"]}),
            "include pattern must not contain null char",
        ),
        (
            json!({"language": "ts", "rule": {}, "include": ["a]["]}),
            "include pattern has unbalanced square brackets",
        ),
        (
            json!({"language": "ts", "rule": {}, "include": ["{a"]}),
            "include pattern has unbalanced braces",
        ),
        (
            json!({"language": "ts", "rule": {}, "include": ["ok"], "exclude": [1]}),
            "exclude[0] must be a string",
        ),
        (
            json!({"language": "ts", "rule": {}, "exclude": ["}"], "max_results": 0}),
            "exclude pattern has unbalanced braces",
        ),
        (
            json!({"language": "ts", "rule": {}, "max_results": 0, "timeout_ms": 0}),
            "max_results must be an integer between 1 and 500",
        ),
        (
            json!({"language": "ts", "rule": {}, "max_results": 501}),
            "max_results must be an integer between 1 and 500",
        ),
        (
            json!({"language": "ts", "rule": {}, "max_results": 1.5}),
            "max_results must be an integer between 1 and 500",
        ),
        (
            json!({"language": "ts", "rule": {}, "max_results": "2"}),
            "max_results must be an integer between 1 and 500",
        ),
        (
            json!({"language": "ts", "rule": {}, "timeout_ms": 30001}),
            "timeout_ms must be an integer between 1 and 30000",
        ),
        (
            json!({"language": "ts", "rule": {}, "timeout_ms": 0, "root_path": "/nope"}),
            "timeout_ms must be an integer between 1 and 30000",
        ),
    ];
    for (input, message) in cases {
        let (code, got) = error(ws.search(input.clone()));
        assert_eq!(code, "INVALID_ARGUMENT", "{input}");
        assert_eq!(got, format!("INVALID_ARGUMENT: {message}"), "{input}");
    }
    let bigint = ArgValue::Object(vec![
        ("language".into(), "ts".into()),
        (
            "rule".into(),
            ArgValue::Object(vec![("pattern".into(), ArgValue::Other("bigint"))]),
        ),
    ]);
    let rc = RunContext {
        ctx: &ws.ctx,
        confinement: None,
    };
    assert_eq!(
        run(&rc, &[bigint]).unwrap_err().message,
        "INVALID_ARGUMENT: rule must be JSON serializable"
    );
    // Validation comes before the root_path check, and root_path errors before the rule's.
    // Messages hold the normalised root_path: every `\` a `/`, on Windows too (docs/compat.md).
    let slashed = ws.root.replace('\\', "/");
    let (code, message) = error(ws.search(
        json!({"language": "klingon", "rule": {}, "root_path": format!("{}/nope", ws.root)}),
    ));
    assert_eq!(
        (code.as_str(), message),
        (
            "NOT_FOUND",
            format!("NOT_FOUND: root_path does not exist: {slashed}/nope")
        )
    );
    let (code, message) = error(ws.search(ts_const(
        json!({"root_path": format!("{}//a.ts/", ws.root)}),
    )));
    assert_eq!(
        (code.as_str(), message),
        (
            "NOT_DIRECTORY",
            format!("NOT_DIRECTORY: root_path is not a directory: {slashed}/a.ts")
        )
    );
}

#[test]
fn functions_in_the_rule_are_dropped_like_json_stringify() {
    let ws = Workspace::contract();
    let input = ArgValue::Object(vec![
        ("language".into(), "ts".into()),
        (
            "rule".into(),
            ArgValue::Object(vec![
                ("pattern".into(), "const $A = 6".into()),
                ("fn".into(), ArgValue::Function),
            ]),
        ),
    ]);
    let rc = RunContext {
        ctx: &ws.ctx,
        confinement: None,
    };
    let out: Value = serde_json::from_str(&run(&rc, &[input]).unwrap()).unwrap();
    assert_eq!(out["query"]["rule"], json!({"pattern": "const $A = 6"}));
    assert_eq!(locations(&out), ["a.ts@0:0"]);
}

#[test]
fn relational_kind_and_regex_rules() {
    let ws = Workspace::new(&[(
        "a.ts",
        "foo(foo(1));\nfunction f() { return foo(a, b, c); }\nconst greeting = 'hi';\n",
    )]);
    // Nested matches are all reported.
    assert_eq!(
        ws.found(json!({"language": "ts", "rule": {"pattern": "foo($A)"}})),
        ["a.ts@0:0", "a.ts@0:4"]
    );
    let out = ws
        .search(json!({"language": "ts", "rule": {"pattern": "foo($$$ARGS)", "inside": {"kind": "function_declaration", "stopBy": "end"}}}))
        .unwrap();
    assert_eq!(locations(&out), ["a.ts@1:22"]);
    let item = &out["items"][0];
    assert_eq!(item["text"], "foo(a, b, c)");
    let args: Vec<&str> = item["metaVariables"]["multi"]["ARGS"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["text"].as_str().unwrap())
        .collect();
    assert_eq!(args, ["a", ",", "b", ",", "c"]);
    // The relational rule's node is a secondary label.
    let styles: Vec<&str> = item["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["style"].as_str().unwrap())
        .collect();
    assert_eq!(styles, ["primary", "secondary"]);
    assert_eq!(
        item["labels"][1]["text"],
        "function f() { return foo(a, b, c); }"
    );
    assert_eq!(item["lines"], "function f() { return foo(a, b, c); }");
    assert_eq!(item["charCount"], json!({"leading": 22, "trailing": 3}));

    let out = ws
        .search(json!({"language": "ts", "rule": {"kind": "call_expression", "has": {"kind": "arguments", "has": {"pattern": "b"}}}}))
        .unwrap();
    assert_eq!(locations(&out), ["a.ts@1:22"]);
    assert!(out["items"][0]["metaVariables"]["single"]
        .as_object()
        .unwrap()
        .is_empty());
    let out = ws
        .search(json!({"language": "ts", "rule": {"kind": "identifier", "regex": "^gree"}}))
        .unwrap();
    assert_eq!(locations(&out), ["a.ts@2:6"]);
    // No meta variable at all: no metaVariables key (as the CLI prints).
    assert!(out["items"][0].get("metaVariables").is_none());
    assert_eq!(
        ws.found(json!({"language": "ts", "rule": {"kind": "lexical_declaration", "not": {"has": {"kind": "string", "stopBy": "end"}}}})),
        Vec::<String>::new()
    );
}

#[test]
fn rust_and_python() {
    let ws = Workspace::new(&[
        ("lib.rs", "fn main() {\n    let x = Some(1).unwrap();\n    println!(\"{}\", x);\n}\n"),
        ("tool.py", "def greet(name):\n    print(f\"hi {name}\")\n\nclass A:\n    def m(self):\n        print(1)\n"),
    ]);
    let out = ws
        .search(json!({"language": "rust", "rule": {"pattern": "$E.unwrap()"}}))
        .unwrap();
    assert_eq!(locations(&out), ["lib.rs@1:12"]);
    assert_eq!(out["items"][0]["language"], "Rust");
    assert_eq!(
        out["items"][0]["metaVariables"]["single"]["E"]["text"],
        "Some(1)"
    );
    assert_eq!(
        ws.found(json!({"language": "rs", "rule": {"kind": "macro_invocation"}})),
        ["lib.rs@2:4"]
    );
    let out = ws
        .search(json!({"language": "python", "rule": {"pattern": "print($X)", "inside": {"kind": "class_definition", "stopBy": "end"}}}))
        .unwrap();
    assert_eq!(locations(&out), ["tool.py@5:8"]);
    assert_eq!(out["items"][0]["language"], "Python");
    assert_eq!(
        ws.found(json!({"language": "py", "rule": {"kind": "function_definition", "has": {"field": "name", "regex": "^gr"}}})),
        ["tool.py@0:0"]
    );
}

#[test]
fn files_chosen_like_sg_scan() {
    let ws = Workspace::new(&[
        ("src/s.ts", "const s = 1;\n"),
        ("src/m.mts", "const m = 1;\n"),
        ("src/t.tsx", "const t = 1;\n"),
        ("src/j.js", "const j = 1;\n"),
        ("src/.dot.ts", "const dot = 1;\n"),
        (".hidden/h.ts", "const h = 1;\n"),
        ("sub/node_modules/n.ts", "const n = 1;\n"),
        ("node_modules/top.ts", "const top = 1;\n"),
        ("ign/g.ts", "const g = 1;\n"),
        (".gitignore", "ign/\n"),
        ("src/empty.ts", ""),
        ("src/with-nul.ts", "const z = 1;\u{0}\n"),
        ("src/uni.ts", "const u = \"é\"; const v = 2;\n"),
    ]);
    ws.write("src/bad.ts", b"const bad = \"\xff\";\n");
    let all = ws.found(ts_const(json!({})));
    // Outside a git repository .gitignore does not apply (ripgrep's rule); hidden directories
    // are skipped but a hidden file of the language's type is not; node_modules is only
    // excluded at the root; not UTF-8 and other languages skipped (symlinks: below).
    assert_eq!(
        all,
        [
            "ign/g.ts@0:0",
            "src/.dot.ts@0:0",
            "src/m.mts@0:0",
            "src/s.ts@0:0",
            "src/uni.ts@0:0",
            "src/uni.ts@0:15",
            "src/with-nul.ts@0:0",
            "sub/node_modules/n.ts@0:0",
        ]
    );
    fs::create_dir(format!("{}/.git", ws.root)).unwrap();
    assert!(!ws
        .found(ts_const(json!({})))
        .contains(&"ign/g.ts@0:0".to_string()));
    // A glob that matches beats ignore files, but only for what it matches: `ign/*.ts` does
    // not match the ignored directory, so it stays unvisited; `.hidden/**` likewise.
    assert_eq!(
        ws.found(ts_const(json!({"include": ["ign/*.ts"]}))),
        Vec::<String>::new()
    );
    assert_eq!(
        ws.found(ts_const(json!({"include": ["ign", "ign/*.ts"]}))),
        ["ign/g.ts@0:0"]
    );
    assert_eq!(
        ws.found(ts_const(json!({"include": [".hidden/**"]}))),
        Vec::<String>::new()
    );
    assert_eq!(
        ws.found(json!({"language": "tsx", "rule": {"pattern": "const $A = $B"}})),
        ["src/t.tsx@0:0"]
    );
    // Columns count characters, byte offsets bytes.
    let out = ws
        .search(ts_const(json!({"include": ["src/uni.ts"]})))
        .unwrap();
    assert_eq!(out["items"][1]["range"]["byteOffset"]["start"], 16);
    assert_eq!(out["items"][1]["range"]["start"]["column"], 15);
}

#[test]
#[cfg_attr(
    windows,
    ignore = "wine 8's CreateSymbolicLinkW is a stub (reports success, creates nothing): needs real Windows with the symlink privilege"
)]
fn symlinks_are_skipped_like_sg_scan() {
    let ws = Workspace::new(&[("src/s.ts", "const s = 1;\n")]);
    crate::sys::symlink(
        format!("{}/src/s.ts", ws.root),
        format!("{}/link.ts", ws.root),
    )
    .unwrap();
    crate::sys::symlink(format!("{}/src", ws.root), format!("{}/srclink", ws.root)).unwrap();
    for link in ["link.ts", "srclink"] {
        let meta = fs::symlink_metadata(format!("{}/{link}", ws.root)).unwrap();
        assert!(meta.file_type().is_symlink(), "{link}");
    }
    assert_eq!(ws.found(ts_const(json!({}))), ["src/s.ts@0:0"]);
}

#[test]
fn suppression_comments_and_html_scripts() {
    let ws = Workspace::new(&[
        ("a.js", "foo(1);\n// ast-grep-ignore\nfoo(2);\nfoo(3); // ast-grep-ignore: other-rule\n"),
        ("p.html", "<html><script>foo(5);</script>\n<script lang=\"ts\">foo(6);</script>\n<script>foo(7);</script></html>\n"),
    ]);
    let out = ws
        .search(json!({"language": "javascript", "rule": {"pattern": "foo($A)"}}))
        .unwrap();
    assert_eq!(
        locations(&out),
        ["a.js@0:0", "a.js@3:0", "p.html@0:14", "p.html@2:8"]
    );
    assert_eq!(out["items"][2]["language"], "JavaScript");
    assert_eq!(out["items"][2]["lines"], "<html><script>foo(5);</script>");
    assert_eq!(
        ws.found(json!({"language": "typescript", "rule": {"pattern": "foo($A)"}})),
        ["p.html@1:18"]
    );
    assert_eq!(
        ws.found(json!({"language": "html", "rule": {"kind": "script_element"}}))
            .len(),
        3
    );
}

#[test]
fn timeout() {
    let ws = Workspace::new(&[]);
    let body = "function f(a: number) { return [1, 2, 3].map((x) => x * a).filter(Boolean); }\n"
        .repeat(200);
    for i in 0..300 {
        ws.write(&format!("d{}/f{i}.ts", i % 10), body.as_bytes());
    }
    let started = Instant::now();
    let (code, message) = error(
        ws.search(json!({"language": "ts", "rule": {"pattern": "$A.map($F)"}, "timeout_ms": 1})),
    );
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("TIMEOUT", "TIMEOUT: search timed out")
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the deadline bounds the call"
    );
}

#[test]
fn file_types_of_a_language_and_its_hosts() {
    let ts = file_types(SupportLang::TypeScript);
    for (name, wanted) in [
        ("a.ts", true),
        ("a.mts", true),
        ("a.cts", true),
        ("a.html", true),
        ("a.tsx", false),
        ("a.js", false),
    ] {
        assert_eq!(ts.matched(name, false).is_whitelist(), wanted, "{name}");
    }
    let rust = file_types(SupportLang::Rust);
    assert!(rust.matched("lib.rs", false).is_whitelist());
    assert!(rust.matched("a.html", false).is_ignore());
}

#[test]
fn invalid_glob_is_internal() {
    let ws = Workspace::contract();
    let (code, message) = error(ws.search(ts_const(json!({"include": ["[z-a]"]}))));
    assert_eq!(code, "INTERNAL");
    assert!(message.contains("error parsing glob '[z-a]'"), "{message}");
}

#[test]
#[cfg_attr(
    windows,
    ignore = "wine 8's CreateSymbolicLinkW is a stub (reports success, creates nothing): needs real Windows with the symlink privilege"
)]
fn confinement_rechecks_the_root_and_the_files() {
    let outer = tempfile::tempdir().unwrap();
    let outside = outer
        .path()
        .canonicalize()
        .map(crate::sys::plain_path)
        .unwrap();
    fs::write(outside.join("secret.ts"), "const secret = 1;\n").unwrap();
    let ws = Workspace::contract();
    crate::sys::symlink(&outside, format!("{}/out", ws.root)).unwrap();
    let confinement = Confinement::new(&ws.root).unwrap();
    let (code, message) = error(ws.search_with(
        ts_const(json!({"root_path": format!("{}/out", ws.root)})),
        Some(confinement.clone()),
    ));
    assert_eq!(code, "INTERNAL");
    assert!(message.contains("[Sandbox Violation]"), "{message}");
    // Unconfined (the raw handler), a symlinked root is followed like `stat` does.
    assert_eq!(
        ws.found(ts_const(json!({"root_path": format!("{}/out", ws.root)}))),
        ["out/secret.ts@0:0"]
    );
    // Inside the workspace the confined search works as usual.
    let out = ws
        .search_with(ts_const(json!({})), Some(confinement))
        .unwrap();
    assert_eq!(out["items"].as_array().unwrap().len(), 5);
}

/// Patterns that nest thousands of levels deep or are huge are refused before ast-grep converts
/// them (its recursion overflowed the stack and ended the process); real patterns still work.
#[test]
fn oversized_and_deeply_nested_patterns_are_refused() {
    let ws = Workspace::contract();
    let rule = |pattern: String| json!({"language": "typescript", "rule": {"pattern": pattern}});
    let nested = format!("f({}1{})", "(".repeat(5000), ")".repeat(5000));
    let chained = vec!["a"; 5000].join(" + ");
    let huge = format!("const x = \"{}\"", "y".repeat(MAX_PATTERN_BYTES));
    for (what, input) in [
        ("nested", rule(nested)),
        ("chained", rule(chained)),
        ("huge", rule(huge)),
        (
            "nested in a relational rule",
            json!({"language": "typescript", "rule": {"kind": "call_expression",
                "has": {"pattern": {"context": format!("f({}1{})", "[".repeat(3000), "]".repeat(3000)), "selector": "call_expression"}}}}),
        ),
    ] {
        let (code, message) = error(ws.search(input));
        assert_eq!(code, "INVALID_ARGUMENT", "{what}: {message}");
        assert!(message.contains("rule pattern"), "{what}: {message}");
    }
    // Within the limits: a pattern nested 100 levels deep compiles and runs.
    let fine = format!("f({}1{})", "(".repeat(100), ")".repeat(100));
    ws.search(rule(fine)).unwrap();
}

#[test]
fn relational_rules_are_limited_in_depth_and_number() {
    let nest = |depth: usize| {
        let mut rule = json!({ "kind": "identifier" });
        for _ in 0..depth {
            rule = json!({ "kind": "identifier", "inside": rule });
        }
        rule
    };
    assert!(check_patterns(&nest(MAX_RELATIONAL_DEPTH), SupportLang::JavaScript).is_ok());
    let deep = check_patterns(&nest(MAX_RELATIONAL_DEPTH + 1), SupportLang::JavaScript);
    assert_eq!(
        deep.unwrap_err().message,
        "INVALID_ARGUMENT: rule nests relational rules (inside, has, precedes, follows) more than 6 levels deep"
    );
    let wide: Vec<_> = (0..=MAX_RELATIONAL_RULES)
        .map(|_| json!({ "has": { "kind": "identifier" } }))
        .collect();
    let many = check_patterns(&json!({ "all": wide }), SupportLang::JavaScript);
    assert_eq!(
        many.unwrap_err().message,
        "INVALID_ARGUMENT: rule holds more than 32 relational rules (inside, has, precedes, follows)"
    );
    // `has` as a plain field name elsewhere (a pattern's text) is not a rule.
    assert!(check_patterns(
        &json!({ "pattern": "has(inside)" }),
        SupportLang::JavaScript
    )
    .is_ok());
}
