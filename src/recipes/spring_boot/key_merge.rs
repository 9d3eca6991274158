//! Keys whose Boot 3 successor takes their values in another form (`key_merges` in
//! `catalog/spring-boot-3.yml`): Artemis' host and port become one broker URL, Sleuth's
//! Zipkin base URL the full span endpoint. Only where the result is certain: a
//! `.properties` file of one document that sets every part to a literal and not the
//! successor yet. Otherwise each part keeps its removal finding.

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;

use super::Key;
use crate::edit::{Edit, whole_line};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct KeyMerge {
    /// The successor key.
    to: String,
    /// Placeholder name -> old key.
    parts: BTreeMap<String, String>,
    /// The successor's value, `{name}` standing for a part's value (a trailing slash dropped,
    /// as the values are URLs or their pieces joined with `/` or `:`).
    value: String,
}

/// The edits, change notes and indexes (into `keys`) of the keys merged.
#[derive(Default)]
pub(super) struct Merged {
    pub edits: Vec<Edit>,
    pub changes: Vec<String>,
    pub keys: HashSet<usize>,
}

pub(super) fn apply(src: &str, keys: &[Key], merges: &[KeyMerge]) -> Merged {
    let mut out = Merged::default();
    // `#---` / `!---` split a .properties file into documents (profiles): left to a human.
    if src.lines().any(|l| matches!(l.trim_end(), "#---" | "!---")) {
        return out;
    }
    let find = |key: &str| {
        let mut at = keys.iter().enumerate().filter(|(_, k)| k.key == key);
        match (at.next(), at.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    };
    for m in merges {
        if keys.iter().any(|k| k.key == m.to) {
            continue;
        }
        let Some(mut parts) = m
            .parts
            .iter()
            .map(|(name, key)| {
                let i = find(key)?;
                let v = &src[keys[i].value.clone()?];
                let v = v.trim();
                (!v.is_empty() && !v.contains("${") && !v.contains('\\'))
                    .then(|| (i, name.as_str(), v.trim_end_matches('/')))
            })
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        parts.sort_by_key(|(i, ..)| *i);
        let value = parts.iter().fold(m.value.clone(), |v, (_, name, part)| {
            v.replace(&format!("{{{name}}}"), part)
        });
        let (first, rest) = parts.split_first().expect("a merge has parts");
        let k = &keys[first.0];
        let value_range = k.value.clone().expect("checked above");
        out.edits.push(Edit::replace(k.range.clone(), m.to.clone()));
        out.edits.push(Edit::replace(value_range, value.clone()));
        for (i, ..) in rest {
            let line = whole_line(
                src,
                keys[*i].range.start..keys[*i].value.clone().expect("checked").end,
            );
            out.edits.push(Edit::replace(line, ""));
        }
        let from: Vec<&str> = m.parts.values().map(String::as_str).collect();
        out.changes
            .push(format!("{} -> {}={value}", from.join(" + "), m.to));
        out.keys.extend(parts.iter().map(|(i, ..)| *i));
    }
    out
}
