//! Tool outputs as JSON text, numbers written as `JSON.stringify` writes them.

use serde::Serialize;

use crate::error::{ErrorClass, ToolError};

/// The output as JSON text; a serialisation failure is the tool's `INTERNAL` error.
pub(crate) fn to_json<T: Serialize>(
    value: &T,
    error_class: ErrorClass,
) -> Result<String, ToolError> {
    serde_json::to_string(value).map_err(|e| error_class.internal(e.to_string()))
}

/// An `f64` written as `JSON.stringify` writes it: integral values without a fraction (serde
/// writes `1.0`), so a tool's JSON text is exactly `JSON.stringify` of its parsed value.
pub(crate) fn js_number<S: serde::Serializer>(n: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    const SAFE: f64 = 9_007_199_254_740_991.0;
    if n.fract() == 0.0 && n.abs() <= SAFE {
        serializer.serialize_i64(*n as i64)
    } else {
        serializer.serialize_f64(*n)
    }
}
