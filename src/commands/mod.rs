//! Comment commands: parsing, authorisation and one handler per verb.

pub mod events;
pub mod handlers;

pub use crate::github::command::{Command, ParseError, VERBS, mentions_command, parse};
pub use events::Events;
