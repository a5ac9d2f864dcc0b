//! Test helpers: golden fixtures (`fixtures/*.json`) and result normalisation.

use serde_json::Value;

use super::common::{Mapped, RequestInput, Result, Turn};
use super::stream::StreamAccumulator;

/// A fixture file of `src/fixtures/`.
pub fn fixture(name: &str) -> Value {
    let path = format!("{}/src/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Replaces ids we invented (`call_` + 24 hex digits) by `"<synthetic>"`, everywhere.
pub fn normalise(mut value: Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k == "id" {
                        if let Value::String(s) = x {
                            if is_synthetic(s) {
                                *x = Value::String("<synthetic>".into());
                            }
                        }
                    }
                    walk(x);
                }
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut value);
    value
}

fn is_synthetic(id: &str) -> bool {
    id.strip_prefix("call_").is_some_and(|h| {
        h.len() == 24
            && h.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    })
}

/// The normalised `QueryResult` JSON of a parse.
pub fn result_of(turn: Result<Turn>) -> Value {
    normalise(turn.expect("parse failed").to_json())
}

/// Feeds every chunk; returns the concatenated text deltas and the normalised result.
pub fn stream_result(mut acc: impl StreamAccumulator, chunks: &Value) -> (String, Value) {
    let mut text = String::new();
    for chunk in chunks.as_array().expect("chunks") {
        text.push_str(&acc.push(chunk).expect("push failed"));
    }
    (text, result_of(acc.finish()))
}

/// A request fixture: its `input`, mapped by `to_request`, is its `expected`, with no warnings.
pub fn assert_request_fixture(name: &str, to_request: fn(&RequestInput) -> Result<Mapped>) {
    let f = fixture(name);
    let mapped = to_request(&RequestInput::parse(&f["input"]).unwrap()).unwrap();
    assert_eq!(mapped.value, f["expected"], "{name}");
    assert!(mapped.warnings.is_empty(), "{name}: {:?}", mapped.warnings);
}

/// An answer fixture: its `response` parsed whole and its `stream` fed chunk by chunk both give
/// `expected`, and the stream's text deltas are its content.
pub fn assert_answer_fixture(
    name: &str,
    from_response: fn(&Value) -> Result<Turn>,
    stream: impl StreamAccumulator,
) {
    let f = fixture(name);
    assert_eq!(
        result_of(from_response(&f["response"])),
        f["expected"],
        "{name}"
    );
    let (text, result) = stream_result(stream, &f["stream"]);
    assert_eq!(result, f["expected"], "{name}");
    assert_eq!(text, f["expected"]["content"], "{name}");
}
