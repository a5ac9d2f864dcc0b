//! read_file (docs/tools/read_file.md): a line window of a UTF-8 text file.

use std::borrow::Cow;
use std::fs;
use std::io::Read;

use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::{integer_in, non_blank_string};
use super::input::{tool_input, ToolInput};
use super::{nul_path_message, read_sized, to_json, workspace_root};
use crate::context::RunContext;
use crate::error::{is_not_found, node_io_message, ErrorClass, ErrorCode, ToolError};
use crate::paths::workspace_relative;
use crate::value::ArgValue;

pub const ERROR_CLASS: ErrorClass = ErrorClass("ReadFileError");
const SIZE_LIMIT: u64 = 1024 * 1024;
const BINARY_SNIFF_BYTES: usize = 8192;
/// The defaults of the options (in the definition and in `from_args`).
const DEFAULT_START_LINE: u32 = 1;
const DEFAULT_MAX_LINES: u32 = 200;

// read_file's input: `read_file(path, options?)`.
#[tool_input(
    name = "read_file",
    description = "Reads a UTF-8 text file in the workspace and returns a line-limited content window.",
    effect = Read,
    class = ERROR_CLASS,
    output = ReadFileOutput,
    handler = Bounded(run),
    shape = PathAndOptions
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ReadFileInput {
    #[arg(check = non_blank_string)]
    #[schemars(description = "Workspace-root-relative file path to read (e.g., \"src/main.ts\").")]
    pub path: String,
    #[arg(flatten)]
    pub options: ReadFileOptions,
}

// read_file's `options`, defaults applied.
#[tool_input]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ReadFileOptions {
    #[arg(check = integer_in(1.0..=f64::MAX), default = DEFAULT_START_LINE)]
    #[schemars(description = "1-based start line of the returned window (default: 1).")]
    pub start_line: f64,
    #[arg(check = integer_in(1.0..=500.0), default = DEFAULT_MAX_LINES)]
    #[schemars(description = "Maximum number of lines to return (default: 200).")]
    pub max_lines: f64,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ReadFileOutput {
    pub path: String,
    pub content: String,
    pub truncated: bool,
    pub next_start_line: Option<u64>,
    pub meta: ReadFileMeta,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ReadFileMeta {
    pub byte_length: u64,
    pub line_count: u64,
    pub returned_line_count: u64,
    #[serde(serialize_with = "super::js_number")]
    pub mtime_ms: f64,
}

/// The handler: parses its arguments, then `read`s.
pub fn run(
    rc: &RunContext,
    args: &[ArgValue],
    inline_limit: Option<u64>,
) -> Result<Option<String>, ToolError> {
    read(rc, ReadFileInput::from_args(args, rc.ctx)?, inline_limit)
}

/// With `inline_limit`, gives up (`Ok(None)`) before reading a file larger than that.
pub fn read(
    rc: &RunContext,
    input: ReadFileInput,
    inline_limit: Option<u64>,
) -> Result<Option<String>, ToolError> {
    let path = input.path.as_str();
    let ReadFileOptions {
        start_line,
        max_lines,
    } = input.options;
    let root = workspace_root(rc, ERROR_CLASS)?;

    let Some((bytes, meta)) = read_checked(rc, path, inline_limit)? else {
        return Ok(None);
    };
    if let Some(reads) = &rc.ctx.reads {
        reads.record(std::path::Path::new(path), &bytes);
    }
    let text = match std::str::from_utf8(&bytes) {
        Ok(valid) => Cow::Borrowed(valid),
        Err(_) => String::from_utf8_lossy(&bytes),
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let normalised = if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    };
    let start_line = start_line as usize;
    let (window, line_count, end) = line_window(&normalised, start_line, max_lines as usize);
    let truncated = end < line_count;
    let output = ReadFileOutput {
        path: workspace_relative(root, path),
        content: window.to_string(),
        truncated,
        next_start_line: truncated.then_some(end as u64 + 1),
        meta: ReadFileMeta {
            byte_length: meta.len(),
            line_count: line_count as u64,
            returned_line_count: end.saturating_sub(start_line - 1) as u64,
            mtime_ms: {
                let (secs, nanos) = crate::sys::mtime(&meta);
                secs as f64 * 1000.0 + nanos as f64 / 1e6
            },
        },
    };
    to_json(&output, ERROR_CLASS).map(Some)
}

/// Lines `start_line..start_line + max_lines` (1-based) of `text` split at `\n`, joined back:
/// `(window, line count, index after the window's last line)`. An empty text has no lines.
fn line_window(text: &str, start_line: usize, max_lines: usize) -> (&str, usize, usize) {
    let line_count = if text.is_empty() {
        0
    } else {
        memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1
    };
    let start = start_line - 1;
    if start >= line_count {
        return ("", line_count, start);
    }
    let end = line_count.min(start.saturating_add(max_lines));
    let mut newlines = memchr::memchr_iter(b'\n', text.as_bytes());
    let from = match start {
        0 => 0,
        _ => newlines.nth(start - 1).map_or(text.len(), |at| at + 1),
    };
    let to = if end == line_count {
        text.len()
    } else {
        newlines.nth(end - start - 1).unwrap_or(text.len())
    };
    (&text[from..to], line_count, end)
}

/// Upstream's checks (lstat, regular file, size, binary sniff), then the bytes. The file is
/// opened without following a final symlink and checked through its descriptor, so what is read
/// is exactly what was checked; a confined call also verifies where the descriptor really is.
/// `None` when the file is larger than `inline_limit`.
fn read_checked(
    rc: &RunContext,
    path: &str,
    inline_limit: Option<u64>,
) -> Result<Option<(Vec<u8>, fs::Metadata)>, ToolError> {
    if path.contains('\0') {
        return Err(ERROR_CLASS.coded(ErrorCode::Internal, nul_path_message(path)));
    }
    let link_meta = fs::symlink_metadata(path).map_err(|e| {
        if is_not_found(&e) {
            ERROR_CLASS.coded(ErrorCode::NotFound, format!("path not found: {path}"))
        } else {
            ERROR_CLASS.coded(ErrorCode::Internal, node_io_message(&e, "lstat", path))
        }
    })?;
    let not_a_file =
        || ERROR_CLASS.coded(ErrorCode::NotFile, format!("path is not a file: {path}"));
    if !link_meta.file_type().is_file() {
        return Err(not_a_file());
    }
    let mut file = crate::sys::with_flags(
        fs::OpenOptions::new().read(true),
        crate::sys::fs::OFlags::NOFOLLOW | crate::sys::fs::OFlags::NONBLOCK,
    )
    .open(path)
    .map_err(|e| {
        if is_not_found(&e) {
            ERROR_CLASS.coded(ErrorCode::NotFound, format!("path not found: {path}"))
        } else if e.raw_os_error() == Some(crate::sys::Errno::LOOP.raw_os_error()) {
            not_a_file()
        } else {
            ERROR_CLASS.coded(ErrorCode::Internal, node_io_message(&e, "open", path))
        }
    })?;
    let meta = file
        .metadata()
        .map_err(|e| ERROR_CLASS.coded(ErrorCode::Internal, node_io_message(&e, "fstat", path)))?;
    if !meta.file_type().is_file() {
        return Err(not_a_file());
    }
    rc.confine(&file, path, ERROR_CLASS)?;
    if meta.len() > SIZE_LIMIT {
        return Err(ERROR_CLASS.coded(
            ErrorCode::SizeLimitExceeded,
            format!("file size exceeds 1 MiB limit: {path}"),
        ));
    }
    if inline_limit.is_some_and(|limit| meta.len() > limit) {
        return Ok(None);
    }
    let bytes = read_sized(&mut (&mut file).take(SIZE_LIMIT), meta.len())
        .map_err(|e| ERROR_CLASS.coded(ErrorCode::Internal, node_io_message(&e, "read", path)))?;
    let sniff = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)];
    if sniff.contains(&0) {
        return Err(ERROR_CLASS.coded(
            ErrorCode::BinaryNotSupported,
            format!("binary file is not supported: {path}"),
        ));
    }
    Ok(Some((bytes, meta)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ToolContext;
    use serde_json::{json, Value};

    struct Ws {
        dir: tempfile::TempDir,
        ctx: ToolContext,
    }

    fn ws() -> Ws {
        let (dir, ctx) = super::super::temp_workspace();
        Ws { ctx, dir }
    }

    impl Ws {
        fn root(&self) -> String {
            self.ctx.workspace_root.clone().unwrap()
        }
        fn write(&self, name: &str, bytes: &[u8]) -> String {
            let p = format!("{}/{name}", self.root());
            fs::write(&p, bytes).unwrap();
            p
        }
        fn read(&self, path: &str, options: Value) -> Result<Value, ToolError> {
            let rc = RunContext {
                ctx: &self.ctx,
                confinement: None,
            };
            run(&rc, &[path.into(), ArgValue::from(&options)], None)
                .map(|s| serde_json::from_str(&s.unwrap()).unwrap())
        }
    }

    #[test]
    fn line_window_matches_split_and_join() {
        for text in [
            "",
            "a",
            "a\n",
            "\n",
            "a\nb",
            "a\nb\n",
            "\n\nx\n\n",
            "one\ntwo\nthree",
        ] {
            let lines: Vec<&str> = if text.is_empty() {
                vec![]
            } else {
                text.split('\n').collect()
            };
            for start_line in 1..=7 {
                for max_lines in 1..=7 {
                    let start = start_line - 1;
                    let end = lines.len().min(start + max_lines).max(start);
                    let expected = if start >= lines.len() {
                        String::new()
                    } else {
                        lines[start..end].join("\n")
                    };
                    let (window, count, window_end) = line_window(text, start_line, max_lines);
                    assert_eq!(
                        (window, count, window_end),
                        (expected.as_str(), lines.len(), end),
                        "{text:?} {start_line} {max_lines}"
                    );
                }
            }
        }
    }

    #[test]
    fn inline_limit_gives_up_only_on_larger_files() {
        let w = ws();
        let rc = RunContext {
            ctx: &w.ctx,
            confinement: None,
        };
        let small = w.write("small.txt", b"0123456789");
        let big = w.write("big.txt", &[b'x'; 11]);
        let inline = |p: &str| run(&rc, &[p.into()], Some(10));
        assert!(inline(&small).unwrap().is_some());
        assert!(inline(&big).unwrap().is_none());
        let missing = format!("{}/missing.txt", w.root());
        assert_eq!(inline(&missing).unwrap_err().code, "NOT_FOUND");
    }

    #[test]
    fn windows_and_line_endings() {
        let w = ws();
        let p = w.write("a.txt", b"a\r\nb\r\nc");
        let out = w.read(&p, json!({})).unwrap();
        assert_eq!(out["content"], "a\nb\nc");
        assert_eq!(out["meta"]["line_count"], 3);
        assert_eq!(out["next_start_line"], Value::Null);
        assert_eq!(out["path"], "a.txt");

        let p = w.write("b.txt", b"a\nb\n");
        assert_eq!(w.read(&p, json!({})).unwrap()["content"], "a\nb\n");
        let out = w
            .read(&p, json!({"start_line": 3, "max_lines": 1}))
            .unwrap();
        assert_eq!(
            (
                out["content"].clone(),
                out["meta"]["returned_line_count"].clone()
            ),
            (json!(""), json!(1))
        );
        let out = w.read(&p, json!({"start_line": 4})).unwrap();
        assert_eq!(out["meta"]["returned_line_count"], 0);
        let out = w
            .read(&p, json!({"start_line": 1, "max_lines": 2}))
            .unwrap();
        assert_eq!(
            (
                out["content"].clone(),
                out["truncated"].clone(),
                out["next_start_line"].clone()
            ),
            (json!("a\nb"), json!(true), json!(3))
        );

        let p = w.write("c.txt", b"a\rb\r\nc\n");
        assert_eq!(w.read(&p, json!({})).unwrap()["content"], "a\rb\nc\n");
        let p = w.write("bom.txt", b"\xEF\xBB\xBFa\nb");
        let out = w.read(&p, json!({})).unwrap();
        assert_eq!(
            (out["content"].clone(), out["meta"]["byte_length"].clone()),
            (json!("a\nb"), json!(6))
        );
        let p = w.write("bad.txt", b"a\xFF\xFEb");
        assert_eq!(
            w.read(&p, json!({})).unwrap()["content"],
            "a\u{FFFD}\u{FFFD}b"
        );
        let p = w.write("empty.txt", b"");
        assert_eq!(w.read(&p, json!({})).unwrap()["meta"]["line_count"], 0);
    }

    #[test]
    fn default_window_is_200_lines() {
        let w = ws();
        let text: Vec<String> = (1..=250).map(|i| format!("line-{i}")).collect();
        let p = w.write("n.txt", text.join("\n").as_bytes());
        let out = w.read(&p, json!(null)).unwrap_err();
        assert_eq!(
            out.message,
            "INTERNAL: null is not an object (evaluating 'options.start_line')"
        );
        let out = w
            .read(&p, json!({"start_line": null, "max_lines": null}))
            .unwrap();
        assert_eq!(out["meta"]["returned_line_count"], 200);
        assert_eq!(out["next_start_line"], 201);
        let out = w
            .read(&p, json!({"start_line": 5, "max_lines": 3}))
            .unwrap();
        assert_eq!(out["content"], "line-5\nline-6\nline-7");
    }

    #[test]
    fn validation_messages() {
        let w = ws();
        for bad in [json!(0), json!(1.5), json!("2"), json!(-1)] {
            assert_eq!(
                w.read("/nope", json!({"start_line": bad}))
                    .unwrap_err()
                    .message,
                "INVALID_ARGUMENT: start_line must be an integer >= 1"
            );
        }
        assert_eq!(
            w.read("/nope", json!({"max_lines": 501}))
                .unwrap_err()
                .message,
            "INVALID_ARGUMENT: max_lines must be an integer between 1 and 500"
        );
        let rc = RunContext {
            ctx: &w.ctx,
            confinement: None,
        };
        assert_eq!(
            run(&rc, &["  ".into()], None).unwrap_err().message,
            "INVALID_ARGUMENT: path must be a non-empty string"
        );
    }

    #[test]
    #[cfg_attr(
        windows,
        ignore = "wine 8's CreateSymbolicLinkW is a stub (reports success, creates nothing): needs real Windows with the symlink privilege"
    )]
    fn file_checks() {
        let w = ws();
        let root = w.root();
        assert_eq!(
            w.read(&format!("{root}/missing"), json!({}))
                .unwrap_err()
                .message,
            format!("NOT_FOUND: path not found: {root}/missing")
        );
        assert_eq!(
            w.read(&root, json!({})).unwrap_err().message,
            format!("NOT_FILE: path is not a file: {root}")
        );
        let target = w.write("t.txt", b"x");
        crate::sys::symlink(&target, format!("{root}/link.txt")).unwrap();
        assert_eq!(
            w.read(&format!("{root}/link.txt"), json!({}))
                .unwrap_err()
                .code,
            "NOT_FILE"
        );
        let big = w.write("big.txt", &vec![b'a'; 1024 * 1024]);
        assert!(w.read(&big, json!({})).is_ok());
        let bigger = w.write("bigger.txt", &vec![b'a'; 1024 * 1024 + 1]);
        assert_eq!(
            w.read(&bigger, json!({})).unwrap_err().code,
            "SIZE_LIMIT_EXCEEDED"
        );
        let mut bin = vec![b'a'; 9000];
        bin[8191] = 0;
        let p = w.write("bin", &bin);
        assert_eq!(
            w.read(&p, json!({})).unwrap_err().code,
            "BINARY_NOT_SUPPORTED"
        );
        bin[8191] = b'a';
        bin[8500] = 0;
        let p = w.write("late-nul", &bin);
        assert!(w.read(&p, json!({})).is_ok());
        let err = w.read(&format!("{target}/x"), json!({})).unwrap_err();
        assert_eq!(
            err.message,
            format!("INTERNAL: ENOTDIR: not a directory, lstat '{target}/x'")
        );
        let _ = &w.dir;
    }

    #[test]
    fn confined_read_refuses_descriptor_outside_root() {
        let w = ws();
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.txt");
        fs::write(&secret, "s").unwrap();
        let mut ctx = w.ctx.clone();
        let inner = format!("{}/inner", w.root());
        fs::create_dir(&inner).unwrap();
        ctx.workspace_root = Some(inner.clone());
        let rc = RunContext {
            ctx: &ctx,
            confinement: Some(crate::sandbox::Confinement::new(&inner).unwrap()),
        };
        let err = run(&rc, &[secret.to_string_lossy().as_ref().into()], None).unwrap_err();
        assert!(err.message.contains("Sandbox Violation"), "{}", err.message);
    }
}
