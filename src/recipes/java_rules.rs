//! Declarative Java recipes: ast-grep rules (pattern, constraints, fix) over tree-sitter-java.
//!
//! A recipe file is YAML: an id, a one-line description, preconditions, and a list of
//! ast-grep rules. A rule with a `fix` rewrites what it matches; a rule without one is a
//! detector whose `message` becomes a task for the next tier (a construct with no safe
//! rewrite is reported, never guessed at). Imports a fix needs or orphans are declared on
//! the rule, because ast-grep itself does not manage imports.
//!
//! The built-in catalog lives in `catalog/java/*.yml`; users add their own files in the
//! same format (see [`super::registry`]).

use std::collections::{BTreeMap, BTreeSet};

use ast_grep_config::{GlobalRules, RuleConfig, SerializableRuleConfig};
use ast_grep_core::matcher::{Pattern, PatternBuilder, PatternError};
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc, TSLanguage};
use ast_grep_core::{Language, NodeMatch};
use serde::{Deserialize, Serialize};

use crate::edit::{self, Edit, deletion_span, line_ending, whole_line};
use crate::java_syntax::{self, Import};

use super::{FileResult, idioms, java_types, static_helper, static_imports};
use crate::config::IDIOMS;

/// tree-sitter-java for ast-grep. `$` is a legal Java identifier character, so
/// metavariables (`$X`) parse as identifiers without a substitute character.
#[derive(Clone, Copy, Debug, Default)]
pub struct Java;

impl Language for Java {
    fn kind_to_id(&self, kind: &str) -> u16 {
        self.get_ts_language().id_for_node_kind(kind, true)
    }
    fn field_to_id(&self, field: &str) -> Option<u16> {
        self.get_ts_language()
            .field_id_for_name(field)
            .map(|f| f.get())
    }
    fn build_pattern(&self, builder: &PatternBuilder) -> Result<Pattern, PatternError> {
        builder.build(|src| StrDoc::try_new(src, *self))
    }
}

impl<'de> Deserialize<'de> for Java {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        if name.eq_ignore_ascii_case("java") {
            Ok(Java)
        } else {
            Err(serde::de::Error::custom(format!(
                "language {name:?}: only java rules are supported"
            )))
        }
    }
}

impl LanguageExt for Java {
    fn get_ts_language(&self) -> TSLanguage {
        tree_sitter_java::LANGUAGE.into()
    }
}

/// When a recipe runs at all.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Preconditions {
    /// Only for migrations to at least this Java release.
    pub min_target: Option<u32>,
    /// A file is considered only if its text mentions one of these (types, packages).
    pub uses: Vec<String>,
    /// A file whose text mentions one of these is left to another recipe.
    pub unless_uses: Vec<String>,
    /// Off unless the configuration enables it by id (style modernisations).
    pub opt_in: bool,
    /// Only when the migration moves Spring Boot to 3.x.
    pub spring_boot_3: bool,
    /// A modern idiom (one of `config::IDIOMS`): only when `modernize` names it.
    pub idiom: Option<String>,
    /// Deprecated APIs the author may have kept on purpose: a use inside a declaration whose
    /// `@SuppressWarnings` names `deprecation`, `removal` or `all` compiles without a warning
    /// and is left as written (neither fixed nor reported).
    pub suppressible: bool,
}

#[derive(Debug, Clone, Deserialize)]
struct RecipeSpec {
    id: String,
    description: String,
    #[serde(default)]
    when: Preconditions,
    /// ast-grep rules (`language: java` implied), plus `add_imports` / `remove_imports`:
    /// the imports the fixed code needs, and the ones to drop once their simple name is
    /// no longer used.
    #[serde(default)]
    rules: Vec<serde_json::Map<String, serde_json::Value>>,
    /// A rewrite written in code (`super::idioms`), run before the rules.
    #[serde(default)]
    code: Option<String>,
}

struct CompiledRule {
    config: RuleConfig<Java>,
    add_imports: Vec<String>,
    remove_imports: Vec<String>,
    /// `types`: metavariable -> the types it must denote (any of them), resolved from the
    /// file's imports and declarations; a name the file does not resolve never matches.
    types: BTreeMap<String, Vec<String>>,
    /// `values`: metavariable -> a pattern the String constant it spells must match (the
    /// file computes the value from literals, concatenations and its own final fields; one it
    /// cannot compute never matches).
    values: BTreeMap<String, regex::Regex>,
    /// `runtime_values`: metavariables whose String value the file must not spell out (only
    /// the running program knows it), for the rule that takes what `values` rules refused.
    runtime_values: Vec<String>,
    /// `same_types`: metavariable (an expression) -> metavariable (a type): the expression's
    /// type, as the file spells it, is the type's text (`var` infers what was written).
    same_types: BTreeMap<String, String>,
    /// `element_types`: the elements a for-each loop over the expression reads are of the
    /// type the type's text names (compared fully qualified).
    element_types: BTreeMap<String, String>,
    /// `stream_lists`: metavariable (a local variable's name) -> metavariable (a stream):
    /// the variable's declared type takes `Stream.toList()` of the stream, as it took the
    /// stream's `collect(Collectors.toList())` ([`java_types::Scope::takes_stream_list`]).
    stream_lists: BTreeMap<String, String>,
    /// `unless_project_uses`: words no file of the project may say (`setSecurityManager`:
    /// a project that installs a Security Manager relies on its checks); where the project's
    /// files are not known, the rule is off.
    unless_project_uses: Vec<String>,
    /// Bounds the fix's text by the match's: at most `factor` times its length plus
    /// `literal` bytes ([`expansion`]).
    growth: Growth,
    /// `helper`: a private static method the fix calls, added once to each top-level class
    /// or interface holding a rewritten call.
    helper: Option<RuleHelper>,
    /// The methods the fix calls: a project subclass declaring one of them is not taken
    /// for its typed superclass ([`java_types::Scope::inherits_call`]).
    fix_calls: Vec<String>,
    /// The recipe's [`Preconditions::suppressible`].
    suppressible: bool,
    /// Set on a rule derived by [`in_subclass`]: the call it matches has no receiver and
    /// must be inherited from one of these types.
    inherited: Option<Inherited>,
}

/// What a rule for `$C.m(..)` asks of its twin for a bare `m(..)` in a subclass.
struct Inherited {
    types: Vec<String>,
    /// The fix passes the receiver on, as `this`.
    as_this: bool,
}

/// A rule's helper method: where one expression cannot keep an old API's contract, a few
/// lines can, and the fix calls them by name.
#[derive(Debug, Clone)]
struct RuleHelper {
    name: String,
    /// The name as a method's (declared, called or referenced), compiled once: every file
    /// asks [`Self::named_in`].
    word: regex::Regex,
    lines: Vec<String>,
}

impl RuleHelper {
    /// The helper from its Java text: one `private static` method that parses on its own.
    fn parse(text: &str) -> Result<Self, String> {
        let head = regex::Regex::new(r"^private static [^(=]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
            .expect("valid regex");
        let name = head
            .captures(text.trim_start())
            .map(|c| c[1].to_string())
            .ok_or("helper: one `private static` method")?;
        let wrapped = format!("class H {{\n{text}\n}}");
        let parsed = java_syntax::parse(&wrapped).filter(|p| p.syntax_error.is_none());
        let members = parsed.as_ref().and_then(|p| {
            let class = p.tree.root_node().named_child(0)?;
            Some(class.child_by_field_name("body")?.named_child_count())
        });
        if members != Some(1) {
            return Err(format!("helper {name}: not one method that parses"));
        }
        let lines = text.trim_end().lines().map(str::to_string).collect();
        let name_re = regex::escape(&name);
        let word = regex::Regex::new(&format!(r"\b{name_re}\s*\(|::\s*{name_re}\b"))
            .map_err(|e| format!("helper {name}: {e}"))?;
        Ok(Self { name, word, lines })
    }

    /// Whether `src` already says the helper's name as a method's: one of the project's own,
    /// or a copy from an earlier run, which a second one would clash with. A field or local
    /// of that name does not clash (Java keeps methods and variables apart).
    fn named_in(&self, src: &str) -> bool {
        self.word.is_match(src)
    }
}

/// How long a rule's fix can be, from its template and transforms alone.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Growth {
    factor: usize,
    literal: usize,
}

/// The most a single fix may multiply what it matched: a replacement written only once its
/// bound is known to fit leaves nothing for ast-grep to build beyond the file's budget.
const MAX_GROWTH_FACTOR: usize = 64;

/// The bound of a rule's fix: every metavariable the template names adds its text once, a
/// transformed one its source's bound times the transform's (`replace` inserts `by` at most
/// once per character and at the end, `convert` at most doubles, `substring` never grows).
/// Other transforms (`rewrite`, the string forms) have no bound that can be read here and
/// are refused, as is a fix multiplying its match more than [`MAX_GROWTH_FACTOR`] times.
fn expansion(raw: &serde_json::Map<String, serde_json::Value>) -> Result<Growth, String> {
    use serde_json::Value;
    let Some(fix) = raw.get("fix") else {
        return Ok(Growth::default());
    };
    let template = match fix {
        Value::String(t) => t.as_str(),
        Value::Object(o) => o.get("template").and_then(Value::as_str).unwrap_or(""),
        _ => return Err("fix: a template string or { template: ... }".into()),
    };
    let transforms = raw.get("transform").and_then(Value::as_object);
    let var = regex::Regex::new(r"\$(?:\$\$)?([A-Z_][A-Z0-9_]*)").expect("valid regex");
    fn factor_of(
        name: &str,
        transforms: Option<&serde_json::Map<String, Value>>,
        var: &regex::Regex,
        depth: usize,
    ) -> Result<usize, String> {
        let Some(t) = transforms.and_then(|t| t.get(name)) else {
            return Ok(1);
        };
        let refuse = || format!("transform {name}: only replace, substring and convert objects");
        let (kind, spec) = t
            .as_object()
            .filter(|o| o.len() == 1 && depth < 8)
            .and_then(|o| o.iter().next())
            .ok_or_else(refuse)?;
        let source = spec.get("source").and_then(Value::as_str).unwrap_or("");
        let source = var
            .captures(source)
            .map(|c| c[1].to_string())
            .ok_or_else(refuse)?;
        let inner = factor_of(&source, transforms, var, depth + 1)?;
        let per_char = match kind.as_str() {
            "substring" => 1,
            "convert" => 2,
            "replace" => spec.get("by").and_then(Value::as_str).map_or(0, str::len) + 1,
            _ => return Err(refuse()),
        };
        Ok(inner.saturating_mul(per_char).saturating_add(per_char))
    }
    let mut factor = 0usize;
    for c in var.captures_iter(template) {
        factor = factor.saturating_add(factor_of(&c[1], transforms, &var, 0)?);
    }
    if factor > MAX_GROWTH_FACTOR {
        return Err(format!(
            "the fix can grow what it matches {factor} times (at most {MAX_GROWTH_FACTOR})"
        ));
    }
    Ok(Growth {
        factor,
        literal: template.len(),
    })
}

impl CompiledRule {
    fn fixer(&self) -> Option<&ast_grep_config::Fixer> {
        self.config.fixer.first()
    }

    /// Matches of this rule in `grep`'s tree whose typed metavariables denote their types.
    fn matches<'t>(
        &'t self,
        root: &'t ast_grep_core::Node<'t, StrDoc<Java>>,
        scope: &'t TypedFile,
        reach: Reach,
    ) -> impl Iterator<Item = NodeMatch<'t, StrDoc<Java>>> + 't {
        let off = self
            .unless_project_uses
            .iter()
            .any(|word| scope.project.may_name(word));
        root.find_all(&self.config.matcher).filter(move |m| {
            if off {
                return false;
            }
            // A file reached only through the project is read for typed receivers alone.
            if reach == Reach::TypedOnly
                && !(self.types.keys()).any(|var| m.get_env().get_match(var).is_some())
            {
                return false;
            }
            // A metavariable the matching branch of an `any` did not bind has nothing to check.
            let bound_pass = |var: &String, check: &dyn Fn(std::ops::Range<usize>) -> bool| {
                m.get_env().get_match(var).is_none_or(|n| check(n.range()))
            };
            self.types
                .iter()
                .all(|(var, fqns)| bound_pass(var, &|r| scope.denotes(r, fqns, &self.fix_calls)))
                && self
                    .values
                    .iter()
                    .all(|(var, pattern)| bound_pass(var, &|r| scope.constant_matches(r, pattern)))
                && self
                    .runtime_values
                    .iter()
                    .all(|var| bound_pass(var, &|r| scope.runtime_value(r)))
                && self.same_types.iter().all(|(expr, ty)| {
                    match (m.get_env().get_match(expr), m.get_env().get_match(ty)) {
                        (Some(e), Some(t)) => scope.typed_as(e.range(), &t.text()),
                        _ => false,
                    }
                })
                && self.element_types.iter().all(|(expr, ty)| {
                    match (m.get_env().get_match(expr), m.get_env().get_match(ty)) {
                        (Some(e), Some(t)) => scope.iterates_as(e.range(), &t.text()),
                        _ => false,
                    }
                })
                && self.stream_lists.iter().all(|(var, stream)| {
                    match (m.get_env().get_match(var), m.get_env().get_match(stream)) {
                        (Some(v), Some(s)) => scope.takes_stream_list(v.range(), s.range()),
                        _ => false,
                    }
                })
                && self
                    .inherited
                    .as_ref()
                    .is_none_or(|i| scope.inherited_call(m.range(), i, &self.fix_calls))
                && (self.helper.is_none()
                    || m.ancestors()
                        .any(|a| static_helper::can_hold_helper(&a.kind())))
                && !(self.suppressible && m.ancestors().any(|a| warnings_suppressed(&a)))
        })
    }
}

/// Whether a declaration's own `@SuppressWarnings` silences deprecation warnings.
fn warnings_suppressed(decl: &ast_grep_core::Node<StrDoc<Java>>) -> bool {
    static SUPPRESS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"@(java\.lang\.)?SuppressWarnings\s*\([^)]*"(deprecation|removal|all)""#,
        )
        .expect("valid regex")
    });
    decl.children()
        .any(|c| c.kind() == "modifiers" && SUPPRESS.is_match(&c.text()))
}

/// The tree-sitter view of a file that [`java_types::Scope`] resolves names in, built only
/// when a typed rule asks, and once per file: a file with thousands of matches must not pay
/// for a parse or a scope walk per match.
struct TypedFile<'s> {
    src: &'s str,
    project: &'s java_types::Project<'s>,
    parsed: std::cell::OnceCell<Option<java_syntax::Parsed>>,
    scope: std::cell::OnceCell<java_types::Scope<'s>>,
}

impl<'s> TypedFile<'s> {
    fn new(src: &'s str, project: &'s java_types::Project<'s>) -> Self {
        Self {
            src,
            project,
            parsed: std::cell::OnceCell::new(),
            scope: std::cell::OnceCell::new(),
        }
    }

    /// Whether the node at `range` denotes one of `fqns`, or is the receiver of a call its
    /// class inherits from one of them (avoiding the methods `fix_calls`).
    fn denotes(
        &self,
        range: std::ops::Range<usize>,
        fqns: &[String],
        fix_calls: &[String],
    ) -> bool {
        self.node_is(range, |node, scope| {
            fqns.iter().any(|f| {
                (scope.denotes(node, f) && !scope.overridden_for(node, f))
                    || scope.inherits_call(node, f, fix_calls)
            })
        })
    }

    /// Whether the call at `range`, without a receiver, calls a method the class around it
    /// inherits from one of `inherited`'s types.
    fn inherited_call(
        &self,
        range: std::ops::Range<usize>,
        inherited: &Inherited,
        fix_calls: &[String],
    ) -> bool {
        self.node_is(range, |node, scope| {
            inherited
                .types
                .iter()
                .any(|f| scope.inherits_bare_call(node, f, fix_calls, inherited.as_this))
        })
    }

    /// Whether the expression at `range` has the type `written` spells, as the file writes
    /// types (spaces aside): a type only the JDK's tables name is not written in the file.
    fn typed_as(&self, range: std::ops::Range<usize>, written: &str) -> bool {
        let squeeze = |t: &str| t.split_whitespace().collect::<String>();
        self.node_is(range, |node, scope| {
            scope
                .type_of(node)
                .is_some_and(|t| squeeze(&t) == squeeze(written))
        })
    }

    /// Whether a for-each loop over the expression at `range` reads elements of the type
    /// `written` spells (the element type of a JDK collection the file declares).
    fn iterates_as(&self, range: std::ops::Range<usize>, written: &str) -> bool {
        self.node_is(range, |node, scope| {
            scope
                .element_type_of(node)
                .is_some_and(|t| scope.same_type(&t, written))
        })
    }

    /// Whether the local variable named at `var` is declared with a type that takes
    /// `Stream.toList()` of the stream at `stream`.
    fn takes_stream_list(
        &self,
        var: std::ops::Range<usize>,
        stream: std::ops::Range<usize>,
    ) -> bool {
        self.with_scope(|root, scope| {
            let node = |r: std::ops::Range<usize>| root.descendant_for_byte_range(r.start, r.end);
            let declared = node(var)
                .and_then(|v| v.parent())
                .and_then(|d| d.parent())
                .filter(|d| d.kind() == "local_variable_declaration")
                .map(|d| java_syntax::field_text(d, "type", self.src));
            match (declared, node(stream)) {
                (Some(declared), Some(stream)) => scope.takes_stream_list(declared, stream),
                _ => false,
            }
        })
        .unwrap_or(false)
    }

    /// Whether the node at `range` is a String constant whose value `pattern` matches.
    fn constant_matches(&self, range: std::ops::Range<usize>, pattern: &regex::Regex) -> bool {
        self.node_is(range, |node, scope| {
            scope
                .constant_string(node)
                .is_some_and(|value| pattern.is_match(&value))
        })
    }

    /// Whether the node at `range` is a String the file cannot compute (read at run time).
    fn runtime_value(&self, range: std::ops::Range<usize>) -> bool {
        self.node_is(range, |node, scope| scope.constant_string(node).is_none())
    }

    /// Whether the node at `range` passes `check`; none does in a file that does not parse.
    fn node_is(
        &self,
        range: std::ops::Range<usize>,
        check: impl FnOnce(tree_sitter::Node, &java_types::Scope) -> bool,
    ) -> bool {
        self.with_scope(|root, scope| {
            root.descendant_for_byte_range(range.start, range.end)
                .is_some_and(|node| check(node, scope))
        })
        .unwrap_or(false)
    }

    /// Whether importing `fqn` (not a static import) would clash with a type the file
    /// already names that way; a file that does not parse clashes.
    fn import_clashes(&self, fqn: &str) -> bool {
        !fqn.starts_with("static ")
            && self
                .with_scope(|_, scope| scope.import_would_clash(fqn))
                .unwrap_or(true)
    }

    fn with_scope<T>(
        &self,
        f: impl FnOnce(tree_sitter::Node, &java_types::Scope) -> T,
    ) -> Option<T> {
        let parsed = self
            .parsed
            .get_or_init(|| java_syntax::parse(self.src))
            .as_ref()?;
        let root = parsed.tree.root_node();
        let scope = self
            .scope
            .get_or_init(|| java_types::Scope::new(root, self.src).in_project(self.project));
        Some(f(root, scope))
    }
}

/// What every fix pass over one file shares.
#[derive(Clone, Copy)]
struct Pass<'a> {
    project: &'a java_types::Project<'a>,
    /// Rules that may not fix this file (their helper's name is taken).
    silenced: &'a BTreeSet<usize>,
    /// The longest the rewritten text may grow ([`max_rewritten_len`]).
    limit: usize,
    reach: Reach,
}

/// Which rules of a recipe read a file ([`Recipe::reach`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Reach {
    /// The file says one of the recipe's `uses` words: every rule and the recipe's code.
    File,
    /// Only another project file does: only a match whose typed metavariable resolved.
    TypedOnly,
}

/// The longest text a declarative recipe may turn a file of `len` bytes into. A fix may
/// repeat its metavariables, and a match in its own output is rewritten again on the next
/// pass: a repository's one-line rule `return $A;` -> `return $A + $A + ...;` would grow a
/// file geometrically into the worker's memory. No migration doubles a file.
fn max_rewritten_len(len: usize) -> usize {
    2 * len + (64 << 10)
}

/// A loaded, validated recipe.
pub struct JavaRecipe {
    pub id: String,
    pub description: String,
    pub when: Preconditions,
    /// The YAML it came from, for `uplift recipes show`.
    pub source: String,
    rules: Vec<CompiledRule>,
    code: Option<idioms::Transform>,
}

impl std::fmt::Debug for JavaRecipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JavaRecipe").field("id", &self.id).finish()
    }
}

impl JavaRecipe {
    /// Parses one recipe document; every rule must compile against the Java grammar.
    pub fn parse(yaml: &str) -> anyhow::Result<Self> {
        let spec: RecipeSpec = serde_saphyr::from_str(yaml)?;
        let code = match &spec.code {
            Some(name) => Some(idioms::transform(name).ok_or_else(|| {
                anyhow::anyhow!("recipe {}: no code transform named {name:?}", spec.id)
            })?),
            None => None,
        };
        anyhow::ensure!(
            !spec.rules.is_empty() || code.is_some(),
            "recipe {} has no rules",
            spec.id
        );
        if let Some(idiom) = &spec.when.idiom {
            anyhow::ensure!(
                IDIOMS.contains(&idiom.as_str()),
                "recipe {}: unknown idiom {idiom:?}; known: {}",
                spec.id,
                IDIOMS.join(", ")
            );
        }
        let mut rules = Vec::new();
        for raw in spec.rules {
            let twin = in_subclass(&raw);
            rules.push(compile(&spec.id, raw, spec.when.suppressible)?);
            if let Some((raw, inherited)) = twin {
                let mut rule = compile(&spec.id, raw, spec.when.suppressible)?;
                rule.inherited = Some(inherited);
                rules.push(rule);
            }
        }
        let mut ids = BTreeSet::new();
        if let Some(twice) = rules.iter().find(|r| !ids.insert(r.config.id.as_str())) {
            anyhow::bail!("recipe {}: two rules named {}", spec.id, twice.config.id);
        }
        Ok(Self {
            id: spec.id,
            description: spec.description,
            when: spec.when,
            source: yaml.to_string(),
            rules,
            code,
        })
    }

    /// How far this recipe reaches into the text; `None` where it is not worth parsing. A
    /// file that says none of the `uses` words may still hold a JDK object another project
    /// file hands it (a getter's result, an inherited field, a project subclass): where some
    /// other file says one, the rules that resolve their receiver's type still read it.
    fn reach(&self, src: &str, project: &java_types::Project) -> Option<Reach> {
        if (self.when.unless_uses.iter()).any(|u| src.contains(u.as_str())) {
            return None;
        }
        let uses = &self.when.uses;
        if uses.is_empty() || uses.iter().any(|u| src.contains(u.as_str())) {
            Some(Reach::File)
        } else if uses.iter().any(|u| project.names_elsewhere(u)) {
            Some(Reach::TypedOnly)
        } else {
            None
        }
    }

    /// Applies every fix until nothing more matches (nested matches take another pass),
    /// then runs the detectors on the result. A rewrite that would not parse is refused.
    /// `project` is the project around the file: the types its package declares (they
    /// shadow java.lang's and on-demand imports' types of the same name) and the classes
    /// of its other files.
    pub fn apply(&self, src: &str, project: &java_types::Project) -> FileResult {
        let mut result = FileResult::default();
        let Some(reach) = self.reach(src, project) else {
            return result;
        };
        let mut current = src.to_string();
        if let Some(code) = self.code.filter(|_| reach == Reach::File) {
            let r = code(&current, project);
            result.changes.extend(r.changes);
            result.findings.extend(r.findings);
            if let Some(t) = r.text {
                current = t;
            }
        }
        let limit = max_rewritten_len(src.len());
        // A rule whose helper's name the file already says would call or add a clashing one.
        let silenced: BTreeSet<usize> = (self.rules.iter().enumerate())
            .filter(|(_, r)| r.helper.as_ref().is_some_and(|h| h.named_in(src)))
            .map(|(i, _)| i)
            .collect();
        let pass = Pass {
            project,
            silenced: &silenced,
            limit,
            reach,
        };
        // Statically imported members a rule rewrites are written with their owner first.
        let qualified = static_imports::qualify(&current, |text| {
            let edits = self.fix_pass(text, &pass, &mut Vec::new());
            edits.map_or(Vec::new(), |(edits, _)| {
                edits.into_iter().map(|e| e.range).collect()
            })
        });
        let unqualified = current.clone();
        if let Some(q) = &qualified {
            current = q.text.clone();
        }
        let mut fired: BTreeSet<usize> = BTreeSet::new();
        for _pass in 0..4 {
            let Some((edits, hits)) = self.fix_pass(&current, &pass, &mut result.changes) else {
                result.changes.clear();
                result.findings.push(format!(
                    "{}: the rewrite would make the file larger than {limit} bytes; file left unchanged",
                    self.id
                ));
                result.findings.extend(self.detect(src, project, reach));
                return result;
            };
            if edits.is_empty() {
                break;
            }
            fired.extend(hits);
            match edit::apply(&current, &edits) {
                Ok(next) => current = next,
                Err(e) => {
                    result.findings.push(format!("{}: {e}", self.id));
                    break;
                }
            }
        }
        if fired.is_empty() {
            current = unqualified;
        }
        if current != src {
            current = self.add_helpers(&current, &fired);
            current = self.fix_imports(&current, &fired);
            if let Some(q) = qualified.filter(|_| !fired.is_empty()) {
                let unused: Vec<Edit> = q
                    .unused_static_imports(&current)
                    .into_iter()
                    .map(|r| Edit::replace(r, ""))
                    .collect();
                current = edit::apply(&current, &unused).unwrap_or(current);
                // Static imports opening the file leave no blank first line behind.
                if !unused.is_empty() && !src.starts_with(['\n', '\r']) {
                    current = current.trim_start_matches(['\n', '\r']).to_string();
                }
            }
            match java_syntax::parse(&current) {
                Some(p) if p.syntax_error.is_none() => result.text = Some(current.clone()),
                _ => {
                    result.changes.clear();
                    result.findings.push(format!(
                        "{}: the rewrite would not parse; file left unchanged",
                        self.id
                    ));
                    current = src.to_string();
                }
            }
        }
        result
            .findings
            .extend(self.detect(&current, project, reach));
        result
    }

    /// One pass of every fix over `src`; `None` once the rewritten text would exceed `limit`
    /// bytes.
    fn fix_pass(
        &self,
        src: &str,
        pass: &Pass,
        changes: &mut Vec<String>,
    ) -> Option<(Vec<Edit>, Vec<usize>)> {
        let Pass {
            project,
            silenced,
            limit,
            reach,
        } = *pass;
        let mut len = src.len();
        let grep = Java.ast_grep(src);
        let root = grep.root();
        let typed = TypedFile::new(src, project);
        let mut edits: Vec<Edit> = Vec::new();
        let mut taken = BTreeSet::new();
        let mut hits = Vec::new();
        for (i, rule) in self.rules.iter().enumerate() {
            let Some(fixer) = rule.fixer().filter(|_| !silenced.contains(&i)) else {
                continue;
            };
            // A fix naming a type the file already uses for another one would not compile.
            if rule.add_imports.iter().any(|imp| typed.import_clashes(imp)) {
                continue;
            }
            for m in rule.matches(&root, &typed, reach) {
                let matched = m.range().len();
                let most = rule.growth.factor.saturating_mul(matched) + rule.growth.literal;
                if (len + most).saturating_sub(matched) > limit {
                    return None;
                }
                let e = m.make_edit(&rule.config.matcher, fixer);
                let range = e.position..e.position + e.deleted_length;
                let Ok(replacement) = String::from_utf8(e.inserted_text) else {
                    continue;
                };
                if replacement == src[range.clone()] {
                    continue;
                }
                // A deletion that empties its line takes the line with it.
                let range = if replacement.is_empty() {
                    deletion_span(src, range)
                } else {
                    range
                };
                // Nested or overlapping matches (the line a deletion takes included) wait
                // for the next pass, so the taken ranges never overlap.
                if overlaps_taken(&taken, &range) {
                    continue;
                }
                len = (len + replacement.len()).saturating_sub(range.len());
                if len > limit {
                    return None;
                }
                changes.push(format!(
                    "{}: {} -> {}",
                    rule.config.id,
                    one_line(&src[range.clone()]),
                    one_line(&replacement)
                ));
                taken.insert((range.start, range.end));
                edits.push(Edit::replace(range, replacement));
                hits.push(i);
            }
        }
        Some((edits, hits))
    }

    /// `src` with the helper of every fired rule that has one, in each top-level type that
    /// calls it (several rules may share one helper: it goes once).
    fn add_helpers(&self, src: &str, fired: &BTreeSet<usize>) -> String {
        let mut helpers: Vec<&RuleHelper> = Vec::new();
        for h in fired.iter().filter_map(|&i| self.rules[i].helper.as_ref()) {
            if !helpers.iter().any(|seen| seen.name == h.name) {
                helpers.push(h);
            }
        }
        helpers.iter().fold(src.to_string(), |text, h| {
            let lines: Vec<&str> = h.lines.iter().map(String::as_str).collect();
            let edits = static_helper::place_for_calls(&text, &h.name, &lines);
            edit::apply(&text, &edits).unwrap_or(text)
        })
    }

    /// Detector hits on the final text, one per line.
    fn detect(&self, src: &str, project: &java_types::Project, reach: Reach) -> Vec<String> {
        let grep = Java.ast_grep(src);
        let root = grep.root();
        let typed = TypedFile::new(src, project);
        let mut out = Vec::new();
        for rule in self.rules.iter().filter(|r| r.fixer().is_none()) {
            for m in rule.matches(&root, &typed, reach) {
                let line = m.start_pos().line() + 1;
                let finding = format!(
                    "{}/{} line {line}: {}",
                    self.id, rule.config.id, rule.config.message
                );
                if !out.contains(&finding) {
                    out.push(finding);
                }
            }
        }
        out
    }

    /// Drops the imports fired rules orphaned, then adds the ones they need.
    fn fix_imports(&self, src: &str, fired: &BTreeSet<usize>) -> String {
        let fired: Vec<&CompiledRule> = fired.iter().map(|&i| &self.rules[i]).collect();
        // Several fired rules may drop the same import: each goes once.
        let dropped: BTreeSet<&str> = fired
            .iter()
            .flat_map(|r| &r.remove_imports)
            .map(String::as_str)
            .collect();
        let Some(src) = drop_unused_imports(src, &dropped.into_iter().collect::<Vec<_>>()) else {
            return src.to_string();
        };
        let needed: BTreeSet<&str> = fired
            .iter()
            .flat_map(|r| &r.add_imports)
            .map(String::as_str)
            .collect();
        add_imports(&src, &needed)
    }

    pub fn rule_ids(&self) -> impl Iterator<Item = &str> {
        self.rules.iter().map(|r| r.config.id.as_str())
    }
}

/// Whether `range` overlaps one of the `taken` ranges (start, end), which overlap none of
/// each other: sorted by start, their ends rise too, so the last one starting before
/// `range` ends reaches furthest. A lookup, not a scan, for files with thousands of matches.
fn overlaps_taken(taken: &BTreeSet<(usize, usize)>, range: &std::ops::Range<usize>) -> bool {
    taken
        .range(..(range.end, 0))
        .next_back()
        .is_some_and(|&(_, end)| range.start < end)
}

fn compile(
    recipe: &str,
    mut raw: serde_json::Map<String, serde_json::Value>,
    suppressible: bool,
) -> anyhow::Result<CompiledRule> {
    let id = raw
        .get("id")
        .and_then(|v| v.as_str())
        .unwrap_or("?")
        .to_string();
    let mut strings = |key: &str| -> anyhow::Result<Vec<String>> {
        Ok(match raw.remove(key) {
            Some(v) => serde_json::from_value(v)
                .map_err(|e| anyhow::anyhow!("{recipe}/{id}: {key}: {e}"))?,
            None => Vec::new(),
        })
    };
    let add_imports = strings("add_imports")?;
    let remove_imports = strings("remove_imports")?;
    let types = match raw.remove("types") {
        Some(v) => serde_json::from_value::<BTreeMap<String, OneOrMany>>(v)
            .map_err(|e| anyhow::anyhow!("{recipe}/{id}: types: {e}"))?
            .into_iter()
            .map(|(k, v)| (k.trim_start_matches('$').to_string(), v.into_vec()))
            .collect(),
        None => BTreeMap::new(),
    };
    let values = match raw.remove("values") {
        Some(v) => serde_json::from_value::<BTreeMap<String, String>>(v)
            .map_err(|e| anyhow::anyhow!("{recipe}/{id}: values: {e}"))?
            .into_iter()
            .map(|(k, v)| {
                let pattern = regex::Regex::new(&v)
                    .map_err(|e| anyhow::anyhow!("{recipe}/{id}: values: {k}: {e}"))?;
                Ok((k.trim_start_matches('$').to_string(), pattern))
            })
            .collect::<anyhow::Result<_>>()?,
        None => BTreeMap::new(),
    };
    let runtime_values = match raw.remove("runtime_values") {
        Some(v) => serde_json::from_value::<Vec<String>>(v)
            .map_err(|e| anyhow::anyhow!("{recipe}/{id}: runtime_values: {e}"))?
            .into_iter()
            .map(|k| k.trim_start_matches('$').to_string())
            .collect(),
        None => Vec::new(),
    };
    let mut type_pairs = |key: &str| -> anyhow::Result<BTreeMap<String, String>> {
        Ok(match raw.remove(key) {
            Some(v) => serde_json::from_value::<BTreeMap<String, String>>(v)
                .map_err(|e| anyhow::anyhow!("{recipe}/{id}: {key}: {e}"))?
                .into_iter()
                .map(|(k, v)| {
                    (
                        k.trim_start_matches('$').to_string(),
                        v.trim_start_matches('$').to_string(),
                    )
                })
                .collect(),
            None => BTreeMap::new(),
        })
    };
    let same_types = type_pairs("same_types")?;
    let element_types = type_pairs("element_types")?;
    let stream_lists = type_pairs("stream_lists")?;
    let unless_project_uses = match raw.remove("unless_project_uses") {
        Some(v) => serde_json::from_value::<Vec<String>>(v)
            .map_err(|e| anyhow::anyhow!("{recipe}/{id}: unless_project_uses: {e}"))?,
        None => Vec::new(),
    };
    let growth = expansion(&raw).map_err(|e| anyhow::anyhow!("{recipe}/{id}: {e}"))?;
    let fix_calls = raw.get("fix").map(called_names).unwrap_or_default();
    let helper = match raw.remove("helper") {
        Some(serde_json::Value::String(text)) => {
            Some(RuleHelper::parse(&text).map_err(|e| anyhow::anyhow!("{recipe}/{id}: {e}"))?)
        }
        Some(_) => anyhow::bail!("{recipe}/{id}: helper: the method's Java text"),
        None => None,
    };
    raw.entry("language").or_insert_with(|| "java".into());
    let spec: SerializableRuleConfig<Java> =
        serde_json::from_value(raw.into()).map_err(|e| anyhow::anyhow!("{recipe}/{id}: {e}"))?;
    let config = RuleConfig::try_from(spec, &GlobalRules::default())
        .map_err(|e| anyhow::anyhow!("{recipe}/{id}: {e}"))?;
    anyhow::ensure!(
        config.fixer.len() <= 1,
        "{recipe}/{id}: at most one fix per rule"
    );
    anyhow::ensure!(
        !config.fixer.is_empty() || !config.message.is_empty(),
        "{recipe}/{id}: a rule without a fix needs a message"
    );
    Ok(CompiledRule {
        config,
        add_imports,
        remove_imports,
        types,
        values,
        runtime_values,
        same_types,
        element_types,
        stream_lists,
        unless_project_uses,
        growth,
        helper,
        fix_calls,
        suppressible,
        inherited: None,
    })
}

/// The twin of a rule for a call on a typed receiver, `$C.reshape(..)` with `C` a
/// `java.awt.Rectangle`: the same call without a receiver, `reshape(..)`, in a class that
/// extends Rectangle and inherits the method (it, and the classes between, declare neither
/// it nor what the fix calls). The fix drops `$C.`, or passes `this` where it names `$C`
/// otherwise. A rule whose other conditions name the receiver (values, transforms,
/// constraints, relational rules) has no twin: there is no receiver to check.
fn in_subclass(
    raw: &serde_json::Map<String, serde_json::Value>,
) -> Option<(serde_json::Map<String, serde_json::Value>, Inherited)> {
    use serde_json::Value;
    static RECEIVER_CALL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?s)^\$([A-Z][A-Z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*\s*\(.*\))$")
            .expect("valid regex")
    });
    let rule = raw.get("rule")?.as_object()?;
    let pattern = rule.get("pattern").filter(|_| rule.len() == 1)?.as_str()?;
    let caps = RECEIVER_CALL.captures(pattern.trim())?;
    let var = &caps[1];
    let types = raw.get("types")?.as_object()?;
    let key = types.keys().find(|k| k.trim_start_matches('$') == var)?;
    let fqns = serde_json::from_value::<OneOrMany>(types[key].clone())
        .ok()?
        .into_vec();
    let named = regex::Regex::new(&format!(r"\${var}\b")).ok()?;
    // `$C` in a template, or `C` as a key or item (`constraints: { C: .. }`).
    let named_or_keyed = regex::Regex::new(&format!(r#"(?:\$|"){var}\b"#)).ok()?;
    let names_it = |k: &str| {
        raw.get(k)
            .is_some_and(|v| named_or_keyed.is_match(&v.to_string()))
    };
    if [
        "values",
        "runtime_values",
        "same_types",
        "element_types",
        "stream_lists",
        "transform",
        "constraints",
    ]
    .iter()
    .any(|k| names_it(k))
    {
        return None;
    }
    let mut twin = raw.clone();
    let id = raw.get("id")?.as_str()?;
    twin.insert("id".into(), format!("{id}-in-subclass").into());
    twin.insert("rule".into(), serde_json::json!({ "pattern": &caps[2] }));
    let mut other_types = types.clone();
    other_types.remove(key);
    if other_types.is_empty() {
        twin.remove("types");
    } else {
        twin.insert("types".into(), other_types.into());
    }
    let mut as_this = false;
    let mut bare = |template: &str| {
        let dropped = template.replace(&format!("${var}."), "");
        as_this |= named.is_match(&dropped);
        Value::from(named.replace_all(&dropped, "this").into_owned())
    };
    match raw.get("fix") {
        Some(Value::String(t)) => {
            let fixed = bare(t);
            twin.insert("fix".into(), fixed);
        }
        Some(Value::Object(o)) => {
            let mut o = o.clone();
            if let Some(t) = o.get("template").and_then(Value::as_str) {
                let fixed = bare(t);
                o.insert("template".into(), fixed);
            }
            twin.insert("fix".into(), o.into());
        }
        _ => {}
    }
    Some((
        twin,
        Inherited {
            types: fqns,
            as_this,
        },
    ))
}

/// The names a fix template calls (`setVisible` in `$C.setVisible(true)`).
fn called_names(fix: &serde_json::Value) -> Vec<String> {
    static CALL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(").expect("valid regex")
    });
    let text = fix.to_string();
    let names: BTreeSet<String> = CALL
        .captures_iter(&text)
        .map(|c| c[1].to_string())
        .collect();
    names.into_iter().collect()
}

/// `types: { R: java.util.Date }` or `{ R: [java.util.Date, java.sql.Date] }`.
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

fn one_line(s: &str) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 80 {
        format!("{}…", flat.chars().take(79).collect::<String>())
    } else {
        flat
    }
}

/// Finishes a code transform: applies `edits` to `src` and adds `imports`, keeping the
/// text only when it still parses; else the changes go and `label` says why in findings.
pub fn apply_code_edits(
    src: &str,
    edits: &[Edit],
    imports: &BTreeSet<&str>,
    label: &str,
    result: &mut FileResult,
) {
    match edit::apply(src, edits) {
        Ok(out) => {
            let out = add_imports(&out, imports);
            if java_syntax::parse(&out).is_some_and(|p| p.syntax_error.is_none()) {
                result.text = Some(out);
            } else {
                result.changes.clear();
                result
                    .findings
                    .push(format!("{label} rewrite would not parse; left unchanged"));
            }
        }
        Err(e) => {
            result.changes.clear();
            result.findings.push(format!("{label} rewrite: {e}"));
        }
    }
}

/// [`apply_code_edits`] adding no import, then dropping the imports of `dropped` the new
/// text no longer uses.
pub fn apply_code_edits_dropping(
    src: &str,
    edits: &[Edit],
    dropped: &[&str],
    label: &str,
    result: &mut FileResult,
) {
    apply_code_edits(src, edits, &BTreeSet::new(), label, result);
    if let Some(out) = result.text.take() {
        result.text = Some(drop_unused_imports(&out, dropped).unwrap_or(out));
    }
}

/// `src` without its imports of those of `dropped` (`java.util.Vector`) whose simple name the
/// file no longer uses; `None` when it does not parse. Shared by the rules and the code
/// transforms.
pub fn drop_unused_imports(src: &str, dropped: &[&str]) -> Option<String> {
    let parsed = java_syntax::parse(src)?;
    let root = parsed.tree.root_node();
    let imports = java_syntax::imports(root, src);
    let used = java_syntax::names_used(root, src, &[]);
    let removals: Vec<Edit> = dropped
        .iter()
        .filter(|imp| !used.contains(imp.rsplit('.').next().unwrap_or(imp)))
        .flat_map(|imp| imports.iter().filter(move |i| import_text(i) == *imp))
        .map(|i| Edit::replace(whole_line(src, i.range.clone()), ""))
        .collect();
    Some(edit::apply(src, &removals).unwrap_or_else(|_| src.to_string()))
}

/// `src` with an import of each of `needed` it lacks, after its last import (or its package
/// declaration). Shared by the rules and the code transforms.
pub fn add_imports(src: &str, needed: &BTreeSet<&str>) -> String {
    if needed.is_empty() {
        return src.to_string();
    }
    let Some(parsed) = java_syntax::parse(src) else {
        return src.to_string();
    };
    let root = parsed.tree.root_node();
    let imports = java_syntax::imports(root, src);
    let eol = line_ending(src);
    let text: String = needed
        .iter()
        .filter(|i| !is_imported(&imports, i))
        .map(|i| format!("{eol}import {i};"))
        .collect();
    if text.is_empty() {
        return src.to_string();
    }
    let anchor = imports.last().map(|i| i.range.end).or_else(|| {
        let mut c = root.walk();
        root.children(&mut c)
            .find(|n| n.kind() == "package_declaration")
            .map(|p| p.end_byte())
    });
    let insert = match anchor {
        Some(at) => Edit::insert(at, text),
        None => Edit::insert(0, format!("{}{eol}", text.trim_start())),
    };
    edit::apply(src, &[insert]).unwrap_or_else(|_| src.to_string())
}

fn import_text(i: &Import) -> String {
    format!(
        "{}{}{}",
        if i.is_static { "static " } else { "" },
        i.path,
        if i.wildcard { ".*" } else { "" }
    )
}

fn is_imported(imports: &[Import], wanted: &str) -> bool {
    let (is_static, path) = match wanted.strip_prefix("static ") {
        Some(p) => (true, p),
        None => (false, wanted),
    };
    let package = path.rsplit_once('.').map_or("", |x| x.0);
    (!is_static && package == "java.lang")
        || imports.iter().any(|i| {
            i.is_static == is_static && (i.path == path || (i.wildcard && i.path == package))
        })
}

/// The built-in declarative catalog.
pub const BUILTIN_SOURCES: &[&str] = &[
    include_str!("catalog/java/wrapper-constructors.yml"),
    include_str!("catalog/java/wrapper-constructors-identity.yml"),
    include_str!("catalog/java/bigdecimal-rounding-mode.yml"),
    include_str!("catalog/java/base64-from-sun-misc.yml"),
    include_str!("catalog/java/jaxb-datatype-converter.yml"),
    include_str!("catalog/java/deprecated-jdk-renames.yml"),
    include_str!("catalog/java/underscore-identifier.yml"),
    include_str!("catalog/java/awt-swing-renames.yml"),
    // Before the detectors: a call it replaces is not also reported.
    include_str!("catalog/java/jdk-20-replacements.yml"),
    include_str!("catalog/java/thread-group-lifecycle.yml"),
    include_str!("catalog/java/jdk-18-21-apis.yml"),
    include_str!("catalog/java/removed-jdk-apis.yml"),
    include_str!("catalog/java/spring-security-6.yml"),
    include_str!("catalog/java/spring-boot-3-java.yml"),
    include_str!("catalog/java/spring-framework-6.yml"),
    include_str!("catalog/java/spring-boot-3-libraries.yml"),
    include_str!("catalog/java/spring-batch-5.yml"),
    include_str!("catalog/java/springfox-to-springdoc.yml"),
    include_str!("catalog/java/jakarta-ee-10-removals.yml"),
    include_str!("catalog/java/modernize-pattern-instanceof.yml"),
    include_str!("catalog/java/modernize-switch-expressions.yml"),
    include_str!("catalog/java/modernize-text-blocks.yml"),
    include_str!("catalog/java/modernize-var.yml"),
    include_str!("catalog/java/modernize-collection-factories.yml"),
    include_str!("catalog/java/modernize-stream-tolist.yml"),
    include_str!("catalog/java/modernize-string-formatted.yml"),
    include_str!("catalog/java/modernize-sequenced-collections.yml"),
    include_str!("catalog/java/modernize-optional-isempty.yml"),
    include_str!("catalog/java/modernize-path-of.yml"),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(id: &str) -> JavaRecipe {
        BUILTIN_SOURCES
            .iter()
            .map(|s| JavaRecipe::parse(s).unwrap())
            .find(|r| r.id == id)
            .unwrap()
    }

    /// A rule's helper goes once into each top-level type whose calls it serves, not where
    /// the file names it already or the call has no class to hold it; a malformed helper or
    /// two rules of one name are refused at load.
    #[test]
    fn a_rule_helper_is_added_once_per_calling_type() {
        let yaml = "id: h\ndescription: d\nrules:\n  - id: twice\n    rule: { pattern: '$X.old()' }\n    fix: 'twice($X)'\n    helper: |\n      private static int twice(int x) {\n          return 2 * x;\n      }\n";
        let r = JavaRecipe::parse(yaml).unwrap();
        let src = "class A {\n    int f(int a) { return a.old() + a.old(); }\n}\nclass B {\n    int g(int b) { return b.old(); }\n}\nenum E { ONE; int h(int e) { return e.old(); } }\n";
        let out = r.apply(src, &java_types::Project::default()).text.unwrap();
        assert_eq!(
            out.matches("private static int twice(int x)").count(),
            2,
            "{out}"
        );
        assert!(out.contains("return twice(a) + twice(a); }\n\n    private static int twice(int x) {\n        return 2 * x;\n    }\n}\nclass B"), "{out}");
        assert!(out.contains("return e.old();"), "{out}");
        let taken = "class A { int f(int a) { return a.old(); } void twice() { } }\n";
        assert!(
            r.apply(taken, &java_types::Project::default())
                .text
                .is_none()
        );
        let referenced = "class A { int f(int a) { return a.old(); } Object g() { return (IntUnaryOperator) A::twice; } }\n";
        assert!(
            r.apply(referenced, &java_types::Project::default())
                .text
                .is_none()
        );
        let variable = "class A { int f(int a) { int twice = a.old(); return twice; } }\n";
        assert!(
            r.apply(variable, &java_types::Project::default())
                .text
                .unwrap()
                .contains("int twice = twice(a);")
        );
        let broken = yaml.replace("return 2 * x;", "return 2 *;");
        assert!(JavaRecipe::parse(&broken).is_err());
        let public = yaml.replace("private static int", "public int");
        assert!(JavaRecipe::parse(&public).is_err());
        let dup = format!(
            "{yaml}  - id: twice\n    rule: {{ pattern: '$X.thrice()' }}\n    message: m\n"
        );
        assert!(
            JavaRecipe::parse(&dup)
                .unwrap_err()
                .to_string()
                .contains("two rules named twice")
        );
    }

    #[test]
    fn nested_matches_are_rewritten_in_later_passes() {
        let src = "class A { Object o = new Integer(new Integer(1).intValue()); }\n";
        let r = recipe("wrapper-constructors").apply(src, &java_types::Project::default());
        assert_eq!(
            r.text.as_deref(),
            Some("class A { Object o = Integer.valueOf(Integer.valueOf(1).intValue()); }\n")
        );
    }

    /// The lookup answers as a scan of every taken range would, for every small range
    /// against sets built the way `fix_pass` builds them (including empty ranges).
    #[test]
    fn overlap_lookup_agrees_with_a_scan() {
        let scan = |taken: &BTreeSet<(usize, usize)>, r: &std::ops::Range<usize>| {
            taken.iter().any(|&(s, e)| s < r.end && r.start < e)
        };
        let ranges: Vec<_> = (0..7).flat_map(|s| (s..7).map(move |e| s..e)).collect();
        for seed in 0..ranges.len() {
            let mut taken = BTreeSet::new();
            for r in ranges
                .iter()
                .cycle()
                .skip(seed)
                .step_by(3)
                .take(ranges.len())
            {
                assert_eq!(
                    overlaps_taken(&taken, r),
                    scan(&taken, r),
                    "{r:?} in {taken:?}"
                );
                if !scan(&taken, r) {
                    taken.insert((r.start, r.end));
                }
            }
        }
    }

    /// A generated file with thousands of matches costs a parse and a scope per pass, not
    /// per match (the per-match scope walk made 9,000 matches run for more than ten minutes).
    #[test]
    fn thousands_of_typed_matches_are_all_rewritten() {
        let body: String = (0..3000)
            .map(|i| format!("    Integer v{i} = new Integer({i});\n"))
            .collect();
        let src = format!("class Big {{\n  void f() {{\n{body}  }}\n}}\n");
        let out = recipe("wrapper-constructors")
            .apply(&src, &java_types::Project::default())
            .text
            .unwrap();
        assert_eq!(out.matches("Integer.valueOf(").count(), 3000);
        assert!(!out.contains("new Integer("));
    }

    #[test]
    fn imports_follow_the_fix() {
        let src = "package p;\n\nimport sun.misc.BASE64Encoder;\n\nclass A {\n  String s(byte[] b) { return new BASE64Encoder().encode(b); }\n}\n";
        let r = recipe("base64-from-sun-misc").apply(src, &java_types::Project::default());
        let out = r.text.unwrap();
        assert!(out.contains("import java.util.Base64;"), "{out}");
        assert!(!out.contains("sun.misc"), "{out}");
        assert!(r.findings.is_empty(), "{:?}", r.findings);
    }

    /// A repository's rule whose fix repeats its metavariable 60 times, and matches its own
    /// output: unchecked, the fourth pass asks for gigabytes. The file is left as it was,
    /// with the reason for the next tier.
    #[test]
    fn a_fix_that_grows_the_file_geometrically_is_refused() {
        let fix = vec!["$A"; 60].join(" + ");
        let yaml = format!(
            "id: grows\ndescription: d\nrules:\n  - id: r\n    rule:\n      pattern: return $A;\n    fix: \"return {fix};\"\n"
        );
        let src = "class A {\n  int f(int a, int b) { return a + b; }\n}\n";
        let r = JavaRecipe::parse(&yaml)
            .unwrap()
            .apply(src, &java_types::Project::default());
        assert_eq!(r.text, None);
        assert!(r.changes.is_empty(), "{:?}", r.changes);
        assert!(
            r.findings[0].contains("larger than 65640 bytes; file left unchanged"),
            "{:?}",
            r.findings
        );
    }

    /// A transform can multiply in one fix what the passes' limit only sees afterwards: a
    /// `replace` inserting 1,000 bytes between characters turned a 200 KB literal into 200
    /// MB. A rule's growth is bounded from its template and transforms before it runs; one
    /// above the bound, or with a transform whose output cannot be bounded, is refused; under
    /// it, a match whose bound does not fit the file's budget is never built.
    #[test]
    fn a_fix_is_bounded_before_it_is_built() {
        let rule = |transform: &str, fix: &str| {
            format!(
                "id: t\ndescription: d\nrules:\n  - id: r\n    rule:\n      pattern: return $A;\n    transform:\n      {transform}\n    fix: \"{fix}\"\n"
            )
        };
        let err = |yaml: String| JavaRecipe::parse(&yaml).unwrap_err().to_string();
        let wide = "x".repeat(1000);
        assert!(
            err(rule(
                &format!("T: {{ replace: {{ source: $A, replace: '', by: '{wide}' }} }}"),
                "return $T;"
            ))
            .contains("the fix can grow what it matches 2002 times (at most 64)")
        );
        assert!(
            err(rule(
                "T: { rewrite: { source: $A, rewriters: [x] } }",
                "return $T;"
            ))
            .contains("transform T: only replace, substring and convert objects")
        );
        let twenty = rule(
            &format!(
                "T: {{ replace: {{ source: $A, replace: '', by: '{}' }} }}",
                "x".repeat(20)
            ),
            "return $T;",
        );
        let src = format!(
            "class A {{\n  String s() {{ return \"{}\"; }}\n}}\n",
            "a".repeat(100_000)
        );
        let r = JavaRecipe::parse(&twenty)
            .unwrap()
            .apply(&src, &java_types::Project::default());
        assert_eq!(r.text, None);
        assert!(
            r.findings[0].contains("would make the file larger"),
            "{:?}",
            r.findings
        );
        // The built-in recipes' transforms are well inside the bound.
        assert_eq!(
            JavaRecipe::parse(&rule(
                "T: { replace: { source: $A, replace: ' +', by: '\", \"' } }",
                "return $T + $A;"
            ))
            .unwrap()
            .rules[0]
                .growth,
            Growth {
                factor: 10 + 1,
                literal: 15
            }
        );
    }

    #[test]
    fn a_user_rule_without_fix_or_message_is_refused() {
        let yaml = "id: x\ndescription: d\nrules:\n  - id: r\n    rule: { pattern: foo($A) }\n";
        let err = JavaRecipe::parse(yaml).unwrap_err().to_string();
        assert!(err.contains("needs a message"), "{err}");
    }
}
