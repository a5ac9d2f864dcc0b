use super::*;

#[test]
fn refspecs_map_names() {
    let spec = "+refs/heads/*:refs/remotes/origin/*";
    assert_eq!(
        map_refspec(spec, "refs/heads/feature/x").as_deref(),
        Some("refs/remotes/origin/feature/x")
    );
    assert_eq!(map_refspec(spec, "refs/tags/v1"), None);
    assert_eq!(
        map_refspec("refs/heads/main:refs/remotes/o/main", "refs/heads/main").as_deref(),
        Some("refs/remotes/o/main")
    );
    assert_eq!(map_refspec("refs/heads/*", "refs/heads/main"), None);
}

#[test]
fn only_plain_ref_names_are_joined() {
    for good in ["refs/heads/main", "refs/remotes/origin/feature/é"] {
        assert!(is_safe_ref(good), "{good}");
    }
    for bad in [
        "refs/../../x",
        "refs/heads//x",
        "/etc/passwd",
        "refs/heads/./x",
        "refs\\..\\x",
        "HEAD",
        "refs/heads/a:b",
    ] {
        assert!(!is_safe_ref(bad), "{bad}");
    }
}

#[test]
fn the_allow_list_takes_no_program_valued_key() {
    let entry = |section: &str, sub: Option<&str>, key: &str| config::Entry {
        section: section.into(),
        subsection: sub.map(String::from),
        key: key.into(),
        value: Some("x".into()),
    };
    assert!(is_allowed(&entry("core", None, "autocrlf")));
    assert!(is_allowed(&entry("branch", Some("main"), "merge")));
    assert!(!is_allowed(&entry("branch", None, "merge")));
    assert!(!is_allowed(&entry("core", Some("x"), "autocrlf")));
    for (section, sub, key) in [
        ("core", None, "fsmonitor"),
        ("core", None, "hookspath"),
        ("core", None, "sshcommand"),
        ("core", None, "pager"),
        ("core", None, "editor"),
        ("core", None, "askpass"),
        ("core", None, "worktree"),
        ("core", None, "excludesfile"),
        ("core", None, "attributesfile"),
        ("filter", Some("lfs"), "clean"),
        ("filter", Some("lfs"), "process"),
        ("diff", None, "external"),
        ("diff", Some("x"), "textconv"),
        ("include", None, "path"),
        ("includeif", Some("gitdir:/"), "path"),
        ("credential", None, "helper"),
        ("gpg", None, "program"),
        ("remote", Some("o"), "uploadpack"),
        ("remote", Some("o"), "vcs"),
        ("uploadpack", None, "packobjectshook"),
        ("alias", None, "status"),
    ] {
        assert!(!is_allowed(&entry(section, sub, key)), "{section}.{key}");
    }
}

/// A workspace `<tmp>/ws` holding a git directory made by hand (no git needed), and the
/// directory beside it, outside.
struct Layout {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn make_git_dir(dir: &Path) {
    std::fs::create_dir_all(dir.join("objects").join("info")).unwrap();
    std::fs::create_dir_all(dir.join("refs").join("heads")).unwrap();
    std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
}

fn layout() -> Layout {
    let dir = tempfile::tempdir().unwrap();
    let base = real_path(dir.path()).unwrap();
    let root = base.join("ws");
    let outside = base.join("outside");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    make_git_dir(&root.join(".git"));
    make_git_dir(&outside.join(".git"));
    Layout {
        _dir: dir,
        root,
        outside,
    }
}

fn find(l: &Layout, from: &str) -> Result<Repository, Refusal> {
    discover(&l.root.join(from), &l.root, &[])
}

#[test]
fn a_repository_inside_is_found_from_below() {
    let l = layout();
    let repo = find(&l, "sub").unwrap();
    assert_eq!(repo.work_tree, l.root);
    assert_eq!(repo.git_dir, l.root.join(".git"));
    assert_eq!(repo.common_dir, l.root.join(".git"));
    assert_eq!(repo.objects_dir, l.root.join(".git").join("objects"));
    assert_eq!(find(&l, ".git"), Err(Refusal::Git(NO_WORK_TREE.into())));
    assert_eq!(
        find(&l, ".git/refs"),
        Err(Refusal::Git(NO_WORK_TREE.into()))
    );
}

#[test]
fn a_linked_work_tree_inside_is_found() {
    let l = layout();
    let wt_git = l.root.join(".git").join("worktrees").join("wt");
    std::fs::create_dir_all(&wt_git).unwrap();
    std::fs::write(wt_git.join("HEAD"), "ref: refs/heads/other\n").unwrap();
    std::fs::write(wt_git.join("commondir"), "../..\n").unwrap();
    std::fs::create_dir_all(l.root.join("wt")).unwrap();
    std::fs::write(
        l.root.join("wt").join(".git"),
        "gitdir: ../.git/worktrees/wt\n",
    )
    .unwrap();
    let repo = find(&l, "wt").unwrap();
    assert_eq!(repo.work_tree, l.root.join("wt"));
    assert_eq!(repo.git_dir, wt_git);
    assert_eq!(repo.common_dir, l.root.join(".git"));
}

#[test]
fn a_git_file_naming_a_repository_outside_is_refused() {
    let l = layout();
    std::fs::remove_dir_all(l.root.join(".git")).unwrap();
    let named = format!("{}/.git", l.outside.display());
    std::fs::write(l.root.join(".git"), format!("gitdir: {named}\n")).unwrap();
    assert_eq!(find(&l, "sub"), Err(Refusal::Outside(named)));
    // Relative, through `..`.
    std::fs::write(l.root.join(".git"), "gitdir: ../outside/.git\n").unwrap();
    assert_eq!(
        find(&l, "."),
        Err(Refusal::Outside("../outside/.git".into()))
    );
}

#[test]
fn a_common_directory_outside_is_refused() {
    let l = layout();
    let wt_git = l.root.join("wtgit");
    std::fs::create_dir_all(&wt_git).unwrap();
    std::fs::write(wt_git.join("HEAD"), "ref: refs/heads/x\n").unwrap();
    std::fs::write(
        wt_git.join("commondir"),
        format!("{}/.git\n", l.outside.display()),
    )
    .unwrap();
    std::fs::remove_dir_all(l.root.join(".git")).unwrap();
    std::fs::write(l.root.join(".git"), "gitdir: wtgit\n").unwrap();
    assert_eq!(find(&l, "."), Err(Refusal::Outside("commondir".into())));
}

#[test]
fn alternates_outside_are_refused() {
    let l = layout();
    let alternates = l.root.join(".git/objects/info/alternates");
    std::fs::write(&alternates, "# a comment\n\n../../sub\n").unwrap();
    assert!(find(&l, ".").is_ok(), "an alternate inside is fine");
    let outside_objects = format!("{}/.git/objects", l.outside.display());
    std::fs::write(&alternates, format!("{outside_objects}\n")).unwrap();
    assert_eq!(find(&l, "."), Err(Refusal::Outside(outside_objects)));
    std::fs::write(&alternates, "\"quoted\"\n").unwrap();
    assert!(matches!(find(&l, "."), Err(Refusal::Outside(_))));
    // An alternate inside whose own alternates lead outside.
    std::fs::create_dir_all(l.root.join("sub/info")).unwrap();
    std::fs::write(&alternates, "../../sub\n").unwrap();
    std::fs::write(
        l.root.join("sub/info/alternates"),
        "../../outside/.git/objects\n",
    )
    .unwrap();
    assert!(matches!(find(&l, "."), Err(Refusal::Outside(_))));
}

#[cfg(unix)]
#[test]
fn directories_linked_outside_are_refused() {
    let l = layout();
    let objects = l.root.join(".git/objects");
    std::fs::remove_dir_all(&objects).unwrap();
    std::os::unix::fs::symlink(l.outside.join(".git/objects"), &objects).unwrap();
    assert_eq!(find(&l, "."), Err(Refusal::Outside("objects".into())));

    let l = layout();
    std::fs::rename(l.root.join(".git"), l.root.join("real-git")).unwrap();
    std::os::unix::fs::symlink(l.outside.join(".git"), l.root.join(".git")).unwrap();
    assert_eq!(find(&l, "."), Err(Refusal::Outside(".git".into())));
}

#[test]
fn a_repository_above_the_workspace_is_refused() {
    let l = layout();
    let inner = l.root.join("sub");
    assert_eq!(
        discover(&inner, &inner, &[]),
        Err(Refusal::Outside(
            "the repository holding the workspace".into()
        ))
    );
    // Without a repository up to the ceiling: not a repository.
    std::fs::remove_dir_all(l.root.join(".git")).unwrap();
    let ceiling = l.root.parent().unwrap().to_path_buf();
    assert_eq!(
        discover(&inner, &inner, std::slice::from_ref(&ceiling)),
        Err(Refusal::NotRepository)
    );
}

/// `core.worktree` leading outside, the repository's settings read in-process.
#[test]
fn a_work_tree_outside_is_refused() {
    let l = layout();
    let repo = find(&l, ".").unwrap();
    // `/` separated: in git's configuration a `\` starts an escape.
    let outside = l.outside.display().to_string().replace('\\', "/");
    std::fs::write(
        l.root.join(".git/config"),
        format!("[core]\n\tworktree = {outside}\n[status]\n\tshowUntrackedFiles = all\n"),
    )
    .unwrap();
    assert_eq!(
        RepositorySettings::read(&repo, &l.root).err(),
        Some(Refusal::Outside(outside))
    );
}

#[test]
fn settings_are_filtered_and_the_private_directory_holds_no_program() {
    let l = layout();
    let repo = find(&l, ".").unwrap();
    std::fs::write(
        l.root.join(".git/config"),
        "[core]\n\trepositoryformatversion = 1\n\tfsmonitor = /x/evil\n\tautocrlf = input\n\
         \tfilemode\n[extensions]\n\tobjectFormat = sha256\n[filter \"evil\"]\n\tclean = /x/evil\n\
         [branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n\
         [remote \"origin\"]\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\
         [include]\n\tpath = /x/included\n",
    )
    .unwrap();
    std::fs::create_dir_all(l.root.join(".git/refs/remotes/origin")).unwrap();
    std::fs::write(l.root.join(".git/refs/heads/main"), "1".repeat(64)).unwrap();
    std::fs::write(l.root.join(".git/refs/remotes/origin/main"), "2".repeat(64)).unwrap();
    std::fs::write(l.root.join(".git/packed-refs"), "# packed\n").unwrap();
    std::fs::create_dir_all(l.root.join(".git/info")).unwrap();
    std::fs::write(l.root.join(".git/info/exclude"), "*.log\n").unwrap();
    let settings = RepositorySettings::read(&repo, &l.root).unwrap();
    let names: Vec<&str> = settings.passed_on.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "core.autocrlf",
            "core.filemode",
            "branch.main.remote",
            "branch.main.merge",
            "remote.origin.fetch"
        ]
    );
    assert_eq!(settings.passed_on[1].1, "true");
    let private = tempfile::tempdir().unwrap();
    settings.populate(&repo, &l.root, private.path()).unwrap();
    let read = |p: &str| std::fs::read_to_string(private.path().join(p)).unwrap();
    assert_eq!(
        read("config"),
        "[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\tobjectformat = sha256\n"
    );
    assert_eq!(read("HEAD"), "ref: refs/heads/main\n");
    assert_eq!(read("refs/heads/main"), "1".repeat(64));
    assert_eq!(read("refs/remotes/origin/main"), "2".repeat(64));
    assert_eq!(read("packed-refs"), "# packed\n");
    assert_eq!(read("info/exclude"), "*.log\n");
}

#[test]
fn a_configuration_the_reader_does_not_understand_is_refused() {
    let l = layout();
    let repo = find(&l, ".").unwrap();
    std::fs::write(
        l.root.join(".git/config"),
        "[core]\n\tfsmonitor = \"/x/evil\n",
    )
    .unwrap();
    assert_eq!(
        RepositorySettings::read(&repo, &l.root).err(),
        Some(Refusal::Git(
            "fatal: bad config line 2 in file config".into()
        ))
    );
    std::fs::write(
        l.root.join(".git/config"),
        "[extensions]\n\trefStorage = \"x y\"\n",
    )
    .unwrap();
    assert!(matches!(
        RepositorySettings::read(&repo, &l.root),
        Err(Refusal::Git(_))
    ));
}

/// PATH entries that are relative, or lie inside the workspace (directly or through a link),
/// never supply git.
#[cfg(unix)]
#[test]
fn git_comes_only_from_absolute_path_entries_outside() {
    use std::os::unix::fs::PermissionsExt;
    let l = layout();
    let inside_bin = l.root.join("bin");
    let outside_bin = l.outside.join("bin");
    for dir in [&inside_bin, &outside_bin] {
        std::fs::create_dir_all(dir).unwrap();
        let git = dir.join("git");
        std::fs::write(&git, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&git, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let linked = l.outside.join("linked");
    std::os::unix::fs::symlink(&inside_bin, &linked).unwrap();
    let mut ctx = ToolContext::allow_all(&l.root.to_string_lossy());
    let path = |entries: &[&str]| {
        let mut ctx = ctx.clone();
        ctx.process_env = Some(vec![("PATH".into(), entries.join(":"))]);
        find_git(&ctx, &l.root)
    };
    let inside = inside_bin.to_string_lossy().into_owned();
    let outside = outside_bin.to_string_lossy().into_owned();
    let via_link = linked.to_string_lossy().into_owned();
    let want = Some(format!("{outside}/git"));
    assert_eq!(path(&[&inside, &outside]), want);
    assert_eq!(path(&[".", "bin", &via_link, &outside]), want);
    assert_eq!(path(&[&inside, "."]), None);
    // A git outside that is a link to one inside is not taken either.
    std::fs::remove_file(outside_bin.join("git")).unwrap();
    std::os::unix::fs::symlink(inside_bin.join("git"), outside_bin.join("git")).unwrap();
    assert_eq!(path(&[&outside]), None);
    ctx.process_env = None;
}
