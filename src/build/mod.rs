//! Building and testing the project: JDK choice, the Maven runner, test reports, class files.

pub mod classfile;
pub mod disk;
pub mod egress;
pub mod flaky;
pub mod jdk;
pub mod maven;
pub mod reports;
pub mod sandbox;

use std::path::Path;

/// How much lower than the webhook edge batch work runs: builds, and in the app the recipe
/// tier's threads. Under contention the edge gets about nine tenths of a core per share the
/// batch work gets, so a migration never starves webhook intake.
pub const BATCH_NICENESS: i32 = 10;

/// Lowers the calling thread's (or, between fork and exec, the child's) CPU priority by
/// `BATCH_NICENESS`. Only an async-signal-safe syscall; a refusal leaves the priority as it
/// was, which is harmless.
pub fn yield_cpu() {
    // SAFETY: nice(2) takes no pointers and is async-signal-safe.
    unsafe {
        libc::nice(BATCH_NICENESS);
    }
}

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
