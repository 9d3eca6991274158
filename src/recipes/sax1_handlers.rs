//! SAX 1 handlers (`org.xml.sax.HandlerBase`, deprecated since 1.4 and by javac since 9)
//! become SAX 2 `DefaultHandler`s. The two differ only in the element callbacks: SAX 2 adds
//! the namespace URI and local name before the qualified name, and passes `Attributes`, whose
//! `getQName(i)` is `AttributeList.getName(i)` (`getLength`, `getType` and `getValue` keep
//! their names). So, per handler class of the file (a subclass or an anonymous one):
//!
//! * `extends HandlerBase` -> `extends DefaultHandler`;
//! * `startElement(String name, AttributeList atts)` ->
//!   `startElement(String uri, String localName, String name, Attributes atts)`, the list's
//!   `getName(i)` -> `getQName(i)`;
//! * `endElement(String name)` -> `endElement(String uri, String localName, String name)`.
//!
//! A `SAXParser.parse(input, handler)` call then takes the `DefaultHandler` overload, which
//! reports the same elements with the same qualified names. Namespace-aware parsing is where
//! the two differ (SAX 2 then leaves `xmlns` attributes out), so a file that asks for it is
//! left alone, as is one where the conversion could reach past the file: an abstract class
//! (written to be extended), a `HandlerBase` or `AttributeList` named elsewhere, the SAX 1
//! parser API, an attribute list used for anything but those four reads, or a call of the
//! old callbacks. Those stay the `removed-jdk-apis/sax1` task.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::{Project, Scope};
use crate::edit::{Edit, whole_line};
use crate::java_syntax::{self, field_text, text};

const HANDLER_BASE: &str = "org.xml.sax.HandlerBase";
const ATTRIBUTE_LIST: &str = "org.xml.sax.AttributeList";
/// The rest of SAX 1: a file using them is ported by hand.
const SAX1_OTHERS: &[&str] = &[
    "org.xml.sax.DocumentHandler",
    "org.xml.sax.Parser",
    "org.xml.sax.helpers.ParserFactory",
    "org.xml.sax.helpers.AttributeListImpl",
];
/// What a handler may ask its attribute list, with the `Attributes` method that answers it.
const LIST_READS: &[(&str, &str)] = &[
    ("getLength", "getLength"),
    ("getName", "getQName"),
    ("getType", "getType"),
    ("getValue", "getValue"),
];
/// The parameters SAX 2 puts before the qualified name.
const NEW_PARAMETERS: &str = "String uri, String localName, ";

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    if src.contains("setNamespaceAware") {
        return result;
    }
    let Some(parsed) = java_syntax::parse_naming(src, "HandlerBase") else {
        return result;
    };
    let root = parsed.tree.root_node();
    let scope = Scope::new(root, src).in_project(project);
    let Some(mut edits) = port(root, src, &scope, &mut result.changes) else {
        result.changes.clear();
        return result;
    };
    let imports = java_syntax::imports(root, src);
    edits.extend(
        imports
            .iter()
            .filter(|i| !i.is_static && (i.path == HANDLER_BASE || i.path == ATTRIBUTE_LIST))
            .map(|i| Edit::replace(whole_line(src, i.range.clone()), "")),
    );
    let needed = BTreeSet::from([
        "org.xml.sax.Attributes",
        "org.xml.sax.helpers.DefaultHandler",
    ]);
    apply_code_edits(src, &edits, &needed, "SAX 1 handler", &mut result);
    result
}

/// The edits that port every handler class of the file, or None where one cannot be.
fn port(root: Node, src: &str, scope: &Scope, changes: &mut Vec<String>) -> Option<Vec<Edit>> {
    let mut edits = Vec::new();
    let mut lists: Vec<std::ops::Range<usize>> = Vec::new();
    let mut refused = false;
    let mut handlers = Vec::new();
    java_syntax::walk(root, |n| {
        let (base, body) = match n.kind() {
            "class_declaration" => {
                let Some(base) = n
                    .child_by_field_name("superclass")
                    .and_then(|s| s.named_child(0))
                else {
                    return;
                };
                (base, n.child_by_field_name("body"))
            }
            "object_creation_expression" => {
                let Some(base) = n.child_by_field_name("type") else {
                    return;
                };
                let mut c = n.walk();
                let body = n.named_children(&mut c).find(|c| c.kind() == "class_body");
                (base, body)
            }
            _ => return,
        };
        if !scope.denotes(base, HANDLER_BASE) {
            return;
        }
        match body {
            // An abstract class is written to be extended, by other files too.
            Some(body)
                if n.kind() != "class_declaration" || !java_syntax::has_modifier(n, "abstract") =>
            {
                handlers.push((base, body));
            }
            _ => refused = true,
        }
    });
    if refused || handlers.is_empty() {
        return None;
    }
    let ported_types: Vec<_> = handlers.iter().map(|(base, _)| base.byte_range()).collect();
    for (base, body) in handlers {
        edits.push(Edit::replace(base.byte_range(), "DefaultHandler"));
        let mut c = body.walk();
        for method in body
            .named_children(&mut c)
            .filter(|m| m.kind() == "method_declaration")
        {
            port_callback(method, src, scope, &mut edits, &mut lists)?;
        }
        changes.push(format!(
            "line {}: SAX 1 HandlerBase -> SAX 2 DefaultHandler (startElement/endElement take the namespace URI and local name first; AttributeList -> Attributes)",
            base.start_position().row + 1
        ));
    }
    // Every other mention of SAX 1 types, and every call of the old callbacks, would reach
    // code the conversion does not see.
    let mut stray = false;
    java_syntax::walk(root, |n| {
        let range = n.byte_range();
        let typed = matches!(n.kind(), "type_identifier" | "scoped_type_identifier");
        if typed && !java_syntax::in_import(n) {
            let old = scope.denotes(n, HANDLER_BASE) && !ported_types.contains(&range)
                || scope.denotes(n, ATTRIBUTE_LIST) && !lists.contains(&range)
                || SAX1_OTHERS.iter().any(|t| scope.denotes(n, t));
            stray |= old;
        }
        if n.kind() == "method_invocation" {
            let arity = n
                .child_by_field_name("arguments")
                .map_or(0, |a| a.named_child_count());
            stray |= matches!(
                (field_text(n, "name", src), arity),
                ("startElement", 2) | ("endElement", 1)
            );
        }
    });
    (!stray).then_some(edits)
}

/// Ports one method of a handler if it is a SAX 1 element callback; None where it cannot be.
fn port_callback<'t>(
    method: Node<'t>,
    src: &str,
    scope: &Scope,
    edits: &mut Vec<Edit>,
    lists: &mut Vec<std::ops::Range<usize>>,
) -> Option<()> {
    let name = field_text(method, "name", src);
    let params = method.child_by_field_name("parameters")?;
    let mut c = params.walk();
    let params: Vec<Node> = params
        .named_children(&mut c)
        .filter(|p| p.kind() == "formal_parameter")
        .collect();
    let string = |p: &Node| {
        p.child_by_field_name("type")
            .is_some_and(|t| scope.denotes(t, "java.lang.String"))
    };
    let list_type = |p: Node<'t>| {
        p.child_by_field_name("type")
            .filter(|t| scope.denotes(*t, ATTRIBUTE_LIST))
    };
    let first = match (name, params.as_slice()) {
        ("startElement", [qname, list]) if string(qname) && list_type(*list).is_some() => qname,
        ("endElement", [qname]) if string(qname) => qname,
        _ => return Some(()),
    };
    // The new parameters must not hide a name the method reads.
    let body = method.child_by_field_name("body")?;
    let used = java_syntax::names_used(body, src, &[]);
    if used.contains("uri") || used.contains("localName") {
        return None;
    }
    edits.push(Edit::insert(first.start_byte(), NEW_PARAMETERS));
    if let [_, list] = params.as_slice() {
        let ty = list_type(*list)?;
        lists.push(ty.byte_range());
        edits.push(Edit::replace(ty.byte_range(), "Attributes"));
        let list_name = field_text(*list, "name", src);
        read_only_list(body, list_name, src, edits)?;
    }
    Some(())
}

/// Renames the reads of the attribute list `name` in `body` to their `Attributes` methods;
/// None where the list is used any other way (passed on, stored, reassigned).
fn read_only_list(body: Node, name: &str, src: &str, edits: &mut Vec<Edit>) -> Option<()> {
    let mut other_use = false;
    java_syntax::walk(body, |n| {
        if n.kind() != "identifier" || text(n, src) != name {
            return;
        }
        let call = n.parent().filter(|p| {
            p.kind() == "method_invocation" && p.child_by_field_name("object") == Some(n)
        });
        let read = call.and_then(|call| {
            let method = call.child_by_field_name("name")?;
            let (_, new) = LIST_READS
                .iter()
                .find(|(old, _)| *old == text(method, src))?;
            Some((method, *new))
        });
        match read {
            Some((method, new)) => {
                if text(method, src) != new {
                    edits.push(Edit::replace(method.byte_range(), new));
                }
            }
            // A field or method of that name is not the list.
            None => {
                other_use |= !n.parent().is_some_and(|p| {
                    p.kind() == "field_access" && p.child_by_field_name("field") == Some(n)
                        || p.kind() == "method_invocation"
                            && p.child_by_field_name("name") == Some(n)
                })
            }
        }
    });
    (!other_use).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(src: &str) -> Option<String> {
        rewrite(src, &Project::default()).text
    }

    #[test]
    fn a_handler_takes_the_sax2_callbacks_and_attributes() {
        let src = "import org.xml.sax.AttributeList;\nimport org.xml.sax.HandlerBase;\nclass Titles extends HandlerBase {\n    public void startElement(String name, AttributeList atts) {\n        for (int i = 0; i < atts.getLength(); i++) { System.out.println(atts.getName(i) + atts.getValue(i)); }\n    }\n    public void endElement(String name) { }\n}\n";
        let out = port(src).expect("ported");
        assert!(out.contains("class Titles extends DefaultHandler"), "{out}");
        assert!(
            out.contains(
                "startElement(String uri, String localName, String name, Attributes atts)"
            ),
            "{out}"
        );
        assert!(
            out.contains("endElement(String uri, String localName, String name)"),
            "{out}"
        );
        assert!(out.contains("atts.getQName(i) + atts.getValue(i)"), "{out}");
        assert!(
            out.contains("import org.xml.sax.helpers.DefaultHandler;"),
            "{out}"
        );
        assert!(
            !out.contains("HandlerBase") && !out.contains("AttributeList"),
            "{out}"
        );
    }

    #[test]
    fn a_handler_whose_conversion_could_reach_past_the_file_is_left() {
        let base = "import org.xml.sax.HandlerBase;\npublic abstract class H extends HandlerBase { public void endElement(String n) { } }\n";
        assert_eq!(port(base), None, "an abstract class written to be extended");
        let passed = "import org.xml.sax.*;\nclass H extends HandlerBase { public void startElement(String n, AttributeList a) { keep(a); } void keep(AttributeList a) { } }\n";
        assert_eq!(port(passed), None, "the list is passed on");
        let named = "import org.xml.sax.HandlerBase;\nclass H extends HandlerBase { }\nclass U { HandlerBase h = new H(); }\n";
        assert_eq!(port(named), None, "HandlerBase named as a type");
        let aware = "import org.xml.sax.HandlerBase;\nclass H extends HandlerBase { void f(javax.xml.parsers.SAXParserFactory f) { f.setNamespaceAware(true); } }\n";
        assert_eq!(
            port(aware),
            None,
            "namespace-aware parsing reports other attributes"
        );
        let project = "import com.acme.HandlerBase;\nclass H extends HandlerBase { public void endElement(String n) { } }\n";
        assert_eq!(port(project), None, "a project class of that name");
    }
}
