//! What keeping parsed syntax trees between searches would cost and save: parses every file
//! with the given extension under a directory (the search walk's ignore rules), keeps all the
//! trees, and prints the resident memory they added per byte of source and per node, the time
//! to parse them, and the time to match a pattern against the kept trees.
//!
//! `cargo run --release -p agent-tools-core --example syntax_tree_memory -- <dir> [ext] [pattern]`

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Language, Pattern};
use ast_grep_language::SupportLang;
use std::time::Instant;

/// Resident memory of this process in bytes.
fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: syntax_tree_memory <dir> [ext] [pattern]");
        std::process::exit(2);
    };
    let ext = args.next().unwrap_or_else(|| "ts".into());
    let pattern = args
        .next()
        .unwrap_or_else(|| "const $A = nonexistent($B)".into());
    let sources: Vec<(String, SupportLang)> = ignore::WalkBuilder::new(&dir)
        .build()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| *x == *ext))
        .filter_map(|e| {
            let lang = SupportLang::from_path(e.path())?;
            Some((std::fs::read_to_string(e.path()).ok()?, lang))
        })
        .collect();
    let Some(&(_, lang)) = sources.first() else {
        eprintln!("no .{ext} file under {dir}");
        std::process::exit(1);
    };
    let source_bytes: usize = sources.iter().map(|(s, _)| s.len()).sum();

    let before = resident_bytes();
    let started = Instant::now();
    let mut nodes = 0;
    let trees: Vec<AstGrep<StrDoc<SupportLang>>> = sources
        .iter()
        .filter_map(|(source, lang)| {
            let tree = AstGrep::doc(StrDoc::try_new(source, *lang).ok()?);
            nodes += tree.root().get_inner_node().descendant_count();
            Some(tree)
        })
        .collect();
    let parse_time = started.elapsed();
    let added = resident_bytes().saturating_sub(before) as f64;

    let matcher = Pattern::new(&pattern, lang);
    let started = Instant::now();
    let matches: usize = trees
        .iter()
        .map(|t| t.root().find_all(&matcher).count())
        .sum();
    let match_time = started.elapsed();

    let mib = |bytes: f64| bytes / f64::from(1 << 20);
    println!(
        "{} .{ext} files, {:.1} MiB of source, {nodes} nodes",
        trees.len(),
        mib(source_bytes as f64)
    );
    println!(
        "kept trees (with their copy of the source): {:.1} MiB resident, {:.1} bytes per source byte, {:.0} bytes per node",
        mib(added),
        added / source_bytes as f64,
        (added - source_bytes as f64) / nodes as f64
    );
    println!(
        "parse all: {parse_time:.2?}; match `{pattern}` in the kept trees: {match_time:.2?} ({matches} matches)"
    );
}
