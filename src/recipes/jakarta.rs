//! Recipe `javax-to-jakarta`: Jakarta-EE-owned `javax.*` names become `jakarta.*` wherever a
//! build reads them: Java sources (imports, qualified names, string literals such as
//! `javax.persistence.jdbc.url`), XML descriptors (namespaces, schema, version), properties
//! files, `META-INF/services` entries, and Maven coordinates. Which names move is decided
//! per name by [`javax_owner`] (shared with the analysis): JDK-owned packages and other
//! libraries' `javax.annotation` types (JSR-305) never move.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;

use crate::analyze::java::{JavaxOwner, javax_owner};
use crate::edit::{self, Edit};
use crate::java_syntax;

use super::FileResult;
use super::coordinates::Move;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JakartaTable {
    pub id: String,
    pub description: String,
    pub artifacts: Vec<Move>,
    pub namespaces: std::collections::BTreeMap<String, String>,
    pub descriptors: Vec<Descriptor>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Descriptor {
    pub root: String,
    pub schema: String,
    pub new_schema: String,
    pub version: String,
}

pub static TABLE: LazyLock<JakartaTable> = LazyLock::new(|| {
    serde_saphyr::from_str(include_str!("catalog/jakarta.yml"))
        .expect("built-in jakarta table is valid YAML")
});

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Edits renaming every Jakarta-owned `javax.` name in `text`, plus the names it kept
/// because their owner is ambiguous (a wildcard over a mixed package).
pub fn rename_names(text: &str) -> (Vec<Edit>, Vec<String>) {
    let mut edits = Vec::new();
    let mut kept = Vec::new();
    for (at, _) in text.match_indices("javax.") {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| is_name_char(c) || c == '.') {
            continue;
        }
        let len = text[at..]
            .find(|c: char| !(is_name_char(c) || c == '.'))
            .unwrap_or(text.len() - at);
        let name = text[at..at + len].trim_end_matches('.');
        match javax_owner(name) {
            Some(JavaxOwner::JakartaEe) => edits.push(Edit::replace(at..at + 5, "jakarta")),
            Some(JavaxOwner::Other) if name == "javax.annotation" => {
                kept.push(format!(
                    "{name}.* mixes Jakarta and JSR-305 types; left as is"
                ));
            }
            _ => {}
        }
    }
    (edits, kept)
}

/// A Java source: renames, then the result must still parse.
pub fn java_file(src: &str) -> FileResult {
    let (edits, findings) = rename_names(src);
    let mut result = FileResult {
        findings,
        ..Default::default()
    };
    if edits.is_empty() {
        return result;
    }
    let Ok(out) = edit::apply(src, &edits) else {
        return result;
    };
    if java_syntax::parse(&out).is_none_or(|p| p.syntax_error.is_some()) {
        result
            .findings
            .push("javax -> jakarta rewrite would not parse; left unchanged".into());
        return result;
    }
    result
        .changes
        .push(format!("{} javax names -> jakarta", edits.len()));
    result.text = Some(out);
    result
}

/// An XML descriptor or properties file: names, then (XML) Java EE namespaces, schema and
/// root version.
pub fn resource_file(src: &str, is_xml: bool) -> FileResult {
    let (mut edits, findings) = rename_names(src);
    let mut result = FileResult {
        findings,
        ..Default::default()
    };
    let names = edits.len();
    if names > 0 {
        result
            .changes
            .push(format!("{names} javax names -> jakarta"));
    }
    if is_xml && let Some(more) = descriptor_edits(src) {
        result
            .changes
            .push("Java EE descriptor namespace/schema/version -> Jakarta EE".into());
        edits.extend(more);
    }
    if edits.is_empty() {
        return result;
    }
    match edit::apply(src, &edits) {
        Ok(out) if !is_xml || roxmltree::Document::parse(&out).is_ok() => result.text = Some(out),
        _ => {
            result.changes.clear();
            result
                .findings
                .push("rewrite would not be well-formed XML; left unchanged".into());
        }
    }
    result
}

/// Namespace, schemaLocation and root `version` of a Java EE descriptor.
fn descriptor_edits(src: &str) -> Option<Vec<Edit>> {
    let doc = roxmltree::Document::parse(src).ok()?;
    let root = doc.root_element();
    let ns = root.tag_name().namespace()?;
    TABLE.namespaces.get(ns)?;
    let mut edits = Vec::new();
    for (old, new) in &TABLE.namespaces {
        for (at, _) in src.match_indices(old.as_str()) {
            edits.push(Edit::replace(at..at + old.len(), new.clone()));
        }
    }
    if let Some(d) = TABLE
        .descriptors
        .iter()
        .find(|d| d.root == root.tag_name().name())
    {
        let schema = Regex::new(&d.schema).ok()?;
        for m in schema.find_iter(src) {
            edits.push(Edit::replace(m.range(), d.new_schema.clone()));
        }
        if let Some(attr) = root.attributes().find(|a| a.name() == "version") {
            edits.push(Edit::replace(attr.range_value(), d.version.clone()));
        }
    }
    Some(edits)
}

/// `META-INF/services/javax.x.Y` names a Jakarta type: the file moves to the new name.
pub fn services_rename(rel: &Path) -> Option<PathBuf> {
    let name = rel.file_name()?.to_str()?;
    let in_services = rel
        .parent()
        .is_some_and(|p| p.ends_with("META-INF/services"));
    (in_services && javax_owner(name) == Some(JavaxOwner::JakartaEe))
        .then(|| rel.with_file_name(name.replacen("javax.", "jakarta.", 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jdk_and_jsr305_names_stay() {
        let src = "import javax.sql.DataSource;\nimport javax.annotation.Nullable;\nimport javax.annotation.PostConstruct;\nimport javax.transaction.xa.XAResource;\nimport javax.transaction.Transactional;\nclass A { String k = \"javax.persistence.jdbc.url\"; String j = \"myjavax.servlet\"; }\n";
        let out = java_file(src).text.unwrap();
        assert_eq!(
            out,
            "import javax.sql.DataSource;\nimport javax.annotation.Nullable;\nimport jakarta.annotation.PostConstruct;\nimport javax.transaction.xa.XAResource;\nimport jakarta.transaction.Transactional;\nclass A { String k = \"jakarta.persistence.jdbc.url\"; String j = \"myjavax.servlet\"; }\n"
        );
    }

    #[test]
    fn persistence_xml_moves_namespace_schema_version_and_keys() {
        let src = r#"<persistence xmlns="http://xmlns.jcp.org/xml/ns/persistence" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="http://xmlns.jcp.org/xml/ns/persistence http://xmlns.jcp.org/xml/ns/persistence/persistence_2_2.xsd" version="2.2">
  <persistence-unit name="u">
    <properties><property name="javax.persistence.jdbc.url" value="jdbc:h2:mem:x"/></properties>
  </persistence-unit>
</persistence>
"#;
        let out = resource_file(src, true).text.unwrap();
        assert!(out.contains(r#"xmlns="https://jakarta.ee/xml/ns/persistence""#));
        assert!(out.contains("https://jakarta.ee/xml/ns/persistence/persistence_3_0.xsd"));
        assert!(out.contains(r#"version="3.0""#));
        assert!(out.contains("jakarta.persistence.jdbc.url"));
        assert!(!out.contains("jcp.org"));
    }

    #[test]
    fn spring_beans_xml_is_not_a_java_ee_descriptor() {
        let src = r#"<beans xmlns="http://www.springframework.org/schema/beans" version="1.0"/>"#;
        assert_eq!(resource_file(src, true).text, None);
    }

    #[test]
    fn services_files_follow_their_type() {
        assert_eq!(
            services_rename(Path::new(
                "src/main/resources/META-INF/services/javax.ws.rs.ext.Providers"
            )),
            Some(PathBuf::from(
                "src/main/resources/META-INF/services/jakarta.ws.rs.ext.Providers"
            ))
        );
        assert_eq!(
            services_rename(Path::new(
                "src/main/resources/META-INF/services/javax.annotation.processing.Processor"
            )),
            None
        );
    }
}
