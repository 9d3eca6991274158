//! What the project declares beyond the file a rule reads: the top-level types of each
//! package (a same-package `Character` shadows java.lang's) and, for typing across files,
//! each class's superclass, fields and method results, resolved in its own file. So
//! `other.getConnection().setUseCaches(..)` is typed when `getConnection` is declared in
//! another file, and `new Worker().stop()` is seen to call `Thread.stop` when `Worker extends
//! Thread` lives elsewhere.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, OnceLock};

use tree_sitter::Node;

use super::{DeclaredClass, Scope};
use crate::java_syntax;

/// The project around one file. Its classes are indexed on first need: most files never
/// ask, and the index parses every file once.
#[derive(Default)]
pub struct Project<'t> {
    /// The top-level types the project declares, by package.
    packages: HashMap<String, Vec<String>>,
    /// The texts of the project's Java files, indexed for [`Project::class`].
    sources: Vec<&'t str>,
    classes: OnceLock<HashMap<String, DeclaredClass>>,
    /// Answers of [`Project::may_name`], asked once per word, not once per file.
    named: Mutex<HashMap<String, bool>>,
    /// Each source's package and top-level types, read on first need.
    files: OnceLock<Vec<(String, Vec<String>)>>,
}

impl<'t> Project<'t> {
    /// `packages`: the top-level types declared in each package (of every module, even
    /// those not migrated); `sources`: the files whose classes may be typed across files.
    pub fn new(packages: HashMap<String, Vec<String>>, sources: Vec<&'t str>) -> Self {
        Self {
            packages,
            sources,
            classes: OnceLock::new(),
            named: Mutex::default(),
            files: OnceLock::new(),
        }
    }

    /// A project of just these files (a case of a conformance suite, a test), with `more`
    /// top-level types declared in the first file's package by files not given.
    pub fn of_sources(sources: Vec<&'t str>, more: &[String]) -> Self {
        let mut packages: HashMap<String, Vec<String>> = HashMap::new();
        for (i, src) in sources.iter().enumerate() {
            let (package, top) = top_level(src);
            let types = packages.entry(package).or_default();
            types.extend(top);
            if i == 0 {
                types.extend(more.iter().cloned());
            }
        }
        Self::new(packages, sources)
    }

    /// Whether no file of `package` but `file` says `word` (a method's or a class's name):
    /// then a member only visible in the package is used only in `file`. False where the
    /// project's files are not known.
    pub fn only_file_naming(&self, package: &str, word: &str, file: &str) -> bool {
        self.other_files_naming(word, file)
            .is_some_and(|others| others.iter().all(|(p, _)| *p != package))
    }

    /// The project's files but `file` that say `word`, each with its package; None where the
    /// project's files are not known.
    pub fn other_files_naming(&self, word: &str, file: &str) -> Option<Vec<(&str, &'t str)>> {
        if self.sources.is_empty() {
            return None;
        }
        let files = self
            .files
            .get_or_init(|| self.sources.iter().map(|s| top_level(s)).collect());
        let (_, own) = top_level(file);
        let named = regex::Regex::new(&format!(r"\b{}\b", regex::escape(word))).ok()?;
        // A file declaring this file's types is this file, as another pass left it.
        Some(
            self.sources
                .iter()
                .zip(files)
                .filter(|(src, (_, types))| *types != own && named.is_match(src))
                .map(|(src, (p, _))| (p.as_str(), *src))
                .collect(),
        )
    }

    /// Whether some file of the project may say `word`: one does, or the project's files
    /// are not known.
    pub fn may_name(&self, word: &str) -> bool {
        if self.sources.is_empty() {
            return true;
        }
        let mut named = self.named.lock().unwrap_or_else(|e| e.into_inner());
        *named
            .entry(word.to_string())
            .or_insert_with(|| self.sources.iter().any(|s| s.contains(word)))
    }

    /// Whether a known file of the project says `word`; false where the files are not known.
    pub fn names_elsewhere(&self, word: &str) -> bool {
        !self.sources.is_empty() && self.may_name(word)
    }

    /// The top-level types the project declares in `package`.
    pub fn package_types(&self, package: &str) -> &[String] {
        self.packages.get(package).map_or(&[], Vec::as_slice)
    }

    fn declares(&self, package: &str, simple: &str) -> bool {
        self.package_types(package).iter().any(|t| t == simple)
    }

    /// The class (or interface) the project declares as `fqn` (`com.acme.Worker`,
    /// `com.acme.Outer.Inner`); none where two files declare it (two modules, say).
    pub(super) fn class(&self, fqn: &str) -> Option<&DeclaredClass> {
        // Most names are the JDK's or a library's: those need no index.
        let ours = self.packages.iter().any(|(package, types)| {
            let rest = if package.is_empty() {
                Some(fqn)
            } else {
                fqn.strip_prefix(package.as_str())
                    .and_then(|r| r.strip_prefix('.'))
            };
            rest.is_some_and(|r| types.iter().any(|t| r.split('.').next() == Some(t)))
        });
        if !ours {
            return None;
        }
        self.classes.get_or_init(|| self.index()).get(fqn)
    }

    /// Every class the project declares (building the index).
    pub(super) fn classes(&self) -> impl Iterator<Item = &DeclaredClass> {
        self.classes.get_or_init(|| self.index()).values()
    }

    fn index(&self) -> HashMap<String, DeclaredClass> {
        let mut found: HashMap<String, Option<DeclaredClass>> = HashMap::new();
        for src in &self.sources {
            let Some(parsed) = java_syntax::parse(src) else {
                continue;
            };
            let root = parsed.tree.root_node();
            let scope = Scope::new(root, src).in_project(self);
            java_syntax::walk(root, |n| {
                if !matches!(n.kind(), "class_declaration" | "interface_declaration") {
                    return;
                }
                let Some(fqn) = type_fqn(n, &scope.package, src) else {
                    return;
                };
                let class = DeclaredClass::of(n, src).resolved_in(&scope);
                found
                    .entry(fqn)
                    .and_modify(|twice| *twice = None)
                    .or_insert(Some(class));
            });
        }
        found
            .into_iter()
            .filter_map(|(fqn, class)| Some((fqn, class?)))
            .collect()
    }
}

/// A file's package and the types it declares at the top level.
fn top_level(src: &str) -> (String, Vec<String>) {
    let Some(parsed) = java_syntax::parse(src) else {
        return (String::new(), Vec::new());
    };
    let root = parsed.tree.root_node();
    let mut c = root.walk();
    let types = root
        .named_children(&mut c)
        .filter(|n| java_syntax::TYPE_DECLARATIONS.contains(&n.kind()))
        .map(|n| java_syntax::field_text(n, "name", src).to_string())
        .collect();
    (java_syntax::package_name(root, src), types)
}

/// `com.acme.Outer.Inner` for the declaration of `Inner` nested in `Outer`; none inside a
/// method or an anonymous class, whose classes no other file can name.
pub(super) fn type_fqn(decl: Node, package: &str, src: &str) -> Option<String> {
    let mut names = vec![java_syntax::field_text(decl, "name", src)];
    let mut cur = decl.parent();
    while let Some(n) = cur {
        match n.kind() {
            "class_body" | "interface_body" | "enum_body" | "enum_body_declarations" => {}
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration" => names.push(java_syntax::field_text(n, "name", src)),
            "program" => break,
            _ => return None,
        }
        cur = n.parent();
    }
    names.reverse();
    let nested = names.join(".");
    Some(if package.is_empty() {
        nested
    } else {
        format!("{package}.{nested}")
    })
}

/// The JDK's public top-level types by package, generated from JDK 17 with the method table
/// (`scripts/jdk-returns.sh`).
fn jdk_types() -> &'static PackageTable {
    static TABLE: LazyLock<PackageTable> =
        LazyLock::new(|| package_table(include_str!("../jdk_types.tsv")));
    &TABLE
}

/// Those of them that are final classes (generated alike).
pub(super) fn jdk_final_types() -> &'static PackageTable {
    static TABLE: LazyLock<PackageTable> =
        LazyLock::new(|| package_table(include_str!("../jdk_final_types.tsv")));
    &TABLE
}

/// Simple type names by package.
type PackageTable = HashMap<&'static str, Vec<&'static str>>;

/// Reads `package TAB Name Name ..` rows.
fn package_table(tsv: &'static str) -> PackageTable {
    tsv.lines()
        .filter_map(|row| row.split_once('\t'))
        .map(|(package, names)| (package, names.split(' ').collect()))
        .collect()
}

const PRIMITIVES: &[&str] = &[
    "boolean", "byte", "char", "short", "int", "long", "float", "double", "void",
];

impl Scope<'_> {
    /// The type written `written` in this file, spelled so any file reads it alike: its
    /// names fully qualified (`java.util.Map<java.lang.String, com.acme.Job>[]`). A name
    /// this file cannot resolve (a type variable, an on-demand import from a library)
    /// becomes `?`, which no type is.
    pub(super) fn canonical(&self, written: &str) -> String {
        let written = written.trim();
        if let Some(element) = written.strip_suffix("[]") {
            return format!("{}[]", self.canonical(element));
        }
        if let Some(bound) = written.strip_prefix("? extends ") {
            return format!("? extends {}", self.canonical(bound));
        }
        if let Some(bound) = written.strip_prefix("? super ") {
            return format!("? super {}", self.canonical(bound));
        }
        if let Some((raw, args)) = written.split_once('<') {
            let Some(args) = args.trim_end().strip_suffix('>') else {
                return "?".into();
            };
            let args: Vec<String> = java_syntax::top_level_arguments(args)
                .iter()
                .map(|a| self.canonical(a))
                .collect();
            return format!("{}<{}>", self.canonical(raw), args.join(", "));
        }
        if written == "?" || PRIMITIVES.contains(&written) {
            return written.to_string();
        }
        match written.split_once('.') {
            Some((head, _)) if !head.starts_with(char::is_uppercase) => written.to_string(),
            Some((head, rest)) => self
                .qualified(head)
                .map_or_else(|| "?".into(), |outer| format!("{outer}.{rest}")),
            None => self.qualified(written).unwrap_or_else(|| "?".into()),
        }
    }

    /// The fully qualified name of the type the simple name `simple` denotes here, by Java's
    /// order: declared in this file, single-type import, same package, on-demand imports,
    /// java.lang. None for a type variable, or where an import from outside the project and
    /// the JDK might supply it.
    fn qualified(&self, simple: &str) -> Option<String> {
        if self.declared.iter().any(|d| d == simple) {
            return self.declared_fqn(simple);
        }
        if let Some(import) = self
            .imports
            .iter()
            .find(|i| !i.wildcard && !i.is_static && i.path.rsplit('.').next() == Some(simple))
        {
            return Some(import.path.clone());
        }
        let project = self.project?;
        let prefixed = |package: &str| {
            if package.is_empty() {
                simple.to_string()
            } else {
                format!("{package}.{simple}")
            }
        };
        if project.declares(&self.package, simple) {
            return Some(prefixed(&self.package));
        }
        let mut candidates = Vec::new();
        let mut unknown = false;
        for i in self.imports.iter().filter(|i| i.wildcard && !i.is_static) {
            let jdk = jdk_types().get(i.path.as_str());
            if project.declares(&i.path, simple) || jdk.is_some_and(|t| t.contains(&simple)) {
                candidates.push(prefixed(&i.path));
            } else if jdk.is_none() && project.package_types(&i.path).is_empty() {
                // A library's package (or a nested type's members): it may hold the name.
                unknown = true;
            }
        }
        let java_lang = jdk_types()
            .get("java.lang")
            .is_some_and(|t| t.contains(&simple));
        match candidates.as_slice() {
            [one] if !unknown => Some(one.clone()),
            // Two on-demand imports naming one type do not compile; java.lang's types
            // cannot be hidden by an on-demand import without that ambiguity either.
            [] if java_lang => Some(format!("java.lang.{simple}")),
            _ => None,
        }
    }

    /// The fully qualified name of the one type named `simple` this file declares outside
    /// methods; none for a type variable or a name declared twice.
    fn declared_fqn(&self, simple: &str) -> Option<String> {
        let mut named = self.declared_types.iter().filter(|(n, _)| n == simple);
        match (named.next(), named.next()) {
            (Some((_, fqn)), None) => fqn.clone(),
            _ => None,
        }
    }

    /// The class another file of the project declares that the type written `written`
    /// here denotes.
    pub(super) fn project_class(&self, written: &str) -> Option<&DeclaredClass> {
        let canonical = self.canonical(written);
        let raw = canonical.split('<').next().unwrap_or("");
        self.project?.class(raw)
    }
}

impl DeclaredClass {
    /// This class, read in its own file, with its types spelled so any file reads them alike.
    fn resolved_in(self, scope: &Scope) -> Self {
        let resolve = |members: Vec<(String, String)>| -> Vec<(String, String)> {
            members
                .into_iter()
                .map(|(name, ty)| (name, scope.canonical(&ty)))
                .collect()
        };
        Self {
            name: self.name,
            superclass: self.superclass.map(|s| scope.canonical(&s)),
            interfaces: self.interfaces.iter().map(|i| scope.canonical(i)).collect(),
            methods: self.methods,
            fields: resolve(self.fields),
            returns: resolve(self.returns),
        }
    }
}
