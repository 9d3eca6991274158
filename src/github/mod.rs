//! GitHub: the webhook edge, app authentication, the REST calls, and rendering of the run
//! journal into what users see (PR body, check runs, status comment).

pub mod api;
pub mod client;
pub mod command;
pub mod inert;
pub mod render;
pub mod webhook;

pub use client::GitHub;
