//! Whether `Stream.toList()` can stand in for `collect(Collectors.toList())` where the list
//! lands in a declared variable. The collector's list takes the element type its target
//! asks for (`List<Number> n = ints.stream().collect(toList())` compiles), while
//! `toList()` returns the stream's own (`List<Integer>`, which is no `List<Number>`). So
//! the two are interchangeable only where the declared element type is the stream's.

use tree_sitter::Node;

use super::Scope;
use super::project::jdk_final_types;
use crate::java_syntax::{self, field_text};

/// The stream operations that yield the elements they are given, of their type.
const KEEPING: &[&str] = &[
    "filter",
    "sorted",
    "distinct",
    "limit",
    "skip",
    "peek",
    "takeWhile",
    "dropWhile",
    "parallel",
    "sequential",
    "unordered",
    "onClose",
];

impl Scope<'_> {
    /// Whether `stream.toList()` fits a variable declared `declared` (as written here)
    /// wherever `stream.collect(Collectors.toList())` did: `var`, a raw type, a wildcard
    /// that takes subtypes, an element type that no other static type can be a proper
    /// subtype of, or the element type the stream is known to carry.
    pub fn takes_stream_list(&self, declared: &str, stream: Node) -> bool {
        let declared = declared.trim();
        let Some((_, args)) = declared.split_once('<') else {
            // `var` infers the stream's own type; a raw `List` takes any list.
            return true;
        };
        let Some(args) = args.trim_end().strip_suffix('>') else {
            return false;
        };
        let [element] = java_syntax::top_level_arguments(args)[..] else {
            return false;
        };
        let element = element.trim();
        element == "?"
            || element.starts_with("? extends ")
            || self.admits_no_subtype(element)
            || self
                .stream_elements(stream)
                .is_some_and(|t| self.same_type(&t, element))
    }

    /// Whether no expression can have a static type that is a proper subtype of the type
    /// written `written`: a final JDK class, or a class of the project no class of the
    /// project extends or implements, with no wildcard or unknown name in it.
    fn admits_no_subtype(&self, written: &str) -> bool {
        let canonical = self.canonical(written);
        if canonical.contains('?') {
            return false;
        }
        let raw = canonical.split('<').next().unwrap_or_default();
        let (package, name) = raw.rsplit_once('.').unwrap_or(("", raw));
        if jdk_final_types()
            .get(package)
            .is_some_and(|types| types.contains(&name))
        {
            return true;
        }
        self.project.is_some_and(|project| {
            project.class(raw).is_some()
                && !project.classes().any(|c| {
                    c.superclass.as_deref() == Some(raw) || c.interfaces.iter().any(|i| i == raw)
                })
        })
    }

    /// The element type of `stream`, where it is a JDK collection's `stream()` followed
    /// only by operations that keep the elements (`names.stream().filter(..).sorted()`).
    fn stream_elements(&self, stream: Node) -> Option<String> {
        let mut call = stream;
        loop {
            if call.kind() != "method_invocation" {
                return None;
            }
            let object = call.child_by_field_name("object")?;
            let name = field_text(call, "name", self.src);
            let no_arguments = call
                .child_by_field_name("arguments")
                .is_some_and(|a| a.named_child_count() == 0);
            match name {
                "stream" | "parallelStream" if no_arguments => {
                    return self.element_type_of(object);
                }
                _ if KEEPING.contains(&name) => call = object,
                _ => return None,
            }
        }
    }
}
