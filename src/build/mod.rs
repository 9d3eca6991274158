//! Building and testing the project: JDK choice, the Maven runner, test reports, class files.

pub mod classfile;
pub mod egress;
pub mod flaky;
pub mod jdk;
pub mod maven;
pub mod reports;
pub mod sandbox;

use std::path::Path;

/// Every entry below a project root where build output can live: hidden folders, `src` and
/// `node_modules` are not descended into (the root itself always is).
pub fn output_tree(root: &Path) -> impl Iterator<Item = walkdir::DirEntry> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| {
            let n = e.file_name().to_string_lossy();
            e.depth() == 0 || !(n.starts_with('.') || n == "src" || n == "node_modules")
        })
        .flatten()
}
