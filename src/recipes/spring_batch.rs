//! Spring Batch 5 (Boot 3) in code, the code half of recipe `spring-batch-5`:
//!
//! * `JobBuilderFactory`/`StepBuilderFactory` fields (removed) become the `JobRepository`
//!   and `PlatformTransactionManager` they wrapped: `jobs.get("job")` ->
//!   `new JobBuilder("job", jobRepository)`, `steps.get("step")` ->
//!   `new StepBuilder("step", jobRepository)`, and the step's `chunk(n)` / `tasklet(t)` take
//!   the transaction manager. Fields keep their annotations, so injection stays as it was;
//!   a factory parameter (a `@Bean` method's, or the constructor's that fills the field)
//!   becomes the same beans. A factory used any other way (passed on, kept in a lambda's
//!   parameter) is left for the detector.
//! * `ItemWriter.write(List<? extends T> items)` becomes `write(Chunk<? extends T> chunk)`
//!   whose first statement restores `items` from `chunk.getItems()`, so the body is untouched;
//!   `ItemWriteListener`'s `beforeWrite`/`afterWrite`/`onWriteError` lists likewise.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use crate::edit::{Edit, indent_at, line_ending, whole_line};
use crate::java_syntax::{self, field_text, text};

const FACTORY_PACKAGE: &str = "org.springframework.batch.core.configuration.annotation";
const JOB_REPOSITORY: &str = "jobRepository";
const TRANSACTION_MANAGER: &str = "transactionManager";

pub fn rewrite(src: &str) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_clean(src) else {
        return result;
    };
    let root = parsed.tree.root_node();
    let mut edits = Vec::new();
    let mut imports: BTreeSet<&str> = BTreeSet::new();
    let mut dropped: Vec<&str> = Vec::new();
    match factories(root, src) {
        Ok(Some((mut e, needed))) => {
            edits.append(&mut e);
            imports.extend(needed);
            dropped.extend(["JobBuilderFactory", "StepBuilderFactory"]);
            result
                .changes
                .push("JobBuilderFactory/StepBuilderFactory -> JobBuilder/StepBuilder".into());
        }
        Ok(None) => {}
        Err(why) => result
            .findings
            .push(format!("Spring Batch builder factories kept: {why}")),
    }
    let writers = item_writers(root, src);
    if !writers.is_empty() {
        edits.extend(writers);
        imports.insert("org.springframework.batch.item.Chunk");
        result
            .changes
            .push("ItemWriter.write(List) / ItemWriteListener(List) -> Chunk".into());
    }
    if edits.is_empty() {
        return result;
    }
    // The factories' imports go with them (an unused JobBuilder import would be harmless,
    // an import of a removed class is not).
    for imp in java_syntax::imports(root, src) {
        if dropped
            .iter()
            .any(|d| imp.path == format!("{FACTORY_PACKAGE}.{d}"))
        {
            edits.push(Edit::replace(whole_line(src, imp.range.clone()), ""));
        }
    }
    apply_code_edits(src, &edits, &imports, "Spring Batch", &mut result);
    result
}

/// Whether the file's `Name` is Spring Batch's (single-type or on-demand import).
fn imports_batch_type(root: Node, src: &str, name: &str) -> bool {
    java_syntax::imports(root, src).iter().any(|i| {
        !i.is_static
            && ((i.wildcard && i.path == FACTORY_PACKAGE)
                || i.path == format!("{FACTORY_PACKAGE}.{name}"))
    })
}

/// The two removed factories and the builder each `get(name)` becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Factory {
    Job,
    Step,
}

impl Factory {
    fn of(ty: &str) -> Option<Self> {
        match ty {
            "JobBuilderFactory" => Some(Factory::Job),
            "StepBuilderFactory" => Some(Factory::Step),
            _ => None,
        }
    }

    fn builder(self) -> &'static str {
        match self {
            Factory::Job => "JobBuilder",
            Factory::Step => "StepBuilder",
        }
    }
}

/// A field of one factory type: its declaration and its name.
struct FactoryField<'t> {
    decl: Node<'t>,
    ty: Node<'t>,
    name: &'t str,
}

/// A parameter of one factory type, of a method or constructor (a `@Bean` method's
/// injection point, or the constructor that fills a factory field).
struct FactoryParam<'t> {
    param: Node<'t>,
    ty: Node<'t>,
    kind: Factory,
    method: Node<'t>,
}

/// The edits replacing the factory fields and their uses, and the imports they need.
type Replaced = (Vec<Edit>, Vec<&'static str>);

fn factories(root: Node, src: &str) -> Result<Option<Replaced>, String> {
    let mut job = None;
    let mut step = None;
    let mut params: Vec<FactoryParam> = Vec::new();
    let mut declared = BTreeSet::new();
    let mut repeated = false;
    let mut lambda = false;
    java_syntax::walk(root, |n| {
        if n.kind() == "formal_parameter" {
            let Some((ty, kind)) = n
                .child_by_field_name("type")
                .and_then(|t| Factory::of(text(t, src)).map(|k| (t, k)))
            else {
                return;
            };
            match n.parent().and_then(|p| p.parent()) {
                Some(m) if matches!(m.kind(), "method_declaration" | "constructor_declaration") => {
                    params.push(FactoryParam {
                        param: n,
                        ty,
                        kind,
                        method: m,
                    })
                }
                _ => lambda = true,
            }
            return;
        }
        if n.kind() != "field_declaration" {
            return;
        }
        let Some(ty) = n.child_by_field_name("type") else {
            return;
        };
        let mut c = n.walk();
        let names: Vec<&str> = n
            .children_by_field_name("declarator", &mut c)
            .map(|d| field_text(d, "name", src))
            .collect();
        declared.extend(names.iter().copied());
        let slot = match Factory::of(text(ty, src)) {
            Some(Factory::Job) => &mut job,
            Some(Factory::Step) => &mut step,
            None => return,
        };
        match names.as_slice() {
            [name] if slot.is_none() => *slot = Some(FactoryField { decl: n, ty, name }),
            _ => repeated = true,
        }
    });
    let used = |kind: Factory| {
        params.iter().any(|p| p.kind == kind)
            || match kind {
                Factory::Job => job.is_some(),
                Factory::Step => step.is_some(),
            }
    };
    let (uses_job, uses_step) = (used(Factory::Job), used(Factory::Step));
    if !uses_job && !uses_step {
        return Ok(None);
    }
    for (in_use, ty) in [
        (uses_job, "JobBuilderFactory"),
        (uses_step, "StepBuilderFactory"),
    ] {
        if in_use && !imports_batch_type(root, src, ty) {
            return Ok(None);
        }
    }
    if repeated {
        return Err("several fields of one factory type".into());
    }
    if lambda {
        return Err("a factory is a lambda's parameter".into());
    }
    if declared.contains(JOB_REPOSITORY) || declared.contains(TRANSACTION_MANAGER) {
        return Err(format!(
            "a field named {JOB_REPOSITORY} or {TRANSACTION_MANAGER} already exists"
        ));
    }
    let mut edits = Vec::new();
    let mut needed = vec!["org.springframework.batch.core.repository.JobRepository"];
    if uses_job {
        needed.push("org.springframework.batch.core.job.builder.JobBuilder");
    }
    if uses_step {
        needed.push("org.springframework.batch.core.step.builder.StepBuilder");
        needed.push("org.springframework.transaction.PlatformTransactionManager");
    }
    // The fields: JobBuilderFactory -> JobRepository; StepBuilderFactory ->
    // PlatformTransactionManager (and a JobRepository beside it when there was no job
    // factory), each keeping its modifiers and annotations.
    if let Some(f) = &job {
        edits.push(Edit::replace(
            f.ty.start_byte()..f.decl.end_byte(),
            format!("JobRepository {JOB_REPOSITORY};"),
        ));
    }
    if let Some(f) = &step {
        let mut text_of = format!("PlatformTransactionManager {TRANSACTION_MANAGER};");
        if job.is_none() {
            let eol = line_ending(src);
            let indent = indent_at(src, f.decl.start_byte());
            let head = &src[f.decl.start_byte()..f.ty.start_byte()];
            text_of = format!("{text_of}{eol}{eol}{indent}{head}JobRepository {JOB_REPOSITORY};");
        }
        edits.push(Edit::replace(f.ty.start_byte()..f.decl.end_byte(), text_of));
    }
    edits.extend(parameter_edits(&params, src)?);
    // Every use of a factory variable must be `x.get(name)` (or `this.x.get(name)`), or a
    // constructor's `this.field = parameter;` of the same factory.
    let field_kind = |name: &str| {
        [(&job, Factory::Job), (&step, Factory::Step)]
            .into_iter()
            .find_map(|(f, k)| f.as_ref().filter(|f| f.name == name).map(|_| k))
    };
    let mut problem = None;
    java_syntax::walk(root, |n| {
        if n.kind() != "identifier" || problem.is_some() {
            return;
        }
        let parent = n.parent();
        if parent.is_some_and(|p| {
            matches!(p.kind(), "variable_declarator" | "formal_parameter")
                && p.child_by_field_name("name")
                    .is_some_and(|x| x.id() == n.id())
        }) {
            return;
        }
        let this_field = parent
            .filter(|p| p.kind() == "field_access" && text(*p, src).starts_with("this."))
            .filter(|p| {
                p.child_by_field_name("field")
                    .is_some_and(|f| f.id() == n.id())
            });
        let (receiver, kind) = match this_field {
            Some(p) => (p, field_kind(text(n, src))),
            None => (
                n,
                java_syntax::declared_type(n, src).and_then(|t| Factory::of(&t)),
            ),
        };
        let Some(kind) = kind else {
            return;
        };
        let Some(user) = receiver.parent() else {
            return;
        };
        let is_get = user.kind() == "method_invocation"
            && user
                .child_by_field_name("object")
                .is_some_and(|o| o.id() == receiver.id())
            && field_text(user, "name", src) == "get";
        if is_get {
            let args = user
                .child_by_field_name("arguments")
                .map_or("()", |a| text(a, src));
            let inner = &args[1..args.len() - 1];
            edits.push(Edit::replace(
                user.byte_range(),
                format!("new {}({inner}, {JOB_REPOSITORY})", kind.builder()),
            ));
            if kind == Factory::Step {
                edits.extend(transaction_manager_arguments(user, src));
            }
            return;
        }
        match field_assignment(user, src, &field_kind) {
            Some(k) if k == kind => {
                // Edited once, from the field's side.
                if this_field.is_some() {
                    edits.push(assignment_edit(user, kind, job.is_some(), src));
                }
            }
            _ => problem = Some(format!("{} is used other than by get(name)", text(n, src))),
        }
    });
    if let Some(p) = problem {
        return Err(p);
    }
    Ok(Some((edits, needed)))
}

/// Each method's factory parameters become what they wrapped: a `JobBuilderFactory` the
/// `JobRepository`, a `StepBuilderFactory` the `PlatformTransactionManager` (with the
/// `JobRepository` its builder needs unless a job factory parameter brings it). Boot 3
/// defines both beans, so a `@Bean` method or constructor is injected as before.
fn parameter_edits(params: &[FactoryParam], src: &str) -> Result<Vec<Edit>, String> {
    let mut edits = Vec::new();
    for p in params {
        let siblings: Vec<&FactoryParam> = params
            .iter()
            .filter(|q| q.method.id() == p.method.id())
            .collect();
        if siblings.iter().filter(|q| q.kind == p.kind).count() > 1 {
            return Err("several parameters of one factory type".into());
        }
        let mut clash = false;
        java_syntax::walk(p.method, |n| {
            clash |= n.kind() == "identifier"
                && matches!(text(n, src), JOB_REPOSITORY | TRANSACTION_MANAGER);
        });
        if clash {
            return Err(format!(
                "a variable named {JOB_REPOSITORY} or {TRANSACTION_MANAGER} already exists"
            ));
        }
        let with_job = siblings.iter().any(|q| q.kind == Factory::Job);
        let replacement = match p.kind {
            Factory::Job => format!("JobRepository {JOB_REPOSITORY}"),
            Factory::Step if with_job => {
                format!("PlatformTransactionManager {TRANSACTION_MANAGER}")
            }
            Factory::Step => format!(
                "JobRepository {JOB_REPOSITORY}, PlatformTransactionManager {TRANSACTION_MANAGER}"
            ),
        };
        edits.push(Edit::replace(
            p.ty.start_byte()..p.param.end_byte(),
            replacement,
        ));
    }
    Ok(edits)
}

/// The factory of `this.field = parameter` when `node` is that assignment, its field a
/// factory field and its parameter a variable of the same factory type.
fn field_assignment(
    node: Node,
    src: &str,
    field_kind: &dyn Fn(&str) -> Option<Factory>,
) -> Option<Factory> {
    if node.kind() != "assignment_expression"
        || node
            .parent()
            .is_none_or(|p| p.kind() != "expression_statement")
    {
        return None;
    }
    let left = node.child_by_field_name("left")?;
    let right = node.child_by_field_name("right")?;
    let field = text(left, src).strip_prefix("this.")?;
    let kind = field_kind(field)?;
    let param = java_syntax::declared_type(right, src).and_then(|t| Factory::of(&t));
    (right.kind() == "identifier" && param == Some(kind)).then_some(kind)
}

/// `this.field = parameter` of a factory becomes the assignment of what replaced both
/// (a step factory's also assigns the `JobRepository` field added beside it, when there
/// was no job factory field).
fn assignment_edit(assignment: Node, kind: Factory, job_field: bool, src: &str) -> Edit {
    let text_of = match kind {
        Factory::Job => format!("this.{JOB_REPOSITORY} = {JOB_REPOSITORY}"),
        Factory::Step if job_field => format!("this.{TRANSACTION_MANAGER} = {TRANSACTION_MANAGER}"),
        Factory::Step => {
            let eol = line_ending(src);
            let indent = indent_at(src, assignment.start_byte());
            format!(
                "this.{TRANSACTION_MANAGER} = {TRANSACTION_MANAGER};{eol}{indent}this.{JOB_REPOSITORY} = {JOB_REPOSITORY}"
            )
        }
    };
    Edit::replace(assignment.byte_range(), text_of)
}

/// In the chain built on a step builder, `chunk(x)` and `tasklet(t)` gain the transaction
/// manager argument Spring Batch 5 requires.
fn transaction_manager_arguments(get: Node, src: &str) -> Vec<Edit> {
    let mut edits = Vec::new();
    let mut n = get;
    while let Some(p) = n.parent().filter(|p| {
        p.kind() == "method_invocation"
            && p.child_by_field_name("object")
                .is_some_and(|o| o.id() == n.id())
    }) {
        let name = field_text(p, "name", src);
        if let Some(args) = p.child_by_field_name("arguments")
            && matches!(name, "chunk" | "tasklet")
            && args.named_child_count() == 1
        {
            edits.push(Edit::insert(
                args.end_byte() - 1,
                format!(", {TRANSACTION_MANAGER}"),
            ));
        }
        n = p;
    }
    edits
}

/// The methods whose `List<? extends T>` parameter became `Chunk<? extends T>` in Batch 5:
/// interface (its import), method, parameter count and the list's position.
const CHUNK_METHODS: &[(&str, &str, usize, usize)] = &[
    ("org.springframework.batch.item.ItemWriter", "write", 1, 0),
    (
        "org.springframework.batch.core.ItemWriteListener",
        "beforeWrite",
        1,
        0,
    ),
    (
        "org.springframework.batch.core.ItemWriteListener",
        "afterWrite",
        1,
        0,
    ),
    (
        "org.springframework.batch.core.ItemWriteListener",
        "onWriteError",
        2,
        1,
    ),
];

/// `write(List<? extends T> items)` of an `ItemWriter` implementation, and the
/// `ItemWriteListener` methods taking the written list.
fn item_writers(root: Node, src: &str) -> Vec<Edit> {
    let imports = java_syntax::imports(root, src);
    let imported = |fqn: &str| {
        let (package, _) = fqn.rsplit_once('.').unwrap_or(("", fqn));
        imports
            .iter()
            .any(|i| !i.is_static && (i.path == fqn || (i.wildcard && i.path == package)))
    };
    let mut edits = Vec::new();
    for &(fqn, method, count, index) in CHUNK_METHODS {
        if !imported(fqn) {
            continue;
        }
        let simple = fqn.rsplit('.').next().unwrap_or(fqn);
        java_syntax::walk(root, |n| {
            if let Some(body) = implementation_body(n, simple, src) {
                edits.extend(chunk_parameters(body, method, count, index, src));
            }
        });
    }
    edits
}

/// The body of a class implementing `iface` (by its simple name), or of an anonymous one.
fn implementation_body<'t>(n: Node<'t>, iface: &str, src: &str) -> Option<Node<'t>> {
    let names_iface = |written: &str| {
        written
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == iface)
    };
    match n.kind() {
        "class_declaration" => n
            .child_by_field_name("interfaces")
            .filter(|i| names_iface(text(*i, src)))
            .and_then(|_| n.child_by_field_name("body")),
        "object_creation_expression" => {
            let ty = n.child_by_field_name("type")?;
            let written = text(ty, src);
            (written.split('<').next() == Some(iface)).then_some(())?;
            let mut c = n.walk();
            n.named_children(&mut c).find(|x| x.kind() == "class_body")
        }
        _ => None,
    }
}

/// In `body`, each `method` with `count` parameters whose one at `index` is a
/// `List<..>`: that parameter becomes a `Chunk<..>` and the body's first statement
/// restores the list from `getItems()`, so the rest is untouched.
fn chunk_parameters(body: Node, method: &str, count: usize, index: usize, src: &str) -> Vec<Edit> {
    let mut edits = Vec::new();
    let mut c = body.walk();
    for m in body.named_children(&mut c) {
        if m.kind() != "method_declaration" || field_text(m, "name", src) != method {
            continue;
        }
        let Some(params) = m.child_by_field_name("parameters") else {
            continue;
        };
        let mut pc = params.walk();
        let list: Vec<Node> = params.named_children(&mut pc).collect();
        if list.len() != count {
            continue;
        }
        let param = list[index];
        let (Some(ty), Some(name), Some(block)) = (
            param.child_by_field_name("type"),
            param.child_by_field_name("name"),
            m.child_by_field_name("body"),
        ) else {
            continue;
        };
        let written = text(ty, src);
        let Some(element) = written
            .strip_prefix("java.util.")
            .unwrap_or(written)
            .strip_prefix("List")
            .filter(|rest| rest.trim_start().starts_with('<'))
        else {
            continue;
        };
        let items = text(name, src);
        let chunk = if items == "chunk" { "items" } else { "chunk" };
        let taken = list.iter().any(|p| {
            p.child_by_field_name("name")
                .is_some_and(|n| text(n, src) == chunk)
        });
        if taken {
            continue;
        }
        edits.push(Edit::replace(ty.byte_range(), format!("Chunk{element}")));
        edits.push(Edit::replace(name.byte_range(), chunk));
        let eol = line_ending(src);
        let indent = format!("{}    ", indent_at(src, m.start_byte()));
        edits.push(Edit::insert(
            block.start_byte() + 1,
            format!("{eol}{indent}{written} {items} = {chunk}.getItems();"),
        ));
    }
    edits
}
