//! Comment commands: `@<slug> <verb> [args]` or `/uplift <verb> [args]` at the start of a line,
//! case-insensitive. Quoted lines (`> ...`) and fenced code are not commands, so a reply that
//! quotes an earlier command does not run it again.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verb", rename_all = "snake_case")]
pub enum Command {
    Migrate {
        target: Option<u32>,
        dry_run: bool,
    },
    Plan {
        target: Option<u32>,
    },
    Retry,
    Cancel,
    Status,
    /// Discard human edits on the migration branch and start over.
    Recreate,
    Help,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("unknown command `{0}`")]
    UnknownVerb(String),
    #[error("{0}")]
    BadArgument(String),
}

pub const VERBS: &[&str] = &[
    "migrate", "plan", "retry", "cancel", "status", "recreate", "help",
];

/// The text after the mention on each command line.
fn command_lines<'a>(body: &'a str, slug: &str) -> impl Iterator<Item = &'a str> {
    let mention = format!("@{}", slug.to_ascii_lowercase());
    let mut fenced = false;
    body.lines().filter_map(move |line| {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            return None;
        }
        if fenced || t.starts_with('>') {
            return None;
        }
        let lower = t.to_ascii_lowercase();
        let rest_at = [mention.as_str(), "/uplift"]
            .iter()
            .find(|p| {
                lower.starts_with(*p)
                    && lower[p.len()..]
                        .chars()
                        .next()
                        .is_none_or(char::is_whitespace)
            })
            .map(|p| p.len())?;
        Some(t[rest_at..].trim())
    })
}

/// Cheap test used at the webhook edge: does the comment address Uplift at all?
pub fn mentions_command(body: &str, slug: &str) -> bool {
    command_lines(body, slug).next().is_some()
}

/// The first command in a comment, if any line addresses Uplift.
pub fn parse(body: &str, slug: &str) -> Option<Result<Command, ParseError>> {
    command_lines(body, slug).next().map(parse_line)
}

fn parse_target(v: &str) -> Result<u32, ParseError> {
    match v {
        "17" | "21" => Ok(v.parse().expect("digits")),
        _ => Err(ParseError::BadArgument(format!(
            "--target must be 17 or 21, not `{v}`"
        ))),
    }
}

fn parse_line(rest: &str) -> Result<Command, ParseError> {
    let mut words = rest.split_whitespace();
    let verb = words.next().unwrap_or("help").to_ascii_lowercase();
    // The verb first: an unknown one is named as such, whatever follows it.
    let mut command = match verb.as_str() {
        "migrate" => Command::Migrate {
            target: None,
            dry_run: false,
        },
        "plan" => Command::Plan { target: None },
        "retry" => Command::Retry,
        "cancel" => Command::Cancel,
        "status" => Command::Status,
        "recreate" => Command::Recreate,
        "help" => Command::Help,
        _ => return Err(ParseError::UnknownVerb(verb)),
    };
    let args: Vec<&str> = words.collect();
    let mut i = 0;
    while i < args.len() {
        let word = args[i];
        let a = word.to_ascii_lowercase();
        let value = match a.as_str() {
            "--target" | "--java" => {
                i += 1;
                Some(args.get(i).copied().ok_or_else(|| {
                    ParseError::BadArgument("--target needs a value (17 or 21)".into())
                }))
            }
            _ if a.starts_with("--target=") || a.starts_with("--java=") => {
                Some(Ok(word.split_once('=').map_or("", |x| x.1)))
            }
            _ => None,
        };
        match (&mut command, value) {
            (Command::Migrate { target, .. } | Command::Plan { target }, Some(v)) => {
                *target = Some(parse_target(v?)?);
            }
            (Command::Migrate { dry_run, .. }, None) if a == "--dry-run" => *dry_run = true,
            _ => {
                return Err(ParseError::BadArgument(format!(
                    "`{verb}` does not take `{word}`"
                )));
            }
        }
        i += 1;
    }
    Ok(command)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(body: &str) -> Option<Result<Command, ParseError>> {
        parse(body, "uplift")
    }

    #[test]
    fn verbs_and_arguments() {
        assert_eq!(
            p("@uplift migrate --target 21 --dry-run"),
            Some(Ok(Command::Migrate {
                target: Some(21),
                dry_run: true
            }))
        );
        assert_eq!(
            p("Please:\n  @Uplift MIGRATE --target=17"),
            Some(Ok(Command::Migrate {
                target: Some(17),
                dry_run: false
            }))
        );
        assert_eq!(p("/uplift plan"), Some(Ok(Command::Plan { target: None })));
        assert_eq!(p("@uplift"), Some(Ok(Command::Help)));
        assert_eq!(p("@uplift status"), Some(Ok(Command::Status)));
        assert_eq!(p("@uplift recreate"), Some(Ok(Command::Recreate)));
    }

    #[test]
    fn errors_are_reported_not_guessed() {
        assert_eq!(
            p("@uplift frobnicate"),
            Some(Err(ParseError::UnknownVerb("frobnicate".into())))
        );
        assert_eq!(
            p("@uplift frobnicate --now"),
            Some(Err(ParseError::UnknownVerb("frobnicate".into())))
        );
        assert!(matches!(
            p("@uplift migrate --target 11"),
            Some(Err(ParseError::BadArgument(_)))
        ));
        assert!(matches!(
            p("@uplift migrate --target"),
            Some(Err(ParseError::BadArgument(_)))
        ));
        assert!(matches!(
            p("@uplift cancel now"),
            Some(Err(ParseError::BadArgument(_)))
        ));
        assert_eq!(
            p("@uplift cancel --target 17"),
            Some(Err(ParseError::BadArgument(
                "`cancel` does not take `--target`".into()
            )))
        );
        assert_eq!(
            p("@uplift plan --dry-run"),
            Some(Err(ParseError::BadArgument(
                "`plan` does not take `--dry-run`".into()
            )))
        );
        assert_eq!(
            p("@uplift plan --Java=21"),
            Some(Ok(Command::Plan { target: Some(21) }))
        );
    }

    #[test]
    fn not_commands() {
        assert_eq!(p("thanks @uplift migrate was great"), None);
        assert_eq!(p("> @uplift migrate"), None);
        assert_eq!(p("```\n@uplift migrate\n```"), None);
        assert_eq!(p("@upliftbot migrate"), None);
        assert_eq!(
            parse("@my-uplift migrate", "my-uplift"),
            Some(Ok(Command::Migrate {
                target: None,
                dry_run: false
            }))
        );
    }
}
