//! Java 9-21 added types to `java.lang` (`Module`, `Record`, `ProcessHandle` ...). A project
//! type of the same name that a file reaches through an on-demand import (`import
//! com.acme.*;`) is then ambiguous with java.lang's, which is imported on demand too, and
//! the file stops compiling on the new JDK ("reference to Record is ambiguous"). A
//! single-type import of the project's type settles it, as it did before: nothing else in
//! the file changes meaning.

use std::collections::{BTreeMap, BTreeSet};

use crate::analyze::Fingerprint;
use crate::edit::{self, Edit, line_ending};
use crate::java_syntax;

use super::FileResult;

/// Simple names `java.lang` gained after Java 8, with the release that added them.
/// (Preview-only types are not visible without `--enable-preview` and are left out.)
pub const ADDED_TO_JAVA_LANG: &[(&str, u32)] = &[
    ("Module", 9),
    ("ModuleLayer", 9),
    ("ProcessHandle", 9),
    ("StackWalker", 9),
    ("IllegalCallerException", 9),
    ("LayerInstantiationException", 9),
    ("Record", 16),
    ("WrongThreadException", 19),
    ("MatchException", 21),
];

/// Packages that declare each clashing name in this project: what [`imports`] needs.
pub type ProjectTypes = BTreeMap<String, BTreeSet<String>>;

/// [`clashing`] over every Java file of the project.
pub fn in_project(fp: &Fingerprint, target: u32) -> ProjectTypes {
    clashing(
        fp.java_files()
            .map(|f| (f.package.as_str(), f.top_level_types.as_slice())),
        target,
    )
}

/// The project types (name -> packages) that java.lang's additions up to `target` shadow
/// on demand; empty when there is nothing to do.
pub fn clashing<'a>(
    declared: impl Iterator<Item = (&'a str, &'a [String])>,
    target: u32,
) -> ProjectTypes {
    let mut out = ProjectTypes::new();
    for (package, types) in declared {
        for t in types {
            if ADDED_TO_JAVA_LANG
                .iter()
                .any(|(n, since)| n == t && *since <= target)
            {
                out.entry(t.clone())
                    .or_default()
                    .insert(package.to_string());
            }
        }
    }
    out
}

/// Adds `import pkg.Name;` where `Name` would be ambiguous between an on-demand import of
/// the project package declaring it and java.lang.
pub fn imports(src: &str, clashing: &ProjectTypes) -> FileResult {
    let mut result = FileResult::default();
    if clashing.is_empty() {
        return result;
    }
    let Some(parsed) = java_syntax::parse(src) else {
        return result;
    };
    let root = parsed.tree.root_node();
    let package = java_syntax::package_name(root, src);
    let imports = java_syntax::imports(root, src);
    let declared = java_syntax::declared_type_names(root, src);
    let mut used = BTreeSet::new();
    java_syntax::walk(root, |n| {
        if matches!(n.kind(), "type_identifier" | "identifier")
            && !n
                .parent()
                .is_some_and(|p| p.kind().contains("import") || p.kind() == "scoped_identifier")
        {
            used.insert(java_syntax::text(n, src));
        }
    });
    let mut added = Vec::new();
    for (name, packages) in clashing {
        let settled = declared.iter().any(|d| d == name)
            || packages.contains(&package)
            || imports
                .iter()
                .any(|i| !i.wildcard && !i.is_static && i.path.rsplit('.').next() == Some(name));
        if settled || !used.contains(name.as_str()) {
            continue;
        }
        let on_demand: Vec<&String> = packages
            .iter()
            .filter(|p| {
                imports
                    .iter()
                    .any(|i| i.wildcard && !i.is_static && &i.path == *p)
            })
            .collect();
        if let [pkg] = on_demand.as_slice() {
            added.push(format!("{pkg}.{name}"));
        }
    }
    let Some(anchor) = imports.last().map(|i| i.range.end) else {
        return result;
    };
    if added.is_empty() {
        return result;
    }
    let eol = line_ending(src);
    let text: String = added.iter().map(|a| format!("{eol}import {a};")).collect();
    if let Ok(t) = edit::apply(src, &[Edit::insert(anchor, text)]) {
        result.changes = added
            .iter()
            .map(|a| format!("import {a} (java.lang has a type of that name since Java 9-21)"))
            .collect();
        result.text = Some(t);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> ProjectTypes {
        let declared = [(
            "com.acme.model".to_string(),
            vec!["Record".to_string(), "Item".to_string()],
        )];
        clashing(declared.iter().map(|(p, t)| (p.as_str(), t.as_slice())), 17)
    }

    #[test]
    fn an_on_demand_project_record_gets_its_single_type_import() {
        let src = "package com.acme.app;\n\nimport com.acme.model.*;\n\nclass Store {\n    Record latest;\n}\n";
        assert_eq!(
            imports(src, &project()).text.unwrap(),
            "package com.acme.app;\n\nimport com.acme.model.*;\nimport com.acme.model.Record;\n\nclass Store {\n    Record latest;\n}\n"
        );
    }

    #[test]
    fn same_package_explicit_import_or_no_use_is_left_alone() {
        for src in [
            "package com.acme.model;\nimport java.util.*;\nclass Store { Record latest; }\n",
            "package com.acme.app;\nimport com.acme.model.*;\nimport com.acme.model.Record;\nclass Store { Record latest; }\n",
            "package com.acme.app;\nimport com.acme.model.*;\nclass Store { Item latest; }\n",
        ] {
            assert_eq!(imports(src, &project()).text, None, "{src}");
        }
        let on_11 = [("com.acme.model".to_string(), vec!["Record".to_string()])];
        assert!(clashing(on_11.iter().map(|(p, t)| (p.as_str(), t.as_slice())), 11).is_empty());
    }
}
