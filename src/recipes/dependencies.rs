//! Recipes `junit-jupiter-dependencies` and `removed-java-ee-apis`.

use std::collections::BTreeMap;

use roxmltree::Node;

use crate::analyze::java::{JunitGeneration, RemovedJavaEeModule};
use crate::analyze::pom::{child_text, dependency_nodes};
use crate::config::Coordinates;
use crate::recipes::overlay::Overlay;
use crate::recipes::pom_edit::{append_under, dependency_xml, insert_after, remove, set_text};

use super::PomContext;

/// How `junit:junit` is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JunitMode {
    /// Every JUnit 4 file was converted: junit:junit becomes junit-jupiter.
    Replace,
    /// Some JUnit 4/3 code remains: keep junit:junit and add Jupiter plus the vintage engine.
    Vintage,
}

fn is_dep(d: Node, group: &str, artifact: &str) -> bool {
    child_text(d, "groupId").as_deref() == Some(group)
        && child_text(d, "artifactId").as_deref() == Some(artifact)
}

/// `mode_of(i)`: how module `i`'s JUnit dependency moves (vintage where JUnit 3/4 code
/// still inherits it from that module).
pub fn junit(
    ctx: &PomContext,
    overlay: &mut Overlay,
    mode_of: impl Fn(usize) -> JunitMode,
) -> anyhow::Result<Vec<String>> {
    let fp = ctx.fingerprint;
    let jupiter = ctx.catalog.junit_jupiter.as_str();
    let needs_hamcrest = fp.java_files().any(|f| f.uses_hamcrest)
        && !fp.modules.iter().any(|m| {
            m.pom
                .dependencies
                .iter()
                .any(|d| d.group_id == "org.hamcrest")
        });
    let mut changes = Vec::new();
    for (i, module) in fp
        .modules
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.skipped && m.pom.has_dependency("junit", "junit"))
    {
        let mode = mode_of(i);
        let rel = module.pom.path.clone();
        overlay.edit_pom(&rel, |src, project| {
            let mut edits = Vec::new();
            for (d, _) in dependency_nodes(project)
                .into_iter()
                .filter(|(d, _)| is_dep(*d, "junit", "junit"))
            {
                let siblings: Vec<Node> = d
                    .parent()
                    .map(|p| p.children().filter(|c| c.is_element()).collect())
                    .unwrap_or_default();
                let has = |g: &str, a: &str| siblings.iter().any(|s| is_dep(*s, g, a));
                let version = crate::analyze::pom::child(d, "version").map(|_| jupiter);
                let scope = child_text(d, "scope");
                let mut extra = Vec::new();
                if mode == JunitMode::Replace {
                    // No JUnit 3/4 code is left to run: the vintage engine goes with it.
                    edits.extend(
                        siblings
                            .iter()
                            .filter(|s| is_dep(**s, "org.junit.vintage", "junit-vintage-engine"))
                            .map(|s| remove(src, *s)),
                    );
                }
                if mode == JunitMode::Replace && !has("org.junit.jupiter", "junit-jupiter") {
                    for (name, value) in [
                        ("groupId", "org.junit.jupiter"),
                        ("artifactId", "junit-jupiter"),
                    ] {
                        if let Some(n) = crate::analyze::pom::child(d, name) {
                            edits.push(set_text(src, n, value));
                        }
                    }
                    if let Some(v) = crate::analyze::pom::child(d, "version") {
                        edits.push(set_text(src, v, jupiter));
                    }
                } else if mode == JunitMode::Replace {
                    edits.push(remove(src, d));
                } else {
                    if !has("org.junit.jupiter", "junit-jupiter") {
                        extra.push(dependency_xml(
                            "org.junit.jupiter",
                            "junit-jupiter",
                            version,
                            scope.as_deref(),
                        ));
                    }
                    if !has("org.junit.vintage", "junit-vintage-engine") {
                        extra.push(dependency_xml(
                            "org.junit.vintage",
                            "junit-vintage-engine",
                            version,
                            scope.as_deref(),
                        ));
                    }
                }
                if mode == JunitMode::Replace && needs_hamcrest {
                    let hv = version.map(|_| ctx.catalog.hamcrest.as_str());
                    extra.push(dependency_xml(
                        "org.hamcrest",
                        "hamcrest",
                        hv,
                        scope.as_deref(),
                    ));
                }
                if !extra.is_empty() {
                    edits.push(insert_after(src, project, d, &extra.join("\n")));
                }
            }
            edits
        })?;
        changes.push(match mode {
            JunitMode::Replace => format!("{}: junit:junit -> org.junit.jupiter:junit-jupiter{}", rel.display(), if needs_hamcrest { " (+ org.hamcrest:hamcrest, which junit:junit used to bring)" } else { "" }),
            JunitMode::Vintage => format!("{}: added junit-jupiter and junit-vintage-engine beside junit:junit (JUnit 4 code remains)", rel.display()),
        });
    }
    for i in junit_from_outside(fp) {
        let mode = mode_of(i);
        let module = &fp.modules[i];
        let rel = module.pom.path.clone();
        let mut deps = vec![("org.junit.jupiter", "junit-jupiter")];
        if mode == JunitMode::Vintage {
            deps.push(("org.junit.vintage", "junit-vintage-engine"));
        }
        let snippet = deps
            .iter()
            .map(|(g, a)| dependency_xml(g, a, Some(jupiter), Some("test")))
            .collect::<Vec<_>>()
            .join("\n");
        overlay.edit_pom(&rel, |src, project| {
            vec![append_under(src, project, &["dependencies"], &snippet)]
        })?;
        changes.push(format!(
            "{}: added {} (junit:junit comes from outside the repository, e.g. its parent {})",
            rel.display(),
            deps.iter()
                .map(|(_, a)| *a)
                .collect::<Vec<_>>()
                .join(" and "),
            module
                .pom
                .parent
                .as_ref()
                .map_or("-".to_string(), |p| format!(
                    "{}:{}",
                    p.group_id, p.artifact_id
                ))
        ));
    }
    Ok(changes)
}

/// Modules with JUnit 3/4 tests although neither their pom nor an in-repository ancestor
/// uses `junit:junit`: JUnit reaches them from outside (a parent POM such as
/// `org.codehaus.plexus:plexus`, or a dependency), so Jupiter must be added to them.
fn junit_from_outside(fp: &crate::analyze::Fingerprint) -> Vec<usize> {
    let uses_junit = |i: usize| {
        fp.chain(i).into_iter().any(|m| {
            fp.modules[m]
                .pom
                .dependencies
                .iter()
                .any(|d| !d.managed && d.group_id == "junit" && d.artifact_id == "junit")
        })
    };
    fp.modules
        .iter()
        .enumerate()
        .filter(|(i, m)| {
            !m.skipped
                && m.java_files.iter().any(|f| {
                    f.is_test_source
                        && matches!(f.junit, JunitGeneration::Junit3 | JunitGeneration::Junit4)
                })
                && !uses_junit(*i)
                && !m.pom.has_dependency("org.junit.jupiter", "junit-jupiter")
        })
        .map(|(i, _)| i)
        .collect()
}

/// `MockitoExtension` lives in mockito-junit-jupiter: it goes beside every mockito-core
/// declaration (same version text and scope) unless spring-boot-starter-test brings it.
pub fn mockito_extension(ctx: &PomContext, overlay: &mut Overlay) -> anyhow::Result<Vec<String>> {
    let mut changes = Vec::new();
    for module in ctx.fingerprint.modules.iter().filter(|m| {
        !m.skipped
            && m.pom.has_dependency("org.mockito", "mockito-core")
            && !m
                .pom
                .has_dependency("org.springframework.boot", "spring-boot-starter-test")
    }) {
        let rel = module.pom.path.clone();
        overlay.edit_pom(&rel, |src, project| {
            let mut edits = Vec::new();
            for (d, _) in dependency_nodes(project)
                .into_iter()
                .filter(|(d, _)| is_dep(*d, "org.mockito", "mockito-core"))
            {
                let present = d.parent().is_some_and(|p| {
                    p.children()
                        .any(|s| is_dep(s, "org.mockito", "mockito-junit-jupiter"))
                });
                if present {
                    continue;
                }
                let version = child_text(d, "version");
                let scope = child_text(d, "scope");
                let xml = dependency_xml(
                    "org.mockito",
                    "mockito-junit-jupiter",
                    version.as_deref(),
                    scope.as_deref(),
                );
                edits.push(insert_after(src, project, d, &xml));
                changes.push(format!(
                    "{}: added org.mockito:mockito-junit-jupiter (MockitoExtension)",
                    rel.display()
                ));
            }
            edits
        })?;
    }
    Ok(changes)
}

/// Adds `org.junit.platform:junit-platform-suite` (the `@Suite` API and its engine) to the
/// given modules, where JUnit 3 suites became JUnit Platform suites.
pub fn platform_suite(
    ctx: &PomContext,
    overlay: &mut Overlay,
    modules: &[usize],
) -> anyhow::Result<Vec<String>> {
    let mut changes = Vec::new();
    for module in modules
        .iter()
        .filter_map(|i| ctx.fingerprint.modules.get(*i))
    {
        if module
            .pom
            .has_dependency("org.junit.platform", "junit-platform-suite")
        {
            continue;
        }
        let rel = module.pom.path.clone();
        let xml = dependency_xml(
            "org.junit.platform",
            "junit-platform-suite",
            Some(&ctx.catalog.junit_platform),
            Some("test"),
        );
        overlay.edit_pom(&rel, |src, project| {
            vec![append_under(src, project, &["dependencies"], &xml)]
        })?;
        changes.push(format!(
            "{}: added org.junit.platform:junit-platform-suite (JUnit 3 suites became @Suite)",
            rel.display()
        ));
    }
    Ok(changes)
}

/// Artifacts that already provide a removed module's API.
fn providers(module: RemovedJavaEeModule) -> &'static [(&'static str, &'static str)] {
    match module {
        RemovedJavaEeModule::Annotation => &[
            ("javax.annotation", "javax.annotation-api"),
            ("javax.annotation", "jsr250-api"),
            ("jakarta.annotation", "jakarta.annotation-api"),
        ],
        RemovedJavaEeModule::XmlBind => &[
            ("javax.xml.bind", "jaxb-api"),
            ("jakarta.xml.bind", "jakarta.xml.bind-api"),
        ],
        RemovedJavaEeModule::Activation => &[
            ("javax.activation", "activation"),
            ("javax.activation", "javax.activation-api"),
            ("jakarta.activation", "jakarta.activation-api"),
            ("com.sun.activation", "javax.activation"),
        ],
    }
}

fn catalog_entries(ctx: &PomContext, module: RemovedJavaEeModule) -> Vec<(&'static str, String)> {
    match module {
        RemovedJavaEeModule::Annotation => {
            vec![("compile", ctx.catalog.javax_annotation_api.clone())]
        }
        RemovedJavaEeModule::XmlBind => vec![
            ("compile", ctx.catalog.jaxb_api.clone()),
            ("runtime", ctx.catalog.jaxb_runtime.clone()),
        ],
        RemovedJavaEeModule::Activation => vec![("compile", ctx.catalog.activation_api.clone())],
    }
}

pub fn removed_java_ee(ctx: &PomContext, overlay: &mut Overlay) -> anyhow::Result<Vec<String>> {
    let fp = ctx.fingerprint;
    let mut changes = Vec::new();
    for (i, module) in fp.modules.iter().enumerate().filter(|(_, m)| !m.skipped) {
        // Needed modules, with whether main code (not only tests) uses them.
        let mut needed: BTreeMap<RemovedJavaEeModule, bool> = BTreeMap::new();
        for f in &module.java_files {
            for m in &f.removed_modules {
                *needed.entry(*m).or_insert(false) |= !f.is_test_source;
            }
        }
        let chain = fp.chain(i);
        let declared = |g: &str, a: &str| {
            chain.iter().any(|&c| {
                fp.modules[c]
                    .pom
                    .dependencies
                    .iter()
                    .any(|d| d.group_id == g && d.artifact_id == a && !d.managed)
            })
        };
        let mut snippets = Vec::new();
        for (m, in_main) in needed {
            let mut entries = catalog_entries(ctx, m);
            let provided = providers(m).iter().any(|(g, a)| declared(g, a))
                || entries.iter().take(1).any(|(_, gav)| {
                    Coordinates::parse(gav).is_ok_and(|c| declared(&c.group, &c.artifact))
                });
            if provided {
                continue;
            }
            for (scope, gav) in entries.drain(..) {
                let c = Coordinates::parse(&gav)?;
                let scope = if in_main { scope } else { "test" };
                let scope = (scope != "compile").then_some(scope);
                snippets.push(dependency_xml(
                    &c.group,
                    &c.artifact,
                    Some(&c.version),
                    scope,
                ));
                changes.push(format!(
                    "{}: added {gav} for {m:?} (removed from the JDK in 11)",
                    module.pom.path.display()
                ));
            }
        }
        if !snippets.is_empty() {
            overlay.edit_pom(&module.pom.path, |src, project| {
                vec![append_under(
                    src,
                    project,
                    &["dependencies"],
                    &snippets.join("\n"),
                )]
            })?;
        }
    }
    Ok(changes)
}
