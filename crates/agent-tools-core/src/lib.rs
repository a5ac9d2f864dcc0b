#![doc = include_str!("../README.md")]
//!
//! No napi types in this crate: everything is testable with `cargo test`, and the napi binding
//! (the `agent_tools_native` crate at the repository's root) only converts values and errors.
//! The `portable-unix` feature (above) builds the macOS implementations on Linux, for tests.

pub mod atomic_write;
pub mod cancel;
pub mod checkpoints;
pub mod collation;
pub mod command_journal;
/// Windows only: the pseudo console (ConPTY) of the process tools' terminals.
#[cfg(windows)]
pub mod conpty;
pub mod context;
pub mod error;
pub mod exec_sandbox;
mod file_read;
pub mod git;
pub mod glob;
pub mod invoke;
/// Windows only: the Job Object of a command's tree.
#[cfg(windows)]
pub mod job;
pub mod output_cache;
pub mod paths;
pub mod permissions;
pub mod policy;
pub mod process;
pub mod processes;
pub mod registry;
pub mod sandbox;
pub mod search_cache;
/// Unix only: Windows has no fork, no `waitid` and no process groups; its runner puts the command
/// in a Job Object instead (`process`).
#[cfg(unix)]
pub mod supervisor;
pub mod syntax_check;
pub mod sys;
pub mod test_hooks;
pub mod thread_priority;
pub mod toolkit;
pub mod tools;
#[cfg(feature = "typegen")]
pub mod tstype;
/// The TypeScript declarations of the tools (types/tools.d.ts), from the Rust types: the
/// `typegen` feature (default); the addon builds without it, so ts-rs is not in its binary.
#[cfg(feature = "typegen")]
pub mod typegen;
pub mod value;
pub mod windows_path;

pub use context::ToolContext;
pub use error::{ErrorCode, ToolError};
pub use toolkit::{InvokeError, Toolkit};
