//! The crate's top-level modules (src/*.rs and src/*/) must not import each other in a circle:
//! each layer builds on the ones below it only. Reads the sources: a module depends on another
//! when its non-test code names `crate::<other>` (or `super::<other>` from the module's own
//! top level). Comments, `#[cfg(test)]` modules and `tests.rs` (`*_tests.rs`) files are left
//! out, since tests may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Edges of a circle that is known and being removed elsewhere: each must still exist (delete
/// it from here once it is gone).
const KNOWN: &[(&str, &str)] = &[];

/// The source without comments and without `#[cfg(test)]` modules (from the attribute to the
/// next `}` at column 0, which closes a top-level item in rustfmt's layout).
fn non_test_code(source: &str) -> String {
    let mut out = String::new();
    let mut in_block_comment = false;
    let mut skipping_test_module = false;
    let mut lines = source.lines().peekable();
    while let Some(line) = lines.next() {
        if skipping_test_module {
            if line == "}" {
                skipping_test_module = false;
            }
            continue;
        }
        if line == "#[cfg(test)]" && lines.peek().is_some_and(|next| next.starts_with("mod ")) {
            let declaration = lines.next().unwrap_or_default();
            skipping_test_module = declaration.ends_with('{');
            continue;
        }
        let mut rest = line;
        loop {
            if in_block_comment {
                match rest.find("*/") {
                    Some(end) => {
                        rest = &rest[end + 2..];
                        in_block_comment = false;
                    }
                    None => break,
                }
            } else {
                let line_comment = rest.find("//");
                let block_comment = rest.find("/*");
                match (line_comment, block_comment) {
                    (Some(l), Some(b)) if b < l => {
                        out.push_str(&rest[..b]);
                        rest = &rest[b + 2..];
                        in_block_comment = true;
                    }
                    (None, Some(b)) => {
                        out.push_str(&rest[..b]);
                        rest = &rest[b + 2..];
                        in_block_comment = true;
                    }
                    (Some(l), _) => {
                        out.push_str(&rest[..l]);
                        break;
                    }
                    (None, None) => {
                        out.push_str(rest);
                        break;
                    }
                }
            }
        }
        out.push('\n');
    }
    out
}

/// The names that follow `prefix` as path segments (`prefix` preceded by no identifier
/// character).
fn names_after<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    assert!(!prefix.is_empty());
    let mut names = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(prefix) {
        let start = from + at;
        from = start + prefix.len();
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let tail = &code[from..];
        let end = tail
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        names.push(&tail[..end]);
    }
    names
}

/// Every `.rs` file under `dir` (a module's directory `depth` levels below src/) with the
/// depth of its module: src/x/mod.rs is module `x` (1), src/x/y.rs module `x::y` (2).
fn rust_files(dir: &Path, depth: usize, out: &mut Vec<(std::path::PathBuf, usize)>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, depth + 1, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let own_level = path.file_name().is_some_and(|n| n == "mod.rs");
            out.push((path, if own_level { depth } else { depth + 1 }));
        }
    }
}

fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = BTreeSet::new();
    for entry in fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() || (path.extension().is_some_and(|e| e == "rs") && stem != "lib") {
            modules.insert(stem);
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for module in &modules {
        let edges = graph.entry(module.clone()).or_default();
        let mut files = Vec::new();
        let dir = src.join(module);
        // A module is src/x.rs, src/x/mod.rs, or src/x.rs with its submodules in src/x/.
        if dir.is_dir() {
            rust_files(&dir, 1, &mut files);
        }
        let file = src.join(format!("{module}.rs"));
        if file.is_file() {
            files.push((file, 1));
        }
        for (file, depth) in files {
            // Test-only files: tests.rs, and windows_tests.rs and the like.
            if file
                .file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with("tests.rs"))
            {
                continue;
            }
            let code = non_test_code(&fs::read_to_string(&file).unwrap());
            let up_to_root = "super::".repeat(depth);
            let named = names_after(&code, "crate::")
                .into_iter()
                .chain(names_after(&code, &up_to_root));
            for name in named {
                if name != module && modules.contains(name) {
                    edges.insert(name.to_owned());
                }
            }
        }
    }
    graph
}

/// A circle in `graph`, if any, as the modules along it (the first one repeated at the end).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        graph: &BTreeMap<String, BTreeSet<String>>,
        node: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in &graph[node] {
            if let Some(cycle) = visit(graph, next, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(graph, node, &mut Vec::new(), &mut done))
}

#[test]
fn the_top_level_modules_import_each_other_in_no_circle() {
    let mut graph = module_graph();
    for (from, to) in KNOWN {
        assert!(
            graph.get_mut(*from).is_some_and(|edges| edges.remove(*to)),
            "{from} no longer imports {to}: remove the edge from KNOWN"
        );
    }
    if let Some(cycle) = find_cycle(&graph) {
        panic!("module circle: {}", cycle.join(" → "));
    }
}

#[test]
fn the_reader_sees_imports_and_skips_comments_and_tests() {
    let code = non_test_code(
        "use crate::a::X; // crate::b\n/* crate::c */ use super::d;\n\
         fn f() { crate::e::g() }\n#[cfg(test)]\nmod tests {\n    use crate::h;\n}\n\
         use crate::i;\nlet s = cancrate::j;\n",
    );
    assert_eq!(names_after(&code, "crate::"), ["a", "e", "i"]);
    assert_eq!(names_after(&code, "super::"), ["d"]);
    assert_eq!(
        find_cycle(&BTreeMap::from([
            ("a".into(), BTreeSet::from(["b".into()])),
            ("b".into(), BTreeSet::from(["c".into()])),
            ("c".into(), BTreeSet::from(["a".into()])),
        ])),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(
        find_cycle(&BTreeMap::from([
            ("a".into(), BTreeSet::from(["b".into()])),
            ("b".into(), BTreeSet::new()),
        ])),
        None
    );
}

/// The rows of the core's module map in docs/architecture.md, from the bottom layer up: the
/// top-level modules each row's first cell names (`name.rs`, `name/`).
fn documented_layers() -> Vec<Vec<String>> {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/architecture.md");
    let text = fs::read_to_string(doc).unwrap();
    let table = text
        .split("Core (`crates/agent-tools-core/src/`):")
        .nth(1)
        .expect("the core's module map");
    let mut layers = Vec::new();
    for line in table.lines().skip_while(|l| !l.starts_with('|')) {
        if !line.starts_with('|') {
            break;
        }
        let first = line.split('|').nth(1).unwrap_or_default();
        let names: Vec<String> = first
            .split('`')
            .skip(1)
            .step_by(2)
            .filter_map(|n| {
                n.strip_suffix(".rs")
                    .or_else(|| n.strip_suffix('/'))
                    .map(str::to_owned)
            })
            .collect();
        if !names.is_empty() {
            layers.push(names);
        }
    }
    layers
}

#[test]
fn the_module_map_lists_every_module_in_the_order_of_its_imports() {
    let graph = module_graph();
    let layers = documented_layers();
    let layer_of: BTreeMap<&str, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(i, row)| row.iter().map(move |m| (m.as_str(), i)))
        .collect();
    let listed: BTreeSet<&str> = layer_of.keys().copied().collect();
    let actual: BTreeSet<&str> = graph.keys().map(String::as_str).collect();
    assert_eq!(
        listed, actual,
        "docs/architecture.md's core map and src/ differ"
    );
    let mut wrong = Vec::new();
    for (module, edges) in &graph {
        for to in edges {
            if layer_of[to.as_str()] >= layer_of[module.as_str()] {
                wrong.push(format!(
                    "{module} imports {to}, which the map lists at or after it"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
