//! A faithful mirror of the JavaScript values a caller passes in.
//!
//! Upstream validates arguments with JavaScript semantics (`typeof`, `Number.isInteger`,
//! `null` vs `undefined`), which JSON cannot express, so the binding converts every argument into
//! this tree and the core validates against it.

/// One JavaScript value. Objects keep their own enumerable string keys in insertion order.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    Undefined,
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<ArgValue>),
    Object(Vec<(String, ArgValue)>),
    /// A function: kept as a marker, it has no data.
    Function,
    /// A symbol or bigint: kept as a marker with its `typeof` name; `"cycle"` marks an object
    /// that contains itself (the binding stops there).
    Other(&'static str),
}

impl ArgValue {
    /// Property read with JavaScript semantics: a missing key (or a non-object) gives `undefined`.
    pub fn get(&self, key: &str) -> &ArgValue {
        match self {
            ArgValue::Object(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .unwrap_or(&ArgValue::Undefined),
            _ => &ArgValue::Undefined,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            ArgValue::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_nullish(&self) -> bool {
        matches!(self, ArgValue::Undefined | ArgValue::Null)
    }

    /// `typeof v === "object" && v !== null && !Array.isArray(v)`.
    pub fn is_plain_object(&self) -> bool {
        matches!(self, ArgValue::Object(_))
    }

    /// `Number.isInteger(v)` (finite, no fraction), returning the value.
    pub fn as_integer(&self) -> Option<f64> {
        match self {
            ArgValue::Number(n) if n.is_finite() && n.fract() == 0.0 => Some(*n),
            _ => None,
        }
    }

    /// A shallow copy of an object with `key` set (replaced in place, or appended).
    pub fn with_field(&self, key: &str, value: ArgValue) -> ArgValue {
        let mut entries = match self {
            ArgValue::Object(entries) => entries.clone(),
            _ => Vec::new(),
        };
        match entries.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => entries.push((key.to_string(), value)),
        }
        ArgValue::Object(entries)
    }

    /// Builds an object holding exactly `keys`, each read from `self` (missing → `undefined`).
    pub fn pick(&self, keys: &[&str]) -> ArgValue {
        ArgValue::Object(
            keys.iter()
                .map(|k| (k.to_string(), self.get(k).clone()))
                .collect(),
        )
    }
}

/// `JSON.stringify` threw: the value holds a BigInt or contains itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotJsonSerializable;

impl ArgValue {
    /// The JSON data `JSON.stringify` makes of this value: `Ok(None)` where it gives `undefined`
    /// (`undefined`, functions, symbols), `Err` where it throws (a BigInt or a cycle). Inside
    /// objects such members are dropped, inside arrays they become `null`; non-finite numbers
    /// become `null`. Integral numbers are written without a fraction, as JavaScript does.
    pub fn to_json(&self) -> Result<Option<serde_json::Value>, NotJsonSerializable> {
        use serde_json::Value;
        Ok(Some(match self {
            ArgValue::Undefined | ArgValue::Function | ArgValue::Other("symbol") => {
                return Ok(None)
            }
            ArgValue::Other("bigint" | "cycle") => return Err(NotJsonSerializable),
            ArgValue::Other(_) => Value::Object(serde_json::Map::new()),
            ArgValue::Null => Value::Null,
            ArgValue::Bool(b) => Value::Bool(*b),
            ArgValue::Number(n) => json_number(*n),
            ArgValue::String(s) => Value::String(s.clone()),
            ArgValue::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|item| Ok(item.to_json()?.unwrap_or(Value::Null)))
                    .collect::<Result<_, _>>()?,
            ),
            ArgValue::Object(entries) => {
                let mut map = serde_json::Map::new();
                for (key, value) in entries {
                    if let Some(v) = value.to_json()? {
                        map.insert(key.clone(), v);
                    }
                }
                Value::Object(map)
            }
        }))
    }
}

/// A JavaScript number as JSON: integers (below 2^53) without a fraction, `null` when not finite.
fn json_number(n: f64) -> serde_json::Value {
    const SAFE: f64 = 9_007_199_254_740_992.0;
    if n.fract() == 0.0 && n.abs() < SAFE {
        serde_json::Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(serde_json::Value::Null, serde_json::Value::Number)
    }
}

impl From<&str> for ArgValue {
    fn from(s: &str) -> Self {
        ArgValue::String(s.to_string())
    }
}

/// Converts JSON into an argument tree (tests, demos and JSON-speaking callers).
impl From<&serde_json::Value> for ArgValue {
    fn from(v: &serde_json::Value) -> Self {
        use serde_json::Value;
        match v {
            Value::Null => ArgValue::Null,
            Value::Bool(b) => ArgValue::Bool(*b),
            Value::Number(n) => ArgValue::Number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => ArgValue::String(s.clone()),
            Value::Array(items) => ArgValue::Array(items.iter().map(ArgValue::from).collect()),
            Value::Object(map) => ArgValue::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), ArgValue::from(v)))
                    .collect(),
            ),
        }
    }
}

/// Reads JSON text straight into an argument tree (no intermediate `serde_json::Value`), e.g.
/// `serde_json::from_str::<ArgValue>(text)`. Duplicate keys are kept; `get` sees the last one,
/// as `JSON.parse` would.
impl<'de> serde::Deserialize<'de> for ArgValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = ArgValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<ArgValue, E> {
                Ok(ArgValue::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<ArgValue, E> {
                Ok(ArgValue::Bool(b))
            }
            fn visit_i64<E>(self, n: i64) -> Result<ArgValue, E> {
                Ok(ArgValue::Number(n as f64))
            }
            fn visit_u64<E>(self, n: u64) -> Result<ArgValue, E> {
                Ok(ArgValue::Number(n as f64))
            }
            fn visit_f64<E>(self, n: f64) -> Result<ArgValue, E> {
                Ok(ArgValue::Number(n))
            }
            fn visit_str<E>(self, s: &str) -> Result<ArgValue, E> {
                Ok(ArgValue::String(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<ArgValue, E> {
                Ok(ArgValue::String(s))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<ArgValue, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(ArgValue::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<ArgValue, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(ArgValue::Object(entries))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Length of a string in UTF-16 code units, as JavaScript's `string.length`.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// JavaScript's `String.prototype.trim()` whitespace set.
pub fn js_trim(s: &str) -> &str {
    fn is_js_space(c: char) -> bool {
        matches!(
            c,
            '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
                ..='\u{200a}'
                    | '\u{2028}'
                    | '\u{2029}'
                    | '\u{202f}'
                    | '\u{205f}'
                    | '\u{3000}'
                    | '\u{feff}'
        )
    }
    s.trim_matches(is_js_space)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_text_reads_like_the_json_value_conversion() {
        let value = json!({"s": "x\u{e9}", "n": -1.5, "i": 7, "big": 18446744073709551615u64,
            "a": [null, true, {"k": []}], "o": {}});
        let direct: ArgValue = serde_json::from_str(&value.to_string()).unwrap();
        assert_eq!(direct, ArgValue::from(&value));
        let duplicate: ArgValue = serde_json::from_str(r#"{"k": 1, "k": 2}"#).unwrap();
        assert_eq!(duplicate.get("k"), &ArgValue::Number(2.0));
    }

    #[test]
    fn get_reads_like_javascript() {
        let v = ArgValue::from(&json!({"a": 1, "b": null}));
        assert_eq!(v.get("a"), &ArgValue::Number(1.0));
        assert_eq!(v.get("b"), &ArgValue::Null);
        assert_eq!(v.get("c"), &ArgValue::Undefined);
        assert_eq!(ArgValue::Number(1.0).get("a"), &ArgValue::Undefined);
    }

    #[test]
    fn integers_follow_number_is_integer() {
        assert_eq!(ArgValue::Number(2.0).as_integer(), Some(2.0));
        assert_eq!(ArgValue::Number(1.5).as_integer(), None);
        assert_eq!(ArgValue::Number(f64::NAN).as_integer(), None);
        assert_eq!(ArgValue::Number(f64::INFINITY).as_integer(), None);
        assert_eq!(ArgValue::from("2").as_integer(), None);
    }

    #[test]
    fn with_field_and_pick_keep_order() {
        let v = ArgValue::from(&json!({"cwd": ".", "command": ["ls"]}));
        let copy = v.with_field("cwd", "/ws".into());
        assert_eq!(
            copy,
            ArgValue::from(&json!({"cwd": "/ws", "command": ["ls"]}))
        );
        let picked = v.pick(&["x", "cwd"]);
        assert_eq!(
            picked,
            ArgValue::Object(vec![
                ("x".into(), ArgValue::Undefined),
                ("cwd".into(), ".".into())
            ])
        );
    }

    #[test]
    fn trim_matches_javascript() {
        assert_eq!(js_trim("\u{feff} a \u{3000}\n"), "a");
        assert_eq!(
            js_trim("\u{85}a"),
            "\u{85}a",
            "NEL is not JavaScript whitespace"
        );
    }

    #[test]
    fn to_json_follows_json_stringify() {
        let v = ArgValue::Object(vec![
            ("a".into(), ArgValue::Number(2.0)),
            ("f".into(), ArgValue::Function),
            ("u".into(), ArgValue::Undefined),
            ("s".into(), ArgValue::Other("symbol")),
            (
                "arr".into(),
                ArgValue::Array(vec![
                    ArgValue::Undefined,
                    ArgValue::Function,
                    ArgValue::Number(f64::NAN),
                    ArgValue::Number(-0.0),
                    ArgValue::Number(1.5),
                ]),
            ),
            ("n".into(), ArgValue::Null),
        ]);
        let json = v.to_json().unwrap().unwrap();
        assert_eq!(
            serde_json::to_string(&json).unwrap(),
            r#"{"a":2,"arr":[null,null,null,0,1.5],"n":null}"#
        );
        assert_eq!(ArgValue::Function.to_json(), Ok(None));
        let big = ArgValue::Object(vec![(
            "x".into(),
            ArgValue::Array(vec![ArgValue::Other("bigint")]),
        )]);
        assert_eq!(big.to_json(), Err(NotJsonSerializable));
    }

    #[test]
    fn utf16_length_counts_surrogate_pairs() {
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("😀"), 2);
        assert_eq!(utf16_len("é"), 1);
    }
}
