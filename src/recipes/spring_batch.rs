//! Spring Batch 5 (Boot 3) in code, the code half of recipe `spring-batch-5`:
//!
//! * `JobBuilderFactory`/`StepBuilderFactory` fields (removed) become the `JobRepository`
//!   and `PlatformTransactionManager` they wrapped: `jobs.get("job")` ->
//!   `new JobBuilder("job", jobRepository)`, `steps.get("step")` ->
//!   `new StepBuilder("step", jobRepository)`, and the step's `chunk(n)` / `tasklet(t)` take
//!   the transaction manager. Fields keep their annotations, so injection stays as it was.
//!   A factory used any other way (a constructor parameter, passed on) is left for the
//!   detector.
//! * `ItemWriter.write(List<? extends T> items)` becomes `write(Chunk<? extends T> chunk)`
//!   whose first statement restores `items` from `chunk.getItems()`, so the body is untouched.

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
            .push("ItemWriter.write(List) -> write(Chunk)".into());
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

/// A field of one factory type: its declaration and its name.
struct FactoryField<'t> {
    decl: Node<'t>,
    ty: Node<'t>,
    name: &'t str,
}

/// The edits replacing the factory fields and their uses, and the imports they need.
type Replaced = (Vec<Edit>, Vec<&'static str>);

fn factories(root: Node, src: &str) -> Result<Option<Replaced>, String> {
    let mut job = None;
    let mut step = None;
    let mut declared = BTreeSet::new();
    let mut repeated = false;
    java_syntax::walk(root, |n| {
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
        let slot = match text(ty, src) {
            "JobBuilderFactory" => &mut job,
            "StepBuilderFactory" => &mut step,
            _ => return,
        };
        match names.as_slice() {
            [name] if slot.is_none() => *slot = Some(FactoryField { decl: n, ty, name }),
            _ => repeated = true,
        }
    });
    if job.is_none() && step.is_none() {
        return Ok(None);
    }
    for (field, ty) in [(&job, "JobBuilderFactory"), (&step, "StepBuilderFactory")] {
        if field.is_some() && !imports_batch_type(root, src, ty) {
            return Ok(None);
        }
    }
    if repeated {
        return Err("several fields of one factory type".into());
    }
    if declared.contains(JOB_REPOSITORY) || declared.contains(TRANSACTION_MANAGER) {
        return Err(format!(
            "a field named {JOB_REPOSITORY} or {TRANSACTION_MANAGER} already exists"
        ));
    }
    let mut edits = Vec::new();
    let mut needed = vec!["org.springframework.batch.core.repository.JobRepository"];
    if job.is_some() {
        needed.push("org.springframework.batch.core.job.builder.JobBuilder");
    }
    if step.is_some() {
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
    // Every use of a factory field must be `field.get(name)` (or `this.field.get(name)`).
    let fields: Vec<(&str, &str)> = [(&job, "JobBuilder"), (&step, "StepBuilder")]
        .into_iter()
        .filter_map(|(f, builder)| f.as_ref().map(|f| (f.name, builder)))
        .collect();
    let mut problem = None;
    java_syntax::walk(root, |n| {
        if n.kind() != "identifier" || problem.is_some() {
            return;
        }
        let Some(&(_, builder)) = fields.iter().find(|(name, _)| *name == text(n, src)) else {
            return;
        };
        let parent = n.parent();
        if parent.is_some_and(|p| p.kind() == "variable_declarator") {
            return;
        }
        let receiver = match parent {
            Some(p) if p.kind() == "field_access" && text(p, src).starts_with("this.") => p,
            _ => n,
        };
        let call = receiver.parent().filter(|c| {
            c.kind() == "method_invocation"
                && c.child_by_field_name("object")
                    .is_some_and(|o| o.id() == receiver.id())
                && field_text(*c, "name", src) == "get"
        });
        let Some(call) = call else {
            problem = Some(format!("{} is used other than by get(name)", text(n, src)));
            return;
        };
        let args = call
            .child_by_field_name("arguments")
            .map_or("()", |a| text(a, src));
        let inner = &args[1..args.len() - 1];
        edits.push(Edit::replace(
            call.byte_range(),
            format!("new {builder}({inner}, {JOB_REPOSITORY})"),
        ));
        if builder == "StepBuilder" {
            edits.extend(transaction_manager_arguments(call, src));
        }
    });
    if let Some(p) = problem {
        return Err(p);
    }
    Ok(Some((edits, needed)))
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

/// `write(List<? extends T> items)` of an `ItemWriter` implementation.
fn item_writers(root: Node, src: &str) -> Vec<Edit> {
    let imports_writer = java_syntax::imports(root, src).iter().any(|i| {
        i.path == "org.springframework.batch.item.ItemWriter"
            || (i.wildcard && i.path == "org.springframework.batch.item")
    });
    if !imports_writer {
        return Vec::new();
    }
    let mut edits = Vec::new();
    java_syntax::walk(root, |n| {
        // A class implementing ItemWriter, or an anonymous one.
        let writer = match n.kind() {
            "class_declaration" => n
                .child_by_field_name("interfaces")
                .is_some_and(|i| text(i, src).contains("ItemWriter")),
            "object_creation_expression" => n
                .child_by_field_name("type")
                .is_some_and(|t| text(t, src).starts_with("ItemWriter")),
            _ => false,
        };
        let body = match n.kind() {
            "class_declaration" => n.child_by_field_name("body"),
            _ => {
                let mut c = n.walk();
                n.named_children(&mut c).find(|x| x.kind() == "class_body")
            }
        };
        let Some(body) = body.filter(|_| writer) else {
            return;
        };
        let mut c = body.walk();
        for m in body.named_children(&mut c) {
            if m.kind() != "method_declaration" || field_text(m, "name", src) != "write" {
                continue;
            }
            let Some(params) = m.child_by_field_name("parameters") else {
                continue;
            };
            let mut pc = params.walk();
            let list: Vec<Node> = params.named_children(&mut pc).collect();
            let [param] = list.as_slice() else {
                continue;
            };
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
            edits.push(Edit::replace(ty.byte_range(), format!("Chunk{element}")));
            edits.push(Edit::replace(name.byte_range(), chunk));
            let eol = line_ending(src);
            let indent = format!("{}    ", indent_at(src, m.start_byte()));
            edits.push(Edit::insert(
                block.start_byte() + 1,
                format!("{eol}{indent}{written} {items} = {chunk}.getItems();"),
            ));
        }
    });
    edits
}
