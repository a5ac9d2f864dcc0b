//! Errors a caller can see. Tool errors carry upstream's error class name (`ReadFileError`,
//! ...), its code and its exact message; the binding turns them into JavaScript `Error`s.

use std::io;

/// Every code a tool error or an `InvokeToolError` carries (its JavaScript `code` property).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    // tool errors
    Internal,
    InvalidArgument,
    NotFound,
    NotFile,
    NotDirectory,
    SizeLimitExceeded,
    FileTooLarge,
    BinaryNotSupported,
    ApplyFailed,
    InvalidRegex,
    InvalidRule,
    UnsupportedLanguage,
    Timeout,
    StateNotInitialized,
    CommandNotFound,
    NotGitRepository,
    /// exec_command with `context.exec.sandbox: "required"` where the OS cannot enforce it.
    SandboxUnavailable,
    Ambiguous,
    StaleRead,
    /// The process tools: an unknown (or finished and reported) `process_id` ...
    ProcessNotFound,
    /// ... too many processes running in the context ...
    TooManyProcesses,
    /// ... a write after stdin was closed ...
    StdinClosed,
    /// ... and a terminal where none can be given.
    TtyUnsupported,
    /// The syntax check in reject mode: the change adds syntax errors.
    SyntaxError,
    /// The undo journal: no such checkpoint ...
    CheckpointNotFound,
    /// ... its contents were pruned ...
    CheckpointPruned,
    /// ... a content it needs was not kept (a file over the bound) ...
    CheckpointNotRestorable,
    /// ... a file changed outside the journal since ...
    CheckpointConflict,
    /// ... or the journal does not hold what it names.
    CheckpointCorrupt,
    // `InvokeToolError`s (`InvokeToolErrorCode` in the typings)
    ToolNotFound,
    ToolNotAllowed,
    InvalidToolArgumentsType,
    // refusals (`DenialCode` in the typings): the code of a denied call in a `toolkit.tools`
    // result envelope and in the command line's and MCP server's errors; never a thrown error's
    PolicyDenied,
    WriteScopeDenied,
    SandboxViolation,
    /// A permission rule denies the call (`crate::permissions`).
    PermissionDenied,
    /// A permission rule says ask, and nobody could be asked.
    ApprovalRequired,
}

impl ErrorCode {
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::NotFile => "NOT_FILE",
            ErrorCode::NotDirectory => "NOT_DIRECTORY",
            ErrorCode::SizeLimitExceeded => "SIZE_LIMIT_EXCEEDED",
            ErrorCode::FileTooLarge => "FILE_TOO_LARGE",
            ErrorCode::BinaryNotSupported => "BINARY_NOT_SUPPORTED",
            ErrorCode::ApplyFailed => "APPLY_FAILED",
            ErrorCode::InvalidRegex => "INVALID_REGEX",
            ErrorCode::InvalidRule => "INVALID_RULE",
            ErrorCode::UnsupportedLanguage => "UNSUPPORTED_LANGUAGE",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::StateNotInitialized => "STATE_NOT_INITIALIZED",
            ErrorCode::CommandNotFound => "COMMAND_NOT_FOUND",
            ErrorCode::NotGitRepository => "NOT_GIT_REPOSITORY",
            ErrorCode::SandboxUnavailable => "SANDBOX_UNAVAILABLE",
            ErrorCode::Ambiguous => "AMBIGUOUS",
            ErrorCode::StaleRead => "STALE_READ",
            ErrorCode::ProcessNotFound => "PROCESS_NOT_FOUND",
            ErrorCode::TooManyProcesses => "TOO_MANY_PROCESSES",
            ErrorCode::StdinClosed => "STDIN_CLOSED",
            ErrorCode::TtyUnsupported => "TTY_UNSUPPORTED",
            ErrorCode::SyntaxError => "SYNTAX_ERROR",
            ErrorCode::CheckpointNotFound => "CHECKPOINT_NOT_FOUND",
            ErrorCode::CheckpointPruned => "CHECKPOINT_PRUNED",
            ErrorCode::CheckpointNotRestorable => "CHECKPOINT_NOT_RESTORABLE",
            ErrorCode::CheckpointConflict => "CHECKPOINT_CONFLICT",
            ErrorCode::CheckpointCorrupt => "CHECKPOINT_CORRUPT",
            ErrorCode::ToolNotFound => "TOOL_NOT_FOUND",
            ErrorCode::ToolNotAllowed => "TOOL_NOT_ALLOWED",
            ErrorCode::InvalidToolArgumentsType => "INVALID_TOOL_ARGUMENTS_TYPE",
            ErrorCode::PolicyDenied => "POLICY_DENIED",
            ErrorCode::WriteScopeDenied => "WRITE_SCOPE_DENIED",
            ErrorCode::SandboxViolation => "SANDBOX_VIOLATION",
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::ApprovalRequired => "APPROVAL_REQUIRED",
        }
    }

    /// The codes of an `InvokeToolError`: the typings' `InvokeToolErrorCode`, in its order.
    /// `INTERNAL` stays a member although the checks of `invoke` never give it (docs/compat.md).
    pub const INVOKE_TOOL_ERRORS: [ErrorCode; 4] = [
        ErrorCode::InvalidToolArgumentsType,
        ErrorCode::ToolNotFound,
        ErrorCode::ToolNotAllowed,
        ErrorCode::Internal,
    ];

    /// The code of a refused call by its reason: the typings' `DenialCodeByReason`. A
    /// `toolkit.tools` result names the policy and sandbox reasons only (a write-scope refusal is a
    /// sandbox one there); the command line and MCP server name all three.
    pub const DENIALS: [(&'static str, ErrorCode); 5] = [
        ("policy", ErrorCode::PolicyDenied),
        ("scope", ErrorCode::WriteScopeDenied),
        ("sandbox", ErrorCode::SandboxViolation),
        ("permission", ErrorCode::PermissionDenied),
        ("approval", ErrorCode::ApprovalRequired),
    ];
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Why a call was refused, carried as data from the check (or tool) that refused it to the
/// caller, so that nobody has to read it back out of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The tool policy (`[Security Policy] Access denied for tool: ...`).
    Policy,
    /// The write scope (`[Sandbox Violation] Write operation denied. ...`).
    Scope,
    /// A path outside the workspace (`[Sandbox Violation] Attempted to access path outside ...`).
    Sandbox,
    /// A permission rule denies the call (`crate::permissions`).
    Permission,
    /// A permission rule asks for approval, and the call came without it.
    Approval,
}

impl Reason {
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::Policy => "policy",
            Reason::Scope => "scope",
            Reason::Sandbox => "sandbox",
            Reason::Permission => "permission",
            Reason::Approval => "approval",
        }
    }
}

/// An error thrown by a tool handler.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// The JavaScript error class name, e.g. `ReadFileError`.
    pub class_name: &'static str,
    pub code: ErrorCode,
    /// The full message, e.g. `NOT_FOUND: path not found: /ws/x`.
    pub message: String,
    /// Set when the tool refused the call: a path it found outside the workspace.
    pub reason: Option<Reason>,
    /// Structured facts beside the message, set as properties of the JavaScript error
    /// (`diagnostics` of a `SYNTAX_ERROR`, `files` of a `CHECKPOINT_CONFLICT`).
    pub details: Option<Box<serde_json::Value>>,
    /// Where the text starts in `message`: after the `"<CODE>: "` of the coded form, 0 in the
    /// bare form (for callers that show the code and the text apart).
    pub text_at: usize,
}

/// The message of a path outside the workspace, quoting the path as given.
pub fn outside_workspace_message(path: &str) -> String {
    format!("[Sandbox Violation] Attempted to access path outside of workspace: \"{path}\"")
}

/// A tool's error class (`ReadFileError`, ...): the one way tools make their errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorClass(pub &'static str);

impl ErrorClass {
    /// The usual message form `"<CODE>: <text>"`.
    pub fn coded(self, code: ErrorCode, text: impl AsRef<str>) -> ToolError {
        ToolError {
            class_name: self.0,
            code,
            message: format!("{code}: {}", text.as_ref()),
            reason: None,
            details: None,
            text_at: code.as_str().len() + 2,
        }
    }

    /// apply_patch's form: the text alone, no code prefix.
    pub fn bare(self, code: ErrorCode, text: impl Into<String>) -> ToolError {
        ToolError {
            class_name: self.0,
            code,
            message: text.into(),
            reason: None,
            details: None,
            text_at: 0,
        }
    }

    /// `INVALID_ARGUMENT: <text>`.
    pub fn invalid(self, text: impl AsRef<str>) -> ToolError {
        self.coded(ErrorCode::InvalidArgument, text)
    }

    /// `INTERNAL: <text>`.
    pub fn internal(self, text: impl AsRef<str>) -> ToolError {
        self.coded(ErrorCode::Internal, text)
    }

    /// `INTERNAL: [Sandbox Violation] ...`: the tool found `path` outside the workspace
    /// (`reason: Sandbox`).
    pub fn outside_workspace(self, path: &str) -> ToolError {
        self.internal(outside_workspace_message(path))
            .refused(Reason::Sandbox)
    }
}

impl ToolError {
    /// This error, marked as a refusal for `reason`.
    pub fn refused(self, reason: Reason) -> ToolError {
        ToolError {
            reason: Some(reason),
            ..self
        }
    }

    /// This error as one of `class` (a check shared between tools, reported as the caller's).
    pub fn in_class(self, class: ErrorClass) -> ToolError {
        ToolError {
            class_name: class.0,
            ..self
        }
    }

    /// The message without the code in front of it.
    pub fn text(&self) -> &str {
        self.message.get(self.text_at..).unwrap_or(&self.message)
    }

    /// This error with `details` (an object whose fields become the error's properties).
    pub fn with_details(self, details: serde_json::Value) -> ToolError {
        ToolError {
            details: Some(Box::new(details)),
            ..self
        }
    }
}

/// Node's wording for a failed fs call: `ENOTDIR: not a directory, lstat '/ws/a.txt/x'`.
pub fn node_io_message(err: &io::Error, syscall: &str, path: &str) -> String {
    match err.raw_os_error().map(crate::sys::Errno::from_raw_os_error) {
        Some(errno) => {
            let (code, text) = errno_words(errno);
            format!("{code}: {text}, {syscall} '{path}'")
        }
        None => format!("{err}, {syscall} '{path}'"),
    }
}

/// libuv's error names and descriptions for the errors a file tool can meet.
fn errno_words(errno: crate::sys::Errno) -> (String, String) {
    use crate::sys::Errno as E;
    let known: &[(E, &str, &str)] = &[
        (E::NOENT, "ENOENT", "no such file or directory"),
        (E::NOTDIR, "ENOTDIR", "not a directory"),
        (E::ISDIR, "EISDIR", "illegal operation on a directory"),
        (E::ACCESS, "EACCES", "permission denied"),
        (E::PERM, "EPERM", "operation not permitted"),
        (E::LOOP, "ELOOP", "too many symbolic links encountered"),
        (E::NAMETOOLONG, "ENAMETOOLONG", "name too long"),
        (E::EXIST, "EEXIST", "file already exists"),
        (E::NOSPC, "ENOSPC", "no space left on device"),
        (E::ROFS, "EROFS", "read-only file system"),
        (E::MFILE, "EMFILE", "too many open files"),
        (E::NFILE, "ENFILE", "file table overflow"),
        (E::INVAL, "EINVAL", "invalid argument"),
        (E::BUSY, "EBUSY", "resource busy or locked"),
        (E::XDEV, "EXDEV", "cross-device link not permitted"),
        (E::IO, "EIO", "i/o error"),
        (E::NXIO, "ENXIO", "no such device or address"),
        (E::TXTBSY, "ETXTBSY", "text file is busy"),
        (E::NOTEMPTY, "ENOTEMPTY", "directory not empty"),
    ];
    match known.iter().find(|(e, _, _)| *e == errno) {
        Some((_, code, text)) => (code.to_string(), text.to_string()),
        None => {
            let io_err = io::Error::from_raw_os_error(errno.raw_os_error());
            (format!("E{}", errno.raw_os_error()), io_err.to_string())
        }
    }
}

/// True for `ENOENT`.
pub fn is_not_found(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::NotFound
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_follow_node() {
        let err = io::Error::from_raw_os_error(crate::sys::Errno::NOTDIR.raw_os_error());
        assert_eq!(
            node_io_message(&err, "lstat", "/ws/a.txt/x"),
            "ENOTDIR: not a directory, lstat '/ws/a.txt/x'"
        );
        let err = io::Error::from_raw_os_error(crate::sys::Errno::ISDIR.raw_os_error());
        assert_eq!(
            node_io_message(&err, "open", "/ws/d"),
            "EISDIR: illegal operation on a directory, open '/ws/d'"
        );
    }

    #[test]
    fn coded_and_bare_forms() {
        let e = ErrorClass("ReadFileError").coded(ErrorCode::NotFound, "path not found: /ws/x");
        assert_eq!(e.message, "NOT_FOUND: path not found: /ws/x");
        assert_eq!(e.code, "NOT_FOUND");
        let e = ErrorClass("ApplyPatchError").bare(ErrorCode::NotFound, "file not found: /ws/x");
        assert_eq!(e.message, "file not found: /ws/x");
    }
}
