//! The streaming side: one accumulator per provider. Each is fed the chunks (events) exactly as
//! the vendor SDK yields them, passes text deltas through as they arrive, and at the end rebuilds
//! the provider's non-streaming response and parses it with the same function as the
//! non-streaming path, so both give the same `QueryResult`.

use serde_json::Value;

use super::common::{Result, Turn};

pub trait StreamAccumulator {
    /// Feeds one chunk; returns the text it adds to the answer (`""` when none).
    fn push(&mut self, chunk: &Value) -> Result<String>;

    /// The provider's non-streaming response equivalent to everything fed so far.
    fn response(&self) -> Value;

    /// The provider's parse of a non-streaming response (its `from_response`).
    fn parse(&self, response: &Value) -> Result<Turn>;

    /// The turn of everything fed so far (callable at any time, also more than once): the
    /// equivalent response, parsed as the non-streaming path parses it.
    fn finish(&self) -> Result<Turn> {
        self.parse(&self.response())
    }
}
