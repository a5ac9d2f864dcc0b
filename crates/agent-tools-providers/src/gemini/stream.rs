//! The stream accumulator: whole `functionCall` parts, and Vertex's `partialArgs` fragments
//! assembled into arguments.

use super::*;

/// A call assembled from `partialArgs` fragments.
#[derive(Debug, Default, Clone)]
struct PartialCall {
    name: Option<String>,
    id: Option<String>,
    args: Value,
    signature: Option<Value>,
    /// The path of a string value that continues in the next fragment.
    open_string: Option<String>,
}

impl PartialCall {
    fn part(&self) -> Value {
        let mut call = json!({"name": self.name.clone().unwrap_or_default(), "args": self.args});
        if let Some(id) = &self.id {
            call["id"] = json!(id);
        }
        let mut part = json!({"functionCall": call});
        if let Some(sig) = &self.signature {
            part["thoughtSignature"] = sig.clone();
        }
        part
    }
}

/// One step of a `partialArgs` JSON path.
enum Step {
    Key(String),
    Index(usize),
}

/// `$.a.b[0]`, `$['a']["b"]` → steps (`None` for a path we cannot read).
fn path_steps(path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('$').unwrap_or(path);
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            steps.push(Step::Key(r[..end].to_string()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            let inner = &r[..end];
            let quoted = inner
                .strip_prefix('\'')
                .and_then(|i| i.strip_suffix('\''))
                .or_else(|| inner.strip_prefix('"').and_then(|i| i.strip_suffix('"')));
            match quoted {
                Some(key) => steps.push(Step::Key(key.to_string())),
                None => steps.push(Step::Index(inner.parse().ok()?)),
            }
            rest = &r[end + 1..];
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            steps.push(Step::Key(rest[..end].to_string()));
            rest = &rest[end..];
        }
    }
    Some(steps)
}

/// Sets (or, for a continued string, appends to) the value at `steps`.
fn set_at(root: &mut Value, steps: &[Step], value: Value, append: bool) {
    let Some((last, parents)) = steps.split_last() else {
        *root = value;
        return;
    };
    let mut node = root;
    for (i, step) in parents.iter().enumerate() {
        let next_is_index = matches!(steps[i + 1], Step::Index(_));
        let empty = || if next_is_index { json!([]) } else { json!({}) };
        node = match step {
            Step::Key(k) => {
                if !node.is_object() {
                    *node = json!({});
                }
                let map = node.as_object_mut().expect("object");
                let child = map.entry(k.clone()).or_insert_with(empty);
                if child.is_null() {
                    *child = empty();
                }
                child
            }
            Step::Index(i) => {
                if !node.is_array() {
                    *node = json!([]);
                }
                let list = node.as_array_mut().expect("array");
                if list.len() <= *i {
                    list.resize(*i + 1, Value::Null);
                }
                if list[*i].is_null() {
                    list[*i] = empty();
                }
                &mut list[*i]
            }
        };
    }
    let slot = match last {
        Step::Key(k) => {
            if !node.is_object() {
                *node = json!({});
            }
            node.as_object_mut()
                .expect("object")
                .entry(k.clone())
                .or_insert(Value::Null)
        }
        Step::Index(i) => {
            if !node.is_array() {
                *node = json!([]);
            }
            let list = node.as_array_mut().expect("array");
            if list.len() <= *i {
                list.resize(*i + 1, Value::Null);
            }
            &mut list[*i]
        }
    };
    match (append, slot.as_str(), value.as_str()) {
        (true, Some(old), Some(more)) => *slot = json!(format!("{old}{more}")),
        _ => *slot = value,
    }
}

/// Accumulates `GenerateContentResponse` chunks of `generateContentStream`.
#[derive(Debug, Default)]
pub struct Stream {
    parts: Vec<Value>,
    pending: Option<PartialCall>,
    finish_reason: Option<Value>,
    finish_message: Option<Value>,
    usage: Option<Value>,
    prompt_feedback: Option<Value>,
    seen_candidate: bool,
}

impl Stream {
    pub fn new() -> Stream {
        Stream::default()
    }

    fn close_pending(&mut self) {
        if let Some(pending) = self.pending.take() {
            self.parts.push(pending.part());
        }
    }

    /// A `functionCall` part that is a fragment of a call streamed with `partialArgs`.
    fn partial(&mut self, part: &Value) {
        let call = &part["functionCall"];
        if let Some(pending) = &self.pending {
            let new_name = text_of(call, "name")
                .is_some_and(|n| pending.name.as_deref().is_some_and(|p| p != n));
            if new_name
                || call.get("args").is_some_and(Value::is_object)
                    && pending.args.as_object().is_some_and(|a| !a.is_empty())
            {
                self.close_pending();
            }
        }
        let pending = self.pending.get_or_insert_with(|| PartialCall {
            args: json!({}),
            ..Default::default()
        });
        if let Some(name) = text_of(call, "name") {
            pending.name = Some(name.to_string());
        }
        if let Some(id) = text_of(call, "id") {
            pending.id = Some(id.to_string());
        }
        if let Some(sig) = part.get("thoughtSignature").filter(|s| s.is_string()) {
            pending.signature = Some(sig.clone());
        }
        if let Some(Value::Object(args)) = call.get("args") {
            for (k, v) in args {
                pending.args[k] = v.clone();
            }
        }
        for fragment in items(call, "partialArgs") {
            let Some(path) = text_of(fragment, "jsonPath") else {
                continue;
            };
            let value = if let Some(s) = fragment.get("stringValue").filter(|v| v.is_string()) {
                s.clone()
            } else if let Some(n) = fragment.get("numberValue").filter(|v| v.is_number()) {
                n.clone()
            } else if let Some(b) = fragment.get("boolValue").filter(|v| v.is_boolean()) {
                b.clone()
            } else {
                Value::Null
            };
            let append = pending.open_string.as_deref() == Some(path) && value.is_string();
            if let Some(steps) = path_steps(path) {
                set_at(&mut pending.args, &steps, value, append);
            }
            pending.open_string =
                (fragment.get("willContinue") == Some(&json!(true))).then(|| path.to_string());
        }
        if call.get("willContinue") != Some(&json!(true)) {
            self.close_pending();
        }
    }
}

impl StreamAccumulator for Stream {
    fn push(&mut self, chunk: &Value) -> Result<String> {
        if !chunk.is_object() {
            return Err(invalid("a generateContent chunk must be an object"));
        }
        if let Some(u) = chunk.get("usageMetadata").filter(|u| u.is_object()) {
            self.usage = Some(u.clone());
        }
        if let Some(f) = chunk.get("promptFeedback").filter(|f| f.is_object()) {
            self.prompt_feedback = Some(f.clone());
        }
        let Some(candidate) = items(chunk, "candidates").first() else {
            return Ok(String::new());
        };
        self.seen_candidate = true;
        let mut text = String::new();
        for part in items(&candidate["content"], "parts") {
            let call = &part["functionCall"];
            let fragment = call.is_object()
                && (call.get("partialArgs").is_some()
                    || call.get("willContinue") == Some(&json!(true))
                    || self.pending.is_some());
            if fragment {
                self.partial(part);
                continue;
            }
            if part.get("thought") != Some(&json!(true)) && !call.is_object() {
                if let Some(t) = text_of(part, "text") {
                    text.push_str(t);
                }
            }
            self.parts.push(part.clone());
        }
        if let Some(reason) = candidate.get("finishReason").filter(|r| r.is_string()) {
            self.finish_reason = Some(reason.clone());
        }
        if let Some(message) = candidate.get("finishMessage").filter(|m| m.is_string()) {
            self.finish_message = Some(message.clone());
        }
        Ok(text)
    }

    fn response(&self) -> Value {
        let mut parts = self.parts.clone();
        if let Some(pending) = &self.pending {
            parts.push(pending.part());
        }
        let mut response = json!({"candidates": []});
        if self.seen_candidate {
            let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
            if let Some(r) = &self.finish_reason {
                candidate["finishReason"] = r.clone();
            }
            if let Some(m) = &self.finish_message {
                candidate["finishMessage"] = m.clone();
            }
            response["candidates"] = json!([candidate]);
        }
        if let Some(u) = &self.usage {
            response["usageMetadata"] = u.clone();
        }
        if let Some(f) = &self.prompt_feedback {
            response["promptFeedback"] = f.clone();
        }
        response
    }

    fn parse(&self, response: &Value) -> Result<Turn> {
        from_response(response)
    }
}
