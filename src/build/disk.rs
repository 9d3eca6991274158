//! A run's disk budget. A build writes where it may (the work tree, its `/tmp` and home,
//! its local repository), and `RLIMIT_FSIZE` bounds only each file: without a total, a
//! test writing 20 GB fills the worker's volume and every other migration on it fails.
//! An unprivileged app has no disk quota to set (no cgroup, no project quota, and a sized
//! tmpfs would hold the work tree in memory), so a watch measures what those places hold
//! while the build runs and the build is killed once they grew past the budget.
//!
//! What counts is what the disk gives: allocated blocks (a sparse file costs what it holds,
//! a hard link nothing more), and every file and directory at least one block, so a build
//! cannot exhaust inodes with millions of empty files for free.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::evidence::DiskExceeded;

/// What an entry costs at least: one block of the usual 4 KiB file systems.
const MIN_ENTRY_BYTES: u64 = 4096;
/// The watch measures at most this often; a slower walk (a huge tree) spaces the
/// measurements to four times its own duration, so the watch takes at most a fifth of a core.
const MIN_INTERVAL: Duration = Duration::from_millis(250);

/// Bytes the disk gives to everything under `roots` (links not followed, each inode once).
pub fn usage(roots: &[PathBuf]) -> u64 {
    let mut seen = HashSet::new();
    let mut total = 0u64;
    for root in roots {
        for e in walkdir::WalkDir::new(root).into_iter().flatten() {
            let Ok(m) = e.metadata() else { continue };
            if m.nlink() > 1 && !m.is_dir() && !seen.insert((m.dev(), m.ino())) {
                continue;
            }
            total = total.saturating_add((m.blocks() * 512).max(MIN_ENTRY_BYTES));
        }
    }
    total
}

/// [`usage`] off the async threads.
pub async fn measure(roots: Vec<PathBuf>) -> u64 {
    tokio::task::spawn_blocking(move || usage(&roots))
        .await
        .unwrap_or(0)
}

/// A run's budget: how much `roots` held when the run's first build started, and how much
/// more its builds may make them hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    pub roots: Vec<PathBuf>,
    pub held_before: u64,
    pub bytes: u64,
}

impl Budget {
    /// Resolves once `roots` plus `scratch` (a build's own temporary directory, new for the
    /// build) hold more than the budget above `held_before`; pending while they do not.
    pub async fn exceeded(&self, scratch: &Path) -> DiskExceeded {
        let mut roots = self.roots.clone();
        roots.push(scratch.to_path_buf());
        loop {
            let started = Instant::now();
            let held = measure(roots.clone()).await;
            let written = held.saturating_sub(self.held_before);
            if written > self.bytes {
                return DiskExceeded {
                    written,
                    budget: self.bytes,
                };
            }
            tokio::time::sleep(MIN_INTERVAL.max(started.elapsed() * 4)).await;
        }
    }
}

/// Where a build writes, its scratch directory aside: the work tree and, in the sandbox,
/// its own local repository (a shared one the operator names is the operator's to size).
pub fn roots(work_tree: &Path, local_repo: Option<&Path>) -> Vec<PathBuf> {
    let mut roots = vec![work_tree.to_path_buf()];
    roots.extend(local_repo.map(Path::to_path_buf));
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_counts_blocks_entries_and_each_inode_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let empty = usage(std::slice::from_ref(&root));
        assert_eq!(empty, MIN_ENTRY_BYTES, "the directory itself");
        // A thousand empty files are not free.
        std::fs::create_dir(root.join("many")).unwrap();
        for i in 0..1000 {
            std::fs::write(root.join(format!("many/{i}")), b"").unwrap();
        }
        let many = usage(std::slice::from_ref(&root));
        // (a directory of a thousand names takes more than one block itself)
        let entries = empty + 1001 * MIN_ENTRY_BYTES;
        assert!((entries..entries + 64 * 1024).contains(&many), "{many}");
        // 8 MiB written count; a hard link to them counts nothing more.
        std::fs::write(root.join("data"), vec![7u8; 8 << 20]).unwrap();
        std::fs::hard_link(root.join("data"), root.join("again")).unwrap();
        let data = usage(std::slice::from_ref(&root)) - many;
        assert!((8 << 20..(8 << 20) + 64 * 1024).contains(&data), "{data}");
        // A sparse file of 1 GiB holds nearly nothing, and a link is not followed.
        let sparse = std::fs::File::create(root.join("sparse")).unwrap();
        sparse.set_len(1 << 30).unwrap();
        std::os::unix::fs::symlink("/usr", root.join("usr")).unwrap();
        let more = usage(std::slice::from_ref(&root)) - many - data;
        assert_eq!(more, 2 * MIN_ENTRY_BYTES);
    }

    #[tokio::test]
    async fn the_watch_fires_only_past_the_budget_and_counts_the_scratch() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("tree");
        let scratch = dir.path().join("scratch");
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::create_dir_all(&scratch).unwrap();
        std::fs::write(tree.join("checkout"), vec![1u8; 4 << 20]).unwrap();
        let roots = roots(&tree, None);
        let budget = Budget {
            held_before: usage(&roots),
            roots,
            bytes: 2 << 20,
        };
        let quiet = tokio::time::timeout(Duration::from_millis(600), budget.exceeded(&scratch));
        assert!(
            quiet.await.is_err(),
            "what the tree held before is not counted"
        );
        std::fs::write(scratch.join("tmpfile"), vec![1u8; 3 << 20]).unwrap();
        let hit = tokio::time::timeout(Duration::from_secs(5), budget.exceeded(&scratch))
            .await
            .expect("3 MiB in /tmp is over a 2 MiB budget");
        assert_eq!(hit.budget, 2 << 20);
        assert!(hit.written > 3 << 20, "{hit:?}");
    }
}
