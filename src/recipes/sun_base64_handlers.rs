//! `new BASE64Decoder().decodeBuffer(x)` (sun.misc, removed in 9) as the only statement of a
//! `try` whose one handler is `catch (IOException e)`. `Base64.getMimeDecoder().decode(x)`
//! throws no checked exception, so that handler would no longer compile; it reported
//! malformed input (`CEFormatException` is an `IOException`), which the MIME decoder reports
//! with `IllegalArgumentException`. The handler is narrowed to that exception, keeping the
//! failure handled the same way:
//!
//! ```java
//! try { return new BASE64Decoder().decodeBuffer(s); } catch (IOException e) { return null; }
//! try { return Base64.getMimeDecoder().decode(s); } catch (IllegalArgumentException e) { return null; }
//! ```
//!
//! Only where nothing else in the `try` throws `IOException` or `IllegalArgumentException`
//! (every other call is a String method known not to), and the handler uses its exception
//! in ways any exception allows: not at all,
//! `e.getMessage()` and the like, as the cause of a new `RuntimeException`,
//! `IllegalStateException` or `IllegalArgumentException`, or as the last argument of a
//! `log`/`logger` call. Where the `try` also looks up a charset by a literal name
//! (`new String(b, "UTF-8")`, `s.getBytes("UTF-8")`, which throw only the
//! `UnsupportedEncodingException` the handler still needs), it becomes
//! `catch (IOException | IllegalArgumentException e)`. Anything else stays a task with its
//! line (the rule's detector).
//!
//! A coder held in a variable (a field or a local) moves as a whole, or not at all:
//!
//! ```java
//! private final BASE64Encoder enc = new BASE64Encoder();  ... enc.encode(bytes)
//! private final Base64.Encoder enc = Base64.getMimeEncoder(76, System.lineSeparator().getBytes()); ... enc.encodeToString(bytes)
//! ```
//!
//! when the variable is initialised with `new BASE64Encoder()` (`BASE64Decoder`), its name
//! is declared nowhere else in the file, and every use is a call of `encode(x)`
//! (`decodeBuffer(x)`) on it. A decoder's calls must also compile without `IOException`:
//! outside any `try` (a `throws` clause stays valid), in a `try` that also catches
//! `Exception` or `Throwable`, or as above, narrowing the handler.
//!
//! The code half of `base64-from-sun-misc`.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::{Project, Scope, mentions, visit_calls};
use super::reflective_new_instance::{catches, nearest_try};
use crate::edit::{Edit, whole_line};
use crate::java_syntax::{self, Import, field_text, text};

const DECODER: &str = "sun.misc.BASE64Decoder";
const ENCODER: &str = "sun.misc.BASE64Encoder";

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    decode_buffer_in_try(src, project).then(src, |text| holders(text, project))
}

fn decode_buffer_in_try(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    let mut edits = Vec::new();
    let mut rewritten = 0;
    let imports = visit_calls(src, project, "decodeBuffer", |n, scope| {
        let Some(argument) = decode_buffer_argument(n, scope) else {
            return;
        };
        let Some((catch_type, handled)) =
            nearest_try(n).and_then(|t| narrowable_handler(t, src, scope, 2))
        else {
            return;
        };
        edits.push(Edit::replace(
            n.byte_range(),
            format!("Base64.getMimeDecoder().decode({})", text(argument, src)),
        ));
        edits.push(Edit::replace(catch_type.byte_range(), handled));
        rewritten += 1;
        let line = n.start_position().row + 1;
        result.changes.push(format!(
            "line {line}: BASE64Decoder.decodeBuffer -> Base64.getMimeDecoder().decode, catch (IOException) -> catch ({handled})"
        ));
    });
    if edits.is_empty() {
        return result;
    }
    // The import goes with the last use (the rules' import handling sees only their own fixes).
    edits.extend(orphaned_import(
        src,
        imports.iter().flatten(),
        DECODER,
        rewritten,
    ));
    apply_code_edits(
        src,
        &edits,
        &BTreeSet::from(["java.util.Base64"]),
        "BASE64Decoder handlers",
        &mut result,
    );
    result
}

/// The argument `x` of a call `new BASE64Decoder().decodeBuffer(x)` with `x` a name, field,
/// literal or call.
fn decode_buffer_argument<'t>(n: Node<'t>, scope: &Scope) -> Option<Node<'t>> {
    let object = n.child_by_field_name("object")?;
    if object.kind() != "object_creation_expression"
        || object
            .child_by_field_name("arguments")
            .is_none_or(|a| a.named_child_count() > 0)
        || !scope.denotes(object, DECODER)
    {
        return None;
    }
    let args = n.child_by_field_name("arguments")?;
    if args.named_child_count() != 1 {
        return None;
    }
    let arg = args.named_child(0)?;
    // A call in the argument is judged with the rest of the `try` (narrowable_handler).
    matches!(
        arg.kind(),
        "identifier" | "string_literal" | "field_access" | "method_invocation"
    )
    .then_some(arg)
}

/// The `IOException` catch type of a `try` whose one handler is `catch (IOException e)` using
/// `e` safely, and what it becomes once the decoder's `calls` calls and creations no longer
/// throw `IOException`. Every other call in the `try` must be one [`quiet`] knows throws
/// neither that nor `IllegalArgumentException`, or a charset lookup by literal name, which
/// throws only `UnsupportedEncodingException` (an `IOException`). Without such a lookup the
/// handler is narrowed to `IllegalArgumentException` (what the decoder now throws for
/// malformed input); with one it is still needed, and takes `IllegalArgumentException` too.
fn narrowable_handler<'t>(
    try_node: Node<'t>,
    src: &'t str,
    scope: &Scope,
    calls: usize,
) -> Option<(Node<'t>, &'static str)> {
    if try_node.kind() != "try_statement" {
        return None;
    }
    let body = try_node.child_by_field_name("body")?;
    let (mut made, mut charset_lookups) = (0, 0);
    java_syntax::walk(body, |x| {
        if matches!(
            x.kind(),
            "method_invocation" | "object_creation_expression" | "lambda_expression"
        ) {
            match quiet(x, src, scope) {
                Some(true) => charset_lookups += 1,
                Some(false) => {}
                None => made += 1,
            }
        }
    });
    if made != calls {
        return None;
    }
    let clauses = catches(try_node, src);
    let [only] = clauses.as_slice() else {
        return None;
    };
    if !matches!(
        only.types.as_slice(),
        ["IOException" | "java.io.IOException"]
    ) {
        return None;
    }
    let handler = only.clause.child_by_field_name("body")?;
    let mut safe = true;
    java_syntax::walk(handler, |x| {
        if x.kind() == "identifier" && text(x, src) == only.parameter && !safe_use(x, src) {
            safe = false;
        }
    });
    let catch_type = if charset_lookups > 0 {
        "IOException | IllegalArgumentException"
    } else {
        "IllegalArgumentException"
    };
    safe.then_some((only.type_list, catch_type))
}

/// String methods that throw neither `IOException` nor `IllegalArgumentException` (nor a
/// subclass: `split`, `matches` and `format` are not here, a bad pattern is one).
const QUIET_METHODS: &[&str] = &[
    "substring",
    "trim",
    "concat",
    "toString",
    "toLowerCase",
    "toUpperCase",
    "indexOf",
    "lastIndexOf",
    "length",
    "charAt",
    "startsWith",
    "endsWith",
    "equals",
    "equalsIgnoreCase",
    "isEmpty",
    "contains",
    "toCharArray",
    "hashCode",
];

/// Whether a call or creation is known to throw neither `IOException` nor
/// `IllegalArgumentException` (`Some(false)`: those String methods, `new String(b)`,
/// `new String(b, StandardCharsets.UTF_8)`), only `UnsupportedEncodingException`
/// (`Some(true)`: `new String(b, "UTF-8")`, `s.getBytes("UTF-8")`, a legal literal charset
/// name), or is unknown (`None`).
fn quiet(call: Node, src: &str, scope: &Scope) -> Option<bool> {
    let args = call.child_by_field_name("arguments")?;
    let literal_charset = |n: Option<Node>| {
        n.is_some_and(|a| {
            let t = text(a, src);
            a.kind() == "string_literal"
                && t.len() > 2
                && t[1..t.len() - 1]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._:-".contains(c))
        })
    };
    let last = (args.named_child_count().checked_sub(1))
        .and_then(|i| u32::try_from(i).ok())
        .and_then(|i| args.named_child(i));
    match call.kind() {
        "method_invocation" => {
            let name = field_text(call, "name", src);
            if !call
                .child_by_field_name("object")
                .is_some_and(|o| scope.denotes(o, "java.lang.String"))
            {
                None
            } else if name == "getBytes" && args.named_child_count() == 1 && literal_charset(last) {
                Some(true)
            } else {
                QUIET_METHODS.contains(&name).then_some(false)
            }
        }
        "object_creation_expression" if field_text(call, "type", src) == "String" => {
            let standard = last.is_some_and(|a| text(a, src).starts_with("StandardCharsets."));
            match args.named_child_count() {
                2 | 4 if literal_charset(last) => Some(true),
                2 if standard => Some(false),
                // String(byte[]) / String(char[]) with the default charset throw nothing.
                1 => Some(false),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A use of the caught exception that compiles for any exception type.
fn safe_use(id: Node, src: &str) -> bool {
    let Some(parent) = id.parent() else {
        return false;
    };
    match parent.kind() {
        // e.getMessage(), e.printStackTrace() ...
        "method_invocation"
            if parent
                .child_by_field_name("object")
                .is_some_and(|o| o.id() == id.id()) =>
        {
            matches!(
                field_text(parent, "name", src),
                "getMessage" | "getLocalizedMessage" | "printStackTrace" | "toString" | "getCause"
            )
        }
        "argument_list" => {
            let Some(call) = parent.parent() else {
                return false;
            };
            match call.kind() {
                "object_creation_expression" => matches!(
                    field_text(call, "type", src).trim_start_matches("java.lang."),
                    "RuntimeException" | "IllegalStateException" | "IllegalArgumentException"
                ),
                "method_invocation" => {
                    let last = parent
                        .named_child(parent.named_child_count().saturating_sub(1) as u32)
                        .is_some_and(|l| l.id() == id.id());
                    let logger = call.child_by_field_name("object").is_some_and(|o| {
                        let o = text(o, src).to_ascii_lowercase();
                        o == "log" || o == "logger"
                    });
                    last && logger
                        && matches!(
                            field_text(call, "name", src),
                            "trace"
                                | "debug"
                                | "info"
                                | "warn"
                                | "error"
                                | "fatal"
                                | "log"
                                | "severe"
                                | "warning"
                        )
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// A `sun.misc` coder class, its `java.util.Base64` successor and the one call moved with it.
struct Coder {
    fqn: &'static str,
    simple: &'static str,
    new_type: &'static str,
    factory: &'static str,
    call: &'static str,
    new_call: &'static str,
}

const CODERS: [Coder; 2] = [
    Coder {
        fqn: ENCODER,
        simple: "BASE64Encoder",
        new_type: "Base64.Encoder",
        factory: "Base64.getMimeEncoder(76, System.lineSeparator().getBytes())",
        call: "encode",
        new_call: "encodeToString",
    },
    Coder {
        fqn: DECODER,
        simple: "BASE64Decoder",
        new_type: "Base64.Decoder",
        factory: "Base64.getMimeDecoder()",
        call: "decodeBuffer",
        new_call: "decode",
    },
];

const STREAMS: [&str; 5] = [
    "java.nio.ByteBuffer",
    "java.io.InputStream",
    "java.io.ByteArrayInputStream",
    "java.io.FileInputStream",
    "java.io.BufferedInputStream",
];

/// Coders held in variables (see the module doc).
fn holders(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_naming(src, "BASE64") else {
        return result;
    };
    let root = parsed.tree.root_node();
    let scope = Scope::new(root, src).in_project(project);
    if scope.import_would_clash("java.util.Base64") {
        return result;
    }
    let imports = java_syntax::imports(root, src);
    let mut edits = Vec::new();
    let mut moved = [0usize; 2];
    java_syntax::walk(root, |decl| {
        if !matches!(
            decl.kind(),
            "field_declaration" | "local_variable_declaration"
        ) {
            return;
        }
        let Some(ty) = decl.child_by_field_name("type") else {
            return;
        };
        let Some(i) = CODERS.iter().position(|c| scope.denotes(ty, c.fqn)) else {
            return;
        };
        if let Some(mut holder) = holder_edits(decl, ty, &CODERS[i], root, &scope, src) {
            let line = decl.start_position().row + 1;
            result.changes.push(format!(
                "line {line}: {} held in a variable -> {}",
                CODERS[i].simple, CODERS[i].new_type
            ));
            edits.append(&mut holder);
            moved[i] += 1;
        }
    });
    if edits.is_empty() {
        return result;
    }
    // Each moved holder took two mentions (its type and its creation); the import goes
    // when it was the only one left.
    for (coder, moved) in CODERS.iter().zip(moved) {
        edits.extend(orphaned_import(src, &imports, coder.fqn, 2 * moved));
    }
    apply_code_edits(
        src,
        &edits,
        &BTreeSet::from(["java.util.Base64"]),
        "BASE64 coder variables",
        &mut result,
    );
    result
}

/// The deletion of the single-type import of `fqn` when the `removed` mentions of its simple
/// name the edits take away are all the file has besides the import itself.
fn orphaned_import<'i>(
    src: &str,
    imports: impl IntoIterator<Item = &'i Import>,
    fqn: &str,
    removed: usize,
) -> Option<Edit> {
    let simple = fqn.rsplit('.').next().unwrap_or(fqn);
    imports
        .into_iter()
        .find(|i| !i.wildcard && !i.is_static && i.path == fqn)
        .filter(|_| src.matches(simple).count() == removed + 1)
        .map(|i| Edit::replace(whole_line(src, i.range.clone()), ""))
}

/// The edits that move one coder variable, when all its uses can move with it.
fn holder_edits(
    decl: Node,
    ty: Node,
    coder: &Coder,
    root: Node,
    scope: &Scope,
    src: &str,
) -> Option<Vec<Edit>> {
    let mut c = decl.walk();
    let declarators: Vec<Node> = decl.children_by_field_name("declarator", &mut c).collect();
    let [declarator] = declarators.as_slice() else {
        return None;
    };
    let name = declarator.child_by_field_name("name")?;
    let value = declarator.child_by_field_name("value")?;
    if value.kind() != "object_creation_expression"
        || value
            .child_by_field_name("arguments")
            .is_none_or(|a| a.named_child_count() > 0)
        || value.child_by_field_name("class_body").is_some()
        || !scope.denotes(value, coder.fqn)
        || !field_text(*declarator, "dimensions", src).is_empty()
    {
        return None;
    }
    let mut edits = vec![
        Edit::replace(ty.byte_range(), coder.new_type),
        Edit::replace(value.byte_range(), coder.factory),
    ];
    for x in mentions(root, name, src) {
        edits.extend(use_edits(x, coder, scope, src)?);
    }
    Some(edits)
}

/// For one mention of a coder variable: the edits moving the call it receives, when it is
/// `v.encode(x)` / `v.decodeBuffer(x)` (or `this.v...`) and still compiles moved.
fn use_edits(ident: Node, coder: &Coder, scope: &Scope, src: &str) -> Option<Vec<Edit>> {
    let mut receiver = ident;
    let parent = ident.parent()?;
    if parent.kind() == "field_access" {
        let object = parent.child_by_field_name("object")?;
        if object.kind() != "this"
            || parent
                .child_by_field_name("field")
                .is_none_or(|f| f.id() != ident.id())
        {
            return None;
        }
        receiver = parent;
    }
    let call = receiver.parent()?;
    if call.kind() != "method_invocation"
        || call
            .child_by_field_name("object")
            .is_none_or(|o| o.id() != receiver.id())
        || field_text(call, "name", src) != coder.call
        || call
            .child_by_field_name("arguments")
            .is_none_or(|a| a.named_child_count() != 1)
    {
        return None;
    }
    // The overloads taking a stream or a buffer have no like-named successor.
    let argument = call.child_by_field_name("arguments")?.named_child(0)?;
    if STREAMS.iter().any(|t| scope.denotes(argument, t)) {
        return None;
    }
    let method_name = call.child_by_field_name("name")?;
    let mut edits = vec![Edit::replace(method_name.byte_range(), coder.new_call)];
    if coder.fqn == DECODER {
        // decodeBuffer threw IOException; decode throws none.
        if let Some(t) = nearest_try(call) {
            let broad = catches(t, src).iter().any(|c| {
                c.types
                    .iter()
                    .any(|t| matches!(*t, "Exception" | "Throwable"))
            });
            if !broad {
                let (narrowed, handled) = narrowable_handler(t, src, scope, 1)?;
                edits.push(Edit::replace(narrowed.byte_range(), handled));
            }
        }
    }
    Some(edits)
}
