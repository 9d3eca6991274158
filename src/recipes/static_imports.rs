//! Statically imported JDK members seen by the declarative rules. A rule names its receiver
//! (`$D.decode($S)` with `D: java.net.URLDecoder`); `import static java.net.URLDecoder.decode;`
//! lets the code call `decode(s)` with none. [`qualify`] writes such a use as
//! `URLDecoder.decode(s)` (importing the owner when its simple name is free) where a rule
//! then rewrites it, so every rule sees the static import's owner as its receiver; a use no
//! rule rewrites keeps its short form. [`Qualified::unused_static_imports`] says which single
//! static imports the rewrite left unused.
//!
//! A simple name denotes the static import only where Java says so, and this is read from
//! the file alone: no method (for a call) or variable (for a value) of that name is declared
//! in the file, and no enclosing class extends or implements anything (an inherited member
//! would win). Elsewhere the use is left as it is.

use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::Node;

use super::java_rules::add_imports;
use super::java_types::Scope;
use crate::edit::{self, Edit, whole_line};
use crate::java_syntax::{self, Import, text};

/// At most this many uses are tried per file: a file that leans on a static import this
/// much keeps its style.
const MAX_SITES: usize = 64;

/// The qualified text and what it needs.
pub struct Qualified {
    /// With an import of each owner whose simple name was free in the file.
    pub text: String,
    /// Single static imports (`owner.member`) whose uses were qualified.
    singles: BTreeSet<String>,
}

impl Qualified {
    /// The single static imports of `src` (a rewrite of [`Qualified::text`]) whose member
    /// is no longer used by its simple name, as import declarations' ranges.
    pub fn unused_static_imports(&self, src: &str) -> Vec<Range<usize>> {
        unused_single_static_imports(src, |path| self.singles.contains(path))
    }
}

/// The single static imports of `src` that `of_interest` accepts (by their path,
/// `owner.member`) whose member is no longer used by its simple name, as their lines.
pub fn unused_single_static_imports(
    src: &str,
    of_interest: impl Fn(&str) -> bool,
) -> Vec<Range<usize>> {
    let Some(parsed) = java_syntax::parse(src) else {
        return Vec::new();
    };
    let root = parsed.tree.root_node();
    java_syntax::imports(root, src)
        .into_iter()
        .filter(|i| i.is_static && !i.wildcard && of_interest(&i.path))
        .filter(|i| {
            let member = i.path.rsplit('.').next().unwrap_or("");
            !used_unqualified(root, src, member)
        })
        .map(|i| whole_line(src, i.range))
        .collect()
}

/// `src` with the statically imported JDK members qualified where `rewritten` (the edit
/// ranges a rule pass makes in a text) covers the qualified use; None when there is none.
pub fn qualify(src: &str, rewritten: impl Fn(&str) -> Vec<Range<usize>>) -> Option<Qualified> {
    let parsed = java_syntax::parse_naming(src, "import static")?;
    let root = parsed.tree.root_node();
    let imports: Vec<Import> = java_syntax::imports(root, src)
        .into_iter()
        .filter(|i| i.is_static && (i.path.starts_with("java.") || i.path.starts_with("javax.")))
        .collect();
    if imports.is_empty() {
        return None;
    }
    let scope = Scope::new(root, src);
    let declared = Declared::of(root, src);
    let used = identifiers(root, src);
    let mut candidates: Vec<Candidate> = Vec::new();
    for import in &imports {
        let (owner, member) = if import.wildcard {
            (import.path.as_str(), None)
        } else {
            match import.path.rsplit_once('.') {
                Some((o, m)) => (o, Some(m)),
                None => continue,
            }
        };
        let simple = owner.rsplit('.').next().unwrap_or(owner);
        let free = !used.contains(simple) && !declared.types.contains(simple);
        let qualifier = if scope.names(simple, owner) || free {
            simple
        } else {
            owner
        };
        let sites: Vec<Node> = uses(root, src, member, &declared)
            .into_iter()
            .take(MAX_SITES)
            .collect();
        if sites.is_empty() {
            continue;
        }
        candidates.push(Candidate {
            import,
            owner,
            qualifier,
            // The rules resolve the owner's simple name through the file's imports.
            needs_import: qualifier == simple && !scope.names(simple, owner),
            sites,
        });
    }
    let mut kept = Kept::default();
    // One trial per import with every use of it qualified: a rule's match does not depend
    // on the others. Then one with all the rest at once, for a rule whose pattern names
    // members of two imports (`getSubject(getContext())`).
    for c in &candidates {
        let open = kept.open(c, &[]);
        kept.trial(src, &[open], &rewritten);
    }
    let mut rest: Vec<Candidate> = Vec::new();
    for c in &candidates {
        let open = kept.open(c, &rest);
        if !open.sites.is_empty() {
            rest.push(open);
        }
    }
    if rest.len() > 1 {
        kept.trial(src, &rest, &rewritten);
    }
    let Kept {
        sites: kept,
        owners,
        singles,
    } = kept;
    if kept.is_empty() {
        return None;
    }
    let edits: Vec<Edit> = kept
        .into_iter()
        .map(|(at, q)| Edit::insert(at, q))
        .collect();
    Some(Qualified {
        text: add_imports(&edit::apply(src, &edits).ok()?, &owners),
        singles,
    })
}

/// The uses of one static import that may be written with their owner.
struct Candidate<'a, 't> {
    import: &'a Import,
    owner: &'a str,
    qualifier: &'a str,
    needs_import: bool,
    sites: Vec<Node<'t>>,
}

/// The uses a rule rewrites once qualified, with what they need.
#[derive(Default)]
struct Kept<'a> {
    /// Each use's start and the qualifier to insert there.
    sites: Vec<(usize, String)>,
    /// Owners to import.
    owners: BTreeSet<&'a str>,
    /// Single static imports whose uses were qualified.
    singles: BTreeSet<String>,
}

impl<'a> Kept<'a> {
    /// `c` with only its uses that are neither kept nor among `others`' (a use two imports
    /// may name is tried once).
    fn open<'t>(&self, c: &Candidate<'a, 't>, others: &[Candidate<'a, 't>]) -> Candidate<'a, 't> {
        let taken = |at: usize| {
            self.sites.iter().any(|(s, _)| *s == at)
                || (others.iter()).any(|o| o.sites.iter().any(|n| n.start_byte() == at))
        };
        Candidate {
            sites: (c.sites.iter())
                .filter(|n| !taken(n.start_byte()))
                .copied()
                .collect(),
            ..*c
        }
    }

    /// Qualifies every use of `candidates` in one trial and keeps those a rewrite covers.
    fn trial(
        &mut self,
        src: &str,
        candidates: &[Candidate<'a, '_>],
        rewritten: &impl Fn(&str) -> Vec<Range<usize>>,
    ) {
        let mut sites: Vec<(&Candidate, Node)> = candidates
            .iter()
            .flat_map(|c| c.sites.iter().map(move |n| (c, *n)))
            .collect();
        sites.sort_by_key(|(_, n)| n.start_byte());
        let edits: Vec<Edit> = sites
            .iter()
            .map(|(c, n)| Edit::insert(n.start_byte(), format!("{}.", c.qualifier)))
            .collect();
        let Ok(trial) = edit::apply(src, &edits) else {
            return;
        };
        let owners: BTreeSet<&str> = (candidates.iter())
            .filter(|c| c.needs_import)
            .map(|c| c.owner)
            .collect();
        let trial_imported = add_imports(&trial, &owners);
        let fired = rewritten(&trial_imported);
        // Imports come before every use: the import lines shift them all alike.
        let mut shift = trial_imported.len() - trial.len();
        for (c, n) in &sites {
            let grown = c.qualifier.len() + 1;
            let start = n.start_byte() + shift;
            let end = n.end_byte() + shift + grown;
            shift += grown;
            if fired.iter().any(|r| r.start <= start && end <= r.end) {
                self.sites
                    .push((n.start_byte(), format!("{}.", c.qualifier)));
                if c.needs_import {
                    self.owners.insert(c.owner);
                }
                if !c.import.wildcard {
                    self.singles.insert(c.import.path.clone());
                }
            }
        }
    }
}

/// Names the file declares that would shadow a static import, and its enclosing-class facts.
struct Declared {
    methods: BTreeSet<String>,
    variables: BTreeSet<String>,
    types: BTreeSet<String>,
}

impl Declared {
    fn of(root: Node, src: &str) -> Self {
        let mut d = Declared {
            methods: BTreeSet::new(),
            variables: BTreeSet::new(),
            types: java_syntax::declared_type_names(root, src)
                .into_iter()
                .collect(),
        };
        java_syntax::walk(root, |n| {
            let name = n
                .child_by_field_name("name")
                .map(|m| text(m, src).to_string());
            match (n.kind(), name) {
                ("method_declaration", Some(m)) => {
                    d.methods.insert(m);
                }
                (
                    "variable_declarator"
                    | "formal_parameter"
                    | "catch_formal_parameter"
                    | "spread_parameter"
                    | "enum_constant"
                    | "resource",
                    Some(v),
                ) => {
                    d.variables.insert(v);
                }
                ("inferred_parameters", _) => {
                    let mut c = n.walk();
                    for p in n.named_children(&mut c) {
                        d.variables.insert(text(p, src).to_string());
                    }
                }
                ("lambda_expression", _) => {
                    if let Some(p) = n
                        .child_by_field_name("parameters")
                        .filter(|p| p.kind() == "identifier")
                    {
                        d.variables.insert(text(p, src).to_string());
                    }
                }
                _ => {}
            }
        });
        d
    }
}

/// The uses of `member` (any member for an on-demand import) by simple name that denote a
/// static import: unqualified calls and values, not shadowed, in classes that inherit nothing.
fn uses<'t>(root: Node<'t>, src: &str, member: Option<&str>, declared: &Declared) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    java_syntax::walk(root, |n| {
        let site = match n.kind() {
            "method_invocation" if n.child_by_field_name("object").is_none() => n
                .child_by_field_name("name")
                .filter(|m| !declared.methods.contains(text(*m, src))),
            "identifier" if is_value(n) => {
                Some(n).filter(|v| !declared.variables.contains(text(*v, src)))
            }
            _ => None,
        };
        if let Some(name) = site
            && member.is_none_or(|m| text(name, src) == m)
            && inherits_nothing(n)
        {
            out.push(name);
        }
    });
    out
}

/// An identifier standing for a value (not a declaration, label, type or member name).
fn is_value(n: Node) -> bool {
    let Some(p) = n.parent() else { return false };
    let field = |f: &str| p.child_by_field_name(f).is_some_and(|c| c.id() == n.id());
    match p.kind() {
        "argument_list"
        | "binary_expression"
        | "return_statement"
        | "parenthesized_expression"
        | "ternary_expression"
        | "unary_expression"
        | "array_initializer"
        | "switch_label" => true,
        "variable_declarator" => field("value"),
        "assignment_expression" => field("right"),
        "method_invocation" | "field_access" => field("object"),
        _ => false,
    }
}

/// Whether no class around `n` has a superclass or interfaces (whose members would shadow
/// a static import), anonymous classes included.
fn inherits_nothing(n: Node) -> bool {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        match p.kind() {
            "class_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "interface_declaration" => {
                let mut c = p.walk();
                if p.children(&mut c).any(|k| {
                    matches!(
                        k.kind(),
                        "superclass" | "super_interfaces" | "extends_interfaces"
                    )
                }) {
                    return false;
                }
            }
            "object_creation_expression" => {
                let mut c = p.walk();
                if p.children(&mut c).any(|k| k.kind() == "class_body") {
                    return false;
                }
            }
            _ => {}
        }
        cur = p;
    }
    true
}

/// Whether `member` is still written by its simple name outside imports.
fn used_unqualified(root: Node, src: &str, member: &str) -> bool {
    let mut found = false;
    java_syntax::walk(root, |n| {
        if found || n.kind() != "identifier" || text(n, src) != member {
            return;
        }
        let Some(p) = n.parent() else { return };
        let is = |f: &str| p.child_by_field_name(f).is_some_and(|c| c.id() == n.id());
        let qualified = match p.kind() {
            "method_invocation" => is("name") && p.child_by_field_name("object").is_some(),
            "field_access" => is("field"),
            "scoped_identifier" | "import_declaration" | "method_reference" => true,
            _ => false,
        };
        found = !qualified;
    });
    found
}

/// Every identifier and type name outside imports.
fn identifiers(root: Node, src: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    java_syntax::walk(root, |n| {
        if matches!(n.kind(), "identifier" | "type_identifier")
            && !n
                .parent()
                .is_some_and(|p| matches!(p.kind(), "scoped_identifier" | "import_declaration"))
        {
            out.insert(text(n, src).to_string());
        }
    });
    out
}
