//! tree-sitter-java plumbing shared by analysis and recipes.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::{Node, Parser, Tree};

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new({
        let mut p = Parser::new();
        p.set_language(&tree_sitter_java::LANGUAGE.into())
            .expect("tree-sitter-java grammar matches the tree-sitter runtime");
        p
    });
}

/// A parsed file. `syntax_error` is set when tree-sitter had to recover: such a file is
/// reported and never rewritten.
pub struct Parsed {
    pub tree: Tree,
    pub syntax_error: Option<String>,
}

pub fn parse(source: &str) -> Option<Parsed> {
    parse_with(source, None)
}

/// The tree of a source without syntax errors: what a rewrite may edit (a file tree-sitter
/// could only partly read is left as it is).
pub fn parse_clean(source: &str) -> Option<Parsed> {
    parse(source).filter(|p| p.syntax_error.is_none())
}

/// [`parse_clean`] for a recipe about `word`: a file that does not name it is not parsed.
pub fn parse_naming(source: &str, word: &str) -> Option<Parsed> {
    source.contains(word).then(|| parse_clean(source)).flatten()
}

/// Re-parses `new_source`, produced from the tree's source by `edits`, reusing the
/// unchanged parts of the old tree (tree-sitter's incremental parsing), so checking a
/// rewrite costs a fraction of a second parse.
pub fn reparse(
    old_source: &str,
    mut tree: Tree,
    edits: &[crate::edit::Edit],
    new_source: &str,
) -> Option<Parsed> {
    let mut sorted: Vec<&crate::edit::Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse((e.range.start, e.range.end)));
    let lines = crate::edit::LineIndex::new(old_source);
    let point_at = |byte| {
        let (row, column) = lines.position(byte);
        tree_sitter::Point { row, column }
    };
    for e in sorted {
        let start_position = point_at(e.range.start);
        let new_end_position = advance(start_position, &e.replacement);
        tree.edit(&tree_sitter::InputEdit {
            start_byte: e.range.start,
            old_end_byte: e.range.end,
            new_end_byte: e.range.start + e.replacement.len(),
            start_position,
            old_end_position: point_at(e.range.end),
            new_end_position,
        });
    }
    parse_with(new_source, Some(&tree))
}

fn advance(start: tree_sitter::Point, text: &str) -> tree_sitter::Point {
    match text.rfind('\n') {
        Some(i) => tree_sitter::Point {
            row: start.row + text.matches('\n').count(),
            column: text.len() - i - 1,
        },
        None => tree_sitter::Point {
            row: start.row,
            column: start.column + text.len(),
        },
    }
}

/// The deepest syntax tree Uplift reads. Its walks over a tree recurse, and a file can nest
/// as deep as it likes (`((((...))))` 50,000 times overflows any thread's stack, which aborts
/// the whole process, the app's server with it); real code, long concatenations included,
/// stays far below.
pub const MAX_DEPTH: usize = 500;

/// `None` when tree-sitter gives up or the tree nests deeper than [`MAX_DEPTH`].
fn parse_with(source: &str, old: Option<&Tree>) -> Option<Parsed> {
    let tree = PARSER.with(|p| p.borrow_mut().parse(source, old))?;
    if deeper_than(tree.root_node(), MAX_DEPTH) {
        return None;
    }
    let syntax_error = first_error(tree.root_node()).map(|n| {
        let p = n.start_position();
        format!(
            "syntax error at line {}, column {}",
            p.row + 1,
            p.column + 1
        )
    });
    Some(Parsed { tree, syntax_error })
}

/// Whether any node lies more than `limit` levels below `root`, found without recursion.
fn deeper_than(root: Node, limit: usize) -> bool {
    let mut cursor = root.walk();
    let mut depth = 0usize;
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            if depth > limit {
                return true;
            }
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return false;
            }
            depth -= 1;
        }
    }
}

fn first_error(node: Node) -> Option<Node> {
    if !node.has_error() {
        return None;
    }
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).find_map(first_error);
    found.or(Some(node))
}

/// The named children of `n` but comments: the parts of a construct a recipe matches on.
pub fn named_children(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|x| !matches!(x.kind(), "line_comment" | "block_comment"))
        .collect()
}

pub fn text<'s>(node: Node, source: &'s str) -> &'s str {
    &source[node.byte_range()]
}

/// Whether `n` sits in an import declaration.
pub fn in_import(n: Node) -> bool {
    std::iter::successors(Some(n), |x| x.parent()).any(|x| x.kind() == "import_declaration")
}

/// The simple names (identifiers and type names) `root` uses outside its imports and
/// outside the `skip` ranges (text edits remove): what an import is still needed for.
pub fn names_used<'s>(root: Node, src: &'s str, skip: &[Range<usize>]) -> BTreeSet<&'s str> {
    let mut out = BTreeSet::new();
    walk(root, |n| {
        if matches!(n.kind(), "identifier" | "type_identifier")
            && !skip
                .iter()
                .any(|r| r.start <= n.start_byte() && n.end_byte() <= r.end)
            && !in_import(n)
        {
            out.insert(text(n, src));
        }
    });
    out
}

/// The nodes enclosing `n`, innermost first.
pub fn ancestors(n: Node) -> impl Iterator<Item = Node> {
    std::iter::successors(n.parent(), |p| p.parent())
}

/// Depth-first visit of every named node.
pub fn walk<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_named() {
            visit(node);
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// An import declaration: `import [static] path[.*];`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    pub path: String,
    pub is_static: bool,
    pub wildcard: bool,
    /// Byte range of the whole declaration.
    pub range: std::ops::Range<usize>,
    /// Byte range of the dotted name (without `.*`).
    pub name_range: std::ops::Range<usize>,
}

pub fn imports(root: Node, source: &str) -> Vec<Import> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    for decl in root.children(&mut cursor) {
        if decl.kind() != "import_declaration" {
            continue;
        }
        let mut c = decl.walk();
        let mut is_static = false;
        let mut wildcard = false;
        let mut name = None;
        for part in decl.children(&mut c) {
            match part.kind() {
                "static" => is_static = true,
                "asterisk" => wildcard = true,
                "scoped_identifier" | "identifier" => name = Some(part),
                _ => {}
            }
        }
        if let Some(name) = name {
            out.push(Import {
                path: text(name, source).split_whitespace().collect(),
                is_static,
                wildcard,
                range: decl.byte_range(),
                name_range: name.byte_range(),
            });
        }
    }
    out
}

/// The file's package (`""` for the default package).
pub fn package_name(root: Node, source: &str) -> String {
    let mut c = root.walk();
    root.children(&mut c)
        .find(|n| n.kind() == "package_declaration")
        .and_then(|p| {
            let mut c = p.walk();
            p.named_children(&mut c)
                .find(|n| matches!(n.kind(), "scoped_identifier" | "identifier"))
                .map(|n| text(n, source).to_string())
        })
        .unwrap_or_default()
}

/// The node kinds that declare a type.
pub const TYPE_DECLARATIONS: &[&str] = &[
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
];

/// Simple names of every class, interface, enum, record and annotation type the file
/// declares (nested ones too).
pub fn declared_type_names(root: Node, source: &str) -> Vec<String> {
    let mut names = Vec::new();
    walk(root, |n| {
        if TYPE_DECLARATIONS.contains(&n.kind()) {
            names.push(field_text(n, "name", source).to_string());
        }
    });
    names
}

/// `com.acme.Base` for `class A extends com.acme.Base<T>`: as written, without type arguments.
pub fn superclass_written<'s>(class: Node, source: &'s str) -> Option<&'s str> {
    let sup = class.child_by_field_name("superclass")?;
    let written = text(sup, source).trim_start_matches("extends").trim();
    Some(written.split('<').next().unwrap_or(written).trim())
}

/// `Base` for `class A extends com.acme.Base<T>`.
pub fn superclass_name<'s>(class: Node, source: &'s str) -> Option<&'s str> {
    let raw = superclass_written(class, source)?;
    Some(raw.rsplit('.').next().unwrap_or(raw))
}

pub fn annotations<'t>(modifiers: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = modifiers.walk();
    modifiers
        .children(&mut cursor)
        .filter(|c| matches!(c.kind(), "marker_annotation" | "annotation"))
        .collect()
}

pub fn modifiers_of(decl: Node) -> Option<Node> {
    let mut cursor = decl.walk();
    decl.children(&mut cursor).find(|c| c.kind() == "modifiers")
}

/// The class body `n` is in (a named, anonymous or enum constant's class body).
pub fn enclosing_class_body(n: Node) -> Option<Node> {
    let mut cur = n.parent();
    while let Some(c) = cur.filter(|c| c.kind() != "class_body") {
        cur = c.parent();
    }
    cur
}

/// Whether a declaration carries the modifier keyword `word` (`final`, `abstract`, ..).
pub fn has_modifier(decl: Node, word: &str) -> bool {
    modifiers_of(decl).is_some_and(|m| {
        let mut c = m.walk();
        m.children(&mut c).any(|k| k.kind() == word)
    })
}

/// The declarator and creation of a declaration holding exactly `v = new T()` (one
/// declarator; no arguments, no class body), with `T` written as `ty`.
pub fn sole_plain_new<'t>(decl: Node<'t>, ty: &str, src: &str) -> Option<(Node<'t>, Node<'t>)> {
    let mut c = decl.walk();
    let declarators: Vec<Node> = decl.children_by_field_name("declarator", &mut c).collect();
    let [d] = declarators.as_slice() else {
        return None;
    };
    let creation = d.child_by_field_name("value")?;
    let plain = creation.kind() == "object_creation_expression"
        && field_text(creation, "type", src) == ty
        && field_text(creation, "arguments", src) == "()"
        && creation.named_child_count() == 2;
    plain.then_some((*d, creation))
}

/// The text of a node's named field, or "" when it has none.
pub fn field_text<'s>(node: Node, field: &str, source: &'s str) -> &'s str {
    node.child_by_field_name(field)
        .map_or("", |n| text(n, source))
}

/// The annotation's name as written (`Test`, `org.junit.Test`).
pub fn annotation_name<'s>(annotation: Node, source: &'s str) -> &'s str {
    field_text(annotation, "name", source)
}

/// Where the variable an identifier names is declared.
enum Declaration<'t> {
    /// A local, field, parameter or `for` variable: its declaration (which holds the type)
    /// and the declarator or parameter that names it.
    Typed { decl: Node<'t>, named: Node<'t> },
    /// The variable of an enhanced `for`.
    ForEach(Node<'t>),
    /// A `catch` parameter: its `catch_type` (`A | B` names no single type).
    Caught(Node<'t>),
    /// Parameter `at` of the `count` of an implicitly typed lambda.
    Lambda {
        lambda: Node<'t>,
        at: usize,
        count: usize,
    },
}

/// The declaration of the variable an identifier names, looked up through the enclosing
/// blocks, parameters and fields the way Java scopes it.
fn declaration<'t>(ident: Node<'t>, src: &str) -> Option<Declaration<'t>> {
    let name = text(ident, src);
    let declares = |decl: Node<'t>| -> Option<Declaration<'t>> {
        decl.child_by_field_name("type")?;
        let mut c = decl.walk();
        let candidates: Vec<Node> = match decl.kind() {
            "formal_parameter" | "spread_parameter" | "resource" => vec![decl],
            _ => decl.children_by_field_name("declarator", &mut c).collect(),
        };
        candidates
            .into_iter()
            .rfind(|d| {
                d.child_by_field_name("name")
                    .is_some_and(|n| text(n, src) == name)
            })
            .map(|named| Declaration::Typed { decl, named })
    };
    let mut cur = ident;
    while let Some(scope) = cur.parent() {
        let mut c = scope.walk();
        let hit = match scope.kind() {
            "block" | "constructor_body" | "switch_block_statement_group" => scope
                .named_children(&mut c)
                .filter(|s| {
                    s.end_byte() <= ident.start_byte() && s.kind() == "local_variable_declaration"
                })
                .filter_map(declares)
                .last(),
            "lambda_expression"
                if scope
                    .child_by_field_name("parameters")
                    .is_some_and(|ps| ps.kind() != "formal_parameters") =>
            {
                // `d -> ..`, `(k, v) -> ..`: a parameter of that name is the variable.
                let ps = scope.child_by_field_name("parameters")?;
                let mut c2 = ps.walk();
                let names: Vec<Node> = if ps.kind() == "identifier" {
                    vec![ps]
                } else {
                    ps.named_children(&mut c2).collect()
                };
                if let Some(at) = names.iter().position(|n| text(*n, src) == name) {
                    return Some(Declaration::Lambda {
                        lambda: scope,
                        at,
                        count: names.len(),
                    });
                }
                None
            }
            "method_declaration" | "constructor_declaration" | "lambda_expression" => {
                scope.child_by_field_name("parameters").and_then(|ps| {
                    let mut c2 = ps.walk();
                    ps.named_children(&mut c2).find_map(declares)
                })
            }
            "for_statement" => scope.child_by_field_name("init").and_then(declares),
            "try_with_resources_statement" => {
                scope.child_by_field_name("resources").and_then(|rs| {
                    let mut c2 = rs.walk();
                    rs.named_children(&mut c2).filter_map(declares).last()
                })
            }
            "enhanced_for_statement" => scope
                .child_by_field_name("name")
                .filter(|n| text(*n, src) == name)
                .map(|_| Declaration::ForEach(scope)),
            "catch_clause" => scope
                .named_children(&mut c)
                .find(|p| p.kind() == "catch_formal_parameter")
                .filter(|p| field_text(*p, "name", src) == name)
                .and_then(|p| {
                    p.named_children(&mut p.walk())
                        .find(|t| t.kind() == "catch_type")
                })
                .map(Declaration::Caught),
            "class_body" => scope
                .named_children(&mut c)
                .filter(|m| m.kind() == "field_declaration")
                .find_map(declares),
            _ => None,
        };
        if hit.is_some() {
            return hit;
        }
        cur = scope;
    }
    None
}

/// The declared type of the variable an identifier names (no type inference beyond an
/// implicitly typed lambda parameter fed the elements of a declared container).
pub fn declared_type(ident: Node, src: &str) -> Option<String> {
    match declaration(ident, src)? {
        Declaration::Typed { decl, named } => {
            let ty = field_text(decl, "type", src);
            Some(format!("{ty}{}", field_text(named, "dimensions", src)))
        }
        Declaration::ForEach(stmt) => Some(field_text(stmt, "type", src).to_string()),
        Declaration::Caught(ty) => Some(text(ty, src).to_string()).filter(|t| !t.contains('|')),
        // Its type is what the lambda's call feeds it, where that is known.
        Declaration::Lambda { lambda, at, count } => inferred_parameter(lambda, at, count, src),
    }
}

/// The initializer of the `final` field of this file that an identifier names (no local or
/// parameter of that name hiding it): where a constant's value can be read.
pub fn final_field_value<'t>(ident: Node<'t>, src: &str) -> Option<Node<'t>> {
    let Declaration::Typed { decl, named } = declaration(ident, src)? else {
        return None;
    };
    (decl.kind() == "field_declaration" && has_modifier(decl, "final"))
        .then(|| named.child_by_field_name("value"))
        .flatten()
}

/// JDK containers of one element type, by simple name: `forEach`, `removeIf`, `stream()`
/// and the like feed their lambdas that type.
const ELEMENT_CONTAINERS: &[&str] = &[
    "Iterable",
    "Collection",
    "List",
    "ArrayList",
    "LinkedList",
    "Vector",
    "Set",
    "HashSet",
    "LinkedHashSet",
    "TreeSet",
    "SortedSet",
    "NavigableSet",
    "Queue",
    "Deque",
    "ArrayDeque",
    "CopyOnWriteArrayList",
    "Stream",
    "Optional",
];
/// JDK maps by simple name: `forEach((k, v) -> ..)` takes their key and value types.
const MAP_CONTAINERS: &[&str] = &[
    "Map",
    "HashMap",
    "LinkedHashMap",
    "TreeMap",
    "SortedMap",
    "NavigableMap",
    "ConcurrentMap",
    "ConcurrentHashMap",
];

/// The JDK's generic functional interfaces by simple name, with the type argument each
/// lambda parameter takes: a lambda declared or returned as `Function<Thread, Long>` takes
/// a Thread.
const FUNCTIONAL: &[(&str, &[usize])] = &[
    ("Function", &[0]),
    ("Consumer", &[0]),
    ("Predicate", &[0]),
    ("UnaryOperator", &[0]),
    ("ToIntFunction", &[0]),
    ("ToLongFunction", &[0]),
    ("ToDoubleFunction", &[0]),
    ("BiFunction", &[0, 1]),
    ("BiConsumer", &[0, 1]),
    ("BiPredicate", &[0, 1]),
    ("ToIntBiFunction", &[0, 1]),
    ("ToLongBiFunction", &[0, 1]),
    ("ToDoubleBiFunction", &[0, 1]),
    ("BinaryOperator", &[0, 0]),
    ("Comparator", &[0, 0]),
];

/// The type `lambda` is written for where its declaration or its method's return type says
/// it: `Function<Thread, Long> f = t -> ..`, `return t -> ..` in a method returning one.
fn target_type(lambda: Node, src: &str) -> Option<String> {
    let parent = lambda.parent()?;
    let typed = match parent.kind() {
        "variable_declarator" => parent.parent()?,
        "return_statement" => std::iter::successors(parent.parent(), |p| p.parent())
            .find(|p| {
                matches!(
                    p.kind(),
                    "method_declaration" | "lambda_expression" | "class_body"
                )
            })
            .filter(|p| p.kind() == "method_declaration")?,
        _ => return None,
    };
    Some(field_text(typed, "type", src).to_string())
}

/// The type of parameter `at` (of `count`) of an implicitly typed `lambda`, where the call it
/// is the only argument of feeds it the elements of a container declared with its type
/// arguments: `dates.forEach(d -> ..)`, `dates.stream().filter(d -> ..)`,
/// `dates.sort((a, b) -> ..)`, `map.forEach((k, v) -> ..)`. Anything else is unknown.
fn inferred_parameter(lambda: Node, at: usize, count: usize, src: &str) -> Option<String> {
    if let Some(target) = target_type(lambda, src) {
        let (raw, args) = type_arguments(&target)?;
        let (_, params) = FUNCTIONAL
            .iter()
            .find(|(name, params)| *name == raw && params.len() == count)?;
        return bound(args.get(params[at])?);
    }
    let args = lambda.parent().filter(|a| a.kind() == "argument_list")?;
    let call = args.parent().filter(|c| c.kind() == "method_invocation")?;
    if args.named_child_count() != 1 {
        return None;
    }
    let object = call.child_by_field_name("object")?;
    let method = field_text(call, "name", src);
    let one = [
        "forEach",
        "forEachOrdered",
        "removeIf",
        "filter",
        "anyMatch",
        "allMatch",
        "noneMatch",
        "peek",
        "map",
        "mapToInt",
        "mapToLong",
        "mapToDouble",
        "mapToObj",
        "flatMap",
        "ifPresent",
        "takeWhile",
        "dropWhile",
    ];
    let two = ["sort", "sorted", "min", "max"];
    match count {
        1 if one.contains(&method) => element_type(object, src),
        2 if two.contains(&method) => element_type(object, src),
        2 if method == "forEach" => {
            let (key, value) = map_arguments(object, src)?;
            bound(if at == 0 { &key } else { &value })
        }
        _ => None,
    }
}

/// JDK static methods that return a map, with its type arguments: what a lambda over their
/// keys or values receives.
const MAP_FACTORIES: &[(&str, &str, [&str; 2])] = &[
    (
        "Thread",
        "getAllStackTraces",
        ["Thread", "StackTraceElement[]"],
    ),
    ("System", "getenv", ["String", "String"]),
];

/// The key and value types of a map expression: a variable declared `Map<K, V>` (and the
/// like), or a JDK call known to return one (`Thread.getAllStackTraces()`).
fn map_arguments(map: Node, src: &str) -> Option<(String, String)> {
    match map.kind() {
        "identifier" => {
            let declared = declared_type(map, src)?;
            let (raw, args) = type_arguments(&declared)?;
            let [key, value] = args.as_slice() else {
                return None;
            };
            MAP_CONTAINERS
                .contains(&raw)
                .then(|| (key.to_string(), value.to_string()))
        }
        "method_invocation" => {
            let owner = field_text(map, "object", src);
            let owner = owner.strip_prefix("java.lang.").unwrap_or(owner);
            let no_args = field_text(map, "arguments", src) == "()";
            let name = field_text(map, "name", src);
            MAP_FACTORIES
                .iter()
                .find(|(o, m, _)| no_args && *o == owner && *m == name)
                .map(|(_, _, [k, v])| (k.to_string(), v.to_string()))
        }
        _ => None,
    }
}

/// The element type of a container expression: a variable declared `List<Date>` (and the
/// like), its `stream()`, and stream or optional steps that keep the elements.
fn element_type(container: Node, src: &str) -> Option<String> {
    match container.kind() {
        "identifier" => {
            let declared = declared_type(container, src)?;
            let (raw, args) = type_arguments(&declared)?;
            let [element] = args.as_slice() else {
                return None;
            };
            ELEMENT_CONTAINERS
                .contains(&raw)
                .then(|| bound(element))
                .flatten()
        }
        "method_invocation"
            if field_text(container, "arguments", src) == "()"
                && matches!(field_text(container, "name", src), "keySet" | "values") =>
        {
            // A map's keys or values.
            let (key, value) = map_arguments(container.child_by_field_name("object")?, src)?;
            bound(if field_text(container, "name", src) == "keySet" {
                &key
            } else {
                &value
            })
        }
        "method_invocation" => {
            let keeps = [
                "stream",
                "parallelStream",
                "filter",
                "sorted",
                "distinct",
                "peek",
                "limit",
                "skip",
                "unordered",
                "parallel",
                "sequential",
                "takeWhile",
                "dropWhile",
            ];
            keeps
                .contains(&field_text(container, "name", src))
                .then(|| element_type(container.child_by_field_name("object")?, src))
                .flatten()
        }
        _ => None,
    }
}

/// `Map<String, List<Date>>` -> (`Map`, [`String`, `List<Date>`]).
fn type_arguments(declared: &str) -> Option<(&str, Vec<&str>)> {
    let (raw, rest) = declared.split_once('<')?;
    let inner = rest.trim_end().strip_suffix('>')?;
    let args = top_level_arguments(inner)
        .into_iter()
        .map(str::trim)
        .collect();
    Some((raw.trim().rsplit('.').next().unwrap_or(raw), args))
}

/// `String, List<Integer>` -> [`String`, ` List<Integer>`]: split at the commas outside
/// angle brackets.
pub fn top_level_arguments(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in args.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(&args[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&args[start..]);
    out
}

/// A type argument as the type a lambda receives: `? extends Date` is a `Date`; `?` and
/// `? super` bounds are unknown.
fn bound(arg: &str) -> Option<String> {
    let arg = arg.strip_prefix("? extends ").unwrap_or(arg).trim();
    (!arg.starts_with('?')).then(|| arg.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The declared type of the identifier that starts at `needle`'s first occurrence.
    fn type_at(src: &str, needle: &str) -> Option<String> {
        let p = parse(src).unwrap();
        let at = src.find(needle).unwrap();
        let node = p
            .tree
            .root_node()
            .descendant_for_byte_range(at, at + 1)
            .unwrap();
        declared_type(node, src)
    }

    /// An implicitly typed lambda parameter has the element type of what its call feeds
    /// it, and hides a field of the same name even where that type is unknown.
    #[test]
    fn a_lambda_parameter_takes_the_element_type_of_its_container() {
        let src = "class A {\n  String d;\n  void f(List<? extends Date> dates, Map<String, Date> byName, Widget w) {\n    dates.stream().filter(d -> d.x()).count();\n    byName.forEach((k, v) -> v.x());\n    dates.sort((a, b) -> a.x());\n    w.each(d -> d.x());\n  }\n}\n";
        let type_of = |needle: &str| type_at(src, needle);
        assert_eq!(type_of("d.x()).count").as_deref(), Some("Date"));
        assert_eq!(type_of("v.x()").as_deref(), Some("Date"));
        assert_eq!(type_of("a.x()").as_deref(), Some("Date"));
        assert_eq!(type_of("d.x());\n").as_deref(), None);
    }

    /// A map's keys and values, of a declared map or a JDK call known to return one, feed
    /// their lambdas their type arguments.
    #[test]
    fn a_lambda_over_a_maps_keys_or_values_takes_their_type() {
        let src = "class A {\n  void f(Map<String, Date> byName) {\n    Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive()).count();\n    byName.values().forEach(v -> v.x());\n    byName.keySet().forEach(k -> k.y());\n    Other.getAllStackTraces().keySet().forEach(o -> o.z());\n  }\n}\n";
        let type_of = |needle: &str| type_at(src, needle);
        assert_eq!(type_of("t.isAlive").as_deref(), Some("Thread"));
        assert_eq!(type_of("v.x()").as_deref(), Some("Date"));
        assert_eq!(type_of("k.y()").as_deref(), Some("String"));
        assert_eq!(type_of("o.z()").as_deref(), None);
    }

    #[test]
    fn a_try_with_resources_resource_is_of_its_declared_type() {
        let src = "class A {\n  void f(Factory factory) throws Exception {\n    try (SSLSocket socket = factory.open()) {\n      socket.getSession();\n    }\n  }\n}\n";
        assert_eq!(
            type_at(src, "socket.getSession").as_deref(),
            Some("SSLSocket")
        );
    }

    #[test]
    fn reports_syntax_errors_with_position() {
        let p = parse("class A { void f() { int x = ; } }").unwrap();
        assert!(p.syntax_error.unwrap().contains("line 1"));
        assert!(parse("class A {}").unwrap().syntax_error.is_none());
    }

    /// A file nesting 50,000 parentheses deep would overflow the stack of any recursive
    /// walk (an abort of the whole process); it is not read. A 300-term concatenation is.
    #[test]
    fn a_tree_deeper_than_the_limit_is_not_read() {
        let deep = format!(
            "class A {{ int x = {}1{}; }}",
            "(".repeat(50_000),
            ")".repeat(50_000)
        );
        assert!(parse(&deep).is_none());
        let long = format!(
            "class A {{ String s = {}; }}",
            vec!["\"x\""; 300].join(" + ")
        );
        assert!(parse(&long).unwrap().syntax_error.is_none());
    }

    #[test]
    fn incremental_reparse_matches_a_fresh_parse() {
        let old = "class A {\n  void f() { int x = 1; }\n}\n";
        let one = old.find('1').unwrap();
        let edits = [
            crate::edit::Edit::replace(one..one + 1, "x +\n 2"),
            crate::edit::Edit::insert(0, "// c\n"),
        ];
        let new = crate::edit::apply(old, &edits).unwrap();
        let p = parse(old).unwrap();
        let re = reparse(old, p.tree, &edits, &new).unwrap();
        assert_eq!(
            re.tree.root_node().to_sexp(),
            parse(&new).unwrap().tree.root_node().to_sexp()
        );
        let broken = [crate::edit::Edit::replace(one..one + 1, "")];
        let out = crate::edit::apply(old, &broken).unwrap();
        assert!(
            reparse(old, parse(old).unwrap().tree, &broken, &out)
                .unwrap()
                .syntax_error
                .is_some()
        );
    }

    #[test]
    fn reads_imports() {
        let src = "import static org.junit.Assert.*;\nimport java.util.List;\nclass A {}";
        let p = parse(src).unwrap();
        let imps = imports(p.tree.root_node(), src);
        assert_eq!(imps.len(), 2);
        assert!(imps[0].is_static && imps[0].wildcard);
        assert_eq!(imps[0].path, "org.junit.Assert");
        assert_eq!(&src[imps[1].name_range.clone()], "java.util.List");
    }
}
