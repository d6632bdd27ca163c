//! What a person sees before pausing or resuming a destination (on a terminal, default
//! No), and the refusal without one.

use chrono::{DateTime, Utc};

use crate::context::Context;
use crate::duration::humane;
use crate::error::{Code, Error, Result};
use crate::jobs::query::DestinationLoad;
use crate::jobs::State;
use crate::ui::destination::{ago, span, stamp, until_text, DestinationView};
use crate::ui::{thousands, Fields, Ui};

fn open_line(load: &DestinationLoad) -> String {
    if load.open.is_empty() {
        return "none".into();
    }
    load.open
        .iter()
        .map(|g| {
            format!(
                "{} {} (oldest {})",
                g.state,
                thousands(g.count),
                humane(
                    (load.now - g.oldest_state_changed_at)
                        .to_std()
                        .unwrap_or_default()
                )
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// When a worker's leases end, worded for each end's side of now: `lease ends in 5m`,
/// `leases end in 2m–7m 45s`, `leases expired 27m 15s–3m ago`, or (some gone, some not)
/// `the first lease expired 27m 15s ago, the last ends in 7m 45s`.
fn lease_window(now: DateTime<Utc>, first: DateTime<Utc>, last: DateTime<Utc>) -> String {
    let left = |t: DateTime<Utc>| span(now, t).unwrap_or_else(|| "0s".into());
    let gone = |t: DateTime<Utc>| span(t, now).unwrap_or_else(|| "0s".into());
    match (first > now, last > now) {
        _ if first == last && first > now => format!("lease ends in {}", left(first)),
        _ if first == last => format!("lease expired {}", ago(now, first)),
        (true, _) => format!("leases end in {}–{}", left(first), left(last)),
        (false, false) => format!("leases expired {}–{} ago", gone(first), gone(last)),
        (false, true) => format!(
            "the first lease expired {}, the last ends in {}",
            ago(now, first),
            left(last)
        ),
    }
}

fn leases_line(load: &DestinationLoad) -> String {
    if load.leases.is_empty() {
        return "none".into();
    }
    load.leases
        .iter()
        .map(|l| {
            let window = lease_window(load.now, l.first_expiry, l.last_expiry);
            let jobs = if l.jobs == 1 {
                "1 job".to_string()
            } else {
                format!("{} jobs", l.jobs)
            };
            format!("{}: {jobs} ({} sent), {window}", l.owner, l.sent)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

pub(super) fn in_flight(load: &DestinationLoad) -> i64 {
    load.leases.iter().map(|l| l.jobs).sum()
}

pub(super) fn waiting(load: &DestinationLoad) -> i64 {
    load.open
        .iter()
        .filter(|g| State::waiting().contains(&g.state))
        .map(|g| g.count)
        .sum()
}

/// The `Now` lines of a consent summary: paused or not, and if so by whom, why, until when.
fn current_lines(f: &mut Fields, now: DateTime<Utc>, view: &DestinationView) {
    match (&view.paused, &view.expired) {
        (true, _) => {
            f.text(
                "Now",
                format!(
                    "paused by {} {}: {}",
                    view.actor.as_deref().unwrap_or("?"),
                    view.since.map(|s| ago(now, s)).unwrap_or_default(),
                    view.reason.as_deref().unwrap_or("")
                ),
            );
            f.text(
                "Until",
                match view.until {
                    None => "resumed".to_string(),
                    Some(u) => format!("{} ({})", stamp(u), until_text(now, Some(u))),
                },
            );
        }
        (false, Some(p)) => {
            f.text(
                "Now",
                format!(
                    "not paused (the pause by {} ended by itself {})",
                    p.actor,
                    until_text(now, p.until)
                ),
            );
        }
        (false, None) => {
            f.text("Now", "not paused");
        }
    }
}

/// What a person sees before pausing or resuming, fitted to stderr's width.
fn consent_summary(
    ui: &Ui,
    view: &DestinationView,
    load: &DestinationLoad,
    change: &str,
    effect: &str,
    reason: &str,
    actor: &str,
) -> String {
    let mut f = Fields::new();
    f.text(
        "Destination",
        format!(
            "{}{}",
            view.name,
            if view.configured {
                " (configured)"
            } else {
                " (not in the config file)"
            }
        ),
    );
    current_lines(&mut f, load.now, view);
    f.text("Open jobs", open_line(load))
        .text("In flight", leases_line(load))
        .text("Change", change)
        .text("By", actor)
        .text("Effect", effect)
        .text("Reason", reason);
    f.render_at(ui.err_width().map(usize::from), false)
}

/// Show what would change and ask (default No); a no changes nothing. `(verb, done)`: the
/// question's verb and the refusal's (`("Pause", "paused")`).
pub(super) fn confirm(
    ctx: &Context,
    view: &DestinationView,
    load: &DestinationLoad,
    change: &str,
    effect: &str,
    reason: &str,
    (verb, done): (&str, &str),
) -> Result<()> {
    let name = &view.name;
    ctx.ui.before_prompt(&consent_summary(
        &ctx.ui, view, load, change, effect, reason, &ctx.actor,
    ));
    if !ctx.ui.confirm(&format!("{verb} destination {name}?"))? {
        return Err(Error::new(
            Code::Declined,
            format!("not confirmed: {name} was not {done}; nothing changed"),
        ));
    }
    Ok(())
}

/// Without a terminal and without `--yes`, a change is refused before anything is shown.
pub(super) fn needs_yes(what: &str) -> Error {
    Error::new(
        Code::ConfirmationRequired,
        format!("refusing to {what} without --yes: there is no terminal to ask on"),
    )
    .hinted("nothing changed; pass --yes to confirm from a script, or --dry-run to see what would happen")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_14_lease_windows_say_each_end_on_its_side_of_now() {
        let now = Utc::now();
        let at = |secs: i64| now + chrono::Duration::seconds(secs);
        assert_eq!(
            lease_window(now, at(-(27 * 60 + 15)), at(7 * 60 + 45)),
            "the first lease expired 27m 15s ago, the last ends in 7m 45s"
        );
        assert_eq!(
            lease_window(now, at(120), at(7 * 60 + 45)),
            "leases end in 2m–7m 45s"
        );
        assert_eq!(
            lease_window(now, at(-(27 * 60 + 15)), at(-180)),
            "leases expired 27m 15s–3m ago"
        );
        assert_eq!(lease_window(now, at(300), at(300)), "lease ends in 5m");
        assert_eq!(
            lease_window(now, at(-300), at(-300)),
            "lease expired 5m ago"
        );
    }
}
