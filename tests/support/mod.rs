//! Test support shared by the integration test crates: a fake of GitHub's REST API,
//! webhook payload builders, and fixture copying.
#![allow(dead_code)]

pub mod fake_github;
pub mod fake_llm;
pub mod payloads;

use std::path::Path;

/// Copies a fixture tree (tests edit their copy, never the checked-in fixture).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}
