//! Node's POSIX `path.resolve` / `path.relative`, which upstream's outputs and messages are
//! defined by. Pure string work: no filesystem access.

/// Collapses `.`, `..` and repeated `/` of an absolute path; no trailing slash except for `/`.
fn normalize_absolute(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `path.resolve(base, target)`: an absolute `target` replaces `base`; a relative `base` is
/// resolved against the process's current directory.
pub fn resolve(base: &str, target: &str) -> String {
    if target.starts_with('/') {
        return normalize_absolute(target);
    }
    let base = if base.starts_with('/') {
        base.to_string()
    } else {
        let cwd = std::env::current_dir()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "/".to_string());
        format!("{cwd}/{base}")
    };
    normalize_absolute(&format!("{base}/{target}"))
}

/// `path.resolve(p)`.
pub fn absolute(path: &str) -> String {
    resolve("", path)
}

/// `path.relative(from, to)` for POSIX paths.
pub fn relative(from: &str, to: &str) -> String {
    let from = absolute(from);
    let to = absolute(to);
    let from_parts: Vec<&str> = from.split('/').filter(|p| !p.is_empty()).collect();
    let to_parts: Vec<&str> = to.split('/').filter(|p| !p.is_empty()).collect();
    let common = from_parts
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out: Vec<&str> = vec![".."; from_parts.len() - common];
    out.extend(&to_parts[common..]);
    out.join("/")
}

/// Upstream's workspace-relative form: `path.relative(root, abs)`, `\` → `/`, `""` → `"."`.
pub fn workspace_relative(root: &str, abs: &str) -> String {
    let rel = relative(root, abs).replace('\\', "/");
    if rel.is_empty() {
        ".".to_string()
    } else {
        rel
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_matches_node() {
        assert_eq!(resolve("/ws", "src/main.ts"), "/ws/src/main.ts");
        assert_eq!(resolve("/ws", "./src//a/../main.ts"), "/ws/src/main.ts");
        assert_eq!(resolve("/ws", ""), "/ws");
        assert_eq!(resolve("/ws", "."), "/ws");
        assert_eq!(resolve("/ws", "/ws/"), "/ws");
        assert_eq!(resolve("/ws", "newdir/"), "/ws/newdir");
        assert_eq!(resolve("/ws", "/etc/shadow"), "/etc/shadow");
        assert_eq!(resolve("/ws", "../../.."), "/");
        assert_eq!(resolve("/ws/", "C:/work"), "/ws/C:/work");
    }

    #[test]
    fn relative_matches_node() {
        assert_eq!(relative("/ws", "/ws"), "");
        assert_eq!(relative("/ws", "/ws/a/b"), "a/b");
        assert_eq!(relative("/ws", "/x"), "../x");
        assert_eq!(relative("/ws/a", "/ws/b/c"), "../b/c");
        assert_eq!(relative("/", "/a"), "a");
        assert_eq!(relative("/ws", "/ws/..foo"), "..foo");
    }

    #[test]
    fn workspace_relative_uses_dot_for_root() {
        assert_eq!(workspace_relative("/ws", "/ws"), ".");
        assert_eq!(workspace_relative("/ws/", "/ws/src/a.ts"), "src/a.ts");
    }

    #[test]
    fn relative_root_resolves_against_cwd() {
        let cwd = std::env::current_dir().unwrap();
        let expected = format!("{}/x", cwd.to_string_lossy());
        assert_eq!(resolve("", "x"), expected);
    }
}
