//! `reconctl destination resume`: let workers claim one destination's jobs again.
//! Resuming a destination that is not paused is "no change".

use super::consent::{confirm, needs_yes, waiting};
use super::{resolve, validate_reason, ChangeReport};
use crate::commands::{Confirmation, Exit};
use crate::context::Context;
use crate::duration::humane;
use crate::error::Result;
use crate::jobs::pause;
use crate::jobs::query;
use crate::jobs::State;
use crate::ui::destination::{until_text, DestinationView};
use crate::ui::{escape, thousands};

#[derive(Debug, clap::Args)]
pub struct ResumeArgs {
    /// The destination, as jobs name it (publication_jobs.destination)
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Why (recorded)
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
    #[command(flatten)]
    pub confirm: Confirmation,
}

pub async fn run(ctx: &Context, args: &ResumeArgs) -> Result<Exit> {
    let reason = validate_reason(&args.reason)?;
    let name = args.name.as_str();
    let dry_run = args.confirm.dry_run;
    let ask = !args.confirm.yes && !dry_run;
    let (view, load) = {
        let db = ctx.db().await?;
        let pauses = pause::observe(&**db, &ctx.actor).await?;
        let configured = resolve(ctx, &**db, name, &pauses).await?;
        let view = DestinationView::new(name, configured, &pauses);
        if !view.paused {
            // Safe to repeat: nothing to ask about, nothing to record.
            let shown = escape(name);
            let text = match &view.expired {
                Some(p) => format!(
                    "no change: {shown} is not paused (the pause by {} ended by itself {})",
                    escape(&p.actor),
                    until_text(pauses.now, p.until)
                ),
                None => match pauses.recorded.iter().find(|e| e.pause.destination == name) {
                    Some(e) => format!(
                        "no change: {shown} is not paused (the pause by {} ended by itself {}; recorded now)",
                        escape(&e.pause.actor),
                        until_text(pauses.now, e.pause.until)
                    ),
                    None => format!("no change: {shown} is not paused"),
                },
            };
            ctx.ui.emit(&ChangeReport {
                destination: DestinationView::unpaused(name, configured),
                event: None,
                dry_run,
                text,
            })?;
            return Ok(Exit::Done);
        }
        if ask && !ctx.ui.can_prompt() {
            return Err(needs_yes(&format!("resume {name}")));
        }
        let load = query::destination_load(&**db, name).await?;
        (view, load)
    };
    if ask {
        let effect = format!(
            "workers claim its jobs again: {} waiting",
            thousands(waiting(&load))
        );
        confirm(
            ctx,
            &view,
            &load,
            "resume",
            &effect,
            reason,
            ("Resume", "resumed"),
        )?;
    }

    let mut db = ctx.db().await?;
    crate::retention::ensure_partitions_quietly(&**db).await;
    let resumed = if dry_run {
        let tx = db.transaction().await?;
        let r = pause::resume(&*tx, name, reason, &ctx.actor).await?;
        tx.rollback().await?;
        r
    } else {
        pause::resume(&**db, name, reason, &ctx.actor).await?
    };
    let after = query::destination_load(&**db, name).await?;
    drop(db);
    let now = after.now;
    let Some((ended, event)) = resumed.ended else {
        // Ended between the look and the change: by itself, or by someone else.
        let by_itself = resumed.expired.iter().any(|e| e.pause.destination == name);
        let shown = escape(name);
        let text = if by_itself {
            format!("no change: {shown} is not paused (its pause ended by itself just now)")
        } else {
            format!("no change: {shown} is not paused (someone resumed it just now)")
        };
        ctx.ui.emit(&ChangeReport {
            destination: DestinationView::unpaused(name, view.configured),
            event: None,
            dry_run,
            text,
        })?;
        return Ok(Exit::Done);
    };
    let verb = if dry_run {
        "dry run: would resume"
    } else {
        "resumed"
    };
    let shown = escape(name);
    let mut lines = vec![
        format!("{verb} {shown} after {}", humane(ended.age(now))),
        format!(
            "  it was paused by {}: {}",
            escape(&ended.actor),
            escape(&ended.reason)
        ),
    ];
    if dry_run {
        lines.push("  proved against the database now (rolled back); nothing changed".to_string());
    } else {
        lines.push(format!(
            "  event {} by {}: {}",
            event.id,
            escape(&event.actor),
            escape(reason)
        ));
        lines.push(format!(
            "  workers claim its jobs again: {} waiting",
            thousands(waiting(&after))
        ));
    }
    let unsettled: i64 = after
        .open
        .iter()
        .filter(|g| State::unsettled().contains(&g.state))
        .map(|g| g.count)
        .sum();
    if unsettled > 0 {
        lines.push(format!(
            "  {} uncertain or in conflict: `reconctl reconcile --destination {shown}`",
            thousands(unsettled)
        ));
    }
    ctx.ui.emit(&ChangeReport {
        destination: DestinationView::unpaused(name, view.configured),
        event: Some(event),
        dry_run,
        text: lines.join("\n"),
    })?;
    Ok(Exit::Done)
}
