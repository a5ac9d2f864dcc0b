//! A git index file read directly (its format: git's `gitformat-index`), for the journal's
//! snapshots: each path with the stat data git recorded, without starting git.
//!
//! Versions 2 to 4 are read, with object ids of SHA-1 or SHA-256 length. A split index (`link`
//! extension: most entries in a shared file) or a sparse one (directory entries, `sdir`) is not:
//! the caller then asks git (`git ls-files`).

/// One entry: its path (as git spells it, `/`-separated) and what git saw of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    /// ctime, mtime (seconds and nanoseconds), device, inode and size, as git stores them
    /// (truncated to 32 bits). A file whose stat data changed has another `stat`.
    pub stat: [u32; 7],
}

/// The entries of the index in `bytes`; `None` for what this reader does not take.
pub fn read_entries(bytes: &[u8]) -> Option<Vec<Entry>> {
    if bytes.len() < 12 || &bytes[..4] != b"DIRC" {
        return None;
    }
    let version = be32(bytes, 4)?;
    let count = be32(bytes, 8)? as usize;
    if !(2..=4).contains(&version) {
        return None;
    }
    [20, 32]
        .into_iter()
        .find_map(|oid_len| read_with(bytes, version, count, oid_len))
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn be16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

/// Version 4's prefix length: git's offset varint (7 bits a byte, each continuation adding one).
fn varint(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut used = 0;
    let mut byte = *bytes.first()?;
    let mut value = usize::from(byte & 0x7f);
    while byte & 0x80 != 0 {
        used += 1;
        byte = *bytes.get(used)?;
        value = value.checked_add(1)?.checked_shl(7)? | usize::from(byte & 0x7f);
    }
    Some((value, used + 1))
}

fn read_with(bytes: &[u8], version: u32, count: usize, oid_len: usize) -> Option<Vec<Entry>> {
    let mut entries = Vec::with_capacity(count.min(bytes.len() / 62));
    let mut at = 12;
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = at;
        let word = |i: usize| be32(bytes, start + 4 * i);
        let stat = [
            word(0)?,
            word(1)?,
            word(2)?,
            word(3)?,
            word(4)?,
            word(5)?,
            word(9)?,
        ];
        let mode = word(6)?;
        let flags = be16(bytes, start + 40 + oid_len)?;
        at = start + 40 + oid_len + 2;
        if flags & 0x4000 != 0 {
            if version < 3 {
                return None;
            }
            at += 2;
        }
        let name_len = usize::from(flags & 0x0fff);
        let path = if version == 4 {
            let (strip, used) = varint(bytes.get(at..)?)?;
            at += used;
            let end = at + memchr::memchr(0, bytes.get(at..)?)?;
            let mut path = previous.get(..previous.len().checked_sub(strip)?)?.to_vec();
            path.extend_from_slice(&bytes[at..end]);
            at = end + 1;
            path
        } else {
            let end = at + memchr::memchr(0, bytes.get(at..)?)?;
            let path = bytes[at..end].to_vec();
            // padded with 1 to 8 NULs to a multiple of 8 bytes
            at = start + ((end - start + 8) & !7);
            path
        };
        if (name_len != 0x0fff && name_len != path.len()) || at > bytes.len() {
            return None;
        }
        if mode & 0o170000 == 0o040000 {
            return None; // a sparse index's directory entry
        }
        entries.push(Entry {
            path: String::from_utf8(path.clone()).ok()?,
            stat,
        });
        previous = path;
    }
    // the extensions, up to the checksum
    while at + 8 + oid_len <= bytes.len() {
        let signature = bytes.get(at..at + 4)?;
        if signature == b"link" || signature == b"sdir" {
            return None;
        }
        if !signature[0].is_ascii_uppercase() && !signature[0].is_ascii_lowercase() {
            return None;
        }
        at += 8 + be32(bytes, at + 4)? as usize;
    }
    (at + oid_len == bytes.len()).then_some(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    fn listed(dir: &Path) -> Vec<String> {
        git(dir, &["ls-files", "-z"])
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect()
    }

    fn index_of(dir: &Path) -> Option<Vec<Entry>> {
        read_entries(&std::fs::read(dir.join(".git/index")).unwrap())
    }

    fn repository() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        // names of every padding length, a long one, shared prefixes (version 4), non-ASCII
        let mut names: Vec<String> = (1..=17).map(|n| "n".repeat(n)).collect();
        names.push(format!("deep/{}/{}.txt", "d".repeat(240), "e".repeat(240)));
        names.extend(["a/b/c.rs", "a/b/cd.rs", "a/bz.rs", "é/ü.txt"].map(String::from));
        for name in &names {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, name).unwrap();
        }
        git(dir.path(), &["add", "-A"]);
        dir
    }

    #[test]
    #[cfg_attr(
        windows,
        ignore = "makes its indexes with git, which the Windows test prefix (wine) does not have"
    )]
    fn every_version_reads_as_git_lists_it() {
        let dir = repository();
        for version in ["2", "3", "4"] {
            git(dir.path(), &["update-index", "--index-version", version]);
            if version == "3" {
                // an entry with extended flags: only version 3 and later have them
                git(dir.path(), &["update-index", "--skip-worktree", "a/bz.rs"]);
            }
            let entries = index_of(dir.path()).unwrap_or_else(|| panic!("version {version}"));
            let paths: Vec<String> = entries.iter().map(|e| e.path.clone()).collect();
            assert_eq!(paths, listed(dir.path()), "version {version}");
        }
    }

    #[test]
    #[cfg_attr(
        windows,
        ignore = "makes its indexes with git, which the Windows test prefix (wine) does not have"
    )]
    fn a_changed_file_has_other_stat_data_after_add() {
        let dir = repository();
        let stat_of = |path: &str| {
            index_of(dir.path())
                .unwrap()
                .into_iter()
                .find(|e| e.path == path)
                .unwrap()
                .stat
        };
        let before = stat_of("nnn");
        std::fs::write(dir.path().join("nnn"), "longer content").unwrap();
        git(dir.path(), &["add", "-A"]);
        assert_ne!(stat_of("nnn"), before);
        assert_eq!(stat_of("nnn")[6], 14);
    }

    #[test]
    #[cfg_attr(
        windows,
        ignore = "makes its indexes with git, which the Windows test prefix (wine) does not have"
    )]
    fn split_indexes_and_anything_else_are_left_to_git() {
        let dir = repository();
        git(dir.path(), &["update-index", "--split-index"]);
        assert_eq!(index_of(dir.path()), None);
        assert_eq!(read_entries(b"DIRC"), None);
        assert_eq!(read_entries(b"not an index at all"), None);
        let mut truncated = std::fs::read(repository().path().join(".git/index")).unwrap();
        truncated.truncate(truncated.len() / 2);
        assert_eq!(read_entries(&truncated), None);
    }
}
