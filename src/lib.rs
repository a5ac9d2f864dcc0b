pub mod binding;
pub mod core;
