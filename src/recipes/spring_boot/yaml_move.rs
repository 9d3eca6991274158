//! YAML keys Boot 3 moved under another parent (`management.metrics.export.prometheus` ->
//! `management.prometheus.metrics.export`, `spring.redis` -> `spring.data.redis` next to an
//! existing `spring.data`). A rename in place cannot express them: the key's block is cut
//! out, re-indented as a whole and inserted under the deepest ancestor both paths share
//! (inside an existing mapping the new path runs through, when there is one); parents left
//! empty go too. The caller parses the result and compares its flattened keys with the
//! expected ones, so a move this line-based view gets wrong is never written.

use std::collections::BTreeMap;
use std::ops::Range;

use serde_json::Value;

use super::{Key, is_leaf};
use crate::edit::{self, Edit};

/// One key to move: its index in the key list, line, old and new full path.
pub(super) struct Move {
    pub key: usize,
    pub line: usize,
    pub from: String,
    pub to: String,
}

/// The key list seen as a tree: lines, blocks and documents.
pub(super) struct Tree<'a> {
    pub src: &'a str,
    pub keys: &'a [Key],
}

impl Tree<'_> {
    fn line_start(&self, i: usize) -> usize {
        let at = self.keys[i].range.start;
        self.src[..at].rfind('\n').map_or(0, |n| n + 1)
    }

    pub fn indent(&self, i: usize) -> usize {
        self.keys[i].range.start - self.line_start(i)
    }

    fn full(&self, i: usize) -> String {
        self.keys[i].full()
    }

    /// The bytes of key `i` with everything below it: its line and the lines after it that
    /// are blank or indented deeper (or a sequence at its own indent), trailing blank lines
    /// left out.
    pub fn block(&self, i: usize) -> Range<usize> {
        let start = self.line_start(i);
        let indent = self.indent(i);
        let first_end = self.src[start..]
            .find('\n')
            .map_or(self.src.len(), |n| start + n + 1);
        let mut end = first_end;
        let mut at = first_end;
        for line in self.src[first_end..].split_inclusive('\n') {
            let text = line.trim_end_matches(['\n', '\r']);
            let lead = text.len() - text.trim_start_matches(' ').len();
            if !text.trim().is_empty() {
                let sequence_item = lead == indent && text[lead..].starts_with('-');
                if lead <= indent && !(sequence_item && self.keys[i].value.is_none()) {
                    break;
                }
                end = at + line.len();
            }
            at += line.len();
        }
        start..end
    }

    /// The direct parent of key `i`, if it is not at the top of its document.
    fn parent(&self, i: usize) -> Option<usize> {
        let depth = self.keys[i].depth;
        if depth == 0 {
            return None;
        }
        (0..i).rev().find(|&j| self.keys[j].depth == depth - 1)
    }

    /// The mappings above key `i`, nearest first.
    pub fn ancestors(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.parent(i), |&p| self.parent(p))
    }

    /// The keys directly below `parent` (the top keys of `i`'s document for `None`).
    pub fn children(&self, parent: Option<usize>, doc_of: usize) -> Vec<usize> {
        match parent {
            Some(p) => {
                let block = self.block(p);
                (p + 1..self.keys.len())
                    .take_while(|&j| self.keys[j].range.start < block.end)
                    .filter(|&j| self.keys[j].depth == self.keys[p].depth + 1)
                    .collect()
            }
            None => {
                let doc = self.document(doc_of);
                (0..self.keys.len())
                    .filter(|&j| self.keys[j].depth == 0 && doc.contains(&self.keys[j].range.start))
                    .collect()
            }
        }
    }

    /// The bytes of the YAML document (between `---` lines) that holds key `i`.
    fn document(&self, i: usize) -> Range<usize> {
        let at = self.keys[i].range.start;
        let mut start = 0;
        let mut offset = 0;
        for line in self.src.split_inclusive('\n') {
            let is_marker = line.trim_end() == "---";
            if is_marker && offset < at {
                start = offset + line.len();
            } else if is_marker {
                return start..offset;
            }
            offset += line.len();
        }
        start..self.src.len()
    }
}

/// The edits that carry out `moves`, on top of `edits` (renames in place, which may lie
/// inside a moved block and travel with it), or why they cannot be made.
pub(super) fn edits(
    src: &str,
    keys: &[Key],
    moves: &[Move],
    mut edits: Vec<Edit>,
) -> Result<Vec<Edit>, String> {
    let tree = Tree { src, keys };
    let eol = edit::line_ending(src);
    let moved: Vec<usize> = moves.iter().map(|m| m.key).collect();
    let mut removed: Vec<usize> = Vec::new();
    let mut inserts: Vec<Edit> = Vec::new();
    let mut homes = Vec::new();
    for m in moves {
        let (home, rel) = destination(&tree, m.key, &m.to, &moved);
        homes.push(home);
        let block = tree.block(m.key);
        let inner = edit::take_within(&mut edits, block.clone());
        let text = edit::apply(&src[block.clone()], &inner).map_err(|e| e.to_string())?;
        let name = keys[m.key].range.clone();
        let name = name.start - block.start..name.end - block.start;
        // A key written nested gets each new segment on its own line; a dotted one stays
        // dotted.
        let segments: Vec<&str> = if keys[m.key].key.contains('.') {
            vec![rel.as_str()]
        } else {
            rel.split('.').collect()
        };
        let (last, above) = segments.split_last().expect("a key has a name");
        let step = nesting_step(&tree, m.key, home);
        let mut new_indent = child_indent(&tree, home);
        let mut moved_text = String::new();
        for segment in above {
            moved_text.push_str(&format!("{}{segment}:{eol}", " ".repeat(new_indent)));
            new_indent += step;
        }
        let mut out = format!("{}{last}{}", " ".repeat(new_indent), &text[name.end..]);
        if !out.ends_with('\n') {
            out.push_str(eol);
        }
        let (first, rest) = out.split_at(out.find('\n').map_or(out.len(), |n| n + 1));
        moved_text.push_str(first);
        let from = tree.indent(m.key);
        for line in rest.split_inclusive('\n') {
            moved_text.push_str(&reindent(line, from, new_indent)?);
        }
        // Under the same parent the key is rewritten where it stands.
        if home == tree.parent(m.key) {
            edits.push(Edit::replace(block, moved_text));
            continue;
        }
        removed.push(m.key);
        let at = insertion_point(&tree, home, m.key);
        if at > 0 && !src[..at].ends_with('\n') {
            moved_text.insert_str(0, eol);
        }
        inserts.push(Edit::insert(at, moved_text));
    }
    // A parent whose keys all moved away goes too, unless a moved key lands in it.
    loop {
        let before = removed.len();
        for (i, key) in keys.iter().enumerate() {
            if removed.contains(&i) || homes.contains(&Some(i)) || key.value.is_some() {
                continue;
            }
            let children = tree.children(Some(i), i);
            if !children.is_empty() && children.iter().all(|c| removed.contains(c)) {
                removed.push(i);
            }
        }
        if removed.len() == before {
            break;
        }
    }
    let tops: Vec<usize> = removed
        .iter()
        .copied()
        .filter(|&i| !tree.ancestors(i).any(|a| removed.contains(&a)))
        .collect();
    for i in tops {
        let block = tree.block(i);
        if edits
            .iter()
            .any(|e| e.range.start < block.end && block.start < e.range.end)
        {
            return Err("a rename inside a removed parent".to_string());
        }
        edits.push(Edit::replace(block, ""));
    }
    edits.extend(inserts);
    Ok(edits)
}

/// Moves of every key below one mapping to the same new parent become one move of the
/// mapping, so `prometheus:` with its keys moves as one block instead of key by key.
pub(super) fn group(src: &str, keys: &[Key], mut moves: Vec<Move>) -> Vec<Move> {
    let tree = Tree { src, keys };
    loop {
        let parents: Vec<usize> = moves.iter().filter_map(|m| tree.parent(m.key)).collect();
        let grouped = parents.into_iter().find_map(|p| {
            let children = tree.children(Some(p), p);
            let mut to = None;
            for c in &children {
                let m = moves.iter().find(|m| m.key == *c)?;
                let parent_to = m.to.strip_suffix(&format!(".{}", keys[*c].key))?;
                if to.is_some_and(|t| t != parent_to) {
                    return None;
                }
                to = Some(parent_to);
            }
            let to = to?.to_string();
            // Keys going deeper below their own parent are re-nested one by one.
            let below = to == tree.full(p) || to.starts_with(&format!("{}.", tree.full(p)));
            (!below).then(|| (p, children.clone(), to))
        });
        let Some((p, children, to)) = grouped else {
            return moves;
        };
        moves.retain(|m| !children.contains(&m.key));
        moves.push(Move {
            key: p,
            line: tree.src[..keys[p].range.start].matches('\n').count() + 1,
            from: tree.full(p),
            to,
        });
        moves.sort_by_key(|m| m.key);
    }
}

/// Where key `i` goes for its new path `to`: the mapping that will hold it (`None`: the top
/// of its document) and its key there, relative to that mapping.
fn destination(tree: &Tree, i: usize, to: &str, moved: &[usize]) -> (Option<usize>, String) {
    let mut home = tree
        .ancestors(i)
        .find(|&q| to.starts_with(&format!("{}.", tree.full(q))));
    let mut rel = match home {
        Some(h) => to[tree.full(h).len() + 1..].to_string(),
        None => to.to_string(),
    };
    // Descend into mappings the new path runs through (`data:` for `data.redis`).
    'descend: loop {
        for c in tree.children(home, i) {
            let k = &tree.keys[c];
            if c == i || moved.contains(&c) || k.value.is_some() || is_above(tree, c, i) {
                continue;
            }
            if let Some(rest) = rel.strip_prefix(&format!("{}.", k.key))
                && !is_leaf(tree.keys, c)
            {
                home = Some(c);
                rel = rest.to_string();
                continue 'descend;
            }
        }
        break;
    }
    (home, rel)
}

/// Is `a` an ancestor of `i`?
fn is_above(tree: &Tree, a: usize, i: usize) -> bool {
    tree.ancestors(i).any(|p| p == a)
}

/// The indent of keys inside `home`: that of its first key, else two more than its own.
fn child_indent(tree: &Tree, home: Option<usize>) -> usize {
    match home {
        None => 0,
        Some(h) => tree
            .keys
            .get(h + 1)
            .filter(|n| n.depth == tree.keys[h].depth + 1)
            .map_or(tree.indent(h) + 2, |_| tree.indent(h + 1)),
    }
}

/// How much deeper each new level of a re-nested key goes: as the key's own children are
/// indented, else as `home`'s are, else two spaces.
fn nesting_step(tree: &Tree, i: usize, home: Option<usize>) -> usize {
    let below = |k: usize| {
        tree.keys
            .get(k + 1)
            .filter(|n| n.depth == tree.keys[k].depth + 1)
            .map(|_| tree.indent(k + 1) - tree.indent(k))
    };
    below(i).or_else(|| home.and_then(below)).unwrap_or(2)
}

/// After the last line of `home`'s block (of the document holding `i` for the top level).
fn insertion_point(tree: &Tree, home: Option<usize>, i: usize) -> usize {
    match home {
        Some(h) => tree.block(h).end,
        None => {
            let doc = tree.document(i);
            let body = tree.src[doc.clone()].trim_end_matches(['\n', '\r', ' ']);
            let end = doc.start + body.len();
            tree.src[end..doc.end]
                .find('\n')
                .map_or(doc.end, |n| end + n + 1)
        }
    }
}

/// `line` moved from below a key at indent `from` to below one at indent `to`.
fn reindent(line: &str, from: usize, to: usize) -> Result<String, String> {
    if line.trim().is_empty() {
        return Ok(line.to_string());
    }
    if to >= from {
        return Ok(format!("{}{line}", " ".repeat(to - from)));
    }
    let cut = from - to;
    if line.len() < cut || !line[..cut].bytes().all(|b| b == b' ') {
        return Err("a line in the moved block is indented less than its key".to_string());
    }
    Ok(line[cut..].to_string())
}

/// Every scalar and sequence of every document by its dotted path, as Spring flattens YAML.
pub(super) fn flatten(src: &str) -> Result<Vec<BTreeMap<String, Value>>, String> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(src).map_err(|e| e.to_string())?;
    Ok(docs
        .iter()
        .map(|d| {
            let mut out = BTreeMap::new();
            walk(d, String::new(), &mut out);
            out
        })
        .collect())
}

fn walk(v: &Value, path: String, out: &mut BTreeMap<String, Value>) {
    match v {
        Value::Object(map) if !map.is_empty() => {
            for (k, child) in map {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                walk(child, p, out);
            }
        }
        _ => {
            out.insert(path, v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::config_file;

    /// Paths of keys Boot 3 moves, renames, removes or keeps.
    const PATHS: &[&str] = &[
        "management.metrics.export.prometheus.enabled",
        "management.metrics.export.prometheus.step",
        "management.metrics.export.graphite.host",
        "management.metrics.tags.app",
        "management.endpoints.web.exposure.include",
        "spring.redis.host",
        "spring.redis.port",
        "spring.data.mongodb.uri",
        "spring.sleuth.sampler.probability",
        "spring.sleuth.sampler.rate",
        "spring.application.name",
        "spring.jpa.hibernate.use-new-id-generator-mappings",
        "spring.jpa.hibernate.ddl-auto",
        "spring.mvc.pathmatch.use-suffix-pattern",
        "server.port",
    ];

    /// Nested YAML holding `paths` in that order, one value each, with some levels written as
    /// dotted keys (`dots[i]`: after how many segments path `i` turns dotted).
    fn render(paths: &[&str], dots: &[usize], step: usize) -> String {
        let mut out = String::new();
        let mut open: Vec<String> = Vec::new();
        for (n, (path, dot)) in paths.iter().zip(dots).enumerate() {
            let segs: Vec<&str> = path.split('.').collect();
            let split = (*dot).clamp(1, segs.len());
            let mut keys: Vec<String> = segs[..split - 1].iter().map(|s| s.to_string()).collect();
            keys.push(segs[split - 1..].join("."));
            let shared = open.iter().zip(&keys).take_while(|(a, b)| a == b).count();
            let shared = shared.min(keys.len() - 1);
            open.truncate(shared);
            for (depth, key) in keys.iter().enumerate().skip(shared) {
                out.push_str(&" ".repeat(depth * step));
                if depth + 1 == keys.len() {
                    out.push_str(&format!("{key}: {n}\n"));
                } else {
                    out.push_str(&format!("{key}:\n"));
                    open.push(key.clone());
                }
            }
        }
        out
    }

    fn values(yaml: &str) -> Vec<String> {
        let mut v: Vec<String> = super::flatten(yaml)
            .expect("parses")
            .into_iter()
            .flat_map(|doc| doc.into_values().map(|v| v.to_string()))
            .collect();
        v.sort();
        v
    }

    proptest! {
        /// Whatever moves, the result parses and holds every value exactly once, but those
        /// of keys Boot 3 no longer binds, which are commented out.
        #[test]
        fn moves_keep_every_value(
            picks in prop::sample::subsequence(PATHS, 1..PATHS.len()).prop_shuffle(),
            dots in prop::collection::vec(1usize..6, PATHS.len()),
            step in 2usize..5,
        ) {
            let src = render(&picks, &dots, step);
            // Duplicate keys are not YAML; such a draw says nothing.
            prop_assume!(super::flatten(&src).is_ok());
            let r = config_file(&src, true);
            let gone = |path: &str| {
                matches!(
                    super::super::rename(path, true),
                    Some(super::super::Action::Removed { still_read: false, .. })
                )
            };
            let mut kept: Vec<String> = (0..picks.len())
                .filter(|&n| !gone(picks[n]))
                .map(|n| n.to_string())
                .collect();
            kept.sort();
            let out = r.text.as_deref().unwrap_or(&src);
            prop_assert_eq!(values(out), kept, "{} ->\n{}", src, out);
        }
    }

    #[test]
    fn the_generator_reaches_moves() {
        let src = render(&PATHS[..4], &[9, 9, 9, 9], 2);
        let r = config_file(&src, true);
        assert!(
            r.changes.iter().any(|c| c.ends_with("(re-nested)")),
            "{src}\n{:?}",
            r.changes
        );
    }
}
