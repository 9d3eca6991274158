//! Test support shared by the integration test crates: a fake of GitHub's REST API and
//! webhook payload builders.
#![allow(dead_code)]

pub mod fake_github;
pub mod payloads;
