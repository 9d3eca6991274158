//! Pending file contents for a run: recipes read and write here, and nothing reaches the
//! disk until [`Overlay::commit`], so a failing run leaves the project untouched.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::analyze::pom::{self, parse_document};
use crate::edit::{self, Edit};

#[derive(Debug)]
pub struct Overlay {
    root: PathBuf,
    /// relative path -> (original, current); `None` is a file that does not exist
    /// (created, or deleted, by the run).
    files: BTreeMap<PathBuf, (Option<String>, Option<String>)>,
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
            files: BTreeMap::new(),
        }
    }

    pub fn read(&mut self, rel: &Path) -> std::io::Result<&str> {
        if !self.files.contains_key(rel) {
            let text = std::fs::read_to_string(self.root.join(rel))?;
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
            None => std::fs::read_to_string(self.root.join(rel)),
        }
    }

    /// Records new content for a file already read (or known by its original).
    pub fn write(&mut self, rel: &Path, original: String, text: String) {
        self.files
            .entry(rel.to_path_buf())
            .and_modify(|e| e.1 = Some(text.clone()))
            .or_insert((Some(original), Some(text)));
    }

    /// Creates (or replaces) a file with `text`.
    pub fn create(&mut self, rel: &Path, text: String) {
        let original = self.current(rel);
        self.files.insert(rel.to_path_buf(), (original, Some(text)));
    }

    /// Removes a file (a rename is a create plus a delete).
    pub fn delete(&mut self, rel: &Path) {
        let original = self.current(rel);
        self.files.insert(rel.to_path_buf(), (original, None));
    }

    fn current(&self, rel: &Path) -> Option<String> {
        match self.files.get(rel) {
            Some((original, _)) => original.clone(),
            None => std::fs::read_to_string(self.root.join(rel)).ok(),
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

    /// Writes changed files, each through a temporary file and a rename so no file is ever
    /// half-written. On failure the error lists what was already written.
    pub fn commit(&self) -> Result<Vec<PathBuf>, CommitError> {
        let mut written = Vec::new();
        for (rel, _, new) in self.changed() {
            let path = self.root.join(rel);
            let tmp = path.with_extension("uplift-tmp");
            let result = match new {
                Some(new) => path
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::write(&tmp, new))
                    .and_then(|()| std::fs::rename(&tmp, &path)),
                None => std::fs::remove_file(&path),
            };
            if let Err(source) = result {
                let _ = std::fs::remove_file(&tmp);
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
