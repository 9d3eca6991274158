//! A `BigDecimal.ROUND_*` constant held in an `int` (a private field, a local, or a parameter
//! of a private method or constructor) whose every use is the rounding argument of `setScale`
//! or `divide` on a `BigDecimal`, `RoundingMode.valueOf`'s argument, or the value of another
//! such holder: the holders become `RoundingMode`s, so those calls take the overloads that are
//! not deprecated:
//!
//! ```java
//! private final int mode = BigDecimal.ROUND_HALF_UP;           ... v.setScale(2, mode)
//! private final RoundingMode mode = RoundingMode.HALF_UP;      ... v.setScale(2, mode)
//! ```
//!
//! A field may also be blank and get its value from plain assignments (in its constructors,
//! say); a parameter gets the arguments of every call in the file (a private method or
//! constructor has no other, nor has a package-private one of a class that no other file of
//! its package names, where the file declares no other member of that name). A value may also choose between such constants (`up ? BigDecimal.ROUND_UP :
//! BigDecimal.ROUND_DOWN`) and may be statically imported (`ROUND_UP`). Each `ROUND_X` equals
//! `RoundingMode.X`'s old int, and the int overloads compute with `RoundingMode.valueOf(int)`,
//! so the result is the same (`RoundingMode.valueOf(holder)` becomes the holder). Any other
//! use (arithmetic, another call, an assignment) leaves the variable to the rule's detector.
//! A `static final` field of a top-level class is a holder too where every other file of the
//! project that says its name reads it as `Owner.NAME` in such a rounding argument: those
//! calls take the `RoundingMode` overloads with no edit of their own. (Code outside the
//! repository reading it as an `int` would have to change; the change line says so.)
//! A single static import of a constant no use is left of goes. The code half of
//! `bigdecimal-rounding-mode`.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::{Project, Scope, mentions};
use super::static_imports::unused_single_static_imports;
use crate::edit::Edit;
use crate::java_syntax::{self, field_text, text};

const BIG_DECIMAL: &str = "java.math.BigDecimal";
const MODES: [&str; 8] = [
    "UP",
    "DOWN",
    "CEILING",
    "FLOOR",
    "HALF_UP",
    "HALF_DOWN",
    "HALF_EVEN",
    "UNNECESSARY",
];

/// An `int` variable that may hold a rounding mode.
struct Holder<'t> {
    /// Its declared type, `int`.
    ty: Node<'t>,
    name: Node<'t>,
    /// What it is given: initializer, assigned values, call arguments.
    values: Vec<Node<'t>>,
    /// Every other mention of its name (`this.name` as a whole).
    reads: Vec<Node<'t>>,
    /// A static final field other files may read, when it is one.
    shared: bool,
}

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_naming(src, "ROUND_") else {
        return result;
    };
    let root = parsed.tree.root_node();
    let scope = Scope::new(root, src).in_project(project);
    if scope.import_would_clash("java.math.RoundingMode") {
        return result;
    }
    let mut holders = Vec::new();
    java_syntax::walk(root, |decl| {
        if let Some(h) = holder(decl, root, src, &|name| {
            project.only_file_naming(scope.package(), name, src)
        }) && (!h.shared
            || read_elsewhere_as_modes(decl, text(h.name, src), &scope, src, project))
        {
            holders.push(h);
        }
    });
    let holders = settle(holders, &scope, src);
    // Replacements by range, so a node two holders share is edited once.
    let mut edits: BTreeMap<(usize, usize), String> = BTreeMap::new();
    let mut put = |n: Node, with: String| {
        edits.insert((n.start_byte(), n.end_byte()), with);
    };
    for h in &holders {
        put(h.ty, "RoundingMode".into());
        for v in &h.values {
            for (constant, mode) in rounding_constants(*v, &scope, src).unwrap_or_default() {
                put(constant, format!("RoundingMode.{mode}"));
            }
        }
        for r in &h.reads {
            if let Some(call) = value_of_argument(*r, &scope, src) {
                put(call, text(*r, src).to_string());
            }
        }
        result.changes.push(format!(
            "line {}: int {} holding BigDecimal.ROUND_* -> RoundingMode{}",
            h.name.start_position().row + 1,
            text(h.name, src),
            if h.shared {
                " (other files read it only as a rounding mode; code outside the repository reading it as an int must change too)"
            } else {
                ""
            }
        ));
    }
    if edits.is_empty() {
        return result;
    }
    let edits: Vec<Edit> = edits
        .into_iter()
        .map(|((start, end), with)| Edit::replace(start..end, with))
        .collect();
    apply_code_edits(
        src,
        &edits,
        &BTreeSet::from(["java.math.RoundingMode"]),
        "RoundingMode variables",
        &mut result,
    );
    // The single static imports of the constants the holders took over.
    if let Some(out) = &result.text {
        let unused: Vec<Edit> = unused_single_static_imports(out, |path| {
            path.strip_prefix(BIG_DECIMAL)
                .is_some_and(|m| m.starts_with(".ROUND_"))
        })
        .into_iter()
        .map(|r| Edit::replace(r, ""))
        .collect();
        if let Ok(trimmed) = crate::edit::apply(out, &unused) {
            result.text = Some(trimmed);
        }
    }
    result
}

/// The `int` local, private field or parameter of a private method or constructor that
/// `decl` declares alone, with its values and reads; None for anything else. A
/// package-private callee counts as private where `only_here` says no other file of the
/// package names it and no other class of this file declares a member of its name. A
/// static final field of a top-level class is a holder too, `shared` with other files.
fn holder<'t>(
    decl: Node<'t>,
    root: Node<'t>,
    src: &str,
    only_here: &dyn Fn(&str) -> bool,
) -> Option<Holder<'t>> {
    let private = |d: Node| {
        java_syntax::modifiers_of(d)
            .is_some_and(|m| text(m, src).split_whitespace().any(|w| w == "private"))
    };
    let shared = decl.kind() == "field_declaration" && !private(decl);
    let (ty, name, given) = match decl.kind() {
        "local_variable_declaration" | "field_declaration" => {
            if shared && !static_final_of_top_level(decl, src) {
                return None;
            }
            let mut c = decl.walk();
            let declarators: Vec<Node> =
                decl.children_by_field_name("declarator", &mut c).collect();
            let [d] = declarators.as_slice() else {
                return None;
            };
            let given: Vec<Node> = d.child_by_field_name("value").into_iter().collect();
            (
                decl.child_by_field_name("type")?,
                d.child_by_field_name("name")?,
                given,
            )
        }
        "formal_parameter" => {
            let params = decl.parent()?;
            let callee = params.parent()?;
            if !matches!(
                callee.kind(),
                "method_declaration" | "constructor_declaration"
            ) || !(private(callee) || package_only(callee, root, src, only_here))
            {
                return None;
            }
            let mut c = params.walk();
            let all: Vec<Node> = params.named_children(&mut c).collect();
            let at = all.iter().position(|p| p.id() == decl.id())?;
            let given = call_arguments(callee, all.len(), at, root, src)?;
            (
                decl.child_by_field_name("type")?,
                decl.child_by_field_name("name")?,
                given,
            )
        }
        _ => return None,
    };
    if text(ty, src) != "int" {
        return None;
    }
    // Plain assignments (a blank final's in its constructors, say) give it values too.
    let (stores, reads): (Vec<Node>, Vec<Node>) = mentions(root, name, src)
        .into_iter()
        .map(|u| this_qualified(u, src))
        .partition(|u| assigned_value(*u, src).is_some());
    let values: Vec<Node> = given
        .into_iter()
        .chain(stores.iter().filter_map(|u| assigned_value(*u, src)))
        .collect();
    (!values.is_empty() && (shared || !reads.is_empty())).then_some(Holder {
        ty,
        name,
        values,
        reads,
        shared,
    })
}

/// Whether the field `decl` declares is `static final` and a member of a top-level class.
fn static_final_of_top_level(decl: Node, src: &str) -> bool {
    let modifiers = java_syntax::modifiers_of(decl).map_or("", |m| text(m, src));
    let words: Vec<&str> = modifiers.split_whitespace().collect();
    words.contains(&"static")
        && words.contains(&"final")
        && decl.parent().and_then(|b| b.parent()).is_some_and(|c| {
            c.kind() == "class_declaration" && c.parent().is_some_and(|p| p.kind() == "program")
        })
}

/// Whether every other file of the project that says the shared field's `name` reads it
/// only as `Owner.name`, the rounding argument of a `BigDecimal` call: such a call takes the
/// `RoundingMode` overload once the field is one, with no edit there.
fn read_elsewhere_as_modes(
    decl: Node,
    name: &str,
    scope: &Scope,
    src: &str,
    project: &Project,
) -> bool {
    let Some(class) = java_syntax::ancestors(decl).find(|c| c.kind() == "class_declaration") else {
        return false;
    };
    let owner = match (scope.package(), field_text(class, "name", src)) {
        ("", class) => class.to_string(),
        (package, class) => format!("{package}.{class}"),
    };
    let Some(others) = project.other_files_naming(name, src) else {
        return false;
    };
    others.iter().all(|(_, other)| {
        let Some(parsed) = java_syntax::parse_clean(other) else {
            return false;
        };
        let root = parsed.tree.root_node();
        let theirs = Scope::new(root, other).in_project(project);
        let mut as_modes = true;
        java_syntax::walk(root, |n| {
            if n.kind() != "identifier" || text(n, other) != name {
                return;
            }
            as_modes &= n.parent().is_some_and(|read| {
                read.kind() == "field_access"
                    && read
                        .child_by_field_name("field")
                        .is_some_and(|f| f.id() == n.id())
                    && read
                        .child_by_field_name("object")
                        .is_some_and(|o| theirs.denotes(o, &owner))
                    && rounding_argument(read, &theirs, other)
            });
        });
        as_modes
    })
}

/// Whether `callee` is a package-private method or constructor of a class that only this
/// file names (`only_here`), with no member of its name in another class of the file (an
/// override would keep the `int`).
fn package_only(callee: Node, root: Node, src: &str, only_here: &dyn Fn(&str) -> bool) -> bool {
    let visible = java_syntax::modifiers_of(callee).is_some_and(|m| {
        text(m, src)
            .split_whitespace()
            .any(|w| matches!(w, "public" | "protected" | "private"))
    });
    let Some(body) = callee.parent().filter(|b| {
        b.kind() == "class_body" && b.parent().is_some_and(|c| c.kind() == "class_declaration")
    }) else {
        return false;
    };
    let name = field_text(callee, "name", src);
    let mut elsewhere = false;
    java_syntax::walk(root, |n| {
        if matches!(n.kind(), "method_declaration" | "constructor_declaration")
            && field_text(n, "name", src) == name
            && n.parent().is_some_and(|p| p.id() != body.id())
        {
            elsewhere = true;
        }
    });
    !visible && !elsewhere && only_here(name)
}

/// The argument at `at` of every call of `callee` (taking `arity` arguments) in the file,
/// where those calls are all there is: no other method or constructor of that name and
/// arity in its class, and no method reference to it.
fn call_arguments<'t>(
    callee: Node<'t>,
    arity: usize,
    at: usize,
    root: Node<'t>,
    src: &str,
) -> Option<Vec<Node<'t>>> {
    let body = callee.parent().filter(|b| b.kind() == "class_body")?;
    let class = body.parent().filter(|c| c.kind() == "class_declaration")?;
    let constructor = callee.kind() == "constructor_declaration";
    let name = field_text(callee, "name", src);
    let arity_of = |d: Node| {
        d.child_by_field_name("parameters")
            .map_or(0, |p| p.named_child_count())
    };
    let mut c = body.walk();
    let same = body
        .named_children(&mut c)
        .filter(|d| d.kind() == callee.kind() && field_text(*d, "name", src) == name)
        .filter(|d| arity_of(*d) == arity)
        .count();
    if same != 1 {
        return None;
    }
    let class_name = field_text(class, "name", src);
    let mut args = Vec::new();
    let mut referenced = false;
    java_syntax::walk(root, |n| {
        let calls = match n.kind() {
            "object_creation_expression" => {
                constructor && field_text(n, "type", src).split('<').next() == Some(class_name)
            }
            "explicit_constructor_invocation" => {
                constructor
                    && n.child_by_field_name("constructor")
                        .is_some_and(|k| k.kind() == "this")
                    && java_syntax::enclosing_class_body(n).is_some_and(|b| b.id() == body.id())
            }
            "method_invocation" => {
                !constructor
                    && field_text(n, "name", src) == name
                    && n.child_by_field_name("object")
                        .is_none_or(|o| o.kind() == "this")
            }
            "method_reference" => {
                referenced |= !constructor && text(n, src).ends_with(&format!("::{name}"));
                false
            }
            _ => false,
        };
        if let Some(list) = n
            .child_by_field_name("arguments")
            .filter(|l| calls && l.named_child_count() == arity)
        {
            args.extend(list.named_child(at as u32));
        }
    });
    (!referenced).then_some(args)
}

/// The holders that stay holders when each is checked against the others: every value a
/// rounding constant or a holder's read, every read a rounding argument, `valueOf`'s argument
/// or a holder's value. Drops the failing ones until none fails.
fn settle<'t>(mut holders: Vec<Holder<'t>>, scope: &Scope, src: &str) -> Vec<Holder<'t>> {
    loop {
        let read_ids: BTreeSet<usize> = holders
            .iter()
            .flat_map(|h| h.reads.iter().map(|r| r.id()))
            .collect();
        let value_ids: BTreeSet<usize> = holders
            .iter()
            .flat_map(|h| h.values.iter().map(|v| v.id()))
            .collect();
        let name_ids: BTreeSet<usize> = holders.iter().map(|h| h.name.id()).collect();
        let before = holders.len();
        holders.retain(|h| {
            h.values
                .iter()
                .all(|v| rounding_constants(*v, scope, src).is_some() || read_ids.contains(&v.id()))
                && h.reads.iter().all(|r| {
                    rounding_argument(*r, scope, src)
                    || value_of_argument(*r, scope, src).is_some()
                    || value_ids.contains(&r.id())
                    // A same-named holder's own declaration.
                    || name_ids.contains(&r.id())
                })
        });
        if holders.len() == before {
            return holders;
        }
    }
}

/// The `BigDecimal.ROUND_*` constants `value` is made of, with their modes: one constant,
/// or a conditional (in parentheses or not) choosing between such values.
fn rounding_constants<'t, 's>(
    value: Node<'t>,
    scope: &Scope,
    src: &'s str,
) -> Option<Vec<(Node<'t>, &'s str)>> {
    match value.kind() {
        "parenthesized_expression" => rounding_constants(value.named_child(0)?, scope, src),
        "ternary_expression" => {
            let mut both =
                rounding_constants(value.child_by_field_name("consequence")?, scope, src)?;
            both.extend(rounding_constants(
                value.child_by_field_name("alternative")?,
                scope,
                src,
            )?);
            Some(both)
        }
        _ => Some(vec![(value, rounding_constant(value, scope, src)?)]),
    }
}

/// `HALF_UP` for `BigDecimal.ROUND_HALF_UP` (its owner resolved to java.math.BigDecimal) or
/// for `ROUND_HALF_UP` statically imported from it.
fn rounding_constant<'s>(value: Node, scope: &Scope, src: &'s str) -> Option<&'s str> {
    let mode = match value.kind() {
        "field_access" => {
            let object = value.child_by_field_name("object")?;
            scope
                .denotes(object, BIG_DECIMAL)
                .then(|| field_text(value, "field", src))?
        }
        // Not where a variable of that name is in scope.
        "identifier" => {
            let name = text(value, src);
            (scope.static_field_of(name, BIG_DECIMAL)
                && java_syntax::declared_type(value, src).is_none())
            .then_some(name)?
        }
        _ => return None,
    };
    let mode = mode.strip_prefix("ROUND_")?;
    MODES.contains(&mode).then_some(mode)
}

/// The value `target = value` stores, where `target` is the left side of a plain `=`.
fn assigned_value<'t>(target: Node<'t>, src: &str) -> Option<Node<'t>> {
    let assignment = target
        .parent()
        .filter(|p| p.kind() == "assignment_expression")?;
    (assignment.child_by_field_name("left")?.id() == target.id()
        && field_text(assignment, "operator", src) == "=")
        .then(|| assignment.child_by_field_name("right"))?
}

/// `this.name` where `name` is read that way, else `name`.
fn this_qualified<'t>(name: Node<'t>, src: &str) -> Node<'t> {
    name.parent()
        .filter(|p| {
            p.kind() == "field_access"
                && p.child_by_field_name("field")
                    .is_some_and(|f| f.id() == name.id())
                && p.child_by_field_name("object")
                    .is_some_and(|o| text(o, src) == "this")
        })
        .unwrap_or(name)
}

/// The call `RoundingMode.valueOf(read)` whose only argument `read` is.
fn value_of_argument<'t>(read: Node<'t>, scope: &Scope, src: &str) -> Option<Node<'t>> {
    let args = read
        .parent()
        .filter(|p| p.kind() == "argument_list" && p.named_child_count() == 1)?;
    let call = args.parent().filter(|c| c.kind() == "method_invocation")?;
    (field_text(call, "name", src) == "valueOf"
        && call
            .child_by_field_name("object")
            .is_some_and(|o| scope.denotes(o, "java.math.RoundingMode")))
    .then_some(call)
}

/// Whether `ident` is the last argument, the rounding mode, of `setScale(int, int)`,
/// `divide(BigDecimal, int)` or `divide(BigDecimal, int, int)` on a `BigDecimal`.
fn rounding_argument(ident: Node, scope: &Scope, src: &str) -> bool {
    let Some(args) = ident.parent().filter(|p| p.kind() == "argument_list") else {
        return false;
    };
    let Some(call) = args.parent().filter(|c| c.kind() == "method_invocation") else {
        return false;
    };
    let n = args.named_child_count();
    let last = args
        .named_child(n.saturating_sub(1) as u32)
        .is_some_and(|l| l.id() == ident.id());
    let shape = match field_text(call, "name", src) {
        "setScale" => n == 2,
        "divide" => n == 2 || n == 3,
        _ => false,
    };
    last && shape
        && call
            .child_by_field_name("object")
            .is_some_and(|o| scope.denotes(o, BIG_DECIMAL))
}
