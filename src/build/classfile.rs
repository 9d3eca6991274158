//! Class-file major versions under `target/classes` and `target/test-classes`.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// Class-file major version a Java release emits (8 -> 52 ... 21 -> 65).
pub fn major_for_release(release: u32) -> u32 {
    release + 44
}

/// Count of class files by major version below `root` (every module's output folders).
pub fn majors(root: &Path) -> BTreeMap<u32, usize> {
    let mut out = BTreeMap::new();
    for entry in super::output_tree(root) {
        let p = entry.path();
        let in_output = p
            .components()
            .any(|c| matches!(c.as_os_str().to_str(), Some("classes" | "test-classes")));
        // Links the build planted are not followed out of the work tree.
        if !entry.file_type().is_file() || !in_output || p.extension().is_none_or(|e| e != "class")
        {
            continue;
        }
        if let Some(major) = read_major(p) {
            *out.entry(major).or_insert(0) += 1;
        }
    }
    out
}

fn read_major(path: &Path) -> Option<u32> {
    let mut header = [0u8; 8];
    std::fs::File::open(path)
        .ok()?
        .read_exact(&mut header)
        .ok()?;
    (header[..4] == [0xCA, 0xFE, 0xBA, 0xBE])
        .then(|| u32::from(u16::from_be_bytes([header[6], header[7]])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_major_versions() {
        let dir = tempfile::tempdir().unwrap();
        let classes = dir.path().join("m/target/classes/p");
        std::fs::create_dir_all(&classes).unwrap();
        std::fs::write(
            classes.join("A.class"),
            [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61],
        )
        .unwrap();
        std::fs::write(classes.join("B.class"), b"not a class").unwrap();
        assert_eq!(majors(dir.path()), BTreeMap::from([(61, 1)]));
        assert_eq!(major_for_release(21), 65);
    }
}
