//! write_file (docs/tools/write_file.md), made atomic: the content goes to a temporary file in the
//! target's directory which then replaces the target by rename, so a crash leaves the old or the
//! new content, never a mix. The existing file's mode is kept.

use std::fs;
use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::{non_blank_string, string};
use super::input::{tool_input, ToolInput};
use super::{nul_path_message, to_json, workspace_root};
use crate::atomic_write::{open_parent, replace_atomically};
use crate::context::RunContext;
use crate::error::{is_not_found, node_io_message, ErrorClass, ErrorCode, ToolError};
use crate::paths::workspace_relative;
use crate::sandbox::real_path;
use crate::value::ArgValue;

pub const ERROR_CLASS: ErrorClass = ErrorClass("WriteFileError");

// write_file's input: `write_file(path, content)`.
#[tool_input(
    name = "write_file",
    description = "Writes UTF-8 text to a file in the workspace. Use this for full content writes or creating new files.",
    effect = Write,
    class = ERROR_CLASS,
    output = WriteFileOutput,
    handler = Worker(run),
    shape = PathAndField
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct WriteFileInput {
    #[arg(check = non_blank_string, review)]
    #[schemars(description = "Workspace-root-relative file path to write.")]
    pub path: String,
    #[arg(check = string, review)]
    #[schemars(description = "Full UTF-8 file content to write.")]
    pub content: String,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct WriteFileOutput {
    pub path: String,
    pub created: bool,
    pub bytes_written: u64,
    /// With `syntaxCheck: "report"`: the syntax errors the change added (empty when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub diagnostics: Option<Vec<crate::syntax_check::Diagnostic>>,
}

fn internal(e: &std::io::Error, syscall: &str, path: &str) -> ToolError {
    ERROR_CLASS.coded(ErrorCode::Internal, node_io_message(e, syscall, path))
}

/// The handler: parses its arguments, then `write`s.
pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    write(rc, WriteFileInput::from_args(args, rc.ctx)?)
}

pub fn write(rc: &RunContext, input: WriteFileInput) -> Result<String, ToolError> {
    let (path, content) = (input.path.as_str(), input.content.as_str());
    let root = workspace_root(rc, ERROR_CLASS)?;
    if path.contains('\0') {
        return Err(ERROR_CLASS.coded(ErrorCode::Internal, nul_path_message(path)));
    }

    let existed = match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            return Err(
                ERROR_CLASS.coded(ErrorCode::NotFile, format!("path is a directory: {path}"))
            )
        }
        Ok(meta) => meta.file_type().is_file(),
        Err(e) if is_not_found(&e) => false,
        Err(e) => return Err(internal(&e, "lstat", path)),
    };
    let parent = Path::new(path).parent().unwrap_or(Path::new("/"));
    // the syntax check and the journal look before anything is written: a refused content
    // leaves no directory behind, and the journal learns which directories the call creates
    let before_writing = |at: &Path| -> Result<(), ToolError> {
        rc.check_syntax(at, None, content.as_bytes(), ERROR_CLASS)?;
        rc.before_change(at)
    };
    let parent_existed = parent.is_dir();
    if !parent_existed {
        before_writing(Path::new(path))?;
    }
    match &rc.confinement {
        Some(confinement) => confinement.create_dir_all(parent),
        None => fs::create_dir_all(parent),
    }
    .map_err(|e| {
        if e.raw_os_error() == Some(crate::sys::Errno::XDEV.raw_os_error()) {
            ERROR_CLASS.outside_workspace(path)
        } else {
            internal(&e, "mkdir", &parent.to_string_lossy())
        }
    })?;

    // Write through a final symlink, as upstream does: the target is the link's real path.
    let target = real_path(Path::new(path)).map_err(|e| internal(&e, "open", path))?;
    if target.is_dir() {
        return Err(internal(
            &std::io::Error::from_raw_os_error(crate::sys::Errno::ISDIR.raw_os_error()),
            "open",
            path,
        ));
    }
    if target.file_name().is_none() {
        return Err(ERROR_CLASS.coded(ErrorCode::NotFile, format!("path is a directory: {path}")));
    }
    let (dir, file_name) = open_parent(&target).map_err(|e| {
        let dir_path = target.parent().unwrap_or(Path::new("/"));
        internal(&e, "open", &dir_path.to_string_lossy())
    })?;
    // A confined call that finds its target outside after the path check (a swapped symlink).
    rc.confine(&dir, path, ERROR_CLASS)?;
    let mode = fs::metadata(&target)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| crate::sys::permission_bits(&m));
    if parent_existed {
        before_writing(&target)?;
    }
    replace_atomically(&dir, file_name, content.as_bytes(), mode)
        .map_err(|e| internal(&e, "open", path))?;
    rc.wrote(&target, content.as_bytes());

    to_json(
        &WriteFileOutput {
            path: workspace_relative(root, path),
            created: !existed,
            bytes_written: content.len() as u64,
            diagnostics: None,
        },
        ERROR_CLASS,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ToolContext;
    use serde_json::{json, Value};
    #[cfg(unix)]
    use std::os::unix::fs::PermissionsExt;

    fn setup() -> (tempfile::TempDir, ToolContext) {
        super::super::temp_workspace()
    }

    fn write(ctx: &ToolContext, path: &str, content: ArgValue) -> Result<Value, ToolError> {
        let rc = RunContext {
            ctx,
            confinement: None,
        };
        run(&rc, &[path.into(), content]).map(|s| serde_json::from_str(&s).unwrap())
    }

    #[test]
    fn creates_parents_then_overwrites() {
        let (_d, ctx) = setup();
        let root = ctx.workspace_root.clone().unwrap();
        let p = format!("{root}/a/b/c.txt");
        assert_eq!(
            write(&ctx, &p, "héllo".into()).unwrap(),
            json!({"path": "a/b/c.txt", "created": true, "bytes_written": 6})
        );
        assert_eq!(fs::read_to_string(&p).unwrap(), "héllo");
        assert_eq!(
            write(&ctx, &p, "".into()).unwrap(),
            json!({"path": "a/b/c.txt", "created": false, "bytes_written": 0})
        );
        assert_eq!(fs::read_to_string(&p).unwrap(), "");
        assert_eq!(
            write(&ctx, &p, "😀\r\n".into()).unwrap()["bytes_written"],
            6
        );
        let leftovers: Vec<_> = fs::read_dir(format!("{root}/a/b")).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
    }

    #[test]
    fn errors_follow_the_contract() {
        let (_d, ctx) = setup();
        let root = ctx.workspace_root.clone().unwrap();
        assert_eq!(
            write(&ctx, &root, "x".into()).unwrap_err().message,
            format!("NOT_FILE: path is a directory: {root}")
        );
        assert_eq!(
            write(&ctx, &format!("{root}/n.txt"), ArgValue::Number(5.0))
                .unwrap_err()
                .message,
            "INVALID_ARGUMENT: content must be a string"
        );
        assert_eq!(
            write(&ctx, &format!("{root}/n.txt"), ArgValue::Null)
                .unwrap_err()
                .code,
            "INVALID_ARGUMENT"
        );
        // A regular file in the way of a parent directory is INTERNAL with Node's message: on
        // Unix the lstat of the path fails (ENOTDIR); Windows reports a file used as a directory
        // as a missing path, so the lstat finds nothing and the parent's creation fails as
        // Node's recursive mkdir does over a file (EEXIST; docs/compat.md).
        let afile = Path::new(&root).join("afile");
        fs::write(&afile, "x").unwrap();
        let below = afile.join("x.txt");
        let e = write(&ctx, &below.to_string_lossy(), "y".into()).unwrap_err();
        assert_eq!(e.code, "INTERNAL");
        let expected = if cfg!(windows) {
            format!(
                "INTERNAL: EEXIST: file already exists, mkdir '{}'",
                afile.display()
            )
        } else {
            format!(
                "INTERNAL: ENOTDIR: not a directory, lstat '{}'",
                below.display()
            )
        };
        assert_eq!(e.message, expected);
        assert_eq!(fs::read_to_string(&afile).unwrap(), "x", "the file is kept");
    }

    #[cfg(unix)] // Unix permission bits
    #[test]
    fn keeps_mode_and_writes_through_symlinks() {
        let (_d, ctx) = setup();
        let root = ctx.workspace_root.clone().unwrap();
        let p = format!("{root}/script.sh");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o750)).unwrap();
        write(&ctx, &p, "new".into()).unwrap();
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o750
        );
        crate::sys::symlink("script.sh", format!("{root}/link")).unwrap();
        let out = write(&ctx, &format!("{root}/link"), "via link".into()).unwrap();
        assert_eq!(out["created"], true, "a symlink counts as not existing");
        assert!(fs::symlink_metadata(format!("{root}/link"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&p).unwrap(), "via link");
        fs::create_dir(format!("{root}/d")).unwrap();
        crate::sys::symlink("d", format!("{root}/dlink")).unwrap();
        assert_eq!(
            write(&ctx, &format!("{root}/dlink"), "x".into())
                .unwrap_err()
                .message,
            format!("INTERNAL: EISDIR: illegal operation on a directory, open '{root}/dlink'")
        );
    }

    #[test]
    fn trailing_slash_path_creates_a_file() {
        let (_d, ctx) = setup();
        let root = ctx.workspace_root.clone().unwrap();
        // the sandbox resolves "newdir/" to "<root>/newdir"
        let out = write(&ctx, &format!("{root}/newdir"), "x".into()).unwrap();
        assert_eq!(out["path"], "newdir");
        assert!(fs::metadata(format!("{root}/newdir")).unwrap().is_file());
    }
}
