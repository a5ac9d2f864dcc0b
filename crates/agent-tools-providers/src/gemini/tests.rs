use super::*;
use crate::testing::{assert_answer_fixture, fixture, result_of, stream_result};

#[test]
fn maps_history_with_signatures_names_and_synthetic_ids() {
    let f = fixture("gemini_request.json");
    let mapped = to_request(&RequestInput::parse(&f["input"]).unwrap()).unwrap();
    assert_eq!(mapped.value, f["expected"]);
    assert_eq!(mapped.warnings.len(), 1, "{:?}", mapped.warnings);
}

#[test]
fn tool_config_forms() {
    assert_eq!(
        to_tool_config(&ToolChoice::Auto),
        json!({"functionCallingConfig": {"mode": "AUTO"}})
    );
    assert_eq!(
        to_tool_config(&ToolChoice::None),
        json!({"functionCallingConfig": {"mode": "NONE"}})
    );
    assert_eq!(
        to_tool_config(&ToolChoice::Required),
        json!({"functionCallingConfig": {"mode": "ANY"}})
    );
    assert_eq!(
        to_tool_config(&ToolChoice::Named("f".into())),
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}})
    );
}

#[test]
fn schema_subset_conversion() {
    // ax#293, 5ire#42 (additionalProperties), openswarm#24, zed#44875, forgecode#3426 ($schema,
    // exclusiveMinimum, const, propertyNames), zed#53919 (type arrays), OmniRoute#760 (enum values).
    let f = fixture("gemini_schema.json");
    assert_eq!(openapi_schema(&f["input"]), Some(f["expected"].clone()));
}

#[test]
fn empty_object_schemas_send_no_parameters_and_json_schema_mode_passes_through() {
    let tools = ToolDef::parse_list(
        &json!([{"type": "function", "function": {"name": "git_status", "parameters": {"type": "object", "properties": {}, "required": [], "additionalProperties": false}}}]),
        "tools",
    )
    .unwrap();
    assert_eq!(
        to_tools(&tools, SchemaMode::OpenApi).unwrap(),
        json!([{"functionDeclarations": [{"name": "git_status"}]}])
    );
    assert_eq!(
        to_tools(&tools, SchemaMode::JsonSchema).unwrap()[0]["functionDeclarations"][0]
            ["parametersJsonSchema"],
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

#[test]
fn recursive_refs_stop_and_names_are_checked() {
    let schema = json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/node"}}, "$defs": {"node": {
        "type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}
    }}});
    let out = openapi_schema(&schema).unwrap();
    assert_eq!(
        out["properties"]["node"]["properties"]["children"]["items"],
        json!({"type": "OBJECT"})
    );
    let tools = ToolDef::parse_list(
        &json!([{"type": "function", "function": {"name": "9lives"}}]),
        "tools",
    )
    .unwrap();
    assert!(to_tools(&tools, SchemaMode::OpenApi)
        .unwrap_err()
        .0
        .contains("not valid for Gemini"));
    assert!(is_gemini_name("mcp.server:tool-1"));
    // generative-ai-js#320: `type: "enum"` is not a type Gemini accepts.
    assert_eq!(
        openapi_schema(
            &json!({"type": "object", "properties": {"unit": {"type": "enum", "enum": ["c", "f"]}}})
        )
        .unwrap()["properties"]["unit"],
        json!({"type": "STRING", "enum": ["c", "f"]})
    );
}

#[test]
fn parallel_calls_with_and_without_streaming() {
    assert_answer_fixture("gemini_parallel.json", from_response, Stream::new());
}

#[test]
fn finish_reasons() {
    let ended = |reason: &str| {
        result_of(from_response(
            &json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "f", "args": {}}}
        ]}, "finishReason": reason, "finishMessage": "Malformed function call: print(x"}]}),
        ))
    };
    // ailoy#334: STOP with calls → tool_calls.
    assert_eq!(ended("STOP")["finishReason"], "tool_calls");
    assert_eq!(ended("MAX_TOKENS")["finishReason"], "length");
    // hermes-agent#83886: MALFORMED_FUNCTION_CALL fails the turn.
    let malformed = ended("MALFORMED_FUNCTION_CALL");
    assert_eq!(malformed["finishReason"], "error");
    assert_eq!(
        malformed["errorMessage"],
        "Malformed function call: print(x"
    );
    assert!(malformed.get("toolCalls").is_none());
    let blocked = result_of(from_response(
        &json!({"promptFeedback": {"blockReason": "SAFETY"}}),
    ));
    assert_eq!(blocked["finishReason"], "error");
    assert_eq!(blocked["errorMessage"], "the prompt was blocked (SAFETY)");
}

#[test]
fn synthetic_ids_are_not_sent_back_and_results_need_names() {
    let turn = from_response(&json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {"a": 1}}}]}, "finishReason": "STOP"}]})).unwrap();
    let call = turn.tool_calls[0].clone();
    assert_eq!(call.data(DATA, "syntheticId"), Some(&json!(true)));
    let messages = vec![
        ChatMessage::Assistant {
            content: String::new(),
            tool_calls: vec![call.clone()],
            provider_data: None,
        },
        ChatMessage::Tool {
            content: "ok".into(),
            tool_call_id: call.id.clone(),
            name: None,
            is_error: false,
        },
    ];
    let (_, contents) = to_contents(&messages, &HistoryOptions::default()).unwrap();
    assert_eq!(
        contents[0]["parts"][0],
        json!({"functionCall": {"name": "f", "args": {"a": 1}}})
    );
    assert_eq!(
        contents[1]["parts"][0],
        json!({"functionResponse": {"name": "f", "response": {"output": "ok"}}})
    );
    let orphan = vec![ChatMessage::Tool {
        content: "ok".into(),
        tool_call_id: "x".into(),
        name: None,
        is_error: false,
    }];
    assert!(to_contents(&orphan, &HistoryOptions::default())
        .unwrap_err()
        .0
        .contains("needs the function name"));
}

#[test]
fn foreign_calls_get_the_sentinel_signature_when_asked() {
    // dify-official-plugins#2088: "Function call is missing a thought_signature".
    let messages = ChatMessage::parse_list(
        &json!([{"role": "assistant", "content": "", "toolCalls": [
            {"id": "call_a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            {"id": "call_b", "type": "function", "function": {"name": "g", "arguments": "{}"}}
        ]}]),
        "messages",
    )
    .unwrap();
    let options = HistoryOptions {
        foreign_call_signature: Some("skip_thought_signature_validator".into()),
    };
    let (_, contents) = to_contents(&messages, &options).unwrap();
    assert_eq!(
        contents[0]["parts"][0]["thoughtSignature"],
        "skip_thought_signature_validator"
    );
    assert!(contents[0]["parts"][1].get("thoughtSignature").is_none());
    let (_, contents) = to_contents(&messages, &HistoryOptions::default()).unwrap();
    assert!(contents[0]["parts"][0].get("thoughtSignature").is_none());
}

#[test]
fn streamed_partial_arguments_are_assembled() {
    // Vertex + Gemini 3 with streamFunctionCallArguments (AI SDK google-json-accumulator).
    let chunks = json!([
        {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "write", "id": "c1", "willContinue": true}, "thoughtSignature": "sig"}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"partialArgs": [
            {"jsonPath": "$.path", "stringValue": "a.txt"},
            {"jsonPath": "$.body", "stringValue": "Hello, ", "willContinue": true}
        ], "willContinue": true}}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"partialArgs": [
            {"jsonPath": "$.body", "stringValue": "world"},
            {"jsonPath": "$.opts.tags[1]", "stringValue": "b"},
            {"jsonPath": "$.opts.count", "numberValue": 2},
            {"jsonPath": "$['opts']['force']", "boolValue": true}
        ], "willContinue": true}}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {}}]}, "finishReason": "STOP"}]}
    ]);
    let (_, result) = stream_result(Stream::new(), &chunks);
    assert_eq!(result["finishReason"], "tool_calls");
    let call = &result["toolCalls"][0];
    assert_eq!(call["id"], "c1");
    assert_eq!(call["function"]["name"], "write");
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(
        args,
        json!({"path": "a.txt", "body": "Hello, world", "opts": {"tags": [null, "b"], "count": 2, "force": true}})
    );
    assert_eq!(call["providerData"]["gemini"]["thoughtSignature"], "sig");
}
