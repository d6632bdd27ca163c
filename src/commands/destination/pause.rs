//! `reconctl destination pause`: stop workers claiming one destination's jobs (those in
//! flight finish as usual), or change the reason and end of a pause (a repause).

use std::time::Duration;

use super::consent::{confirm, in_flight, needs_yes, waiting};
use super::{resolve, validate_reason, ChangeReport};
use crate::commands::{Confirmation, Exit};
use crate::context::Context;
use crate::duration::{humane, HumanDuration};
use crate::error::{Error, Result};
use crate::jobs::pause;
use crate::jobs::query;
use crate::ui::destination::{stamp, until_text, DestinationView};
use crate::ui::{escape, thousands};

#[derive(Debug, clap::Args)]
pub struct PauseArgs {
    /// The destination, as jobs name it (publication_jobs.destination)
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Why (recorded, and shown by status, jobs list and destination list)
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
    /// End the pause by itself after this long [default: until resumed]
    #[arg(long = "for", value_name = "DUR")]
    pub for_: Option<HumanDuration>,
    #[command(flatten)]
    pub confirm: Confirmation,
}

pub async fn run(ctx: &Context, args: &PauseArgs) -> Result<Exit> {
    let reason = validate_reason(&args.reason)?;
    let for_ = args.for_.map(|d| d.0);
    if for_.is_some_and(|d| d < Duration::from_secs(1)) {
        return Err(Error::usage(
            "--for must be at least 1s (omit it to pause until resumed)",
        ));
    }
    let name = args.name.as_str();
    let dry_run = args.confirm.dry_run;
    let ask = !args.confirm.yes && !dry_run;
    let (view, load) = {
        let db = ctx.db().await?;
        let pauses = pause::observe(&**db, &ctx.actor).await?;
        let configured = resolve(ctx, &**db, name, &pauses).await?;
        if ask && !ctx.ui.can_prompt() {
            return Err(needs_yes(&format!("pause {name}")));
        }
        let load = query::destination_load(&**db, name).await?;
        (DestinationView::new(name, configured, &pauses), load)
    };
    if ask {
        let end = match for_ {
            Some(d) => format!(
                "until {} (for {})",
                stamp(load.now + chrono::Duration::from_std(d).unwrap_or_default()),
                humane(d)
            ),
            None => "until resumed".into(),
        };
        let change = if view.paused {
            format!("repause: {end}")
        } else {
            format!("pause {end}")
        };
        let effect = format!(
            "workers claim none of its jobs ({} waiting); {}",
            thousands(waiting(&load)),
            match in_flight(&load) {
                0 => "none is in flight".to_string(),
                1 => "the 1 job in flight finishes or times out as usual".to_string(),
                n => format!("the {n} jobs in flight finish or time out as usual"),
            }
        );
        confirm(
            ctx,
            &view,
            &load,
            &change,
            &effect,
            reason,
            ("Pause", "paused"),
        )?;
    }

    let mut db = ctx.db().await?;
    crate::retention::ensure_partitions_quietly(&**db).await;
    let tx = db.transaction().await?;
    let paused = pause::pause(&*tx, name, reason, for_, &ctx.actor).await?;
    if dry_run {
        tx.rollback().await?;
    } else {
        tx.commit().await?;
    }
    // What is still in flight now that no new claim can be granted.
    let after = query::destination_load(&**db, name).await?;
    drop(db);

    let p = &paused.pause;
    let now = after.now;
    let end = match p.until {
        Some(u) => format!("until {} ({})", stamp(u), until_text(now, Some(u))),
        None => "until resumed".into(),
    };
    let verb = match (dry_run, paused.event.action.as_str()) {
        (true, "repause") => "dry run: would change the pause of",
        (true, _) => "dry run: would pause",
        (false, "repause") => "changed the pause of",
        (false, _) => "paused",
    };
    // The report's words are ours; every value from outside in it is escaped.
    let shown = escape(name);
    let mut lines = vec![format!("{verb} {shown} {end}")];
    if dry_run {
        lines.push("  proved against the database now (rolled back); nothing changed".to_string());
    } else {
        lines.push(format!(
            "  event {} by {}: {}",
            paused.event.id,
            escape(&paused.event.actor),
            escape(&p.reason)
        ));
        lines.push("  workers claim none of its jobs".to_string());
    }
    let holders = after
        .leases
        .iter()
        .map(|l| format!("{}: {}", escape(&l.owner), l.jobs))
        .collect::<Vec<_>>()
        .join(", ");
    match in_flight(&after) {
        0 => {}
        1 => lines.push(format!(
            "  in flight: 1 job ({holders}); it finishes or times out as usual"
        )),
        n => lines.push(format!(
            "  in flight: {n} jobs ({holders}); they finish or time out as usual"
        )),
    }
    if !dry_run {
        lines.push(format!(
            "  resume: `reconctl destination resume {shown} --reason TEXT`"
        ));
    }
    ctx.ui.emit(&ChangeReport {
        destination: DestinationView::from_pause(p, view.configured),
        event: Some(paused.event),
        dry_run,
        text: lines.join("\n"),
    })?;
    Ok(Exit::Done)
}
