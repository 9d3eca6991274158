//! Git working copies: clone with the installation token (given to git through a credentials
//! callback, never through a URL, a file or a build's environment), commit as the app, and push
//! the migration branch without ever overwriting commits someone else added.

use std::path::{Path, PathBuf};

use anyhow::Context;
use git2::{
    BranchType, Cred, FetchOptions, Oid, PushOptions, RemoteCallbacks, Repository, Signature,
    build::RepoBuilder,
};

use crate::repo_path::{Gate, Origin};
use crate::secrets::Secret;

pub const BRANCH_PREFIX: &str = "uplift/java-";

pub fn branch_for(target: u32) -> String {
    format!("{BRANCH_PREFIX}{target}")
}

/// Who the app commits as.
#[derive(Debug, Clone)]
pub struct Author {
    pub name: String,
    pub email: String,
}

impl Author {
    pub fn for_app(slug: &str) -> Self {
        Self {
            name: format!("{slug}[bot]"),
            email: format!("{slug}[bot]@users.noreply.github.com"),
        }
    }
    fn signature(&self) -> anyhow::Result<Signature<'static>> {
        Ok(Signature::now(&self.name, &self.email)?)
    }
}

/// What is already on the remote migration branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteBranch {
    Absent,
    /// Only the app's commits on top of the default branch.
    Ours {
        head: Oid,
    },
    /// Someone else added commits (named by short sha and author).
    Edited {
        head: Oid,
        foreign: Vec<String>,
    },
}

/// Gives the token to `url` alone: a remote any repository file could have redirected
/// (`.git/config`, a build's doing) never receives it.
fn callbacks<'a>(token: &'a Secret, url: &'a str) -> RemoteCallbacks<'a> {
    let mut cb = RemoteCallbacks::new();
    cb.credentials(move |asked, _user, _allowed| {
        if asked == url {
            Cred::userpass_plaintext("x-access-token", token.expose())
        } else {
            Err(git2::Error::from_str(&format!(
                "no credentials for {}",
                crate::redact::redact(asked)
            )))
        }
    });
    cb
}

/// Clones `url` into `dest` (which must not exist) with every branch of the remote.
pub fn clone(url: &str, token: &Secret, dest: &Path) -> anyhow::Result<Repository> {
    let mut fetch = FetchOptions::new();
    fetch.remote_callbacks(callbacks(token, url));
    RepoBuilder::new()
        .fetch_options(fetch)
        .clone(url, dest)
        .with_context(|| format!("cannot clone {}", crate::redact::redact(url)))
}

pub fn head_sha(repo: &Repository) -> anyhow::Result<Oid> {
    Ok(repo.head()?.peel_to_commit()?.id())
}

/// Inspects `origin/<branch>` against the base commit.
pub fn remote_branch(
    repo: &Repository,
    branch: &str,
    base: Oid,
    author: &Author,
) -> anyhow::Result<RemoteBranch> {
    let Ok(remote) = repo.find_branch(&format!("origin/{branch}"), BranchType::Remote) else {
        return Ok(RemoteBranch::Absent);
    };
    let head = remote.get().peel_to_commit()?.id();
    let mut walk = repo.revwalk()?;
    walk.push(head)?;
    walk.hide(base)?;
    let mut foreign = Vec::new();
    for oid in walk {
        let commit = repo.find_commit(oid?)?;
        if commit.author().email().ok() != Some(author.email.as_str()) {
            foreign.push(format!(
                "{} by {}",
                &commit.id().to_string()[..8],
                commit.author().name().unwrap_or("unknown")
            ));
        }
    }
    Ok(if foreign.is_empty() {
        RemoteBranch::Ours { head }
    } else {
        RemoteBranch::Edited { head, foreign }
    })
}

/// Commits exactly `files` (paths relative to the work tree) on top of HEAD: the migration's
/// own changes, never build output lying beside them. None when nothing changed.
pub fn commit_files(
    repo: &Repository,
    files: &[PathBuf],
    message: &str,
    author: &Author,
) -> anyhow::Result<Option<Oid>> {
    let mut index = repo.index()?;
    let workdir = repo.workdir().context("bare repository")?.to_path_buf();
    // libgit2 reads a path through linked directories: a build may have replaced one on the
    // way with a link out of the work tree since the file was written.
    let gate = Gate::new(&workdir, Origin::Builtin);
    for f in files {
        gate.resolve(f)
            .with_context(|| format!("cannot stage {}", f.display()))?;
        let staged = if workdir.join(f).exists() {
            index.add_path(f)
        } else {
            index.remove_path(f)
        };
        staged.with_context(|| format!("cannot stage {}", f.display()))?;
    }
    index.write()?;
    let tree_id = index.write_tree()?;
    let parent = repo.head()?.peel_to_commit()?;
    if parent.tree_id() == tree_id {
        return Ok(None);
    }
    let tree = repo.find_tree(tree_id)?;
    let sig = author.signature()?;
    let oid = repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &[&parent])?;
    Ok(Some(oid))
}

/// True when `a` and `b` hold the same files.
pub fn same_tree(repo: &Repository, a: Oid, b: Oid) -> anyhow::Result<bool> {
    Ok(repo.find_commit(a)?.tree_id() == repo.find_commit(b)?.tree_id())
}

/// Pushes `commit` to `refs/heads/<branch>`. `force` only replaces the app's own commits
/// (the caller checked [`remote_branch`]). A rejected update is an error: libgit2 reports
/// rejections through `push_update_reference`, not through `push`'s result.
pub fn push(
    repo: &Repository,
    url: &str,
    token: &Secret,
    branch: &str,
    commit: Oid,
    force: bool,
) -> anyhow::Result<()> {
    let local = format!("refs/heads/{branch}");
    repo.reference(&local, commit, true, "uplift: migration branch")?;
    let mut rejected: Option<String> = None;
    {
        let mut cb = callbacks(token, url);
        cb.push_update_reference(|refname, status| {
            if let Some(msg) = status {
                rejected = Some(format!("{refname}: {msg}"));
            }
            Ok(())
        });
        let mut opts = PushOptions::new();
        opts.remote_callbacks(cb);
        let spec = format!("{}{local}:{local}", if force { "+" } else { "" });
        // To the URL the repository was cloned from, not the `origin` its config names.
        repo.remote_anonymous(url)?
            .push(&[spec.as_str()], Some(&mut opts))
            .context("push failed")?;
    }
    match rejected {
        Some(why) => anyhow::bail!("push rejected: {why}"),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig() -> Signature<'static> {
        Signature::now("Dev", "dev@example.com").unwrap()
    }

    /// A raw tree object (no validation of the names, as a hostile server would send it).
    fn raw_tree(repo: &Repository, entries: &[(&str, &str, Oid)]) -> Oid {
        let mut bytes = Vec::new();
        for (mode, name, oid) in entries {
            bytes.extend(format!("{mode} {name}\0").as_bytes());
            bytes.extend(oid.as_bytes());
        }
        repo.odb()
            .unwrap()
            .write(git2::ObjectType::Tree, &bytes)
            .unwrap()
    }

    /// A repository whose tree holds `.git` in a subdirectory (`sub/.git/config` with a
    /// `core.fsmonitor`, run by git on the host) or a `.git` link at its root: the clone
    /// refuses to check either out, so no `.git` of the repository's making is on disk.
    #[test]
    fn a_tree_carrying_git_entries_is_never_checked_out() {
        let dir = tempfile::tempdir().unwrap();
        let bare = dir.path().join("remote.git");
        let remote = Repository::init_bare(&bare).unwrap();
        let config = remote
            .blob(b"[core]\n\tfsmonitor = touch /tmp/uplift-pwned\n")
            .unwrap();
        let pom = remote.blob(b"<project/>\n").unwrap();
        let link = remote.blob(b"/var/lib/uplift").unwrap();
        let dot_git = raw_tree(&remote, &[("100644", "config", config)]);
        let sub = raw_tree(&remote, &[("40000", ".git", dot_git)]);
        for (name, root) in [
            (
                "nested",
                raw_tree(
                    &remote,
                    &[("100644", "pom.xml", pom), ("40000", "sub", sub)],
                ),
            ),
            (
                "link",
                raw_tree(
                    &remote,
                    &[("120000", ".git", link), ("100644", "pom.xml", pom)],
                ),
            ),
        ] {
            let tree = remote.find_tree(root).unwrap();
            let commit = remote
                .commit(None, &sig(), &sig(), "evil", &tree, &[])
                .unwrap();
            remote
                .reference("refs/heads/main", commit, true, "evil")
                .unwrap();
            remote.set_head("refs/heads/main").unwrap();
            let work = dir.path().join(name);
            let cloned = super::clone(bare.to_str().unwrap(), &Secret::new("t"), &work);
            assert!(
                !work.join("sub/.git").exists(),
                "{name}: {:?}",
                cloned.as_ref().err()
            );
            let git = std::fs::symlink_metadata(work.join(".git"));
            assert!(
                git.as_ref().map_or(true, |m| m.is_dir()),
                "{name}: the checkout's .git is its own directory, never the tree's link"
            );
        }
    }

    /// A bare "remote" with one commit on main, and a clone of it.
    fn setup() -> (tempfile::TempDir, Repository, Oid) {
        let dir = tempfile::tempdir().unwrap();
        let seed = Repository::init(dir.path().join("seed")).unwrap();
        std::fs::write(dir.path().join("seed/a.txt"), "one\n").unwrap();
        let mut idx = seed.index().unwrap();
        idx.add_path(Path::new("a.txt")).unwrap();
        let tree = seed.find_tree(idx.write_tree().unwrap()).unwrap();
        let base = seed
            .commit(Some("HEAD"), &sig(), &sig(), "init", &tree, &[])
            .unwrap();
        let bare = dir.path().join("remote.git");
        Repository::init_bare(&bare).unwrap();
        seed.remote("origin", bare.to_str().unwrap()).unwrap();
        let head = seed.head().unwrap().name().unwrap().to_string();
        seed.find_remote("origin")
            .unwrap()
            .push(&[format!("{head}:{head}")], None)
            .unwrap();
        let clone = super::clone(
            bare.to_str().unwrap(),
            &Secret::new("t"),
            &dir.path().join("work"),
        )
        .unwrap();
        (dir, clone, base)
    }

    #[test]
    fn commit_push_and_detect_foreign_commits() {
        let (dir, repo, base) = setup();
        let app = Author::for_app("uplift");
        let token = Secret::new("t");
        assert_eq!(
            remote_branch(&repo, "uplift/java-17", base, &app).unwrap(),
            RemoteBranch::Absent
        );
        let a = [PathBuf::from("a.txt")];
        assert_eq!(commit_files(&repo, &a, "nothing", &app).unwrap(), None);
        std::fs::write(dir.path().join("work/a.txt"), "two\n").unwrap();
        std::fs::create_dir_all(dir.path().join("work/target")).unwrap();
        std::fs::write(dir.path().join("work/target/A.class"), "build output").unwrap();
        let ours = commit_files(&repo, &a, "migrate", &app).unwrap().unwrap();
        let tree = repo.find_commit(ours).unwrap().tree().unwrap();
        assert!(
            tree.get_path(Path::new("target/A.class")).is_err(),
            "build output is never committed"
        );
        let remote = dir.path().join("remote.git");
        let url = remote.to_str().unwrap();
        // A build pointed `origin` elsewhere: the push still goes where the clone came from.
        let evil = Repository::init_bare(dir.path().join("evil.git")).unwrap();
        repo.remote_set_url("origin", evil.path().to_str().unwrap())
            .unwrap();
        push(&repo, url, &token, "uplift/java-17", ours, false).unwrap();
        assert!(evil.find_reference("refs/heads/uplift/java-17").is_err());

        // A second clone sees the branch as ours; a human commit on it makes it edited.
        let other = super::clone(
            dir.path().join("remote.git").to_str().unwrap(),
            &token,
            &dir.path().join("other"),
        )
        .unwrap();
        assert_eq!(
            remote_branch(&other, "uplift/java-17", base, &app).unwrap(),
            RemoteBranch::Ours { head: ours }
        );
        let parent = other.find_commit(ours).unwrap();
        let human = other
            .commit(
                None,
                &sig(),
                &sig(),
                "tweak",
                &parent.tree().unwrap(),
                &[&parent],
            )
            .unwrap();
        push(&other, url, &token, "uplift/java-17", human, false).unwrap();

        // The first clone's stale view: a non-force push of a divergent commit is rejected.
        std::fs::write(dir.path().join("work/a.txt"), "three\n").unwrap();
        let diverged = commit_files(&repo, &a, "again", &app).unwrap().unwrap();
        let err = push(&repo, url, &token, "uplift/java-17", diverged, false).unwrap_err();
        assert!(
            err.to_string().contains("rejected") || err.to_string().contains("push"),
            "{err}"
        );

        let fresh = super::clone(
            dir.path().join("remote.git").to_str().unwrap(),
            &token,
            &dir.path().join("fresh"),
        )
        .unwrap();
        match remote_branch(&fresh, "uplift/java-17", base, &app).unwrap() {
            RemoteBranch::Edited { foreign, .. } => {
                assert!(foreign[0].contains("Dev"), "{foreign:?}")
            }
            other => panic!("{other:?}"),
        }
    }

    /// A build replaced a directory the migration wrote into with a link out of the work
    /// tree: the file of the same name there (another checkout's pom, say) is not committed
    /// and pushed.
    #[test]
    fn a_written_file_behind_a_planted_link_is_not_committed() {
        let (dir, repo, _) = setup();
        let app = Author::for_app("uplift");
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join("m")).unwrap();
        std::fs::write(work.join("m/pom.xml"), "<project/>\n").unwrap();
        let written = [PathBuf::from("m/pom.xml")];
        let first = commit_files(&repo, &written, "migrate", &app)
            .unwrap()
            .unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("pom.xml"), "host secret\n").unwrap();
        std::fs::remove_dir_all(work.join("m")).unwrap();
        std::os::unix::fs::symlink(&outside, work.join("m")).unwrap();
        let err = commit_files(&repo, &written, "again", &app).unwrap_err();
        assert!(format!("{err:#}").contains("symbolic link"), "{err:#}");
        assert_eq!(head_sha(&repo).unwrap(), first);
        let index = repo.index().unwrap();
        let staged = index.get_path(Path::new("m/pom.xml"), 0).unwrap();
        let blob = repo.find_blob(staged.id).unwrap();
        assert_eq!(blob.content(), b"<project/>\n");
    }
}
