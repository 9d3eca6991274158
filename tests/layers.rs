//! The module layering of docs/ARCHITECTURE.md, enforced: every `crate::` path a top-level
//! module uses (tests excluded) names a module of its own layer or one below it.

use std::collections::BTreeMap;
use std::path::Path;

use regex::Regex;

/// Top to bottom, as docs/ARCHITECTURE.md draws them. A module may use its own layer and
/// the layers below, never one above.
const LAYERS: &[&[&str]] = &[
    &["cli", "server"],
    &["commands"],
    &["worker"],
    &["github", "workspace"],
    &["settings"],
    &["pipeline"],
    &[
        "recipes",
        "knowledge",
        "llm",
        "build",
        "analyze",
        "config",
        "progress",
    ],
    &["store"],
    &["journal"],
    &[
        "evidence",
        "repo_path",
        "java_syntax",
        "edit",
        "secrets",
        "redact",
        "money",
        "metrics",
        "source_encoding",
        "terminal",
    ],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `module` -> the top-level modules its non-test code names through `crate::`.
fn uses() -> BTreeMap<String, BTreeMap<String, String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let path = Regex::new(r"crate::(\{[^}]*\}|[a-z_]+)").unwrap();
    let word = Regex::new(r"(?:^|[{,\s])([a-z_]+)").unwrap();
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "main" || module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for m in path.captures_iter(code) {
            let g = &m[1];
            let names: Vec<String> = if g.starts_with('{') {
                word.captures_iter(g).map(|w| w[1].to_string()).collect()
            } else {
                vec![g.to_string()]
            };
            for n in names {
                if n != module && layer_of(&n).is_some() {
                    out.entry(module.clone())
                        .or_default()
                        .entry(n)
                        .or_insert_with(|| rel.display().to_string());
                }
            }
        }
    }
    out
}

#[test]
fn every_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for e in std::fs::read_dir(src).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        let module = name.trim_end_matches(".rs");
        if module == "main" || module == "lib" {
            continue;
        }
        assert!(
            layer_of(module).is_some(),
            "src/{name} has no layer in tests/layers.rs and docs/ARCHITECTURE.md"
        );
    }
}

#[test]
fn imports_only_go_down() {
    let mut upward = Vec::new();
    for (module, used) in uses() {
        let own = layer_of(&module).unwrap();
        for (other, file) in used {
            if layer_of(&other).unwrap() < own {
                upward.push(format!("{file}: {module} uses {other}, a layer above it"));
            }
        }
    }
    assert!(upward.is_empty(), "{}", upward.join("\n"));
}
