//! The tool policy and the write scope (docs/compat.md, "Module surface"), failing closed (docs/compat.md, "Policies fail closed"): a tool runs
//! only when its effective policy value is exactly `"allow"`, the same rule `getAllowedTools()`
//! uses, so the two views always agree.

use super::context::ToolContext;
use super::value::ArgValue;

/// `policy.tools[name] ?? policy.defaultPolicy`, compared with `"allow"`.
pub fn is_allowed(ctx: &ToolContext, name: &str) -> bool {
    let per_tool = ctx.policy.get("tools").get(name);
    let effective: &ArgValue = if per_tool.is_nullish() {
        ctx.policy.get("defaultPolicy")
    } else {
        per_tool
    };
    effective.as_str() == Some("allow")
}

/// The policy check of a call; `bypass` is `SecurityBypass.isEnabled()` at call time.
pub fn authorize(ctx: &ToolContext, name: &str, bypass: bool) -> Result<(), String> {
    if bypass || is_allowed(ctx, name) {
        Ok(())
    } else {
        Err(format!(
            "[Security Policy] Access denied for tool: \"{name}\""
        ))
    }
}

/// The write-scope check: write tools are refused in `"read-only"` mode.
pub fn check_write_scope(ctx: &ToolContext, is_write_op: bool) -> Result<(), String> {
    if is_write_op && ctx.is_read_only() {
        Err("[Sandbox Violation] Write operation denied. Current mode: \"read-only\"".to_string())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx(policy: serde_json::Value) -> ToolContext {
        ToolContext::from_value(&ArgValue::from(&json!({
            "workspaceRoot": "/ws", "writeScope": "workspace-write", "policy": policy,
            "env": {"platform": "linux", "osRelease": "6"}
        })))
    }

    #[test]
    fn per_tool_value_wins_over_default() {
        let c = ctx(json!({"tools": {"read_file": "allow"}, "defaultPolicy": "deny"}));
        assert!(is_allowed(&c, "read_file"));
        assert!(!is_allowed(&c, "write_file"));
        let c = ctx(json!({"tools": {"read_file": "deny"}, "defaultPolicy": "allow"}));
        assert!(!is_allowed(&c, "read_file"));
        assert!(is_allowed(&c, "tree"));
        let c = ctx(json!({"tools": {"read_file": null}, "defaultPolicy": "allow"}));
        assert!(is_allowed(&c, "read_file"));
    }

    #[test]
    fn malformed_values_fail_closed() {
        for policy in [
            json!({"tools": {"read_file": "ALLOW"}, "defaultPolicy": "allow"}),
            json!({"tools": {"read_file": true}, "defaultPolicy": "allow"}),
            json!({"tools": {}}),
            json!({"tools": {}, "defaultPolicy": "Allow"}),
            json!(null),
        ] {
            assert!(!is_allowed(&ctx(policy.clone()), "read_file"), "{policy}");
        }
    }

    #[test]
    fn bypass_skips_only_the_policy() {
        let c = ctx(json!({"tools": {}, "defaultPolicy": "deny"}));
        assert_eq!(
            authorize(&c, "read_file", false).unwrap_err(),
            "[Security Policy] Access denied for tool: \"read_file\""
        );
        assert!(authorize(&c, "read_file", true).is_ok());
    }

    #[test]
    fn read_only_refuses_write_tools_only() {
        let mut c = ctx(json!({"tools": {}, "defaultPolicy": "allow"}));
        c.write_scope = "read-only".into();
        assert!(check_write_scope(&c, true).is_err());
        assert!(check_write_scope(&c, false).is_ok());
        c.write_scope = "unrestricted".into();
        assert!(check_write_scope(&c, true).is_ok());
    }
}
