//! `XMLReaderFactory.createXMLReader()` (deprecated in 9: "use SAXParserFactory") where the
//! code handles only the `SAXException` it threw. The namespace-aware factory's reader also
//! throws `ParserConfigurationException`, so the calls go through one private helper with
//! the old contract, the configuration failure reported as the `SAXException` the old
//! factory threw when it could not make a reader:
//!
//! ```java
//! private static XMLReader newXmlReader() throws SAXException {
//!     try {
//!         return SAXParserFactory.newNSInstance().newSAXParser().getXMLReader();
//!     } catch (ParserConfigurationException e) {
//!         throw new SAXException(e);
//!     }
//! }
//! ```
//!
//! Where `Exception` or `Throwable` is already handled, the rule
//! `removed-jdk-apis/xml-reader-factory-ns-instance` writes the factory call in place instead.
//! The helper goes at the end of the top-level class, interface or enum; a file that already
//! names `newXmlReader`, or whose imports would clash, is left to the rule's finding.

use std::collections::BTreeSet;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::{Project, visit_calls};
use super::reflective_new_instance::handled_by;
use super::static_helper::Helper;
use crate::edit::{Edit, whole_line};
use crate::java_syntax;

const HELPER: &str = "newXmlReader";
const FACTORY: &str = "org.xml.sax.helpers.XMLReaderFactory";
const HELPER_LINES: [&str; 7] = [
    "private static XMLReader newXmlReader() throws SAXException {",
    "    try {",
    "        return SAXParserFactory.newNSInstance().newSAXParser().getXMLReader();",
    "    } catch (ParserConfigurationException e) {",
    "        throw new SAXException(e);",
    "    }",
    "}",
];
const NEEDED: [&str; 4] = [
    "javax.xml.parsers.ParserConfigurationException",
    "javax.xml.parsers.SAXParserFactory",
    "org.xml.sax.SAXException",
    "org.xml.sax.XMLReader",
];

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    if src.contains(HELPER) {
        return result;
    }
    let mut edits = Vec::new();
    let mut helper = Helper::new(&HELPER_LINES);
    let mut clash = false;
    let imports = visit_calls(src, project, "createXMLReader", |n, scope| {
        clash |= NEEDED.iter().any(|t| scope.import_would_clash(t));
        let no_args = n
            .child_by_field_name("arguments")
            .is_some_and(|a| a.named_child_count() == 0);
        if clash
            || !no_args
            || !n
                .child_by_field_name("object")
                .is_some_and(|o| scope.denotes(o, FACTORY))
            || handled_by(n, src, &["Exception", "Throwable"])
        {
            return;
        }
        if !helper.reaches(n, src) {
            return;
        }
        edits.push(Edit::replace(n.byte_range(), format!("{HELPER}()")));
        result.changes.push(format!(
            "line {}: XMLReaderFactory.createXMLReader() -> {HELPER}() (SAXParserFactory, same SAXException)",
            n.start_position().row + 1
        ));
    });
    let (Some(imports), Some(helper), false) = (imports, helper.edit(), clash) else {
        result.changes.clear();
        return result;
    };
    edits.push(helper);
    // The factory's import goes once nothing outside the replaced calls names it.
    let replaced: Vec<_> = edits.iter().map(|e| e.range.clone()).collect();
    if let Some(parsed) = java_syntax::parse(src)
        && !java_syntax::names_used(parsed.tree.root_node(), src, &replaced)
            .contains("XMLReaderFactory")
    {
        edits.extend(
            imports
                .iter()
                .filter(|i| i.path == FACTORY && !i.is_static)
                .map(|i| Edit::replace(whole_line(src, i.range.clone()), "")),
        );
    }
    apply_code_edits(
        src,
        &edits,
        &BTreeSet::from(NEEDED),
        "XMLReaderFactory helper",
        &mut result,
    );
    result
}
