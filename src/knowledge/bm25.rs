//! Okapi BM25 over small documents (error signatures plus fingerprint features), and a
//! lexical confidence: the share of the query's IDF mass the best document matches.

use std::collections::HashMap;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Lower-case word tokens; Java names split at dots so `javax.annotation.Generated`
/// matches `Generated`.
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|t| t.len() > 1)
        .map(str::to_lowercase)
        .collect()
}

pub struct Index {
    docs: Vec<Vec<String>>,
    df: HashMap<String, usize>,
    avg_len: f64,
}

impl Index {
    pub fn new<'a>(docs: impl IntoIterator<Item = &'a str>) -> Self {
        let docs: Vec<Vec<String>> = docs.into_iter().map(tokens).collect();
        let mut df = HashMap::new();
        for d in &docs {
            let mut seen: Vec<&String> = d.iter().collect();
            seen.sort();
            seen.dedup();
            for t in seen {
                *df.entry(t.clone()).or_insert(0) += 1;
            }
        }
        let avg_len = if docs.is_empty() {
            0.0
        } else {
            docs.iter().map(Vec::len).sum::<usize>() as f64 / docs.len() as f64
        };
        Self { docs, df, avg_len }
    }

    fn idf(&self, term: &str) -> f64 {
        let n = self.docs.len() as f64;
        let df = *self.df.get(term).unwrap_or(&0) as f64;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// Documents by descending score (index, score), at most `limit`, score > 0 only.
    pub fn search(&self, query: &str, limit: usize) -> Vec<(usize, f64)> {
        let q = tokens(query);
        let mut scored: Vec<(usize, f64)> = self
            .docs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let len = d.len() as f64;
                let s = q
                    .iter()
                    .map(|t| {
                        let tf = d.iter().filter(|x| *x == t).count() as f64;
                        if tf == 0.0 {
                            return 0.0;
                        }
                        self.idf(t) * tf * (K1 + 1.0)
                            / (tf + K1 * (1.0 - B + B * len / self.avg_len.max(1.0)))
                    })
                    .sum();
                (i, s)
            })
            .filter(|(_, s)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        scored
    }

    /// How much of the query (by IDF) document `doc` contains, in [0, 1].
    pub fn confidence(&self, query: &str, doc: usize) -> f64 {
        let mut q = tokens(query);
        q.sort();
        q.dedup();
        let total: f64 = q.iter().map(|t| self.idf(t)).sum();
        if total == 0.0 {
            return 0.0;
        }
        let matched: f64 = q
            .iter()
            .filter(|t| self.docs[doc].contains(t))
            .map(|t| self.idf(t))
            .sum();
        matched / total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_the_matching_signature_first() {
        let idx = Index::new([
            "cannot find symbol class Generated package javax.annotation",
            "package org.junit does not exist",
            "incompatible types int cannot be converted to String",
        ]);
        let hits = idx.search("cannot find symbol: class Generated", 5);
        assert_eq!(hits[0].0, 0);
        assert!(idx.confidence("cannot find symbol: class Generated", 0) > 0.99);
        assert!(idx.confidence("package org.junit does not exist at all", 0) < 0.3);
    }
}
