//! The pure-Rust core: no napi types below this module. Everything here is testable with
//! `cargo test`; the binding only converts values and errors.

pub mod collation;
pub mod context;
pub mod error;
pub mod glob;
pub mod invoke;
pub mod paths;
pub mod policy;
pub mod registry;
pub mod sandbox;
pub mod tools;
pub mod typegen;
pub mod value;
