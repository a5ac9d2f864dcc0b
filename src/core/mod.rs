//! The pure-Rust core: no napi types below this module. Everything here is testable with
//! `cargo test`; the binding only converts values and errors.

pub mod atomic;
pub mod cancel;
pub mod collation;
pub mod context;
pub mod error;
pub mod fault;
pub mod gitapply;
pub mod glob;
pub mod invoke;
pub mod output_cache;
pub mod paths;
pub mod policy;
pub mod process;
pub mod providers;
pub mod registry;
pub mod sandbox;
pub mod tools;
pub mod typegen;
pub mod value;
