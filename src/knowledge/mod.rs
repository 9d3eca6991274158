//! Solved-example retrieval: error signatures, a lexical (BM25) index over the stored
//! examples, and the deterministic choice of retrieval plan. The examples themselves live
//! in the store (`store/knowledge.rs`).

pub mod bm25;
pub mod plan;
pub mod signature;
