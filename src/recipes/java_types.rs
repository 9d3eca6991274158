//! Which type a name or an expression in a Java file denotes, read from the file alone:
//! its imports, its package, the types it declares and the declarations in scope. A rule
//! that must only touch `java.util.Date` (not a project's own `Date`, not a `Date` from
//! another import) asks [`Scope::denotes`]; when the file does not say, the answer is no,
//! so a recipe leaves what it cannot prove alone.

use std::collections::{BTreeSet, HashMap};

use tree_sitter::Node;

use crate::java_syntax::{self, Import};

mod project;
mod streams;
pub use project::Project;

/// Each call of `method` in `src`, with the file's scope: where a code recipe that rewrites
/// calls of one method starts. Returns `None`, having visited nothing, when `src` does not
/// name `method` or does not parse cleanly (a recipe edits only a file it read whole);
/// otherwise the file's imports, for the recipe's own import edits.
pub fn visit_calls(
    src: &str,
    project: &Project,
    method: &str,
    mut visit: impl FnMut(Node, &Scope),
) -> Option<Vec<Import>> {
    let parsed = java_syntax::parse_naming(src, method)?;
    let root = parsed.tree.root_node();
    let scope = Scope::new(root, src).in_project(project);
    java_syntax::walk(root, |n| {
        if n.kind() == "method_invocation" && java_syntax::field_text(n, "name", src) == method {
            visit(n, &scope);
        }
    });
    Some(scope.imports)
}

/// Every identifier in the file spelled like the variable name `name` declares, but that
/// declaration: where a recipe moving a variable with all its uses looks at each. A second
/// declaration of the name, or a method of that name, is among them, so a recipe accepting
/// only the uses it can move never moves a shadowed or ambiguous one.
pub fn mentions<'t>(root: Node<'t>, name: Node<'t>, src: &str) -> Vec<Node<'t>> {
    let spelled = java_syntax::text(name, src);
    let mut out = Vec::new();
    java_syntax::walk(root, |x| {
        if x.kind() == "identifier" && x.id() != name.id() && java_syntax::text(x, src) == spelled {
            out.push(x);
        }
    });
    out
}

/// The mentions of the variable `name` declares that lie inside `block` (its scope).
pub fn mentions_within<'t>(block: Node<'t>, name: Node<'t>, src: &str) -> Vec<Node<'t>> {
    let root = java_syntax::ancestors(block).last().unwrap_or(block);
    mentions(root, name, src)
        .into_iter()
        .filter(|m| block.start_byte() <= m.start_byte() && m.end_byte() <= block.end_byte())
        .collect()
}

/// The local variable `value` initializes (`T name = value;`): its declarator and its
/// declaration.
pub fn local_initialized_by(value: Node) -> Option<(Node, Node)> {
    let declarator = value
        .parent()
        .filter(|d| d.kind() == "variable_declarator")?;
    let declaration = declarator
        .parent()
        .filter(|d| d.kind() == "local_variable_declaration")?;
    Some((declarator, declaration))
}

/// What a file declares and imports, for resolving the names it uses.
pub struct Scope<'a> {
    src: &'a str,
    package: String,
    imports: Vec<Import>,
    declared: Vec<String>,
    /// The types this file declares, each with its fully qualified name where other files
    /// can name it.
    declared_types: Vec<(String, Option<String>)>,
    /// The project around the file: the types of its package (a `Character` there shadows
    /// java.lang's, which the file alone cannot tell) and the classes of its other files.
    project: Option<&'a Project<'a>>,
    /// The classes (and interfaces) this file declares, for calls their instances inherit.
    classes: Vec<DeclaredClass>,
}

/// A class the file declares, as far as a call on its instances goes. Types are as the
/// file writes them; for a class of another file, fully qualified ([`Project`]).
struct DeclaredClass {
    name: String,
    /// Its `extends` type, type arguments dropped.
    superclass: Option<String>,
    /// The interfaces it implements (an interface: extends), type arguments dropped.
    interfaces: Vec<String>,
    /// The methods its body declares.
    methods: Vec<String>,
    /// The fields its body declares: name and type as written.
    fields: Vec<(String, String)>,
    /// The return type as written of each method its body declares.
    returns: Vec<(String, String)>,
}

impl DeclaredClass {
    fn of(class: Node, src: &str) -> Self {
        let superclass = java_syntax::superclass_written(class, src).map(str::to_string);
        let interfaces = java_syntax::named_children(class)
            .into_iter()
            .filter(|n| matches!(n.kind(), "super_interfaces" | "extends_interfaces"))
            .flat_map(java_syntax::named_children)
            .flat_map(java_syntax::named_children)
            .map(|t| {
                let written = java_syntax::text(t, src);
                written
                    .split('<')
                    .next()
                    .unwrap_or(written)
                    .trim()
                    .to_string()
            })
            .collect();
        let mut methods = Vec::new();
        let mut fields = Vec::new();
        let mut returns = Vec::new();
        if let Some(body) = class.child_by_field_name("body") {
            let mut c = body.walk();
            for m in body.named_children(&mut c) {
                match m.kind() {
                    "method_declaration" => {
                        let name = java_syntax::field_text(m, "name", src).to_string();
                        let ty = java_syntax::field_text(m, "type", src);
                        let dims = java_syntax::field_text(m, "dimensions", src);
                        returns.push((name.clone(), format!("{ty}{dims}")));
                        methods.push(name);
                    }
                    "field_declaration" => {
                        let ty = java_syntax::field_text(m, "type", src);
                        let mut c2 = m.walk();
                        for d in m.children_by_field_name("declarator", &mut c2) {
                            let dims = java_syntax::field_text(d, "dimensions", src);
                            let name = java_syntax::field_text(d, "name", src);
                            fields.push((name.to_string(), format!("{ty}{dims}")));
                        }
                    }
                    _ => {}
                }
            }
        }
        Self {
            name: java_syntax::field_text(class, "name", src).to_string(),
            superclass,
            interfaces,
            methods,
            fields,
            returns,
        }
    }
}

impl<'a> Scope<'a> {
    pub fn new(root: Node, src: &'a str) -> Self {
        let package = java_syntax::package_name(root, src);
        let mut declared = java_syntax::declared_type_names(root, src);
        let mut declared_types = Vec::new();
        let mut classes = Vec::new();
        java_syntax::walk(root, |n| {
            if matches!(n.kind(), "class_declaration" | "interface_declaration") {
                classes.push(DeclaredClass::of(n, src));
            }
            if java_syntax::TYPE_DECLARATIONS.contains(&n.kind()) {
                let name = java_syntax::field_text(n, "name", src).to_string();
                declared_types.push((name, project::type_fqn(n, &package, src)));
            }
            if n.kind() == "type_parameter" {
                let mut c = n.walk();
                if let Some(id) = n
                    .named_children(&mut c)
                    .find(|c| c.kind() == "type_identifier")
                {
                    declared.push(java_syntax::text(id, src).to_string());
                }
            }
        });
        Self {
            src,
            package,
            imports: java_syntax::imports(root, src),
            declared,
            declared_types,
            project: None,
            classes,
        }
    }

    /// This scope knowing the project around the file.
    pub fn in_project(mut self, project: &'a Project<'a>) -> Self {
        self.project = Some(project);
        self
    }

    /// The file's package (empty for the default package).
    pub fn package(&self) -> &str {
        &self.package
    }

    /// The top-level types the project declares in this file's package.
    fn package_types(&self) -> &[String] {
        self.project.map_or(&[], |p| p.package_types(&self.package))
    }

    /// Whether `node` (a type, or an expression whose type the file declares) is of the
    /// type `fqn` (`java.util.Date`, `java.lang.Runtime.Version`).
    pub fn denotes(&self, node: Node, fqn: &str) -> bool {
        match self.written_type(node) {
            Some(ty) => self.type_is(&ty, fqn),
            None => false,
        }
    }

    /// The value of a String constant this file spells out: a literal without escapes, a
    /// `+` of such values, and a final field of the file initialized with one (not hidden by
    /// a local or parameter). Anything else is unknown.
    pub fn constant_string(&self, node: Node) -> Option<String> {
        self.constant_within(node, 8)
    }

    /// [`Self::constant_string`], following at most `hops` fields (a cycle does not compile,
    /// but the source is untrusted).
    fn constant_within(&self, node: Node, hops: usize) -> Option<String> {
        match node.kind() {
            "string_literal" => {
                let literal = java_syntax::text(node, self.src);
                let value = literal.strip_prefix('"')?.strip_suffix('"')?;
                (!value.contains(['\\', '"'])).then(|| value.to_string())
            }
            "parenthesized_expression" => self.constant_within(node.named_child(0)?, hops),
            "binary_expression" if java_syntax::field_text(node, "operator", self.src) == "+" => {
                let left = self.constant_within(node.child_by_field_name("left")?, hops)?;
                let right = self.constant_within(node.child_by_field_name("right")?, hops)?;
                Some(left + &right)
            }
            "identifier" => {
                let value = java_syntax::final_field_value(node, self.src)?;
                self.constant_within(value, hops.checked_sub(1)?)
            }
            _ => None,
        }
    }

    /// Whether `receiver`, the object of a method call, is an instance of a class this file
    /// declares that extends `fqn` (directly or through other classes of the file) and
    /// inherits the called method: no class on the way declares it, nor any of `avoid` (the
    /// methods a rewrite would call instead). The JDK's method runs before the rewrite and
    /// its successor after, as for `fqn` itself.
    pub fn inherits_call(&self, receiver: Node, fqn: &str, avoid: &[String]) -> bool {
        let Some(call) = receiver.parent().filter(|p| {
            p.kind() == "method_invocation" && p.child_by_field_name("object") == Some(receiver)
        }) else {
            return false;
        };
        let called = java_syntax::field_text(call, "name", self.src);
        self.written_type(receiver)
            .is_some_and(|written| self.class_inherits(&written, called, fqn, avoid))
    }

    /// Whether `receiver`, the object of a method call typed `fqn`, may be an instance of a
    /// class of the project that overrides the called method (below `fqn`, in this file or
    /// another): the call then runs the override, which a rewrite to another method skips.
    pub fn overridden_for(&self, receiver: Node, fqn: &str) -> bool {
        let Some(call) = receiver.parent().filter(|p| {
            p.kind() == "method_invocation" && p.child_by_field_name("object") == Some(receiver)
        }) else {
            return false;
        };
        let called = java_syntax::field_text(call, "name", self.src);
        let overrides = |class: &DeclaredClass| {
            class.methods.iter().any(|m| m == called)
                && class
                    .superclass
                    .iter()
                    .chain(&class.interfaces)
                    .any(|s| self.reaches(s, fqn, 0))
        };
        self.classes.iter().any(overrides)
            || self.project.is_some_and(|p| p.classes().any(overrides))
    }

    /// Whether the type written `written` is `fqn` or a subtype of it through the
    /// project's classes and interfaces (`extends` and `implements` alike).
    fn reaches(&self, written: &str, fqn: &str, depth: usize) -> bool {
        if self.type_is(written, fqn) {
            return true;
        }
        // A hierarchy deeper than this is not worth following; a cycle does not compile.
        depth < 8
            && self.declared_class(written).is_some_and(|c| {
                c.superclass
                    .iter()
                    .chain(&c.interfaces)
                    .any(|s| self.reaches(s, fqn, depth + 1))
            })
    }

    /// The class written `written` and its superclasses, as far as the project declares
    /// them: each as written, with its declaration where the project has one; the first
    /// type the project does not declare ends it.
    fn lineage(&self, written: &str) -> Vec<(String, Option<&DeclaredClass>)> {
        let mut chain = Vec::new();
        let mut current = written.split('<').next().unwrap_or("").trim().to_string();
        // A chain longer than this is not worth following; a cycle does not compile.
        while chain.len() < 8 {
            let class = self.declared_class(&current);
            let next = class.and_then(|c| c.superclass.clone());
            chain.push((current, class));
            match next {
                Some(superclass) => current = superclass,
                None => break,
            }
        }
        chain
    }

    /// Whether `call`, a call without a receiver, calls a method the named class around it
    /// inherits from `fqn` (as [`Self::inherits_call`] on `this`). With `as_this`, the
    /// rewrite passes `this` on, so the call must not sit in a static member.
    pub fn inherits_bare_call(
        &self,
        call: Node,
        fqn: &str,
        avoid: &[String],
        as_this: bool,
    ) -> bool {
        if call.kind() != "method_invocation" || call.child_by_field_name("object").is_some() {
            return false;
        }
        let Some(body) = java_syntax::enclosing_class_body(call) else {
            return false;
        };
        let Some(class) = body.parent().filter(|c| c.kind() == "class_declaration") else {
            return false;
        };
        let in_static = std::iter::successors(call.parent(), |n| n.parent())
            .take_while(|n| n.id() != body.id())
            .any(|n| {
                n.kind() == "static_initializer"
                    || (matches!(n.kind(), "method_declaration" | "field_declaration")
                        && java_syntax::has_modifier(n, "static"))
            });
        if as_this && in_static {
            return false;
        }
        let called = java_syntax::field_text(call, "name", self.src);
        let name = java_syntax::field_text(class, "name", self.src);
        self.class_inherits(name, called, fqn, avoid)
    }

    /// Whether the project's class written `written` inherits `called` from `fqn`: it
    /// extends `fqn` through classes of the project, and none of them declares `called` or
    /// one of `avoid`.
    fn class_inherits(&self, written: &str, called: &str, fqn: &str, avoid: &[String]) -> bool {
        let chain = self.lineage(written);
        for (i, (_, class)) in chain.iter().enumerate() {
            let Some(class) = class else {
                return false;
            };
            if class
                .methods
                .iter()
                .any(|m| m == called || avoid.contains(m))
            {
                return false;
            }
            if chain
                .get(i + 1)
                .is_some_and(|(superclass, _)| self.type_is(superclass, fqn))
            {
                return true;
            }
        }
        false
    }

    /// The type of an expression as the source spells it (see [`Self::written_type`]): a
    /// rule asking whether an initializer's type is the one a declaration writes.
    pub fn type_of(&self, node: Node) -> Option<String> {
        self.written_type(node)
    }

    /// The type of the elements a for-each loop over `node` reads: an array's element type,
    /// a JDK collection's type argument (a wildcard gives none).
    pub fn element_type_of(&self, node: Node) -> Option<String> {
        let ty = self.written_type(node)?;
        if let Some(element) = ty.trim_end().strip_suffix("[]") {
            return Some(element.to_string());
        }
        let (raw, args) = ty.split_once('<')?;
        let args = java_syntax::top_level_arguments(args.trim_end().strip_suffix('>')?);
        let [element] = args[..] else {
            return None;
        };
        let element = element.trim();
        let collection = COLLECTIONS
            .iter()
            .flat_map(|g| g.iter())
            .any(|c| self.type_is(raw.trim(), c));
        (collection && !element.starts_with('?')).then(|| element.to_string())
    }

    /// Whether two types written in this file are one type: alike as written (spaces
    /// aside), or alike with every name fully qualified, none of them unknown.
    pub fn same_type(&self, a: &str, b: &str) -> bool {
        let squeeze = |t: &str| t.split_whitespace().collect::<String>();
        if squeeze(a) == squeeze(b) {
            return true;
        }
        let canonical = self.canonical(a);
        !canonical.contains('?') && canonical == self.canonical(b)
    }

    /// The type as the source spells it: the node itself when it names a type, else the
    /// declared type of the variable, creation, cast or parenthesised expression.
    fn written_type(&self, node: Node) -> Option<String> {
        let text = |n: Node| java_syntax::text(n, self.src).to_string();
        match node.kind() {
            "type_identifier" | "scoped_type_identifier" | "generic_type" | "array_type" => {
                Some(text(node))
            }
            // `Character` in `Character.isSpace(c)` parses as an identifier: a variable of
            // that name in scope wins, as in Java.
            "identifier" => java_syntax::declared_type(node, self.src)
                .and_then(|t| self.var_type(node, t))
                .or_else(|| {
                    let name = text(node);
                    if name.starts_with(char::is_uppercase) {
                        Some(name)
                    } else {
                        self.inherited_field(node, &name)
                    }
                }),
            "field_access" => {
                let object = node.child_by_field_name("object")?;
                let field = node.child_by_field_name("field")?;
                if java_syntax::text(field, self.src) == "length"
                    && self
                        .written_type(object)
                        .is_some_and(|t| t.trim_end().ends_with(']'))
                {
                    // An array's length.
                    return Some("int".into());
                }
                if object.kind() == "this" {
                    java_syntax::declared_type(field, self.src).or_else(|| {
                        // A field the class inherits from a superclass of the project.
                        let field = text(field);
                        let declared = self
                            .classes
                            .iter()
                            .any(|c| c.fields.iter().any(|(f, _)| *f == field));
                        (!declared)
                            .then(|| self.declared_field(&self.enclosing_superclass(node)?, &field))
                            .flatten()
                    })
                } else if java_syntax::text(field, self.src).starts_with(char::is_uppercase) {
                    // A nested type written through its outer one: `Runtime.Version`.
                    Some(text(node))
                } else {
                    // A field of a class this file declares, read on one of its instances.
                    self.declared_field(&self.written_type(object)?, &text(field))
                }
            }
            "object_creation_expression" | "cast_expression" => {
                node.child_by_field_name("type").map(text)
            }
            // The named class around it (an anonymous class's `this` has no written type).
            "this" => java_syntax::enclosing_class_body(node)?
                .parent()
                .filter(|c| c.kind() == "class_declaration")
                .and_then(|c| c.child_by_field_name("name"))
                .map(text),
            "method_invocation" => {
                let name = java_syntax::text(node.child_by_field_name("name")?, self.src);
                let no_args = node
                    .child_by_field_name("arguments")
                    .is_some_and(|a| a.named_child_count() == 0);
                // Object.getClass() is final: on any receiver, or none, it is a Class.
                if name == "getClass" && no_args {
                    return Some("java.lang.Class".into());
                }
                let Some(object) = node.child_by_field_name("object") else {
                    return declared_return_type(node, name, self.src)
                        .or_else(|| self.statically_imported_factory(name))
                        .or_else(|| self.inherited_return(node, name));
                };
                match object.kind() {
                    "this" => {
                        return declared_return_type(node, name, self.src)
                            .or_else(|| self.inherited_return(node, name));
                    }
                    "super" => return self.method_return(&self.enclosing_superclass(node)?, name),
                    _ => {}
                }
                let owner = self.written_type(object)?;
                if let Some(element) = self.element_read(&owner, name) {
                    return Some(element);
                }
                if let Some(numeric) = self.numeric_call(&owner, name, node) {
                    return Some(numeric);
                }
                self.method_return(&owner, name)
            }
            "string_literal" => Some("String".into()),
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => Some(
                if text(node).ends_with(['l', 'L']) {
                    "long"
                } else {
                    "int"
                }
                .into(),
            ),
            "decimal_floating_point_literal" | "hex_floating_point_literal" => Some(
                if text(node).ends_with(['f', 'F']) {
                    "float"
                } else {
                    "double"
                }
                .into(),
            ),
            "character_literal" => Some("char".into()),
            "true" | "false" => Some("boolean".into()),
            "array_access" => {
                let array = self.written_type(node.child_by_field_name("array")?)?;
                array.strip_suffix("[]").map(str::to_string)
            }
            "binary_expression" => {
                let op = java_syntax::text(node.child_by_field_name("operator")?, self.src);
                match op {
                    "+" | "-" | "*" | "/" | "%" => promoted(&[
                        self.numeric_type(node.child_by_field_name("left")?)?,
                        self.numeric_type(node.child_by_field_name("right")?)?,
                    ]),
                    "<" | ">" | "<=" | ">=" | "==" | "!=" | "&&" | "||" => Some("boolean".into()),
                    _ => None,
                }
            }
            "unary_expression" => {
                let op = java_syntax::text(node.child_by_field_name("operator")?, self.src);
                let operand = node.child_by_field_name("operand")?;
                match op {
                    "-" | "+" | "~" => promoted(&[self.numeric_type(operand)?]),
                    "!" => Some("boolean".into()),
                    _ => None,
                }
            }
            "class_literal" => Some("Class".into()),
            "parenthesized_expression" => node.named_child(0).and_then(|n| self.written_type(n)),
            // A choice between two values of one written type is of that type.
            "ternary_expression" => {
                let consequence = self.written_type(node.child_by_field_name("consequence")?)?;
                let alternative = self.written_type(node.child_by_field_name("alternative")?)?;
                (consequence == alternative).then_some(consequence)
            }
            _ => None,
        }
    }

    /// The type of field `name` of the project's class `owner`, declared there or in a
    /// superclass the project declares.
    fn declared_field(&self, owner: &str, name: &str) -> Option<String> {
        self.lineage(owner).into_iter().find_map(|(_, class)| {
            class
                .filter(|c| c.fields.iter().any(|(f, _)| f == name))
                .map(|c| only(&c.fields, name))
        })?
    }

    /// What method `name` returns on `owner`, where all its overloads there return one type:
    /// declared in the project's class or a superclass the project declares, else the JDK's
    /// (on a JDK type, or inherited from the JDK class the project's classes extend).
    fn method_return(&self, owner: &str, name: &str) -> Option<String> {
        for (current, class) in self.lineage(owner) {
            match class {
                None => return factory_return(name, |fqn| self.type_is(&current, fqn)),
                Some(c) if c.methods.iter().any(|m| m == name) => return only(&c.returns, name),
                Some(_) => {}
            }
        }
        None
    }

    /// What a call of `name` on the class around `node` (bare, or on `this` or `super`)
    /// returns where the file declares no method of that name: the superclass's method.
    fn inherited_return(&self, node: Node, name: &str) -> Option<String> {
        if self
            .classes
            .iter()
            .any(|c| c.methods.iter().any(|m| m == name))
        {
            return None;
        }
        self.method_return(&self.enclosing_superclass(node)?, name)
    }

    /// The type of the field a bare `name` reads where the file declares nothing of that
    /// name (no variable, parameter or pattern anywhere, no static import): a field the
    /// class around it inherits from a superclass of the project.
    fn inherited_field(&self, node: Node, name: &str) -> Option<String> {
        let root = std::iter::successors(Some(node), |n| n.parent()).last()?;
        let mut named_here = false;
        java_syntax::walk(root, |n| {
            named_here |= n.kind() == "identifier"
                && n.id() != node.id()
                && java_syntax::text(n, self.src) == name
                && n.parent().is_some_and(|p| {
                    !matches!(
                        p.kind(),
                        "method_invocation"
                            | "field_access"
                            | "argument_list"
                            | "expression_statement"
                            | "binary_expression"
                            | "unary_expression"
                            | "assignment_expression"
                            | "return_statement"
                            | "parenthesized_expression"
                            | "array_access"
                            | "ternary_expression"
                            | "update_expression"
                            | "cast_expression"
                    )
                });
        });
        let imported = self
            .imports
            .iter()
            .any(|i| i.is_static && (i.wildcard || i.path.rsplit('.').next() == Some(name)));
        if named_here || imported {
            return None;
        }
        self.declared_field(&self.enclosing_superclass(node)?, name)
    }

    /// The superclass of the named class whose body holds `node`.
    fn enclosing_superclass(&self, node: Node) -> Option<String> {
        let class = java_syntax::enclosing_class_body(node)?
            .parent()
            .filter(|c| c.kind() == "class_declaration")?;
        java_syntax::superclass_written(class, self.src).map(str::to_string)
    }

    /// The class the type written `written` denotes, where the project declares it: the one
    /// class of this name in this file, else a class of another file.
    fn declared_class(&self, written: &str) -> Option<&DeclaredClass> {
        let name = written.split('<').next().unwrap_or("").trim();
        let mut named = self.classes.iter().filter(|c| c.name == name);
        match (named.next(), named.next()) {
            (Some(class), None) => Some(class),
            (None, _) => self.project_class(name),
            _ => None,
        }
    }

    /// What a bare call of a JDK factory method returns where a static import brings it in
    /// (`currentThread()` after `import static java.lang.Thread.currentThread`) and no class
    /// of the file declares a method of that name.
    fn statically_imported_factory(&self, name: &str) -> Option<String> {
        if self
            .classes
            .iter()
            .any(|c| c.methods.iter().any(|m| m == name))
        {
            return None;
        }
        factory_return(name, |owner| self.statically_imports(owner, name))
    }

    /// Whether a static import brings `owner`'s member `name` in (singly or on demand).
    pub fn statically_imports(&self, owner: &str, name: &str) -> bool {
        self.imports.iter().any(|i| {
            i.is_static
                && if i.wildcard {
                    i.path == owner
                } else {
                    i.path.strip_suffix(name).and_then(|p| p.strip_suffix('.')) == Some(owner)
                }
        })
    }

    /// Whether the bare name `name` is `owner`'s static field: statically imported, and no
    /// class of this file declares a field of that name.
    pub fn static_field_of(&self, name: &str, owner: &str) -> bool {
        self.statically_imports(owner, name)
            && !self
                .classes
                .iter()
                .any(|c| c.fields.iter().any(|(f, _)| f == name))
    }

    /// What `get` (and the like) returns on a JDK generic type declared with its type
    /// arguments: `Map<String, Class<?>>.get(k)` is a `Class<?>`, `Deque<File>.peek()` a
    /// `File`, `Map<K, V>.values()` a `Collection<V>` (see [`ELEMENT_READS`]).
    fn element_read(&self, owner: &str, method: &str) -> Option<String> {
        let (raw, args) = owner.split_once('<')?;
        let args = args.trim_end().strip_suffix('>')?;
        let args = java_syntax::top_level_arguments(args);
        let raw = raw.trim();
        let (_, _, shape) = ELEMENT_READS.iter().find(|(types, methods, _)| {
            methods.contains(&method)
                && types
                    .iter()
                    .flat_map(|g| g.iter())
                    .any(|t| self.type_is(raw, t))
        })?;
        // A wildcard bound is read as its bound: `? extends Job` is a Job.
        let bound = |i: usize| {
            let element = args.get(i)?.trim();
            let element = element.strip_prefix("? extends ").unwrap_or(element);
            (!element.starts_with('?')).then(|| element.trim().to_string())
        };
        match shape {
            Read::Argument(i) => bound(*i),
            Read::Wrapped(wrapper, i) => Some(format!("{wrapper}<{}>", bound(*i)?)),
            Read::Entry => Some(format!("java.util.Map.Entry<{}, {}>", bound(0)?, bound(1)?)),
            Read::EntrySet => Some(format!(
                "java.util.Set<java.util.Map.Entry<{}, {}>>",
                bound(0)?,
                bound(1)?
            )),
        }
    }

    /// What a JDK numeric method returns: a Number's `xxxValue()` its primitive,
    /// `Math.min/max/abs` the promoted type of their arguments, Math's other functions of
    /// doubles a double.
    fn numeric_call(&self, owner: &str, method: &str, call: Node) -> Option<String> {
        let args = call.child_by_field_name("arguments")?;
        let mut c = args.walk();
        let args: Vec<Node> = args.named_children(&mut c).collect();
        let is = |types: &[&str]| types.iter().any(|t| self.type_is(owner, t));
        if args.is_empty() && is(NUMBERS) {
            let primitive = method.strip_suffix("Value")?;
            return NUMERIC[..6]
                .iter()
                .any(|(p, _)| *p == primitive)
                .then(|| primitive.to_string());
        }
        if !is(&["java.lang.Math", "java.lang.StrictMath"]) {
            return None;
        }
        let operands: Option<Vec<&str>> = args.iter().map(|a| self.numeric_type(*a)).collect();
        let operands = operands?;
        match method {
            "min" | "max" | "abs" => promoted(&operands),
            "sqrt" | "cbrt" | "pow" | "exp" | "log" | "log10" | "floor" | "ceil" | "rint"
            | "sin" | "cos" | "tan" | "atan2" | "hypot" | "toRadians" | "toDegrees" => {
                Some("double".into())
            }
            _ => None,
        }
    }

    /// The primitive numeric type of an expression, a boxed operand unboxed (as binary
    /// numeric promotion does).
    fn numeric_type(&self, node: Node) -> Option<&'static str> {
        let ty = self.written_type(node)?;
        NUMERIC
            .iter()
            .find(|(prim, boxed)| ty == *prim || self.type_is(&ty, boxed))
            .map(|(prim, _)| *prim)
    }

    /// `var x = new T(..)` is a T; any other `var` is unknown.
    fn var_type(&self, ident: Node, declared: String) -> Option<String> {
        if declared != "var" {
            return Some(declared);
        }
        let name = java_syntax::text(ident, self.src);
        let mut found = None;
        let mut cur = ident;
        while let Some(p) = cur.parent() {
            if p.kind() == "block" {
                let mut c = p.walk();
                for decl in p
                    .named_children(&mut c)
                    .filter(|d| d.kind() == "local_variable_declaration")
                {
                    let mut c2 = decl.walk();
                    for d in decl.children_by_field_name("declarator", &mut c2) {
                        let named = d
                            .child_by_field_name("name")
                            .is_some_and(|n| java_syntax::text(n, self.src) == name);
                        let value = d.child_by_field_name("value");
                        if named && let Some(v) = value.filter(|v| v.kind() != "identifier") {
                            found = self.written_type(v);
                        }
                    }
                }
                if found.is_some() {
                    break;
                }
            }
            cur = p;
        }
        found
    }

    /// Whether a single-type import of `fqn` would clash with a type the file already
    /// reaches by that simple name: one it declares, one of its package (another file's
    /// included), or another single-type import.
    pub fn import_would_clash(&self, fqn: &str) -> bool {
        let (owner, simple) = fqn.rsplit_once('.').unwrap_or(("", fqn));
        self.declared.iter().any(|d| d == simple)
            || (owner != self.package && self.package_types().iter().any(|t| t == simple))
            || self.imports.iter().any(|i| {
                !i.wildcard
                    && !i.is_static
                    && i.path != fqn
                    && i.path.rsplit('.').next() == Some(simple)
            })
    }

    /// Whether the simple or qualified type name `written` denotes `fqn` in this file.
    pub fn names(&self, written: &str, fqn: &str) -> bool {
        self.type_is(written, fqn)
    }

    /// Whether a type spelled `written` in this file is `fqn`.
    fn type_is(&self, written: &str, fqn: &str) -> bool {
        // An array (`String[]`, `List<String>[]`) is only an array type (`byte[]`) whose
        // element type is the written one's.
        if let Some(element) = fqn.strip_suffix("[]") {
            return written
                .trim_end()
                .strip_suffix(']')
                .and_then(|w| w.trim_end().strip_suffix('['))
                .is_some_and(|w| self.type_is(w, element));
        }
        if written.trim_end().ends_with(']') {
            return false;
        }
        let written: String = written.split('<').next().unwrap_or("").trim().into();
        let written = written.as_str();
        if written == fqn {
            return true;
        }
        // Split the first segment off: `Runtime.Version` resolves `Runtime`, then appends.
        let (head, rest) = match written.split_once('.') {
            Some((h, r)) if h.starts_with(char::is_uppercase) => (h, Some(r)),
            Some(_) => return false, // a qualified name other than fqn
            None => (written, None),
        };
        let Some(outer) = fqn_prefix_for(fqn, rest) else {
            return false;
        };
        let simple = outer.rsplit('.').next().unwrap_or(&outer);
        if head != simple {
            return false;
        }
        self.resolves(head, &outer)
    }

    /// Whether the simple name `name` in this file resolves to the top-level or member
    /// type `fqn`, by Java's order: declared here, single-type import, same package,
    /// on-demand import, java.lang.
    fn resolves(&self, name: &str, fqn: &str) -> bool {
        if self.declared.iter().any(|d| d == name) {
            return false;
        }
        let explicit: Vec<&Import> = self
            .imports
            .iter()
            .filter(|i| !i.wildcard && !i.is_static && i.path.rsplit('.').next() == Some(name))
            .collect();
        if !explicit.is_empty() {
            return explicit.iter().any(|i| i.path == fqn);
        }
        let owner = fqn.rsplit_once('.').map_or("", |x| x.0);
        if self.package_types().iter().any(|t| t == name) {
            return owner == self.package;
        }
        owner == self.package
            || owner == "java.lang"
            || self
                .imports
                .iter()
                .any(|i| i.wildcard && !i.is_static && i.path == owner)
    }
}

/// The return type of `name()` called on this class (bare or through `this`): the type the
/// file's methods of that name all declare; several types, or a type variable, tell nothing.
fn declared_return_type(call: Node, name: &str, src: &str) -> Option<String> {
    let root = std::iter::successors(Some(call), |n| n.parent()).last()?;
    let mut types = BTreeSet::new();
    java_syntax::walk(root, |n| {
        if n.kind() == "method_declaration" && java_syntax::field_text(n, "name", src) == name {
            types.insert(java_syntax::field_text(n, "type", src).to_string());
        }
    });
    let mut one = types.into_iter();
    match (one.next(), one.next()) {
        (Some(t), None) if t != "void" => Some(t),
        _ => None,
    }
}

/// JDK methods whose result type a receiver check needs (`Logger.getLogger(..)` is a
/// Logger, `Class.forName(..)` a Class): owner, method, returned type.
const FACTORIES: &[(&str, &str, &str)] = &[
    ("java.awt.Toolkit", "getDefaultToolkit", "java.awt.Toolkit"),
    ("java.awt.Polygon", "getBounds", "java.awt.Rectangle"),
    ("java.awt.Rectangle", "getBounds", "java.awt.Rectangle"),
    (
        "javax.swing.JScrollPane",
        "getViewport",
        "javax.swing.JViewport",
    ),
    (
        "java.util.logging.Logger",
        "getLogger",
        "java.util.logging.Logger",
    ),
    (
        "java.util.logging.Logger",
        "getAnonymousLogger",
        "java.util.logging.Logger",
    ),
    (
        "java.util.logging.Logger",
        "getGlobal",
        "java.util.logging.Logger",
    ),
    (
        "java.util.logging.LogManager",
        "getLogManager",
        "java.util.logging.LogManager",
    ),
    ("java.lang.String", "substring", "java.lang.String"),
    ("java.lang.String", "trim", "java.lang.String"),
    ("java.lang.String", "concat", "java.lang.String"),
    ("java.lang.String", "toLowerCase", "java.lang.String"),
    ("java.lang.String", "toString", "java.lang.String"),
    ("java.lang.String", "toUpperCase", "java.lang.String"),
    ("java.util.Calendar", "getTime", "java.util.Date"),
    ("java.util.GregorianCalendar", "getTime", "java.util.Date"),
    ("java.io.File", "getAbsoluteFile", "java.io.File"),
    ("java.io.File", "getCanonicalFile", "java.io.File"),
    ("java.io.File", "getParentFile", "java.io.File"),
    ("java.lang.Runtime", "getRuntime", "java.lang.Runtime"),
    (
        "javax.net.ssl.SSLSocket",
        "getSession",
        "javax.net.ssl.SSLSession",
    ),
    (
        "javax.net.ssl.SSLSocket",
        "getHandshakeSession",
        "javax.net.ssl.SSLSession",
    ),
    (
        "javax.net.ssl.SSLEngine",
        "getSession",
        "javax.net.ssl.SSLSession",
    ),
    (
        "javax.net.ssl.HandshakeCompletedEvent",
        "getSession",
        "javax.net.ssl.SSLSession",
    ),
    ("java.lang.Runtime", "version", "java.lang.Runtime.Version"),
    ("java.lang.Thread", "currentThread", "java.lang.Thread"),
    (
        "java.lang.Thread",
        "getThreadGroup",
        "java.lang.ThreadGroup",
    ),
    (
        "java.lang.ThreadGroup",
        "getParent",
        "java.lang.ThreadGroup",
    ),
    (
        "java.lang.Thread",
        "getContextClassLoader",
        "java.lang.ClassLoader",
    ),
    ("java.lang.Class", "forName", "java.lang.Class"),
    ("java.lang.Class", "getClassLoader", "java.lang.ClassLoader"),
    ("java.lang.ClassLoader", "loadClass", "java.lang.Class"),
    (
        "java.lang.ClassLoader",
        "getSystemClassLoader",
        "java.lang.ClassLoader",
    ),
    ("java.util.Properties", "getProperty", "java.lang.String"),
    ("java.lang.System", "getProperty", "java.lang.String"),
    ("java.lang.String", "strip", "java.lang.String"),
    ("java.lang.String", "replace", "java.lang.String"),
    ("java.lang.String", "valueOf", "java.lang.String"),
    ("java.lang.StringBuilder", "toString", "java.lang.String"),
    ("java.lang.StringBuffer", "toString", "java.lang.String"),
];

/// JDK classes whose listed methods all return the class itself (`a.divide(b, 6)` is a
/// BigDecimal, so a call on it can be typed too).
const SELF_RETURNING: &[(&str, &[&str])] = &[(
    "java.math.BigDecimal",
    &[
        "add",
        "subtract",
        "multiply",
        "divide",
        "setScale",
        "abs",
        "negate",
        "round",
        "remainder",
        "stripTrailingZeros",
        "valueOf",
        "max",
        "min",
        "pow",
        "movePointLeft",
        "movePointRight",
    ],
)];

/// The type paired with `name` in `members`, where every pair of that name has the same one.
fn only(members: &[(String, String)], name: &str) -> Option<String> {
    let mut types = members.iter().filter(|(n, _)| n == name).map(|(_, t)| t);
    let first = types.next()?;
    types.all(|t| t == first).then(|| first.clone())
}

/// What `name(..)` returns on an owner `is_owner` accepts, from the two tables above, else
/// from the JDK's own signatures ([`jdk_returns`]).
fn factory_return(name: &str, is_owner: impl Fn(&str) -> bool) -> Option<String> {
    FACTORIES
        .iter()
        .find(|(owner, method, _)| *method == name && is_owner(owner))
        .map(|(_, _, returns)| returns.to_string())
        .or_else(|| {
            SELF_RETURNING
                .iter()
                .find(|(owner, methods)| methods.contains(&name) && is_owner(owner))
                .map(|(owner, _)| owner.to_string())
        })
        .or_else(|| {
            jdk_returns()
                .get(name)?
                .iter()
                .find(|(owner, _)| is_owner(owner))
                .map(|(_, returns)| returns.to_string())
        })
}

/// The JDK's public methods by name, each with its owner and the one class all its overloads
/// return, where that class is a type a rule names: generated from JDK 17 by reflection
/// (`scripts/jdk-returns.sh`), inherited methods listed under each owner.
fn jdk_returns() -> &'static HashMap<&'static str, Vec<(&'static str, &'static str)>> {
    static TABLE: std::sync::LazyLock<HashMap<&str, Vec<(&str, &str)>>> =
        std::sync::LazyLock::new(|| {
            let mut table: HashMap<&str, Vec<(&str, &str)>> = HashMap::new();
            for row in include_str!("jdk_returns.tsv").lines() {
                if let [owner, method, returns] = row.split('\t').collect::<Vec<_>>()[..] {
                    table.entry(method).or_default().push((owner, returns));
                }
            }
            table
        });
    &TABLE
}

/// Map and list types whose type arguments say what `get` returns.
const MAPS: &[&str] = &[
    "java.util.Map",
    "java.util.HashMap",
    "java.util.LinkedHashMap",
    "java.util.TreeMap",
    "java.util.SortedMap",
    "java.util.NavigableMap",
    "java.util.Hashtable",
    "java.util.concurrent.ConcurrentMap",
    "java.util.concurrent.ConcurrentHashMap",
    "java.util.concurrent.ConcurrentSkipListMap",
];
const SORTED_MAPS: &[&str] = &[
    "java.util.TreeMap",
    "java.util.SortedMap",
    "java.util.NavigableMap",
    "java.util.concurrent.ConcurrentSkipListMap",
];
const LISTS: &[&str] = &[
    "java.util.List",
    "java.util.ArrayList",
    "java.util.LinkedList",
    "java.util.Vector",
    "java.util.Stack",
    "java.util.concurrent.CopyOnWriteArrayList",
];
const SETS: &[&str] = &[
    "java.util.Set",
    "java.util.HashSet",
    "java.util.LinkedHashSet",
    "java.util.SortedSet",
    "java.util.NavigableSet",
    "java.util.TreeSet",
];
/// Lists of JDK types, read as one.
type TypeGroups = &'static [&'static [&'static str]];

/// Collections whose iterator yields their one type argument.
const COLLECTIONS: TypeGroups = &[
    &["java.lang.Iterable", "java.util.Collection"],
    LISTS,
    SETS,
    QUEUES,
];
const QUEUES: &[&str] = &[
    "java.util.Queue",
    "java.util.Deque",
    "java.util.ArrayDeque",
    "java.util.LinkedList",
    "java.util.PriorityQueue",
    "java.util.concurrent.BlockingQueue",
    "java.util.concurrent.LinkedBlockingQueue",
    "java.util.concurrent.ArrayBlockingQueue",
    "java.util.concurrent.ConcurrentLinkedQueue",
    "java.util.concurrent.ConcurrentLinkedDeque",
];
const SORTED_SETS: &[&str] = &[
    "java.util.SortedSet",
    "java.util.NavigableSet",
    "java.util.TreeSet",
];
/// Holders of one value that `get` (and the like) returns.
const HOLDERS: &[&str] = &[
    "java.util.Optional",
    "java.util.function.Supplier",
    "java.util.concurrent.Callable",
    "java.util.concurrent.Future",
    "java.util.concurrent.CompletableFuture",
    "java.util.concurrent.FutureTask",
    "java.lang.ThreadLocal",
    "java.lang.InheritableThreadLocal",
    "java.util.concurrent.atomic.AtomicReference",
    "java.lang.ref.Reference",
    "java.lang.ref.WeakReference",
    "java.lang.ref.SoftReference",
];

/// What a read on a JDK generic type returns, from its type arguments.
enum Read {
    /// That type argument itself.
    Argument(usize),
    /// That type argument in a JDK generic type (`Collection<V>` for `values()`).
    Wrapped(&'static str, usize),
    /// A map's entry, `Map.Entry<K, V>`.
    Entry,
    /// A map's entries, `Set<Map.Entry<K, V>>`.
    EntrySet,
}

/// The JDK's methods whose result type is read off the receiver's type arguments: the
/// types, the methods (one signature each, or all returning alike), and what they return.
/// `remove`, whose one-argument form returns a boolean on most collections, is only a
/// list's or a map's.
const ELEMENT_READS: &[(TypeGroups, &[&str], Read)] = &[
    (
        &[MAPS],
        &[
            "get",
            "remove",
            "getOrDefault",
            "put",
            "putIfAbsent",
            "compute",
            "computeIfAbsent",
            "computeIfPresent",
            "merge",
        ],
        Read::Argument(1),
    ),
    (&[MAPS], &["keySet"], Read::Wrapped("java.util.Set", 0)),
    (
        &[MAPS],
        &["values"],
        Read::Wrapped("java.util.Collection", 1),
    ),
    (&[MAPS], &["entrySet"], Read::EntrySet),
    (
        &[SORTED_MAPS],
        &[
            "firstKey",
            "lastKey",
            "floorKey",
            "ceilingKey",
            "higherKey",
            "lowerKey",
        ],
        Read::Argument(0),
    ),
    (
        &[SORTED_MAPS],
        &[
            "firstEntry",
            "lastEntry",
            "floorEntry",
            "ceilingEntry",
            "higherEntry",
            "lowerEntry",
            "pollFirstEntry",
            "pollLastEntry",
        ],
        Read::Entry,
    ),
    (
        &[LISTS],
        &[
            "get",
            "remove",
            "set",
            "getFirst",
            "getLast",
            "removeFirst",
            "removeLast",
            "elementAt",
            "firstElement",
            "lastElement",
            "peek",
            "pop",
            "push",
        ],
        Read::Argument(0),
    ),
    (&[LISTS], &["subList"], Read::Wrapped("java.util.List", 0)),
    (
        &[LISTS],
        &["listIterator"],
        Read::Wrapped("java.util.ListIterator", 0),
    ),
    (
        COLLECTIONS,
        &["iterator"],
        Read::Wrapped("java.util.Iterator", 0),
    ),
    (
        &[QUEUES],
        &[
            "peek",
            "poll",
            "element",
            "take",
            "peekFirst",
            "peekLast",
            "pollFirst",
            "pollLast",
            "getFirst",
            "getLast",
            "removeFirst",
            "removeLast",
            "pop",
        ],
        Read::Argument(0),
    ),
    (
        &[SORTED_SETS],
        &[
            "first",
            "last",
            "floor",
            "ceiling",
            "higher",
            "lower",
            "pollFirst",
            "pollLast",
        ],
        Read::Argument(0),
    ),
    (
        &[&["java.util.Iterator", "java.util.ListIterator"]],
        &["next", "previous"],
        Read::Argument(0),
    ),
    (
        &[&["java.util.Enumeration"]],
        &["nextElement"],
        Read::Argument(0),
    ),
    (&[&["java.util.Map.Entry"]], &["getKey"], Read::Argument(0)),
    (
        &[&["java.util.Map.Entry"]],
        &["getValue", "setValue"],
        Read::Argument(1),
    ),
    (
        &[HOLDERS],
        &[
            "get",
            "orElse",
            "orElseGet",
            "orElseThrow",
            "call",
            "join",
            "getNow",
            "getAndSet",
            "getPlain",
            "getOpaque",
            "getAcquire",
        ],
        Read::Argument(0),
    ),
];

/// The JDK's Numbers whose `xxxValue()` methods return that primitive.
const NUMBERS: &[&str] = &[
    "java.lang.Number",
    "java.lang.Byte",
    "java.lang.Short",
    "java.lang.Integer",
    "java.lang.Long",
    "java.lang.Float",
    "java.lang.Double",
    "java.math.BigDecimal",
    "java.math.BigInteger",
    "java.util.concurrent.atomic.AtomicInteger",
    "java.util.concurrent.atomic.AtomicLong",
];

/// The numeric primitives, widest first, with their boxes.
const NUMERIC: &[(&str, &str)] = &[
    ("double", "java.lang.Double"),
    ("float", "java.lang.Float"),
    ("long", "java.lang.Long"),
    ("int", "java.lang.Integer"),
    ("short", "java.lang.Short"),
    ("byte", "java.lang.Byte"),
    ("char", "java.lang.Character"),
];

/// Binary (or unary) numeric promotion: the widest of double, float, long, else int.
fn promoted(operands: &[&str]) -> Option<String> {
    let widest = NUMERIC[..3]
        .iter()
        .map(|(p, _)| *p)
        .find(|p| operands.contains(p))
        .unwrap_or("int");
    Some(widest.to_string())
}

/// For `Runtime.Version` against `java.lang.Runtime.Version`: the type the first segment
/// must resolve to (`java.lang.Runtime`), when the rest matches.
fn fqn_prefix_for(fqn: &str, rest: Option<&str>) -> Option<String> {
    match rest {
        None => Some(fqn.to_string()),
        Some(rest) => fqn
            .strip_suffix(rest)
            .and_then(|p| p.strip_suffix('.'))
            .map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the first identifier or type named `name` in `src` denotes `fqn`.
    fn denotes(src: &str, name: &str, fqn: &str) -> bool {
        let parsed = java_syntax::parse(src).unwrap();
        let root = parsed.tree.root_node();
        let scope = Scope::new(root, src);
        let mut hit = None;
        java_syntax::walk(root, |n| {
            if hit.is_none()
                && matches!(n.kind(), "identifier" | "type_identifier")
                && java_syntax::text(n, src) == name
                && !n.parent().is_some_and(|p| {
                    matches!(
                        p.kind(),
                        "variable_declarator"
                            | "formal_parameter"
                            | "catch_formal_parameter"
                            | "scoped_identifier"
                    )
                })
            {
                hit = Some(n);
            }
        });
        scope.denotes(hit.expect(name), fqn)
    }

    #[test]
    fn a_name_resolves_through_imports_the_package_and_java_lang() {
        let f = "java.util.Date";
        assert!(denotes(
            "import java.util.Date;\nclass A { Date d; }",
            "Date",
            f
        ));
        assert!(denotes(
            "import java.util.*;\nclass A { Date d; }",
            "Date",
            f
        ));
        assert!(denotes(
            "package java.util;\nclass A { Date d; }",
            "Date",
            f
        ));
        assert!(!denotes(
            "import java.sql.Date;\nclass A { Date d; }",
            "Date",
            f
        ));
        assert!(!denotes("class A { Date d; }", "Date", f));
        assert!(denotes(
            "class A { Thread t; }",
            "Thread",
            "java.lang.Thread"
        ));
    }

    #[test]
    fn a_project_type_of_the_same_name_shadows_the_jdk() {
        assert!(!denotes(
            "class A { static class Thread {} Thread t; }",
            "Thread",
            "java.lang.Thread"
        ));
        assert!(!denotes(
            "import com.acme.Thread;\nclass A { Thread t; }",
            "Thread",
            "java.lang.Thread"
        ));
        assert!(!denotes(
            "class A<Thread> { Thread t; }",
            "Thread",
            "java.lang.Thread"
        ));
    }

    #[test]
    fn a_type_the_project_declares_in_the_package_shadows_java_lang_and_on_demand_imports() {
        let scope_denotes = |src: &str, name: &str, fqn: &str| {
            let parsed = java_syntax::parse(src).unwrap();
            let root = parsed.tree.root_node();
            let project = Project::of_sources(vec![src], &["Character".into()]);
            let scope = Scope::new(root, src).in_project(&project);
            let mut hit = None;
            java_syntax::walk(root, |n| {
                if hit.is_none() && java_syntax::text(n, src) == name && n.kind() == "identifier" {
                    hit = Some(n);
                }
            });
            scope.denotes(hit.expect(name), fqn)
        };
        let src = "package p;\nimport java.lang.*;\nclass A { boolean f(char c) { return Character.isSpace(c); } }";
        assert!(!scope_denotes(src, "Character", "java.lang.Character"));
        assert!(scope_denotes(src, "Character", "p.Character"));
        // A single-type import still wins over the package.
        let imported = "package p;\nimport java.lang.Character;\nclass A { boolean f(char c) { return Character.isSpace(c); } }";
        assert!(scope_denotes(imported, "Character", "java.lang.Character"));
    }

    #[test]
    fn a_variable_is_of_its_declared_type() {
        let src = "import java.util.concurrent.atomic.AtomicInteger;\n\
                   class A { AtomicInteger n; void f(AtomicInteger p) { var q = new AtomicInteger(); p.get(); n.get(); q.get(); } }";
        let fqn = "java.util.concurrent.atomic.AtomicInteger";
        assert!(denotes(src, "p", fqn));
        assert!(denotes(src, "n", fqn));
        assert!(denotes(src, "q", fqn));
        let other = "class A { void f(com.acme.AtomicInteger p) { p.get(); } }";
        assert!(!denotes(other, "p", fqn));
        let caught = "import java.io.WriteAbortedException;\n\
                      class A { void f() { try { g(); } catch (WriteAbortedException e) { e.get(); } } }";
        let aborted = "java.io.WriteAbortedException";
        assert!(denotes(caught, "e", aborted));
        let multi = caught.replace(
            "(WriteAbortedException e)",
            "(WriteAbortedException | RuntimeException e)",
        );
        assert!(!denotes(&multi, "e", aborted));
    }

    #[test]
    fn a_member_type_resolves_through_its_outer_type() {
        let src = "class A { void f(Runtime.Version v) { v.major(); } }";
        assert!(denotes(src, "v", "java.lang.Runtime.Version"));
        let call = "class A { int f() { return Runtime.version().major(); } }";
        let parsed = java_syntax::parse(call).unwrap();
        let root = parsed.tree.root_node();
        let mut invocation = None;
        java_syntax::walk(root, |n| {
            if n.kind() == "method_invocation" && java_syntax::text(n, call) == "Runtime.version()"
            {
                invocation = Some(n);
            }
        });
        let scope = Scope::new(root, call);
        assert!(scope.denotes(invocation.unwrap(), "java.lang.Runtime.Version"));
        let imported =
            "import java.lang.Runtime.Version;\nclass A { void f(Version v) { v.major(); } }";
        assert!(denotes(imported, "v", "java.lang.Runtime.Version"));
    }

    /// The first node of `kind` whose text is `text`, with the file's scope.
    fn with_node(
        src: &str,
        kind: &str,
        text: &str,
        check: impl FnOnce(Node, &Scope) -> bool,
    ) -> bool {
        let parsed = java_syntax::parse(src).unwrap();
        let root = parsed.tree.root_node();
        let scope = Scope::new(root, src);
        let mut hit = None;
        java_syntax::walk(root, |n| {
            if hit.is_none() && n.kind() == kind && java_syntax::text(n, src) == text {
                hit = Some(n);
            }
        });
        check(hit.expect(text), &scope)
    }

    #[test]
    fn a_choice_between_two_values_of_one_type_is_of_that_type() {
        let src = "class A { Object f(boolean b, String s, Integer i) { return (b ? s : \"x\").length() + (b ? s : i).hashCode(); } }";
        let string = "java.lang.String";
        assert!(with_node(
            src,
            "ternary_expression",
            "b ? s : \"x\"",
            |n, s| s.denotes(n, string)
        ));
        assert!(!with_node(
            src,
            "ternary_expression",
            "b ? s : i",
            |n, s| s.denotes(n, string)
        ));
    }

    #[test]
    fn a_call_on_a_class_of_the_file_is_inherited_unless_a_class_on_the_way_declares_it() {
        let src = "import javax.swing.JDialog;\n\
                   class About extends JDialog { }\n\
                   class Wide extends About { }\n\
                   class Own extends JDialog { public void show() { } }\n\
                   class Shown extends JDialog { public void setVisible(boolean b) { } }\n\
                   class M { void f(Wide w, Own o, Shown s, com.acme.Dialog d) { w.show(); o.show(); s.show(); d.show(); } }";
        let dialog = "javax.swing.JDialog";
        let avoid = ["setVisible".to_string()];
        // The receiver of `<name>.show()`.
        let inherits = |name: &str| {
            with_node(
                src,
                "method_invocation",
                &format!("{name}.show()"),
                |call, scope| {
                    let object = call.child_by_field_name("object").unwrap();
                    scope.inherits_call(object, dialog, &avoid)
                },
            )
        };
        assert!(inherits("w"));
        assert!(!inherits("o"), "the class declares show()");
        assert!(
            !inherits("s"),
            "the class declares what the rewrite would call"
        );
        assert!(!inherits("d"), "a class from elsewhere");
    }

    #[test]
    fn this_is_the_named_class_around_it() {
        let src = "import java.security.Provider;\n\
                   class Mine extends Provider { double v() { return this.getVersion(); } }\n\
                   class Own extends Provider { public double getVersion() { return 1; } double v() { return this.getVersion(); } }\n\
                   class Anon { Object o = new Provider(\"x\", 1, \"y\") { double v() { return this.getVersion(); } }; }";
        let provider = "java.security.Provider";
        let receivers: Vec<bool> = {
            let parsed = java_syntax::parse(src).unwrap();
            let scope = Scope::new(parsed.tree.root_node(), src);
            let mut found = Vec::new();
            java_syntax::walk(parsed.tree.root_node(), |n| {
                if n.kind() == "this" {
                    found.push(scope.inherits_call(n, provider, &[]));
                }
            });
            found
        };
        assert_eq!(receivers, [true, false, false]);
    }

    #[test]
    fn a_field_or_getter_of_a_class_of_the_file_is_of_its_declared_type() {
        let date = "java.util.Date";
        let src = "import java.util.Date;\n\
                   class Event { Date at; Date getAt() { return at; } Object both() { return null; } String both(int i) { return null; } }\n\
                   class Use { Object f(Event e) { return e.getAt().getTime() + e.at.getTime() + e.both().hashCode(); } }";
        let typed = |text: &str, kind: &str| with_node(src, kind, text, |n, s| s.denotes(n, date));
        assert!(typed("e.getAt()", "method_invocation"));
        assert!(typed("e.at", "field_access"));
        let overloads = with_node(src, "method_invocation", "e.both()", |n, s| {
            s.written_type(n).is_none()
        });
        assert!(overloads, "overloads returning different types give none");
    }

    #[test]
    fn a_jdk_method_returns_what_its_signature_says() {
        let provider = "java.security.Provider";
        let call = |src: &str| {
            with_node(
                src,
                "method_invocation",
                "Security.getProvider(\"SUN\")",
                |n, s| s.denotes(n, provider),
            )
        };
        assert!(call(
            "import java.security.Security;\nclass A { Object f() { return Security.getProvider(\"SUN\").getVersion(); } }"
        ));
        assert!(!call(
            "import com.acme.Security;\nclass A { Object f() { return Security.getProvider(\"SUN\").getVersion(); } }"
        ));
    }

    #[test]
    fn a_statically_imported_factory_returns_its_type_unless_the_file_declares_the_name() {
        let thread = "java.lang.Thread";
        let call = |src: &str| {
            with_node(src, "method_invocation", "currentThread()", |n, s| {
                s.denotes(n, thread)
            })
        };
        assert!(call(
            "import static java.lang.Thread.currentThread;\nclass A { long f() { return currentThread().getId(); } }"
        ));
        assert!(call(
            "import static java.lang.Thread.*;\nclass A { long f() { return currentThread().getId(); } }"
        ));
        assert!(!call(
            "import static java.lang.Thread.currentThread;\nclass A { Worker currentThread() { return null; } long f() { return currentThread().getId(); } }"
        ));
        assert!(!call(
            "import static com.acme.Threads.currentThread;\nclass A { long f() { return currentThread().getId(); } }"
        ));
    }

    #[test]
    fn a_string_constant_is_read_through_literals_concatenations_and_final_fields() {
        let src = "class A {\n  static final String HOST = \"https://h\";\n  static final String BASE = HOST + \"/v1/\";\n  static String open = \"x\";\n  void f(String HOST) { g(HOST); }\n  void h() { g(BASE + (\"a\" + \"b\")); g(open); g(\"tab\\t\"); }\n}\n";
        let value = |text: &str| {
            let parsed = java_syntax::parse(src).unwrap();
            let root = parsed.tree.root_node();
            let scope = Scope::new(root, src);
            let mut hit = None;
            java_syntax::walk(root, |n| {
                let argument = n.parent().is_some_and(|p| p.kind() == "argument_list");
                if hit.is_none() && argument && java_syntax::text(n, src) == text {
                    hit = Some(n);
                }
            });
            scope.constant_string(hit.expect(text))
        };
        assert_eq!(
            value("BASE + (\"a\" + \"b\")").as_deref(),
            Some("https://h/v1/ab")
        );
        assert_eq!(value("open"), None, "not final");
        assert_eq!(value("HOST"), None, "the parameter hides the constant");
        assert_eq!(value("\"tab\\t\""), None, "an escape");
    }
}
