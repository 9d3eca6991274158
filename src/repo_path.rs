//! The repository boundary: the one gate every path Uplift reads or writes inside a
//! project goes through, whichever tier proposed it (recipes, the repository's own recipes,
//! solved examples, a model).
//!
//! A path is relative, has no `..`, crosses no symbolic link (an existing component that is
//! a link is refused, so no link inside the repository can lead outside it), never enters a
//! `.git` directory at any depth, and never touches `.github/workflows/` unless Uplift's own
//! recipes proposed it: a workflow change pushed by the App runs with the App's token.

use std::io::{self, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Largest file the gate reads: far beyond any source, pom or descriptor, far below what a
/// build may write (its file size limit) into the worker's memory.
pub const MAX_READ_BYTES: u64 = 64 << 20;

/// Who proposed a path.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Uplift's built-in recipes.
    Builtin,
    /// The repository itself: its build files, its `recipes.dir`, its own recipes.
    Repository,
    /// A solved example from the knowledge store.
    Example,
    /// A model's answer.
    Model,
}

/// Why a path was refused.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    #[error("empty path")]
    Empty,
    #[error("absolute path")]
    Absolute,
    #[error("leaves the repository through `..`")]
    ParentDir,
    #[error("inside a .git directory")]
    GitDir,
    #[error("a CI workflow (.github/workflows), which only Uplift's own recipes may change")]
    Workflow,
    #[error("crosses the symbolic link {link}")]
    Symlink { link: PathBuf },
    #[error("not a regular file or directory")]
    Special,
    #[error("not among the files this task may touch")]
    NotAllowed,
    /// The journal holds text; such a path is recorded with its name shown lossily.
    #[error("a name that is not UTF-8")]
    NotUtf8,
}

/// A refused path, as the journal records it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, thiserror::Error)]
#[error("{}: refused ({origin:?}): {reason}", path.display())]
pub struct Refusal {
    pub path: PathBuf,
    pub origin: Origin,
    pub reason: Reason,
}

impl Refusal {
    /// A path found on disk whose name is not UTF-8, recorded with the name shown lossily.
    pub fn not_utf8(path: &Path, origin: Origin) -> Self {
        Self {
            path: PathBuf::from(path.to_string_lossy().into_owned()),
            origin,
            reason: Reason::NotUtf8,
        }
    }
}

impl From<Refusal> for io::Error {
    fn from(r: Refusal) -> Self {
        io::Error::new(io::ErrorKind::PermissionDenied, r.to_string())
    }
}

/// The gate for one kind of caller: the repository root, who proposes the paths, and
/// optionally the only files the caller's task may touch.
#[derive(Debug, Clone, Copy)]
pub struct Gate<'a> {
    pub root: &'a Path,
    pub origin: Origin,
    pub allowed: Option<&'a [PathBuf]>,
}

impl<'a> Gate<'a> {
    pub fn new(root: &'a Path, origin: Origin) -> Self {
        Self {
            root,
            origin,
            allowed: None,
        }
    }

    /// Only these files (relative to the root) may be touched.
    pub fn only(self, allowed: &'a [PathBuf]) -> Self {
        Self {
            allowed: Some(allowed),
            ..self
        }
    }

    /// The absolute path of `rel` inside the root, or why not.
    pub fn resolve(&self, rel: &Path) -> Result<PathBuf, Refusal> {
        let refuse = |reason| Refusal {
            path: rel.to_path_buf(),
            origin: self.origin,
            reason,
        };
        check_shape(rel, self.origin).map_err(refuse)?;
        let mut path = self.root.to_path_buf();
        let mut walked = PathBuf::new();
        for c in rel.components() {
            let Component::Normal(name) = c else { continue };
            path.push(name);
            walked.push(name);
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(refuse(Reason::Symlink { link: walked }));
                }
                Ok(m) if !m.is_file() && !m.is_dir() => return Err(refuse(Reason::Special)),
                Ok(_) => {}
                // Nothing below a missing component exists either.
                Err(_) => break,
            }
        }
        if let Some(allowed) = self.allowed
            && !allowed.iter().any(|a| lexical(a) == lexical(rel))
        {
            return Err(refuse(Reason::NotAllowed));
        }
        Ok(self.root.join(lexical(rel)))
    }

    /// Reads a file inside the root, never through a link (the final open refuses one too,
    /// in case it appeared after the check), and never one larger than [`MAX_READ_BYTES`].
    pub fn read(&self, rel: &Path) -> io::Result<Vec<u8>> {
        let path = self.resolve(rel)?;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)?;
        read_capped(file, MAX_READ_BYTES)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", rel.display())))
    }

    /// [`Gate::read`] as UTF-8 text.
    pub fn read_to_string(&self, rel: &Path) -> io::Result<String> {
        String::from_utf8(self.read(rel)?)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()))
    }

    /// Replaces (or creates) a file atomically: the bytes go to a fresh temporary file
    /// created exclusively in the same directory (a planted file or link there is never
    /// opened), which is then renamed over the target. A target that is a link is refused.
    pub fn write(&self, rel: &Path, bytes: &[u8]) -> io::Result<()> {
        let path = self.resolve(rel)?;
        let dir = path.parent().unwrap_or(self.root);
        std::fs::create_dir_all(dir)?;
        // Created directories cannot be links, but one may have appeared meanwhile.
        self.resolve(rel)?;
        let mode = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    "target became a symbolic link",
                ));
            }
            Ok(m) => m.permissions().mode() & 0o7777,
            Err(_) => 0o666,
        };
        let mut tmp = tempfile::Builder::new()
            .prefix(".uplift-")
            .suffix(".tmp")
            .permissions(std::fs::Permissions::from_mode(mode))
            .tempfile_in(dir)?;
        tmp.write_all(bytes)?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }

    /// Removes a file (a link is refused, not removed).
    pub fn remove(&self, rel: &Path) -> io::Result<()> {
        std::fs::remove_file(self.resolve(rel)?)
    }
}

/// Refusals that need no file system: absolute, `..`, empty, `.git`, workflows.
fn check_shape(rel: &Path, origin: Origin) -> Result<(), Reason> {
    let mut names = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) => names.push(n.to_string_lossy().to_lowercase()),
            Component::CurDir => {}
            Component::ParentDir => return Err(Reason::ParentDir),
            Component::RootDir | Component::Prefix(_) => return Err(Reason::Absolute),
        }
    }
    if names.is_empty() {
        return Err(Reason::Empty);
    }
    if names.iter().any(|n| is_git_dir_name(n)) {
        return Err(Reason::GitDir);
    }
    if origin != Origin::Builtin
        && names.len() >= 2
        && names[0] == ".github"
        && names[1] == "workflows"
    {
        return Err(Reason::Workflow);
    }
    Ok(())
}

/// Whether a (lowercased) name is `.git` on some file system the pushed branch may be
/// checked out on: macOS ignores zero-width and direction characters in names, Windows
/// trailing dots and spaces and an alternate data stream (`.git::$INDEX_ALLOCATION`), and
/// knows `.git` by its short name `git~1`.
fn is_git_dir_name(name: &str) -> bool {
    let visible: String = name
        .chars()
        .filter(|c| {
            !matches!(c, '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}')
        })
        .collect();
    let stream = visible.split(':').next().unwrap_or("");
    let trimmed = stream.trim_end_matches(['.', ' ']);
    trimmed == ".git" || trimmed == "git~1"
}

/// `rel` without `.` components, for comparing two spellings of one path.
fn lexical(rel: &Path) -> PathBuf {
    rel.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// Joins `rel` onto `base` (both relative to the root) and folds `..` lexically; `None`
/// when the result would leave the root or `rel` is absolute. For paths a repository file
/// names relative to itself (`<module>../shared</module>`); the gate checks the result.
pub fn join_inside(base: &Path, rel: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in base.components().chain(rel.components()) {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// All of `file`, unless it holds more than `limit` bytes: a build may have written a file
/// of gigabytes, and one byte more than the limit tells it apart without reading it.
pub fn read_capped(file: impl io::Read, limit: u64) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    file.take(limit + 1).read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {} MiB, not read", limit >> 20),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn reason(gate: &Gate, rel: &str) -> Option<Reason> {
        gate.resolve(Path::new(rel)).err().map(|r| r.reason)
    }

    /// A file of gigabytes (a build can write one up to its file size limit) is refused,
    /// not read into memory.
    #[test]
    fn an_oversized_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::File::create(dir.path().join("Big.java"))
            .unwrap()
            .set_len(MAX_READ_BYTES + 1)
            .unwrap();
        let gate = Gate::new(dir.path(), Origin::Repository);
        let err = gate.read(Path::new("Big.java")).map(|b| b.len());
        assert!(
            err.as_ref()
                .is_err_and(|e| e.to_string().contains("larger than")),
            "{err:?}"
        );
        std::fs::write(dir.path().join("A.java"), "class A {}").unwrap();
        assert_eq!(gate.read(Path::new("A.java")).unwrap(), b"class A {}");
    }

    #[test]
    fn refuses_shapes_that_leave_or_reach_git() {
        let dir = tempfile::tempdir().unwrap();
        let gate = Gate::new(dir.path(), Origin::Model);
        assert_eq!(reason(&gate, ""), Some(Reason::Empty));
        assert_eq!(reason(&gate, "./"), Some(Reason::Empty));
        assert_eq!(reason(&gate, "/etc/passwd"), Some(Reason::Absolute));
        assert_eq!(reason(&gate, "a/../../x"), Some(Reason::ParentDir));
        assert_eq!(reason(&gate, "a/../b"), Some(Reason::ParentDir));
        assert_eq!(reason(&gate, ".git/config"), Some(Reason::GitDir));
        assert_eq!(
            reason(&gate, "sub/deep/.GIT/hooks/pre-commit"),
            Some(Reason::GitDir)
        );
        assert_eq!(reason(&gate, "sub/.git"), Some(Reason::GitDir));
        // `.git` as macOS and Windows read these names.
        for name in [
            ".g\u{200c}it/hooks/post-checkout",
            "\u{feff}.git/config",
            ".git./hooks/x",
            ".GIT  /config",
            "GIT~1/config",
            ".git::$INDEX_ALLOCATION/config",
        ] {
            assert_eq!(reason(&gate, name), Some(Reason::GitDir), "{name:?}");
        }
        assert_eq!(reason(&gate, ".gitx/config"), None);
        assert_eq!(reason(&gate, "git~2/config"), None);
        assert_eq!(reason(&gate, ".gitignore"), None);
        assert_eq!(reason(&gate, "./src/A.java"), None);
    }

    #[test]
    fn workflows_only_from_builtin_recipes() {
        let dir = tempfile::tempdir().unwrap();
        let wf = ".github/workflows/ci.yml";
        for origin in [Origin::Model, Origin::Example, Origin::Repository] {
            let gate = Gate::new(dir.path(), origin);
            assert_eq!(reason(&gate, wf), Some(Reason::Workflow), "{origin:?}");
            assert_eq!(
                reason(&gate, ".GitHub/Workflows/x.yml"),
                Some(Reason::Workflow)
            );
            assert_eq!(reason(&gate, ".github/uplift.yml"), None);
            assert_eq!(reason(&gate, "sub/.github/workflows/ci.yml"), None);
        }
        assert_eq!(reason(&Gate::new(dir.path(), Origin::Builtin), wf), None);
    }

    #[test]
    fn refuses_any_symlinked_component() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/main")).unwrap();
        symlink(outside.path(), root.join("notes")).unwrap();
        symlink(outside.path(), root.join("src/main/java")).unwrap();
        std::fs::write(outside.path().join("A.java"), "x").unwrap();
        symlink(outside.path().join("A.java"), root.join("src/B.java")).unwrap();
        let gate = Gate::new(root, Origin::Builtin);
        assert_eq!(
            reason(&gate, "notes/README.txt"),
            Some(Reason::Symlink {
                link: "notes".into()
            })
        );
        assert_eq!(
            reason(&gate, "src/main/java/A.java"),
            Some(Reason::Symlink {
                link: "src/main/java".into()
            })
        );
        assert_eq!(
            reason(&gate, "src/B.java"),
            Some(Reason::Symlink {
                link: "src/B.java".into()
            })
        );
        assert!(gate.read(Path::new("src/B.java")).is_err());
        assert!(gate.write(Path::new("src/B.java"), b"y").is_err());
        assert!(gate.remove(Path::new("src/B.java")).is_err());
        assert_eq!(std::fs::read(outside.path().join("A.java")).unwrap(), b"x");
        // Missing components are fine: the write creates them.
        assert_eq!(reason(&gate, "src/new/C.java"), None);
    }

    #[test]
    fn only_the_allowed_files() {
        let dir = tempfile::tempdir().unwrap();
        let allowed = [PathBuf::from("src/A.java")];
        let gate = Gate::new(dir.path(), Origin::Example).only(&allowed);
        assert_eq!(reason(&gate, "./src/A.java"), None);
        assert_eq!(reason(&gate, "pom.xml"), Some(Reason::NotAllowed));
    }

    #[test]
    fn writes_through_a_fresh_temporary_file_keeping_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let root = dir.path();
        std::fs::write(root.join("run.sh"), "old").unwrap();
        std::fs::set_permissions(root.join("run.sh"), std::fs::Permissions::from_mode(0o750))
            .unwrap();
        // Links planted under every name an older Uplift used for its temporary file.
        for name in ["run.uplift-tmp", "run.sh.uplift-tmp", ".uplift-run.sh.tmp"] {
            symlink(&victim, root.join(name)).unwrap();
        }
        let gate = Gate::new(root, Origin::Builtin);
        gate.write(Path::new("run.sh"), b"new").unwrap();
        gate.write(Path::new("deep/er/new.txt"), b"fresh").unwrap();
        assert_eq!(std::fs::read(root.join("run.sh")).unwrap(), b"new");
        assert_eq!(
            std::fs::metadata(root.join("run.sh"))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o750
        );
        assert_eq!(
            std::fs::read(root.join("deep/er/new.txt")).unwrap(),
            b"fresh"
        );
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
    }

    #[test]
    fn joins_inside_or_not_at_all() {
        let j = |b: &str, r: &str| join_inside(Path::new(b), Path::new(r));
        assert_eq!(j("a", "../b/pom.xml"), Some(PathBuf::from("b/pom.xml")));
        assert_eq!(j("", "../x"), None);
        assert_eq!(j("a", "../../x"), None);
        assert_eq!(j("a", "/abs"), None);
    }
}
