//! Comment commands: parsing, authorisation and one handler per verb.

pub mod handlers;
mod parse;

pub use parse::{Command, ParseError, VERBS, mentions_command, parse};
