//! `reconctl __complete WHAT` (hidden): the values a shell offers where they depend on this
//! installation — the destination names, from the config and the database — for the
//! generated bash, zsh and fish scripts to call (`destination pause <TAB>`,
//! `--destination <TAB>`); the states and event actions too, so every list comes from one
//! place.
//!
//! A completion must never hang a shell or print into it: the database is asked within
//! [`DB_WAIT`], and whatever fails (no config, no database, a timeout) prints nothing for
//! that source, nothing on stderr, exit 0.

use std::collections::BTreeSet;
use std::time::Duration;

use super::Exit;
use crate::context::Context;
use crate::error::Result;
use crate::jobs::State;

/// The longest a completion waits for the database (connect and read).
pub const DB_WAIT: Duration = Duration::from_millis(1500);

/// What the completion scripts may ask for.
pub const WHATS: [&str; 3] = ["destinations", "states", "actions"];

#[derive(Debug, clap::Args)]
pub struct Args {
    /// destinations, states or actions
    #[arg(value_parser = WHATS)]
    pub what: String,
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let values: Vec<String> = match args.what.as_str() {
        "destinations" => destinations(ctx).await.into_iter().collect(),
        "states" => State::NAMES.iter().map(|s| s.to_string()).collect(),
        _ => crate::commands::events::valid_actions()
            .into_iter()
            .map(str::to_string)
            .collect(),
    };
    let mut text = String::new();
    for v in values.iter().filter(|v| is_word(v)) {
        text.push_str(v);
        text.push('\n');
    }
    // A closed pipe (the shell gave up) is no error worth a word.
    let _ = ctx.ui.out_raw(&text);
    Ok(Exit::Done)
}

/// Configured, paused, or holding jobs (as `destination list` knows them).
async fn destinations(ctx: &Context) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = ctx
        .config()
        .map(|c| c.destinations.keys().cloned().collect())
        .unwrap_or_default();
    let from_db = async {
        let db = ctx.db().await?;
        let mut found = crate::jobs::pause::destinations_with_jobs(&**db).await?;
        found.extend(crate::jobs::query::destinations::paused_now(&**db).await?);
        Ok::<_, crate::error::Error>(found)
    };
    if let Ok(Ok(found)) = tokio::time::timeout(DB_WAIT, from_db).await {
        names.extend(found);
    }
    names
}

/// A value a shell can take as one word: no whitespace, no control characters, nothing a
/// shell would expand (a destination name comes from a database anyone may have written).
fn is_word(v: &str) -> bool {
    !v.is_empty()
        && v.chars().all(|c| {
            !c.is_whitespace()
                && !c.is_control()
                && !matches!(
                    c,
                    '$' | '`'
                        | '\\'
                        | '"'
                        | '\''
                        | '('
                        | ')'
                        | ';'
                        | '&'
                        | '|'
                        | '<'
                        | '>'
                        | '*'
                        | '?'
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | '!'
                        | '#'
                        | '~'
                )
        })
}

#[cfg(test)]
mod tests {
    use super::is_word;

    #[test]
    fn only_plain_words_reach_a_shell() {
        for ok in ["cms-a", "cms_b.eu", "CMS:1", "café"] {
            assert!(is_word(ok), "{ok}");
        }
        for bad in ["", "a b", "$(rm -rf ~)", "`x`", "a\nb", "x;y", "a*"] {
            assert!(!is_word(bad), "{bad}");
        }
    }
}
