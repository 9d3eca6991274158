//! Pending file contents for a run: recipes read and write here, and nothing reaches the
//! disk until [`Overlay::commit`], so a failing run leaves the project untouched. Every
//! read and write goes through the repository gate ([`crate::repo_path`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::analyze::pom::{self, parse_document};
use crate::edit::{self, Edit};
use crate::repo_path::{Gate, Origin, Refusal};
use crate::source_encoding;
use encoding_rs::Encoding;

/// Each changed file's bytes before the change (`None`: the file did not exist).
pub type Originals = Vec<(PathBuf, Option<Vec<u8>>)>;

#[derive(Debug)]
pub struct Overlay {
    root: PathBuf,
    /// Who proposes the changes recorded from now on.
    author: Origin,
    /// relative path -> (original, current); `None` is a file that does not exist
    /// (created, or deleted, by the run).
    files: BTreeMap<PathBuf, (Option<String>, Option<String>)>,
    /// The least trusted author of each changed file: the gate applies its rules.
    authors: BTreeMap<PathBuf, Origin>,
    /// Files not in UTF-8 (sources in the pom's `project.build.sourceEncoding`).
    encodings: BTreeMap<PathBuf, &'static Encoding>,
}

#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    #[error("wrote {written:?}, then failed on {failed}: {source}")]
    Partial {
        written: Vec<PathBuf>,
        failed: PathBuf,
        source: std::io::Error,
    },
}

impl Overlay {
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            author: Origin::Builtin,
            files: BTreeMap::new(),
            authors: BTreeMap::new(),
            encodings: BTreeMap::new(),
        }
    }

    /// Files read and written in an encoding other than UTF-8.
    pub fn set_encodings(&mut self, encodings: BTreeMap<PathBuf, &'static Encoding>) {
        self.encodings = encodings;
    }

    fn encoding(&self, rel: &Path) -> &'static Encoding {
        self.encodings
            .get(rel)
            .copied()
            .unwrap_or(encoding_rs::UTF_8)
    }

    /// The file's text on disk, decoded from its encoding.
    fn load(&self, rel: &Path) -> std::io::Result<String> {
        let encoding = self.encoding(rel);
        source_encoding::decode(encoding, &self.gate().read(rel)?).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("not valid {} text", encoding.name()),
            )
        })
    }

    /// Changes recorded from now on come from `author` (until set again).
    pub fn set_author(&mut self, author: Origin) {
        self.author = author;
    }

    fn gate(&self) -> Gate<'_> {
        Gate::new(&self.root, Origin::Builtin)
    }

    fn touch(&mut self, rel: &Path) {
        let author = self.author;
        self.authors
            .entry(rel.to_path_buf())
            .and_modify(|a| *a = (*a).max(author))
            .or_insert(author);
    }

    pub fn read(&mut self, rel: &Path) -> std::io::Result<&str> {
        if !self.files.contains_key(rel) {
            let text = self.load(rel)?;
            self.files
                .insert(rel.to_path_buf(), (Some(text.clone()), Some(text)));
        }
        self.files[rel]
            .1
            .as_deref()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "deleted by this run"))
    }

    /// The file's pending text (or its text on disk) without tracking it.
    pub fn text(&self, rel: &Path) -> std::io::Result<String> {
        match self.files.get(rel) {
            Some((_, Some(current))) => Ok(current.clone()),
            Some((_, None)) => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "deleted by this run",
            )),
            None => self.load(rel),
        }
    }

    /// Records new content for a file already read (or known by its original).
    pub fn write(&mut self, rel: &Path, original: String, text: String) {
        self.touch(rel);
        self.files
            .entry(rel.to_path_buf())
            .and_modify(|e| e.1 = Some(text.clone()))
            .or_insert((Some(original), Some(text)));
    }

    /// Creates (or replaces) a file with `text`.
    pub fn create(&mut self, rel: &Path, text: String) {
        self.touch(rel);
        let original = self.current(rel);
        self.files.insert(rel.to_path_buf(), (original, Some(text)));
    }

    /// Removes a file (a rename is a create plus a delete).
    pub fn delete(&mut self, rel: &Path) {
        self.touch(rel);
        let original = self.current(rel);
        self.files.insert(rel.to_path_buf(), (original, None));
    }

    fn current(&self, rel: &Path) -> Option<String> {
        match self.files.get(rel) {
            Some((original, _)) => original.clone(),
            None => self.load(rel).ok(),
        }
    }

    /// Applies pom edits computed by `f` against the current text; the result must still
    /// be a well-formed pom or nothing is recorded.
    pub fn edit_pom(
        &mut self,
        rel: &Path,
        f: impl FnOnce(&str, roxmltree::Node) -> Vec<Edit>,
    ) -> anyhow::Result<bool> {
        let current = self.read(rel)?.to_string();
        let edits = {
            let doc = parse_document(rel, &current)?;
            f(&current, doc.root_element())
        };
        if edits.is_empty() {
            return Ok(false);
        }
        let out = edit::apply(&current, &edits)?;
        pom::Pom::parse(rel, &out)
            .map_err(|e| anyhow::anyhow!("edit of {} would break it: {e}", rel.display()))?;
        let changed = out != current;
        self.touch(rel);
        self.files.get_mut(rel).expect("read above").1 = Some(out);
        Ok(changed)
    }

    /// Files whose content differs from the original (`None`: absent on that side).
    pub fn changed(&self) -> impl Iterator<Item = (&Path, Option<&str>, Option<&str>)> {
        self.files
            .iter()
            .filter(|(_, (o, c))| o != c)
            .map(|(p, (o, c))| (p.as_path(), o.as_deref(), c.as_deref()))
    }

    /// Drops the pending changes the gate refuses (by their author's rules) and says why,
    /// so neither the diff nor the write ever carries them.
    pub fn take_refused(&mut self) -> Vec<Refusal> {
        let refused: Vec<Refusal> = self
            .changed()
            .filter_map(|(rel, _, _)| self.gate_for(rel).resolve(rel).err())
            .collect();
        for r in &refused {
            self.files.remove(&r.path);
        }
        refused
    }

    fn gate_for(&self, rel: &Path) -> Gate<'_> {
        let author = self.authors.get(rel).copied().unwrap_or(Origin::Builtin);
        Gate::new(&self.root, author)
    }

    /// Forgets the pending change of a file: it keeps its text on disk.
    pub fn discard(&mut self, rel: &Path) {
        self.files.remove(rel);
        self.authors.remove(rel);
    }

    /// The bytes on disk of every file a commit would change (`None`: absent), read
    /// through the gate, so the change can be undone exactly.
    pub fn originals_on_disk(&self) -> Result<Originals, CommitError> {
        self.changed()
            .map(|(rel, _, _)| {
                let bytes = match self.gate().read(rel) {
                    Ok(b) => Some(b),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                    Err(source) => {
                        return Err(CommitError::Partial {
                            written: Vec::new(),
                            failed: rel.to_path_buf(),
                            source,
                        });
                    }
                };
                Ok((rel.to_path_buf(), bytes))
            })
            .collect()
    }

    /// Unified diff of every change, for `--dry-run` and reports.
    pub fn diff(&self) -> String {
        let mut out = String::new();
        for (path, old, new) in self.changed() {
            let d = similar::TextDiff::from_lines(old.unwrap_or(""), new.unwrap_or(""));
            let p = path.display().to_string();
            let side = |exists: bool, prefix: &str| {
                if exists {
                    format!("{prefix}/{p}")
                } else {
                    "/dev/null".to_string()
                }
            };
            out.push_str(
                &d.unified_diff()
                    .context_radius(3)
                    .header(&side(old.is_some(), "a"), &side(new.is_some(), "b"))
                    .to_string(),
            );
        }
        out
    }

    /// Writes changed files through the gate, each through a fresh temporary file and a
    /// rename so no file is ever half-written and no link is written through. On failure
    /// (a refusal included: call [`Overlay::take_refused`] first) the error lists what was
    /// already written.
    pub fn commit(&self) -> Result<Vec<PathBuf>, CommitError> {
        let mut written = Vec::new();
        for (rel, _, new) in self.changed() {
            let gate = self.gate_for(rel);
            let encoding = self.encoding(rel);
            let result = match new {
                Some(new) => source_encoding::encode(encoding, new)
                    .ok_or_else(|| {
                        std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            format!(
                                "the new text has characters {} cannot encode",
                                encoding.name()
                            ),
                        )
                    })
                    .and_then(|bytes| gate.write(rel, &bytes)),
                None => gate.remove(rel),
            };
            if let Err(source) = result {
                return Err(CommitError::Partial {
                    written,
                    failed: rel.to_path_buf(),
                    source,
                });
            }
            written.push(rel.to_path_buf());
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo_path::Reason;

    /// Changes the gate refuses for their author leave the overlay (and its diff) and are
    /// returned; the rest are written.
    #[test]
    fn refused_changes_are_dropped_by_author() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("t.txt"), "outside").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("linked")).unwrap();
        let mut overlay = Overlay::new(dir.path());
        overlay.create(Path::new(".github/workflows/ci.yml"), "on: push\n".into());
        overlay.set_author(Origin::Repository);
        overlay.create(Path::new(".github/workflows/evil.yml"), "on: push\n".into());
        overlay.create(Path::new("linked/t.txt"), "pwned".into());
        overlay.create(Path::new("sub/.git/config"), "[core]".into());
        overlay.create(Path::new("src/A.java"), "class A {}\n".into());
        let refused: Vec<_> = overlay
            .take_refused()
            .into_iter()
            .map(|r| (r.path.display().to_string(), r.reason))
            .collect();
        assert_eq!(
            refused,
            [
                (".github/workflows/evil.yml".to_string(), Reason::Workflow),
                (
                    "linked/t.txt".to_string(),
                    Reason::Symlink {
                        link: "linked".into()
                    }
                ),
                ("sub/.git/config".to_string(), Reason::GitDir),
            ]
        );
        assert!(!overlay.diff().contains("pwned"));
        let written = overlay.commit().unwrap();
        assert_eq!(
            written,
            [
                PathBuf::from(".github/workflows/ci.yml"),
                PathBuf::from("src/A.java")
            ]
        );
        assert_eq!(
            std::fs::read_to_string(outside.path().join("t.txt")).unwrap(),
            "outside"
        );
    }
}
