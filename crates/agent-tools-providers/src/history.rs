//! History checks and call ids per provider.
//!
//! - `check`: finds unpaired calls and results before a request is sent, with each provider's
//!   pairing rule. OpenAI Chat, Anthropic, Gemini and Ollama need every call of an assistant
//!   message answered by the tool messages directly after it (Anthropic: the next user message;
//!   Gemini: as many function responses as calls); the Responses API pairs a
//!   `function_call_output` with any earlier `function_call` of the same `call_id`.
//! - `provider_call_id`: the id a provider accepts. Ids that already fit are kept; others get a
//!   stable alias (`[A-Za-z0-9_-]`, a hash suffix, at most 40 characters for OpenAI Chat and 64
//!   elsewhere), the same on the call and on its result, so pairs stay paired.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Map, Value};

use super::common::{is_plain_name, ChatMessage, Provider};

/// The longest call id a provider accepts.
fn max_id_len(provider: Provider) -> usize {
    match provider {
        Provider::OpenAIChat => 40,
        _ => 64,
    }
}

/// 32-bit FNV-1a: a stable, dependency-free hash for id aliases.
fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5, |hash, b| {
        (hash ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The id sent to `provider` for a call id (the id itself when it already fits).
pub fn provider_call_id(id: &str, provider: Provider) -> String {
    let max = max_id_len(provider);
    if is_plain_name(id, max) {
        return id.to_string();
    }
    let cleaned: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(max - 9)
        .collect();
    format!("{cleaned}_{:08x}", fnv1a(id))
}

/// `{ providerId: originalId }` for every call id of the history that `provider` gets as an alias.
pub fn id_map(messages: &[ChatMessage], provider: Provider) -> Value {
    let mut map = Map::new();
    let ids = messages.iter().flat_map(|m| match m {
        ChatMessage::Assistant { tool_calls, .. } => {
            tool_calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>()
        }
        ChatMessage::Tool { tool_call_id, .. } => vec![tool_call_id.as_str()],
        _ => Vec::new(),
    });
    for id in ids {
        let alias = provider_call_id(id, provider);
        if alias != id {
            map.insert(alias, json!(id));
        }
    }
    Value::Object(map)
}

/// One problem of a history.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// `unanswered_call`, `orphan_result`, `duplicate_result`, `duplicate_call_id`, `name_mismatch`.
    pub kind: &'static str,
    pub message_index: usize,
    pub tool_call_id: String,
    pub message: String,
}

impl Problem {
    pub fn to_json(&self) -> Value {
        json!({
            "kind": self.kind,
            "messageIndex": self.message_index,
            "toolCallId": self.tool_call_id,
            "message": self.message,
        })
    }
}

/// Every pairing problem of `messages` for `provider`, in message order; empty when the history
/// can be sent.
pub fn check(messages: &[ChatMessage], provider: Provider) -> Vec<Problem> {
    let mut problems = duplicate_ids(messages);
    if provider == Provider::OpenAIResponses {
        problems.extend(check_anywhere(messages));
    } else {
        problems.extend(check_adjacent(messages, provider));
    }
    problems.sort_by_key(|p| p.message_index);
    problems
}

fn duplicate_ids(messages: &[ChatMessage]) -> Vec<Problem> {
    let mut seen = HashSet::new();
    let mut problems = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if let ChatMessage::Assistant { tool_calls, .. } = message {
            for call in tool_calls {
                if !seen.insert(call.id.as_str()) {
                    problems.push(Problem {
                        kind: "duplicate_call_id",
                        message_index: index,
                        tool_call_id: call.id.clone(),
                        message: format!("message {index}: the call id {:?} is used by an earlier call too; call ids must be unique", call.id),
                    });
                }
            }
        }
    }
    problems
}

/// OpenAI Chat, Anthropic, Gemini, Ollama: the results of an assistant message's calls are the
/// tool messages right after it, one per call.
fn check_adjacent(messages: &[ChatMessage], provider: Provider) -> Vec<Problem> {
    let names_matter = matches!(provider, Provider::Gemini | Provider::Ollama);
    let mut problems = Vec::new();
    let mut index = 0;
    while index < messages.len() {
        match &messages[index] {
            ChatMessage::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
                let mut answered: HashSet<&str> = HashSet::new();
                let mut next = index + 1;
                while let Some(ChatMessage::Tool {
                    tool_call_id, name, ..
                }) = messages.get(next)
                {
                    match tool_calls.iter().find(|c| &c.id == tool_call_id) {
                        None => problems.push(orphan(
                            next,
                            tool_call_id,
                            "it does not answer a call of the assistant message right before it",
                        )),
                        Some(_) if !answered.insert(tool_call_id) => problems.push(Problem {
                            kind: "duplicate_result",
                            message_index: next,
                            tool_call_id: tool_call_id.clone(),
                            message: format!(
                                "message {next}: a second result for the call {tool_call_id:?}"
                            ),
                        }),
                        Some(call) => {
                            if let (true, Some(name)) = (names_matter, name) {
                                if name != &call.name {
                                    problems.push(Problem {
                                        kind: "name_mismatch",
                                        message_index: next,
                                        tool_call_id: tool_call_id.clone(),
                                        message: format!("message {next}: the result names {name:?} but the call {tool_call_id:?} is to {:?}", call.name),
                                    });
                                }
                            }
                        }
                    }
                    next += 1;
                }
                for call in tool_calls
                    .iter()
                    .filter(|c| !answered.contains(c.id.as_str()))
                {
                    problems.push(Problem {
                        kind: "unanswered_call",
                        message_index: index,
                        tool_call_id: call.id.clone(),
                        message: format!(
                            "message {index}: the call {:?} ({}) has no tool result right after the assistant message; {} rejects the request",
                            call.id,
                            call.name,
                            provider.name()
                        ),
                    });
                }
                index = next;
            }
            ChatMessage::Tool { tool_call_id, .. } => {
                problems.push(orphan(
                    index,
                    tool_call_id,
                    "no assistant message with this call comes right before it",
                ));
                index += 1;
            }
            _ => index += 1,
        }
    }
    problems
}

/// The Responses API: a result needs an earlier call with its `call_id`, every call a result.
fn check_anywhere(messages: &[ChatMessage]) -> Vec<Problem> {
    let mut calls: HashMap<&str, (usize, &str)> = HashMap::new();
    let mut answered: HashSet<&str> = HashSet::new();
    let mut problems = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        match message {
            ChatMessage::Assistant { tool_calls, .. } => {
                for call in tool_calls {
                    calls
                        .entry(call.id.as_str())
                        .or_insert((index, call.name.as_str()));
                }
            }
            ChatMessage::Tool { tool_call_id, .. } => {
                if !calls.contains_key(tool_call_id.as_str()) {
                    problems.push(orphan(
                        index,
                        tool_call_id,
                        "no earlier function_call has this call_id",
                    ));
                } else if !answered.insert(tool_call_id.as_str()) {
                    problems.push(Problem {
                        kind: "duplicate_result",
                        message_index: index,
                        tool_call_id: tool_call_id.clone(),
                        message: format!(
                            "message {index}: a second function_call_output for {tool_call_id:?}"
                        ),
                    });
                }
            }
            _ => {}
        }
    }
    let mut unanswered: Vec<_> = calls
        .into_iter()
        .filter(|(id, _)| !answered.contains(id))
        .collect();
    unanswered.sort_by_key(|(id, (index, _))| (*index, id.to_string()));
    for (id, (index, name)) in unanswered {
        problems.push(Problem {
            kind: "unanswered_call",
            message_index: index,
            tool_call_id: id.to_string(),
            message: format!("message {index}: no function_call_output for the call {id:?} ({name}); the Responses API answers \"No tool output found\""),
        });
    }
    problems
}

fn orphan(index: usize, id: &str, why: &str) -> Problem {
    Problem {
        kind: "orphan_result",
        message_index: index,
        tool_call_id: id.to_string(),
        message: format!("message {index}: the tool result for {id:?} is unpaired: {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(value: Value) -> Vec<ChatMessage> {
        ChatMessage::parse_list(&value, "messages").unwrap()
    }

    fn call(id: &str, name: &str) -> Value {
        json!({"id": id, "type": "function", "function": {"name": name, "arguments": "{}"}})
    }

    fn kinds(problems: &[Problem]) -> Vec<(&str, usize, &str)> {
        problems
            .iter()
            .map(|p| (p.kind, p.message_index, p.tool_call_id.as_str()))
            .collect()
    }

    #[test]
    fn a_paired_history_has_no_problems() {
        let messages = history(json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "toolCalls": [call("a", "f"), call("b", "g")]},
            {"role": "tool", "content": "1", "toolCallId": "b"},
            {"role": "tool", "content": "2", "toolCallId": "a"},
            {"role": "user", "content": "more"}
        ]));
        for provider in Provider::ALL {
            assert_eq!(check(&messages, provider), vec![], "{provider:?}");
        }
    }

    #[test]
    fn unanswered_calls_and_orphans_by_the_adjacent_rule() {
        // The user message between the call and its result breaks the pairing (OpenAI 400
        // "must be followed by tool messages", Anthropic "tool_use ids were found without tool_result").
        let messages = history(json!([
            {"role": "assistant", "content": "", "toolCalls": [call("a", "f"), call("b", "g")]},
            {"role": "tool", "content": "1", "toolCallId": "a"},
            {"role": "user", "content": "interrupt"},
            {"role": "tool", "content": "2", "toolCallId": "b"},
            {"role": "tool", "content": "3", "toolCallId": "zzz"}
        ]));
        for provider in [
            Provider::OpenAIChat,
            Provider::Anthropic,
            Provider::Gemini,
            Provider::Ollama,
        ] {
            assert_eq!(
                kinds(&check(&messages, provider)),
                vec![
                    ("unanswered_call", 0, "b"),
                    ("orphan_result", 3, "b"),
                    ("orphan_result", 4, "zzz")
                ]
            );
        }
        // The Responses API pairs by call_id anywhere later: only the stray result is wrong.
        assert_eq!(
            kinds(&check(&messages, Provider::OpenAIResponses)),
            vec![("orphan_result", 4, "zzz")]
        );
    }

    #[test]
    fn responses_rule_needs_a_result_for_every_call_and_a_call_before_every_result() {
        let messages = history(json!([
            {"role": "tool", "content": "early", "toolCallId": "a"},
            {"role": "assistant", "content": "", "toolCalls": [call("a", "f"), call("b", "g")]},
            {"role": "tool", "content": "1", "toolCallId": "a"},
            {"role": "tool", "content": "again", "toolCallId": "a"}
        ]));
        let problems = check(&messages, Provider::OpenAIResponses);
        assert_eq!(
            kinds(&problems),
            vec![
                ("orphan_result", 0, "a"),
                ("unanswered_call", 1, "b"),
                ("duplicate_result", 3, "a")
            ]
        );
        assert!(problems[1].message.contains("No tool output found"));
    }

    #[test]
    fn duplicate_ids_duplicate_results_and_name_mismatches() {
        let messages = history(json!([
            {"role": "assistant", "content": "", "toolCalls": [call("a", "f")]},
            {"role": "tool", "content": "1", "toolCallId": "a", "name": "other"},
            {"role": "tool", "content": "1", "toolCallId": "a"},
            {"role": "assistant", "content": "", "toolCalls": [call("a", "f")]},
            {"role": "tool", "content": "1", "toolCallId": "a"}
        ]));
        assert_eq!(
            kinds(&check(&messages, Provider::Gemini)),
            vec![
                ("name_mismatch", 1, "a"),
                ("duplicate_result", 2, "a"),
                ("duplicate_call_id", 3, "a")
            ]
        );
        // Names only matter where results are matched by name.
        assert_eq!(
            kinds(&check(&messages, Provider::Anthropic)),
            vec![("duplicate_result", 2, "a"), ("duplicate_call_id", 3, "a")]
        );
    }

    #[test]
    fn ids_are_kept_when_valid_and_aliased_stably_otherwise() {
        assert_eq!(
            provider_call_id("toolu_01A-b", Provider::Anthropic),
            "toolu_01A-b"
        );
        let kimi = provider_call_id("functions.get_weather:0", Provider::Anthropic);
        assert!(kimi.starts_with("functions_get_weather_0_"), "{kimi}");
        assert!(is_plain_name(&kimi, 64));
        assert_eq!(
            kimi,
            provider_call_id("functions.get_weather:0", Provider::Anthropic)
        );
        // Distinct ids that clean to the same text stay distinct.
        assert_ne!(
            kimi,
            provider_call_id("functions_get_weather:0", Provider::Anthropic)
        );
        // OpenAI Chat caps ids at 40 characters.
        let long = "x".repeat(64);
        assert_eq!(provider_call_id(&long, Provider::Anthropic), long);
        let short = provider_call_id(&long, Provider::OpenAIChat);
        assert_eq!(short.len(), 40);
        assert!(is_plain_name(&short, 40));
        let messages = history(json!([
            {"role": "assistant", "content": "", "toolCalls": [call("functions.f:0", "f"), call("ok", "g")]},
            {"role": "tool", "content": "1", "toolCallId": "functions.f:0"},
            {"role": "tool", "content": "2", "toolCallId": "ok"}
        ]));
        let map = id_map(&messages, Provider::Anthropic);
        assert_eq!(map.as_object().unwrap().len(), 1);
        assert_eq!(
            map[provider_call_id("functions.f:0", Provider::Anthropic)],
            "functions.f:0"
        );
    }
}
