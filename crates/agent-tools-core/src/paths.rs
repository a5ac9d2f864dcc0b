//! Node's `path.resolve` / `path.relative`, which upstream's outputs and messages are defined
//! by: the POSIX variant, and on a Windows host the win32 one ([`win32`]), as Node's `path` is
//! `path.win32` there. Pure string work: no filesystem access.

/// Collapses `.`, `..` and repeated `/` of an absolute path; no trailing slash except for `/`.
#[cfg(not(windows))]
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
#[cfg(windows)]
pub fn resolve(base: &str, target: &str) -> String {
    win32::resolve(&current_dir(), base, target)
}

/// `path.relative(from, to)`.
#[cfg(windows)]
pub fn relative(from: &str, to: &str) -> String {
    win32::relative(&current_dir(), from, to)
}

#[cfg(windows)]
fn current_dir() -> String {
    std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "C:\\".to_string())
}

/// `path.resolve(base, target)`: an absolute `target` replaces `base`; a relative `base` is
/// resolved against the process's current directory.
#[cfg(not(windows))]
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
#[cfg(not(windows))]
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

/// Node's `path.win32.resolve` and `path.relative`, for two paths (and the current directory
/// given, so that every host can test them): `/` and `\` are both separators, the result uses
/// `\`; a drive (`C:`) or a UNC share (`\\server\share`) is the device; drives and names
/// compare without regard to case (`relative("C:\\ws", "c:\\WS\\src")` is `src`); a path on
/// another device is not relative to `from` and comes back absolute. Per-drive current
/// directories (`C:x` with another current drive) resolve against that drive's root.
pub mod win32 {
    fn is_sep(c: char) -> bool {
        c == '/' || c == '\\'
    }

    /// The device (`C:`, `\\server\share`, or empty), whether the path is absolute, and the
    /// rest after the root.
    fn parse_root(path: &str) -> (String, bool, &str) {
        let chars: Vec<char> = path.chars().take(3).collect();
        match chars.as_slice() {
            [a, b, ..] if is_sep(*a) && is_sep(*b) => {
                // `\\server\share\rest`: both names must be there to make a UNC root
                let mut parts = path[2..].splitn(3, is_sep);
                let server = parts.next().unwrap_or("");
                let share = parts.next().unwrap_or("");
                if server.is_empty() || share.is_empty() {
                    return (String::new(), true, path);
                }
                let rest = parts.next().unwrap_or("");
                (format!("\\\\{server}\\{share}"), true, rest)
            }
            [a, ..] if is_sep(*a) => (String::new(), true, path),
            [d, ':', rest @ ..] if d.is_ascii_alphabetic() => {
                let absolute = rest.first().is_some_and(|c| is_sep(*c));
                (path[..2].to_string(), absolute, &path[2..])
            }
            _ => (String::new(), false, path),
        }
    }

    /// Collapses `.`, `..` and repeated separators; `..` above the start is kept only when
    /// `above_root`.
    fn normalize_tail(tail: &str, above_root: bool) -> String {
        let mut parts: Vec<&str> = Vec::new();
        for part in tail.split(is_sep) {
            match part {
                "" | "." => {}
                ".." => {
                    if parts.last().is_some_and(|p| *p != "..") {
                        parts.pop();
                    } else if above_root {
                        parts.push("..");
                    }
                }
                other => parts.push(other),
            }
        }
        parts.join("\\")
    }

    /// `path.win32.resolve(base, target)`, with `cwd` as the current directory. One deviation:
    /// a verbatim drive or UNC path (`\\?\C:\ws`, what Rust's `fs::canonicalize` returns on
    /// Windows) is taken without its prefix (`C:\ws`), so a root a Rust caller canonicalized
    /// works; Node would keep `\\?\C:` as a device of its own.
    pub fn resolve(cwd: &str, base: &str, target: &str) -> String {
        use crate::windows_path::strip_verbatim;
        let (cwd, base, target) = (
            strip_verbatim(cwd),
            strip_verbatim(base),
            strip_verbatim(target),
        );
        let (cwd, base, target) = (cwd.as_ref(), base.as_ref(), target.as_ref());
        let mut device = String::new();
        let mut tail = String::new();
        let mut absolute = false;
        for (i, path) in [target, base, cwd].into_iter().enumerate() {
            if path.is_empty() {
                continue;
            }
            let (dev, abs, rest) = parse_root(path);
            let mut rest = rest.to_string();
            let mut abs = abs;
            if i == 2 && !device.is_empty() && !dev.eq_ignore_ascii_case(&device) {
                // the current directory is on another drive: that drive's root
                rest = String::new();
                abs = true;
            } else if !dev.is_empty() {
                if device.is_empty() {
                    device = dev;
                } else if !dev.eq_ignore_ascii_case(&device) {
                    continue;
                }
            }
            if !absolute {
                tail = if tail.is_empty() {
                    rest
                } else {
                    format!("{rest}\\{tail}")
                };
                absolute = abs;
            }
            if absolute && !device.is_empty() {
                break;
            }
        }
        let tail = normalize_tail(&tail, !absolute);
        if absolute {
            format!("{device}\\{tail}")
        } else if device.is_empty() && tail.is_empty() {
            ".".to_string()
        } else {
            format!("{device}{tail}")
        }
    }

    /// `path.win32.relative(from, to)`, with `cwd` as the current directory.
    pub fn relative(cwd: &str, from: &str, to: &str) -> String {
        let from = resolve(cwd, "", from);
        let to = resolve(cwd, "", to);
        let (from_dev, _, from_rest) = parse_root(&from);
        let (to_dev, _, to_rest) = parse_root(&to);
        if !from_dev.eq_ignore_ascii_case(&to_dev) {
            return to;
        }
        let from_parts: Vec<&str> = from_rest.split(is_sep).filter(|p| !p.is_empty()).collect();
        let to_parts: Vec<&str> = to_rest.split(is_sep).filter(|p| !p.is_empty()).collect();
        let common = from_parts
            .iter()
            .zip(&to_parts)
            .take_while(|(a, b)| a.to_lowercase() == b.to_lowercase())
            .count();
        let mut out: Vec<&str> = vec![".."; from_parts.len() - common];
        out.extend(&to_parts[common..]);
        out.join("\\")
    }
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

    /// A path written POSIX-style (`/ws/src`, `a/b`) as the host's `path` module prints it: on
    /// Windows with `\`, an absolute one on drive `C:` (`C:\ws\src`).
    fn host(posix: &str) -> String {
        if cfg!(windows) {
            let native = posix.replace('/', "\\");
            if posix.starts_with('/') {
                format!("C:{native}")
            } else {
                native
            }
        } else {
            posix.to_string()
        }
    }

    #[test]
    fn resolve_matches_node() {
        let ws = host("/ws");
        assert_eq!(resolve(&ws, "src/main.ts"), host("/ws/src/main.ts"));
        assert_eq!(resolve(&ws, "./src//a/../main.ts"), host("/ws/src/main.ts"));
        assert_eq!(resolve(&ws, ""), ws);
        assert_eq!(resolve(&ws, "."), ws);
        assert_eq!(resolve(&ws, &host("/ws/")), ws);
        assert_eq!(resolve(&ws, "newdir/"), host("/ws/newdir"));
        // a rooted path replaces the base (on Windows it stays on the base's drive)
        assert_eq!(resolve(&ws, "/etc/shadow"), host("/etc/shadow"));
        assert_eq!(resolve(&ws, "../../.."), host("/"));
        // a name on POSIX, a drive path on Windows
        let drive_path = if cfg!(windows) {
            "C:\\work".to_string()
        } else {
            "/ws/C:/work".to_string()
        };
        assert_eq!(resolve(&host("/ws/"), "C:/work"), drive_path);
    }

    #[test]
    fn relative_matches_node() {
        let ws = host("/ws");
        assert_eq!(relative(&ws, &ws), "");
        assert_eq!(relative(&ws, &host("/ws/a/b")), host("a/b"));
        assert_eq!(relative(&ws, &host("/x")), host("../x"));
        assert_eq!(relative(&host("/ws/a"), &host("/ws/b/c")), host("../b/c"));
        assert_eq!(relative(&host("/"), &host("/a")), "a");
        assert_eq!(relative(&ws, &host("/ws/..foo")), "..foo");
    }

    #[test]
    fn workspace_relative_uses_dot_for_root() {
        assert_eq!(workspace_relative(&host("/ws"), &host("/ws")), ".");
        // `/` whatever the host's separator
        assert_eq!(
            workspace_relative(&host("/ws/"), &host("/ws/src/a.ts")),
            "src/a.ts"
        );
    }

    #[test]
    fn win32_resolve_matches_node() {
        use super::win32::resolve as r;
        let cwd = "C:\\cwd";
        assert_eq!(r(cwd, "C:\\ws", "src/main.ts"), "C:\\ws\\src\\main.ts");
        assert_eq!(r(cwd, "C:\\ws", "src\\a\\..\\b"), "C:\\ws\\src\\b");
        assert_eq!(r(cwd, "C:\\ws", ""), "C:\\ws");
        assert_eq!(r(cwd, "C:\\ws\\", "."), "C:\\ws");
        assert_eq!(r(cwd, "C:\\ws", "/etc/shadow"), "C:\\etc\\shadow");
        assert_eq!(r(cwd, "C:\\ws", "D:/x/../y"), "D:\\y");
        assert_eq!(r(cwd, "C:\\ws", "c:/WS/src"), "c:\\WS\\src");
        assert_eq!(r(cwd, "C:\\ws", "../../.."), "C:\\");
        assert_eq!(r(cwd, "C:\\ws", "//server/share/x"), "\\\\server\\share\\x");
        assert_eq!(r(cwd, "\\\\srv\\sh\\ws", "a/../../.."), "\\\\srv\\sh\\");
        assert_eq!(r(cwd, "", "x"), "C:\\cwd\\x");
        assert_eq!(r(cwd, "ws", "x"), "C:\\cwd\\ws\\x");
        // a drive-relative path on another drive: that drive's root
        assert_eq!(r(cwd, "C:\\ws", "D:x"), "D:\\x");
        assert_eq!(r(cwd, "C:\\ws", "C:x"), "C:\\ws\\x");
        // a canonicalized (verbatim) root is taken without its prefix
        assert_eq!(r(cwd, "\\\\?\\C:\\ws", "src"), "C:\\ws\\src");
        assert_eq!(r(cwd, "", "\\\\?\\UNC\\s\\h\\ws"), "\\\\s\\h\\ws");
    }

    #[test]
    fn win32_relative_matches_node() {
        use super::win32::relative as rel;
        let cwd = "C:\\cwd";
        assert_eq!(rel(cwd, "C:\\ws", "C:\\ws"), "");
        assert_eq!(rel(cwd, "C:\\ws", "c:\\WS\\src\\a.ts"), "src\\a.ts");
        assert_eq!(rel(cwd, "C:\\ws", "C:\\x"), "..\\x");
        assert_eq!(rel(cwd, "C:\\ws", "C:\\ws_evil"), "..\\ws_evil");
        assert_eq!(rel(cwd, "C:\\ws\\a", "C:\\ws\\b\\c"), "..\\b\\c");
        assert_eq!(rel(cwd, "C:\\ws", "D:\\ws\\x"), "D:\\ws\\x");
        assert_eq!(rel(cwd, "C:\\ws", "\\\\s\\h\\x"), "\\\\s\\h\\x");
        assert_eq!(rel(cwd, "C:\\ws", "C:\\ws\\..foo"), "..foo");
    }

    #[test]
    fn relative_root_resolves_against_cwd() {
        let cwd = std::env::current_dir().unwrap();
        let expected = cwd.join("x").to_string_lossy().into_owned();
        assert_eq!(resolve("", "x"), expected);
    }
}
