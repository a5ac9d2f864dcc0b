//! macOS, the platform part of the exec sandbox: a Seatbelt profile (SBPL) applied by the child
//! between fork and exec (`sandbox_init`). The profile's text is built on every platform, so
//! that it is tested here.

use std::path::{Path, PathBuf};

use super::{WriteReach, WRITABLE_DEVICES};

/// The Seatbelt (SBPL) profile of macOS: everything allowed, then writes outside the allowed
/// places and (when denied) IP networking refused. Built on every platform so that its text is
/// tested here; only macOS applies it.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub fn profile(write: WriteReach, writable: &[PathBuf], deny_network: bool) -> String {
    // An SBPL string literal.
    fn quoted(path: &Path) -> String {
        let text = path.to_string_lossy();
        format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
    }
    let mut profile = String::from("(version 1)\n(allow default)\n");
    if write != WriteReach::All {
        let mut allowed: Vec<String> = writable
            .iter()
            .map(|dir| format!("(subpath {})", quoted(dir)))
            .collect();
        allowed.extend(
            WRITABLE_DEVICES
                .iter()
                .map(|d| format!("(literal {})", quoted(Path::new(d)))),
        );
        profile.push_str(&format!(
            "(deny file-write* (require-not (require-any {})))\n",
            allowed.join(" ")
        ));
    }
    if deny_network {
        profile.push_str(
            "(deny network-outbound (remote ip))\n(deny network-bind (local ip))\n(deny network-inbound (local ip))\n",
        );
    }
    profile
}

#[cfg(target_os = "macos")]
pub mod platform {
    use std::ffi::{c_char, c_int, CString};
    use std::io;
    use std::path::PathBuf;

    use crate::exec_sandbox::{ExecSandbox, NetworkReach, Refusal, WriteReach};

    extern "C" {
        /// libsystem_sandbox: applies an SBPL profile (flags 0: `profile` is the profile text).
        fn sandbox_init(profile: *const c_char, flags: u64, errorbuf: *mut *mut c_char) -> c_int;
        fn sandbox_free_error(errorbuf: *mut c_char);
    }

    /// Seatbelt has no version; 0 stands for "available".
    pub fn support() -> Result<u32, String> {
        if crate::test_hooks::landlock_hidden() {
            return Err("the OS sandbox is not available (simulated by a test hook)".into());
        }
        Ok(0)
    }

    pub fn report(_: u32, write: WriteReach, network: NetworkReach) -> ExecSandbox {
        ExecSandbox::Seatbelt { write, network }
    }

    pub fn missing_rights(_: u32, _: WriteReach) -> Option<String> {
        None
    }

    /// Seatbelt profiles here do not restrict what runs.
    pub fn executables_of(_: &std::path::Path) -> Option<Vec<PathBuf>> {
        None
    }

    /// The profile text, made before the fork.
    pub struct Restriction {
        profile: CString,
    }

    impl Restriction {
        /// Applies the profile. libsystem_sandbox compiles it, which allocates: tolerated on
        /// macOS, whose allocator is fork-safe (its atfork handlers reset its locks).
        pub fn apply(&self) -> io::Result<()> {
            let mut error: *mut c_char = std::ptr::null_mut();
            // SAFETY: a NUL-terminated profile owned by `self`; `error` is a local out-pointer.
            let status = unsafe { sandbox_init(self.profile.as_ptr(), 0, &mut error) };
            if status != 0 {
                if !error.is_null() {
                    // SAFETY: the error buffer sandbox_init handed back, freed once.
                    unsafe { sandbox_free_error(error) };
                }
                return Err(io::Error::from(io::ErrorKind::PermissionDenied));
            }
            Ok(())
        }
    }

    pub fn build(
        _: u32,
        write: WriteReach,
        writable: &[PathBuf],
        deny_network: bool,
        _executables: Option<&[PathBuf]>,
    ) -> Result<Restriction, Refusal> {
        let profile = CString::new(super::profile(write, writable, deny_network))
            .map_err(|_| Refusal::Failed("a path holds a NUL byte".into()))?;
        Ok(Restriction { profile })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seatbelt_profile_allows_writes_only_where_the_scope_does() {
        let dirs = [
            PathBuf::from("/ws/a \"b\""),
            PathBuf::from("/private/tmp/x"),
        ];
        let workspace = profile(WriteReach::Workspace, &dirs, true);
        assert!(workspace.starts_with("(version 1)\n(allow default)\n"));
        assert!(workspace.contains(
            "(deny file-write* (require-not (require-any (subpath \"/ws/a \\\"b\\\"\") (subpath \"/private/tmp/x\") (literal \"/dev/null\")"
        ), "{workspace}");
        assert!(workspace.contains("(deny network-outbound (remote ip))"));
        let none = profile(WriteReach::None, &[], false);
        assert!(
            none.contains("(require-any (literal \"/dev/null\")"),
            "{none}"
        );
        assert!(!none.contains("network"));
        assert_eq!(
            profile(WriteReach::All, &[], false),
            "(version 1)\n(allow default)\n"
        );
    }
}
