//! JavaScript values ↔ the core's `ArgValue`, and `Outcome` → a JavaScript object.
//!
//! Safety (the "module note" of the `SAFETY:` comments): every raw napi call here runs on the
//! JavaScript thread inside a napi call, with that call's `env` and with handles made in its
//! still-open handle scope; each comment adds what else its call needs.

use std::ptr;

use napi::bindgen_prelude::*;
use napi::{sys, JsValue, ValueType};

use agent_tools_core::context::ToolContext;
use agent_tools_core::value::ArgValue;

/// Deeper argument trees are refused.
const MAX_DEPTH: usize = 64;

pub fn to_arg(value: &Unknown) -> Result<ArgValue> {
    convert_in(value.value().env, value.value().value, &mut Vec::new())
}

/// Reads the live fields of a `ToolContext` object.
pub fn read_context(value: &Unknown) -> Result<ToolContext> {
    let env = value.value().env;
    let raw = value.value().value;
    let mut fields = Vec::new();
    if value.get_type()? == ValueType::Object {
        for key in [
            "workspaceRoot",
            "writeScope",
            "policy",
            "env",
            "exec",
            "searchCacheBytes",
            "permissions",
        ] {
            let prop = get_named(env, raw, key)?;
            fields.push((key.to_string(), convert_in(env, prop, &mut vec![raw])?));
        }
    }
    Ok(ToolContext::from_value(&ArgValue::Object(fields)))
}

/// The string-valued entries of `process.env` (names that cannot be environment variable names
/// are left out).
pub fn read_process_env(value: &Unknown) -> Result<Vec<(String, String)>> {
    let ArgValue::Object(entries) = to_arg(value)? else {
        return Ok(Vec::new());
    };
    Ok(entries
        .into_iter()
        .filter_map(|(key, value)| match value {
            ArgValue::String(v)
                if !key.is_empty() && !key.contains(['=', '\0']) && !v.contains('\0') =>
            {
                Some((key, v))
            }
            _ => None,
        })
        .collect())
}

fn get_named(env: sys::napi_env, object: sys::napi_value, key: &str) -> Result<sys::napi_value> {
    let key = std::ffi::CString::new(key).map_err(|e| Error::from_reason(e.to_string()))?;
    let mut out = ptr::null_mut();
    // SAFETY: module note; `key` is a NUL-terminated string alive for the call; `out` is a local.
    check_status!(unsafe { sys::napi_get_named_property(env, object, key.as_ptr(), &mut out) })?;
    Ok(out)
}

/// True when `raw` is one of `ancestors` (`===`): the value contains itself.
fn is_cycle(
    env: sys::napi_env,
    raw: sys::napi_value,
    ancestors: &[sys::napi_value],
) -> Result<bool> {
    for &ancestor in ancestors {
        let mut same = false;
        // SAFETY: module note; `same` is a local.
        check_status!(unsafe { sys::napi_strict_equals(env, raw, ancestor, &mut same) })?;
        if same {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Converts `raw`, whose containing objects are `ancestors`. An object that contains itself
/// becomes `ArgValue::Other("cycle")` (what `JSON.stringify` refuses), not an endless tree.
fn convert_in(
    env: sys::napi_env,
    raw: sys::napi_value,
    ancestors: &mut Vec<sys::napi_value>,
) -> Result<ArgValue> {
    if ancestors.len() > MAX_DEPTH {
        return Err(Error::new(
            Status::InvalidArg,
            "argument nesting is too deep (more than 64 levels)",
        ));
    }
    // SAFETY: module note; `raw` is a live value handle.
    let value = unsafe { Unknown::from_raw_unchecked(env, raw) };
    let value_type = value.get_type()?;
    if matches!(value_type, ValueType::Object | ValueType::External)
        && is_cycle(env, raw, ancestors)?
    {
        return Ok(ArgValue::Other("cycle"));
    }
    ancestors.push(raw);
    let converted = convert_value(env, raw, &value, value_type, ancestors);
    ancestors.pop();
    converted
}

fn convert_value(
    env: sys::napi_env,
    raw: sys::napi_value,
    value: &Unknown,
    value_type: ValueType,
    ancestors: &mut Vec<sys::napi_value>,
) -> Result<ArgValue> {
    Ok(match value_type {
        ValueType::Undefined => ArgValue::Undefined,
        ValueType::Null => ArgValue::Null,
        // SAFETY: each cast matches the type `napi_typeof` just reported.
        ValueType::Boolean => ArgValue::Bool(unsafe { value.cast::<bool>()? }),
        // SAFETY: as above.
        ValueType::Number => ArgValue::Number(unsafe { value.cast::<f64>()? }),
        // SAFETY: as above.
        ValueType::String => ArgValue::String(unsafe { value.cast::<String>()? }),
        ValueType::Function => ArgValue::Function,
        ValueType::Symbol => ArgValue::Other("symbol"),
        ValueType::BigInt => ArgValue::Other("bigint"),
        ValueType::Object | ValueType::External if value.is_array()? => {
            let mut len = 0u32;
            // SAFETY: module note; `raw` is an array (checked above); `len` is a local.
            check_status!(unsafe { sys::napi_get_array_length(env, raw, &mut len) })?;
            let mut items = Vec::with_capacity(len as usize);
            for i in 0..len {
                let mut item = ptr::null_mut();
                // SAFETY: module note; `i` is below the length just read.
                check_status!(unsafe { sys::napi_get_element(env, raw, i, &mut item) })?;
                items.push(convert_in(env, item, ancestors)?);
            }
            ArgValue::Array(items)
        }
        ValueType::Object => {
            let mut names = ptr::null_mut();
            // SAFETY: module note; `raw` is an object; `names` is a local.
            check_status!(unsafe {
                sys::napi_get_all_property_names(
                    env,
                    raw,
                    sys::KeyCollectionMode::own_only,
                    sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
                    sys::KeyConversion::numbers_to_strings,
                    &mut names,
                )
            })?;
            let mut len = 0u32;
            // SAFETY: module note; `names` is the array napi just created.
            check_status!(unsafe { sys::napi_get_array_length(env, names, &mut len) })?;
            let mut entries = Vec::with_capacity(len as usize);
            for i in 0..len {
                let mut key = ptr::null_mut();
                // SAFETY: module note; `i` is below the length just read.
                check_status!(unsafe { sys::napi_get_element(env, names, i, &mut key) })?;
                let mut prop = ptr::null_mut();
                // SAFETY: module note; `key` is one of the object's own property names.
                check_status!(unsafe { sys::napi_get_property(env, raw, key, &mut prop) })?;
                // SAFETY: property names are strings (`numbers_to_strings`, symbols skipped).
                let key = unsafe { String::from_napi_value(env, key)? };
                entries.push((key, convert_in(env, prop, ancestors)?));
            }
            ArgValue::Object(entries)
        }
        _ => ArgValue::Other("object"),
    })
}

fn from_arg(env: sys::napi_env, value: &ArgValue) -> Result<sys::napi_value> {
    let mut out = ptr::null_mut();
    match value {
        ArgValue::Undefined | ArgValue::Function | ArgValue::Other(_) => {
            // SAFETY: module note; `out` is a local.
            check_status!(unsafe { sys::napi_get_undefined(env, &mut out) })?
        }
        // SAFETY: module note; `out` is a local.
        ArgValue::Null => check_status!(unsafe { sys::napi_get_null(env, &mut out) })?,
        // SAFETY: module note.
        ArgValue::Bool(b) => return unsafe { bool::to_napi_value(env, *b) },
        // SAFETY: module note.
        ArgValue::Number(n) => return unsafe { f64::to_napi_value(env, *n) },
        // SAFETY: module note.
        ArgValue::String(s) => return unsafe { String::to_napi_value(env, s.clone()) },
        ArgValue::Array(items) => {
            // SAFETY: module note; `out` is a local.
            check_status!(unsafe {
                sys::napi_create_array_with_length(env, items.len(), &mut out)
            })?;
            for (i, item) in items.iter().enumerate() {
                let v = from_arg(env, item)?;
                // SAFETY: module note; `out` is the array created above.
                check_status!(unsafe { sys::napi_set_element(env, out, i as u32, v) })?;
            }
        }
        ArgValue::Object(entries) => {
            // SAFETY: module note; `out` is a local.
            check_status!(unsafe { sys::napi_create_object(env, &mut out) })?;
            for (k, item) in entries {
                set(env, out, k, from_arg(env, item)?)?;
            }
        }
    }
    Ok(out)
}

fn set(
    env: sys::napi_env,
    object: sys::napi_value,
    key: &str,
    value: sys::napi_value,
) -> Result<()> {
    // SAFETY: module note.
    let key = unsafe { String::to_napi_value(env, key.to_string())? };
    // SAFETY: module note; `object` is an object created by this module.
    check_status!(unsafe { sys::napi_set_property(env, object, key, value) })?;
    Ok(())
}

/// A handler's positional arguments, handed back to JavaScript as an array.
pub struct Positional(pub Vec<ArgValue>);

impl TypeName for Positional {
    fn type_name() -> &'static str {
        "unknown[]"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for Positional {
    unsafe fn to_napi_value(env: sys::napi_env, value: Self) -> Result<sys::napi_value> {
        from_arg(env, &ArgValue::Array(value.0))
    }
}
