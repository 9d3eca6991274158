//! Recipe `spring-boot-3`: Spring Boot 2 -> 3 on the build and configuration side. Key and
//! artifact renames are data (`catalog/spring-boot-3.yml`); this code finds keys in
//! `.properties` and YAML without reformatting either, and moves auto-configuration
//! registrations out of `spring.factories`. Source changes come from the javax -> jakarta
//! recipe and the `spring-*` declarative Java recipes.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;

use crate::analyze::pom::{child_text, dependency_nodes};
use crate::edit::{self, Edit, line_ending};
use crate::recipes::overlay::Overlay;
use crate::recipes::pom_edit;

use super::coordinates::{self, Kind, Move};

mod comment_out;
mod key_merge;
mod yaml_move;
use super::{FileResult, PomContext};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    /// Named for readers of the YAML; the code uses [`super::SPRING_BOOT_3`].
    #[serde(rename = "id")]
    _id: String,
    description: String,
    artifacts: Vec<Move>,
    /// `group:artifact` of dependencies Boot 3 has no use for: what they provided comes
    /// with the artifact another one moved to.
    removed_artifacts: Vec<String>,
    /// `group:artifact` of dependencies Boot 3 neither manages nor supports, with what the
    /// guide puts in their place: findings with the pom's line, nothing removed.
    reported_artifacts: Vec<Reported>,
    property_renames: Vec<KeyRename>,
    key_merges: Vec<key_merge::KeyMerge>,
    value_renames: std::collections::BTreeMap<String, String>,
    /// Values a key no longer takes in Boot 3 (`spring.cache.type=ehcache`): findings.
    removed_values: Vec<RemovedValue>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Reported {
    ga: String,
    replacement: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RemovedValue {
    key: String,
    value: String,
    replacement: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyRename {
    from: String,
    to: String,
    /// For a removed key (`to: ""`): what to set by hand instead, in other terms.
    #[serde(default)]
    replacement: Option<String>,
    /// For a removed key: deprecated, yet Boot 3 still binds it.
    #[serde(default)]
    still_read: bool,
}

/// `catalog/spring-boot-3-properties.yml`, written by `scripts/spring-metadata/extract.py`
/// from the deprecated entries of Spring Boot's own configuration metadata.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Generated {
    boot3_tag: String,
    boot2_tag: String,
    renames: Vec<GeneratedRename>,
    removals: Vec<Removal>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GeneratedRename {
    from: String,
    to: String,
    /// Tag and module the entry was read from.
    #[serde(rename = "source")]
    _source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Removal {
    key: String,
    /// The key to set by hand: it takes a different value.
    replacement: Option<String>,
    reason: Option<String>,
    /// Deprecated, yet a getter of the Boot 3 tag still binds it: it stays where it is.
    #[serde(default)]
    still_read: bool,
    #[serde(rename = "source")]
    _source: String,
}

/// What happens to a key a rule matches.
#[derive(Debug, Clone)]
enum Action {
    To(String),
    Removed {
        replacement: Option<String>,
        reason: Option<String>,
        /// Still bound by Boot 3 (deprecated there): reported, left as it is. Any other
        /// removed key is commented out.
        still_read: bool,
    },
}

#[derive(Debug)]
struct Rule {
    from: String,
    action: Action,
}

impl Rule {
    fn is_pattern(&self) -> bool {
        self.from.ends_with('.') || self.from.contains("{x}")
    }
}

struct Compiled {
    table: Table,
    generated: Generated,
    /// Whole keys; a hand entry wins over the metadata's entry for the same key.
    exact: std::collections::HashMap<String, Rule>,
    /// Prefixes and `{x}` forms, hand entries first, with `from` as a regex: `{x}` captures
    /// one segment, a trailing dot matches a prefix.
    patterns: Vec<(Regex, Rule)>,
}

static TABLE: LazyLock<Compiled> = LazyLock::new(|| {
    let table: Table = serde_saphyr::from_str(include_str!("catalog/spring-boot-3.yml"))
        .expect("built-in spring-boot-3 table is valid YAML");
    let generated: Generated =
        serde_saphyr::from_str(include_str!("catalog/spring-boot-3-properties.yml"))
            .expect("generated spring-boot-3-properties table is valid YAML");
    let hand = table.property_renames.iter().map(|r| Rule {
        from: r.from.clone(),
        action: if r.to.is_empty() {
            Action::Removed {
                replacement: r.replacement.clone(),
                reason: None,
                still_read: r.still_read,
            }
        } else {
            Action::To(r.to.clone())
        },
    });
    let renames = generated.renames.iter().map(|r| Rule {
        from: r.from.clone(),
        action: Action::To(r.to.clone()),
    });
    let removals = generated.removals.iter().map(|r| Rule {
        from: r.key.clone(),
        action: Action::Removed {
            replacement: r.replacement.clone(),
            reason: r.reason.clone(),
            still_read: r.still_read,
        },
    });
    let mut exact = std::collections::HashMap::new();
    let mut patterns = Vec::new();
    for rule in hand.chain(renames).chain(removals) {
        if rule.is_pattern() {
            let body = regex::escape(rule.from.trim_end_matches('.')).replace(r"\{x\}", "([^.]+)");
            let tail = if rule.from.ends_with('.') {
                r"(\..*)?"
            } else {
                ""
            };
            let re = Regex::new(&format!("^{body}({tail})$")).expect("valid key pattern");
            patterns.push((re, rule));
        } else {
            exact.entry(rule.from.clone()).or_insert(rule);
        }
    }
    Compiled {
        table,
        generated,
        exact,
        patterns,
    }
});

/// Artifacts Boot 3 manages under new coordinates.
pub fn artifacts() -> &'static [Move] {
    &TABLE.table.artifacts
}

pub fn description() -> &'static str {
    &TABLE.table.description
}

/// Where the auto-configuration list lives in Boot 2.7+ and 3.
pub const AUTOCONFIG_IMPORTS: &str =
    "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";
const ENABLE_AUTOCONFIG: &str = "org.springframework.boot.autoconfigure.EnableAutoConfiguration";

/// Parent, BOM, plugin and Spring Cloud train to the catalog's releases, and the artifacts
/// Boot 3 manages under new coordinates.
pub fn pom(ctx: &PomContext, overlay: &mut Overlay) -> anyhow::Result<Vec<String>> {
    let boot = &ctx.catalog.spring_boot_3;
    let at = |ga: &str, v: &str| Move {
        from: ga.to_string(),
        to: format!("{ga}:{v}"),
        below: None,
    };
    let mut changes = coordinates::apply(
        ctx,
        overlay,
        &[at(
            "org.springframework.boot:spring-boot-starter-parent",
            boot,
        )],
        Kind::Parent,
    )?;
    changes.extend(coordinates::apply(
        ctx,
        overlay,
        &[at(
            "org.springframework.boot:spring-boot-maven-plugin",
            boot,
        )],
        Kind::Plugin,
    )?);
    let mut deps = vec![
        at("org.springframework.boot:spring-boot-dependencies", boot),
        at(
            "org.springframework.cloud:spring-cloud-dependencies",
            &ctx.catalog.spring_cloud,
        ),
    ];
    deps.extend(artifacts().iter().cloned());
    changes.extend(coordinates::apply(ctx, overlay, &deps, Kind::Dependency)?);
    changes.extend(remove_artifacts(ctx, overlay)?);
    Ok(changes)
}

/// Drops the dependencies of [`Table::removed_artifacts`] from every module's pom.
fn remove_artifacts(ctx: &PomContext, overlay: &mut Overlay) -> anyhow::Result<Vec<String>> {
    let removed = &TABLE.table.removed_artifacts;
    let mut changes = Vec::new();
    for module in ctx.fingerprint.modules.iter().filter(|m| !m.skipped) {
        let rel = module.pom.path.clone();
        overlay.edit_pom(&rel, |src, project| {
            let mut edits = Vec::new();
            for (d, _) in dependency_nodes(project) {
                let ga = format!(
                    "{}:{}",
                    child_text(d, "groupId").unwrap_or_default(),
                    child_text(d, "artifactId").unwrap_or_default()
                );
                if removed.contains(&ga) {
                    edits.push(pom_edit::remove(src, d));
                    changes.push(format!(
                        "{}: {ga} removed (not needed on Boot 3)",
                        rel.display()
                    ));
                }
            }
            edits
        })?;
    }
    Ok(changes)
}

/// Dependencies of [`Table::reported_artifacts`] in every module's pom, as (pom, finding).
pub fn pom_findings(
    ctx: &PomContext,
    overlay: &mut Overlay,
) -> anyhow::Result<Vec<(PathBuf, String)>> {
    let mut out = Vec::new();
    for module in ctx.fingerprint.modules.iter().filter(|m| !m.skipped) {
        let rel = module.pom.path.clone();
        overlay.edit_pom(&rel, |src, project| {
            let lines = edit::LineIndex::new(src);
            for (d, _) in dependency_nodes(project) {
                let ga = format!(
                    "{}:{}",
                    child_text(d, "groupId").unwrap_or_default(),
                    child_text(d, "artifactId").unwrap_or_default()
                );
                if let Some(r) = TABLE.table.reported_artifacts.iter().find(|r| r.ga == ga) {
                    let line = lines.line(d.range().start);
                    out.push((
                        rel.clone(),
                        format!(
                            "{} line {line}: {ga} has no Spring Boot 3 support; {}",
                            rel.display(),
                            r.replacement
                        ),
                    ));
                }
            }
            Vec::new()
        })?;
    }
    Ok(out)
}

/// Is this a Spring Boot configuration file (`application*.properties|yml|yaml`, also
/// under `config/`)?
pub fn is_config_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.starts_with("application")
        && [".properties", ".yml", ".yaml"]
            .iter()
            .any(|e| name.ends_with(e))
}

/// The Spring Boot tags the generated key table was read from (3.x, 2.7).
pub fn metadata_tags() -> (&'static str, &'static str) {
    (&TABLE.generated.boot3_tag, &TABLE.generated.boot2_tag)
}

/// What becomes of `full`, when a rule applies. A whole key matches only a `leaf` (a
/// YAML mapping with children is a prefix of the keys below it, not a key itself).
fn rename(full: &str, leaf: bool) -> Option<Action> {
    if leaf && let Some(rule) = TABLE.exact.get(full) {
        return Some(rule.action.clone());
    }
    TABLE.patterns.iter().find_map(|(re, rule)| {
        let caps = re.captures(full)?;
        let to = match &rule.action {
            Action::To(to) => to,
            removed @ Action::Removed { .. } => return Some(removed.clone()),
        };
        let mut to = to.trim_end_matches('.').to_string();
        if rule.from.contains("{x}") {
            to = to.replace("{x}", caps.get(1).map_or("", |m| m.as_str()));
        }
        let rest = caps.get(caps.len() - 1).map_or("", |m| m.as_str());
        Some(Action::To(format!("{to}{rest}")))
    })
}

/// What became of a key Boot 3 no longer binds, or binds deprecated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Left {
    /// Deprecated, still bound: kept.
    StillRead,
    CommentedOut,
    /// Not bound, yet kept: commenting it out would not have parsed.
    AsIs,
}

/// The finding for a removed key at `line` of the file as written.
fn removed_finding(
    line: usize,
    full: &str,
    replacement: Option<&str>,
    reason: Option<&str>,
    left: Left,
) -> String {
    let why = reason
        .map(|r| format!(" ({})", r.trim_end_matches('.')))
        .unwrap_or_default();
    let what = match left {
        Left::StillRead => format!("line {line}: {full} is deprecated in Spring Boot 3{why}"),
        Left::CommentedOut => {
            format!("line {line}: {full} no longer exists in Spring Boot 3{why}; commented out")
        }
        Left::AsIs => format!("line {line}: {full} no longer exists in Spring Boot 3{why}"),
    };
    match replacement {
        Some(new) => format!("{what}; set {new} by hand, it takes a different value"),
        None if left == Left::CommentedOut => what,
        None => format!("{what}; remove or replace it"),
    }
}

/// Renames keys (and dialect values) in one configuration file.
pub fn config_file(src: &str, yaml: bool) -> FileResult {
    let mut result = FileResult::default();
    let mut edits = Vec::new();
    let keys = if yaml {
        yaml_keys(src)
    } else {
        properties_keys(src)
    };
    let mut moves: Vec<yaml_move::Move> = Vec::new();
    let merged = if yaml {
        key_merge::Merged::default()
    } else {
        key_merge::apply(src, &keys, &TABLE.table.key_merges)
    };
    edits.extend(merged.edits);
    result.changes.extend(merged.changes);
    // A renamed YAML mapping carries its children along: skip them.
    let mut moved_at: Option<usize> = None;
    let lines = edit::LineIndex::new(src);
    for (i, k) in keys.iter().enumerate() {
        if merged.keys.contains(&i) {
            continue;
        }
        let leaf = is_leaf(&keys, i);
        if moved_at.is_some_and(|d| k.depth > d) {
            continue;
        }
        moved_at = None;
        let full = k.full();
        let line = lines.line(k.range.start);
        match rename(&full, leaf) {
            // The others are commented out below, and reported there.
            Some(Action::Removed {
                replacement,
                reason,
                still_read: true,
            }) => result.findings.push(removed_finding(
                line,
                &full,
                replacement.as_deref(),
                reason.as_deref(),
                Left::StillRead,
            )),
            Some(Action::Removed { .. }) => {}
            Some(Action::To(new_full)) => {
                let in_place = if k.parent.is_empty() {
                    Some(new_full.as_str())
                } else {
                    new_full.strip_prefix(&format!("{}.", k.parent))
                };
                moved_at = Some(k.depth);
                match in_place {
                    // A dotted key stays dotted, and a key keeping its depth is renamed;
                    // otherwise the key is re-nested (under its parent, or into an existing
                    // mapping on the new path).
                    Some(new_key) if !yaml || k.key.contains('.') || !new_key.contains('.') => {
                        result.changes.push(format!("{full} -> {new_full}"));
                        edits.push(Edit::replace(k.range.clone(), new_key));
                    }
                    _ => moves.push(yaml_move::Move {
                        key: i,
                        line,
                        from: full.clone(),
                        to: new_full,
                    }),
                }
            }
            None => {}
        }
        if let Some(v) = &k.value
            && let Some(r) = TABLE
                .table
                .removed_values
                .iter()
                .find(|r| r.key == full && r.value.eq_ignore_ascii_case(src[v.clone()].trim()))
        {
            result.findings.push(format!(
                "line {line}: {full}={} no longer exists in Spring Boot 3; {}",
                r.value, r.replacement
            ));
        }
        // Removed dialect class names are unique, whatever key holds them.
        if let Some(v) = &k.value
            && let Some(new) = TABLE.table.value_renames.get(src[v.clone()].trim())
            && new != src[v.clone()].trim()
        {
            result
                .changes
                .push(format!("{full}: {} -> {new}", src[v.clone()].trim()));
            edits.push(Edit::replace(v.clone(), new.clone()));
        }
    }
    if !moves.is_empty() {
        let moves = yaml_move::group(src, &keys, moves);
        match renest(src, &keys, &moves, edits.clone()) {
            Ok(all) => {
                edits = all;
                for m in &moves {
                    result
                        .changes
                        .push(format!("{} -> {} (re-nested)", m.from, m.to));
                }
            }
            Err(why) => {
                for m in &moves {
                    result.findings.push(format!(
                        "line {}: {} must become {}; the YAML nesting has to be changed by hand ({why})",
                        m.line, m.from, m.to
                    ));
                }
            }
        }
    }
    if !edits.is_empty() {
        match edit::apply(src, &edits) {
            Ok(out) => result.text = Some(out),
            Err(e) => result
                .findings
                .push(format!("conflicting key renames: {e}")),
        }
    }
    // Keys Boot 3 no longer binds are commented out once the renames are made.
    let (commented, findings) = comment_out::apply(result.text.as_deref().unwrap_or(src), yaml);
    result.findings.extend(findings);
    if commented.is_some() {
        result.text = commented;
    }
    result
}

/// The edits of a YAML re-nesting on top of the renames in place (`edits`), kept only when
/// the result parses and holds exactly the same keys and values, the moved ones under their
/// new paths.
fn renest(
    src: &str,
    keys: &[Key],
    moves: &[yaml_move::Move],
    edits: Vec<Edit>,
) -> Result<Vec<Edit>, String> {
    let in_place = edit::apply(src, &edits).map_err(|e| e.to_string())?;
    let before = yaml_move::flatten(&in_place).map_err(|e| format!("it does not parse: {e}"))?;
    let edits = yaml_move::edits(src, keys, moves, edits)?;
    let text = edit::apply(src, &edits).map_err(|e| e.to_string())?;
    let after = yaml_move::flatten(&text).map_err(|_| "the moved YAML would not parse")?;
    let moved = |path: String| {
        moves
            .iter()
            .find_map(|m| {
                let rest = path.strip_prefix(m.from.as_str())?;
                (rest.is_empty() || rest.starts_with('.')).then(|| format!("{}{rest}", m.to))
            })
            .unwrap_or(path)
    };
    let expected: Vec<_> = before
        .into_iter()
        .map(|doc| doc.into_iter().map(|(p, v)| (moved(p), v)).collect())
        .collect();
    if after == expected {
        Ok(edits)
    } else {
        Err("moving the lines would not keep every key and value".to_string())
    }
}

struct Key {
    /// Full dotted path of the enclosing mappings (YAML); empty for properties.
    parent: String,
    key: String,
    depth: usize,
    range: std::ops::Range<usize>,
    /// The scalar value on the same line, if any.
    value: Option<std::ops::Range<usize>>,
}

impl Key {
    /// The key's whole dotted name.
    fn full(&self) -> String {
        if self.parent.is_empty() {
            self.key.clone()
        } else {
            format!("{}.{}", self.parent, self.key)
        }
    }
}

/// Is key `i` a leaf (no keys below it, so not only a prefix of others)?
fn is_leaf(keys: &[Key], i: usize) -> bool {
    keys.get(i + 1)
        .is_none_or(|next| next.depth <= keys[i].depth)
}

fn lines_with_offsets(src: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    src.split_inclusive('\n').map(move |l| {
        let start = at;
        at += l.len();
        (start, l.trim_end_matches(['\n', '\r']))
    })
}

fn properties_keys(src: &str) -> Vec<Key> {
    let mut out = Vec::new();
    let mut continued = false;
    for (start, line) in lines_with_offsets(src) {
        let was_continued = continued;
        continued = line.chars().rev().take_while(|c| *c == '\\').count() % 2 == 1;
        let trimmed = line.trim_start();
        if was_continued || trimmed.is_empty() || trimmed.starts_with(['#', '!']) {
            continue;
        }
        let lead = line.len() - trimmed.len();
        let end = trimmed.find(['=', ':', ' ', '\t']).unwrap_or(trimmed.len());
        let value_start = trimmed[end..]
            .find(|c: char| !matches!(c, '=' | ':' | ' ' | '\t'))
            .map(|i| start + lead + end + i);
        out.push(Key {
            parent: String::new(),
            key: trimmed[..end].to_string(),
            depth: 0,
            range: start + lead..start + lead + end,
            value: value_start
                .filter(|_| !continued)
                .map(|v| v..start + line.len()),
        });
    }
    out
}

/// Block-mapping keys of a YAML file with their paths. Flow collections, sequences and
/// block scalars are stepped over, not interpreted.
fn yaml_keys(src: &str) -> Vec<Key> {
    static KEY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^( *)([A-Za-z0-9_.\-\[\]]+|"[^"]*"|'[^']*') *:( +|$)"#).expect("valid")
    });
    let mut out = Vec::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut block_scalar: Option<usize> = None;
    for (start, line) in lines_with_offsets(src) {
        if line.trim() == "---" {
            stack.clear();
            continue;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        if let Some(b) = block_scalar {
            if indent > b {
                continue;
            }
            block_scalar = None;
        }
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let Some(c) = KEY.captures(line) else {
            continue;
        };
        let name = c.get(2).expect("group");
        let key = name.as_str().trim_matches(['"', '\'']).to_string();
        let rest_at = c.get(0).expect("match").end();
        let rest = line[rest_at..].split(" #").next().unwrap_or("").trim_end();
        if rest.starts_with(['|', '>']) {
            block_scalar = Some(indent);
        }
        let parent = stack
            .iter()
            .map(|(_, k)| k.as_str())
            .collect::<Vec<_>>()
            .join(".");
        let value = (!rest.is_empty() && !rest.starts_with(['|', '>', '&', '*', '{', '[']))
            .then(|| start + rest_at..start + rest_at + rest.len());
        out.push(Key {
            parent,
            key: key.clone(),
            depth: stack.len(),
            range: start + name.start()..start + name.end(),
            value,
        });
        stack.push((indent, key));
    }
    out
}

/// `spring.factories` auto-configuration entries move to `AutoConfiguration.imports` in
/// the same resources directory; the factories file keeps its other entries (or goes).
pub fn move_auto_configuration(
    overlay: &mut Overlay,
    factories: &Path,
) -> anyhow::Result<Vec<String>> {
    let src = overlay.read(factories)?.to_string();
    let Some((range, classes)) = auto_configuration_entry(&src) else {
        return Ok(Vec::new());
    };
    let resources: PathBuf = factories
        .ancestors()
        .find(|p| p.ends_with("META-INF"))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let imports = resources.join(AUTOCONFIG_IMPORTS);
    let existing = overlay
        .read(&imports)
        .map(str::to_string)
        .unwrap_or_default();
    let mut lines: Vec<String> = existing.lines().map(str::to_string).collect();
    for c in &classes {
        if !lines.iter().any(|l| l.trim() == c) {
            lines.push(c.clone());
        }
    }
    let eol = line_ending(&src);
    overlay.create(&imports, format!("{}{eol}", lines.join(eol)));
    let rest = edit::apply(&src, &[Edit::replace(range, "")])?;
    let only_comments = rest
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with(['#', '!']));
    if only_comments {
        overlay.delete(factories);
    } else {
        overlay.write(factories, src, rest);
    }
    Ok(vec![format!(
        "{} auto-configuration classes: {} -> {}",
        classes.len(),
        factories.display(),
        imports.display()
    )])
}

/// The byte range of the `EnableAutoConfiguration=` entry (with continuations) and its
/// class names.
fn auto_configuration_entry(src: &str) -> Option<(std::ops::Range<usize>, Vec<String>)> {
    let mut start = None;
    let mut end = 0;
    let mut value = String::new();
    for (at, line) in lines_with_offsets(src) {
        let full_end = (at + line.len() + 1).min(src.len());
        let part = match start {
            None if line.trim_start().starts_with(ENABLE_AUTOCONFIG) => {
                start = Some(at);
                line.split_once(['=', ':']).map_or("", |x| x.1)
            }
            None => continue,
            Some(_) => line,
        };
        end = full_end;
        let part = part.trim_end();
        match part.strip_suffix('\\') {
            Some(head) => {
                value.push_str(head);
                value.push(',');
            }
            None => {
                value.push_str(part);
                break;
            }
        }
    }
    let classes: Vec<String> = value
        .split(',')
        .map(|c| c.trim().trim_end_matches('\\').trim().to_string())
        .filter(|c| !c.is_empty())
        .collect();
    start.map(|s| (s..end, classes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_keys_prefixes_and_dialects() {
        let src = "# redis\nspring.redis.host=localhost\nspring.redis.port = 6379\nmanagement.metrics.export.prometheus.enabled: true\nserver.max-http-header-size=16KB\nspring.jpa.properties.hibernate.dialect=org.hibernate.dialect.MySQL5Dialect\nspring.session.store-type=redis\n";
        let r = config_file(src, false);
        assert_eq!(
            r.text.as_deref(),
            Some(
                "# redis\nspring.data.redis.host=localhost\nspring.data.redis.port = 6379\nmanagement.prometheus.metrics.export.enabled: true\nserver.max-http-request-header-size=16KB\nspring.jpa.properties.hibernate.dialect=org.hibernate.dialect.MySQLDialect\n# Removed in Spring Boot 3\n# spring.session.store-type=redis\n"
            )
        );
        assert_eq!(r.findings.len(), 1, "{:?}", r.findings);
    }

    #[test]
    fn yaml_renames_in_place_and_renests_across_levels() {
        let src = "spring:\n  redis:\n    host: localhost # local\n    port: 6379\n  jpa:\n    properties:\n      hibernate.dialect: org.hibernate.dialect.PostgreSQL10Dialect\nmanagement:\n  metrics:\n    export:\n      prometheus:\n        enabled: true\nserver.max-http-header-size: 16KB\n";
        let r = config_file(src, true);
        assert_eq!(
            r.text.as_deref(),
            Some(
                "spring:\n  data:\n    redis:\n      host: localhost # local\n      port: 6379\n  jpa:\n    properties:\n      hibernate.dialect: org.hibernate.dialect.PostgreSQLDialect\nmanagement:\n  prometheus:\n    metrics:\n      export:\n        enabled: true\nserver.max-http-request-header-size: 16KB\n"
            )
        );
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        assert!(
            r.changes.contains(&"management.metrics.export.prometheus -> management.prometheus.metrics.export (re-nested)".to_string()),
            "{:?}",
            r.changes
        );
    }

    #[test]
    fn yaml_moves_merge_into_an_existing_mapping_per_document() {
        let src = "spring:\n  redis:\n    host: a\n---\nspring:\n  config.activate.on-profile: prod\n  data:\n    web:\n      pageable:\n        max-page-size: 5\n  redis:\n    host: b\n    port: 1\n  sleuth:\n    sampler:\n      probability: 0.5\n      rate: 10\nmanagement:\n  metrics:\n    tags:\n      app: x\n    export:\n      prometheus:\n        enabled: false\n";
        let r = config_file(src, true);
        assert_eq!(
            r.text.as_deref(),
            Some(
                "spring:\n  data:\n    redis:\n      host: a\n---\nspring:\n  config.activate.on-profile: prod\n  data:\n    web:\n      pageable:\n        max-page-size: 5\n    redis:\n      host: b\n      port: 1\n  # Removed in Spring Boot 3\n  # sleuth:\n  #   sampler:\n  #     rate: 10\nmanagement:\n  metrics:\n    tags:\n      app: x\n  tracing:\n    sampling:\n      probability: 0.5\n  prometheus:\n    metrics:\n      export:\n        enabled: false\n"
            )
        );
        assert_eq!(r.findings.len(), 1, "{:?}", r.findings);
        assert!(r.findings[0].starts_with("line 18: spring.sleuth.sampler.rate no longer exists"));
    }

    #[test]
    fn yaml_that_does_not_parse_is_not_renested() {
        let src = "management:\n  metrics:\n    export:\n      prometheus:\n        enabled: true\nbroken: [unclosed\n";
        let r = config_file(src, true);
        assert_eq!(r.text, None);
        assert!(
            r.findings[0].starts_with("line 4: management.metrics.export.prometheus must become management.prometheus.metrics.export; the YAML nesting has to be changed by hand (it does not parse"),
            "{:?}",
            r.findings
        );
    }

    #[test]
    fn metadata_snapshot_is_loaded_and_the_hand_list_wins() {
        let g = &TABLE.generated;
        // Moving the catalog's Boot 3 release means generating the snapshot again.
        assert_eq!(
            metadata_tags().0,
            format!("v{}", crate::config::Catalog::default().spring_boot_3)
        );
        assert!(
            g.renames.len() > 300 && g.removals.len() > 200,
            "snapshot too small"
        );
        // The metadata lists it as one of several old keys for one new; the hand list
        // knows it is a plain rename.
        assert!(matches!(
            rename("management.trace.http.include", true),
            Some(Action::To(to)) if to == "management.httpexchanges.recording.include"
        ));
        // A whole key is a leaf's name, never a mapping above other keys.
        assert!(rename("spring.profiles", false).is_none());
        // No rename leads to a key the snapshot deprecates again.
        for r in &g.renames {
            let to = r.to.trim_end_matches('.');
            assert!(
                !g.renames.iter().any(|o| o.from == to) && !g.removals.iter().any(|o| o.key == to),
                "{} -> {to} is deprecated again",
                r.from
            );
        }
        // The hand list only holds what the snapshot lacks or gets wrong.
        for h in &TABLE.table.property_renames {
            let same = g.renames.iter().any(|r| r.from == h.from && r.to == h.to)
                || (h.to.is_empty() && g.removals.iter().any(|r| r.key == h.from));
            assert!(!same, "{} is in the metadata snapshot already", h.from);
        }
    }

    #[test]
    fn removed_keys_are_commented_out_with_the_reason_and_the_replacement() {
        let r = config_file(
            "spring.banner.image.width=40\nspring.artemis.port=61616\n  spring.session.store-type=redis,\\\n    jdbc\nspring.mvc.throw-exception-if-no-handler-found=true\n",
            false,
        );
        assert_eq!(
            r.text.as_deref(),
            Some(
                "# Removed in Spring Boot 3: Support for image banners has been removed.\n# spring.banner.image.width=40\n# Removed in Spring Boot 3: set spring.artemis.broker-url instead\n# spring.artemis.port=61616\n  # Removed in Spring Boot 3\n  # spring.session.store-type=redis,\\\n    # jdbc\nspring.mvc.throw-exception-if-no-handler-found=true\n"
            )
        );
        assert_eq!(
            r.findings,
            [
                "line 5: spring.mvc.throw-exception-if-no-handler-found is deprecated in Spring Boot 3; remove or replace it",
                "line 2: spring.banner.image.width no longer exists in Spring Boot 3 (Support for image banners has been removed); commented out",
                "line 4: spring.artemis.port no longer exists in Spring Boot 3 (Replaced by one property for several old ones: spring.artemis.host, spring.artemis.port); commented out; set spring.artemis.broker-url by hand, it takes a different value",
                "line 6: spring.session.store-type no longer exists in Spring Boot 3; commented out",
            ]
        );
        // Commented out, nothing is left to change.
        assert_eq!(config_file(r.text.as_deref().unwrap(), false).text, None);
    }

    #[test]
    fn block_scalars_are_not_keys() {
        let src = "text: |\n  spring.redis.host: no\nspring:\n  redis.host: x\n";
        let r = config_file(src, true);
        assert_eq!(
            r.text.as_deref(),
            Some("text: |\n  spring.redis.host: no\nspring:\n  data.redis.host: x\n")
        );
    }

    #[test]
    fn spring_factories_entries_move_to_imports() {
        let dir = tempfile::tempdir().unwrap();
        let rel = Path::new("src/main/resources/META-INF/spring.factories");
        std::fs::create_dir_all(dir.path().join(rel.parent().unwrap())).unwrap();
        std::fs::write(
            dir.path().join(rel),
            "org.springframework.boot.autoconfigure.EnableAutoConfiguration=\\\n  com.a.FooAutoConfiguration,\\\n  com.a.BarAutoConfiguration\n",
        )
        .unwrap();
        let mut overlay = Overlay::new(dir.path());
        let changes = move_auto_configuration(&mut overlay, rel).unwrap();
        assert_eq!(changes.len(), 1);
        let written = overlay.commit().unwrap();
        assert_eq!(written.len(), 2);
        assert!(!dir.path().join(rel).exists());
        let imports = std::fs::read_to_string(
            dir.path()
                .join("src/main/resources")
                .join(AUTOCONFIG_IMPORTS),
        )
        .unwrap();
        assert_eq!(
            imports,
            "com.a.FooAutoConfiguration\ncom.a.BarAutoConfiguration\n"
        );
    }
}
