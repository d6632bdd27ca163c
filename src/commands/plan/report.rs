//! What the plan commands print: SPEC §8's document (`-o json`), and for people the plan's
//! header, its counts per move, destination and status, and samples (or, for `plan show`,
//! every item).

use serde::Serialize;

use crate::jobs::plans::{Item, Plan, Summary};
use crate::ui::{Cell, Column, Output, Render, Table, Ui};

/// `{"plan", "items", "summary"}` (SPEC §8).
#[derive(Debug, Clone, Serialize)]
pub struct PlanDoc {
    pub plan: Plan,
    pub items: Vec<Item>,
    pub summary: Summary,
    /// Per action, destination and status: the count.
    #[serde(skip)]
    pub counts: Vec<(String, String, String, i64)>,
    /// `items` holds every item (else: the first few, as samples).
    #[serde(skip)]
    pub all_items: bool,
    /// Samples of the skipped and refused items (when `items` holds only samples).
    #[serde(skip)]
    pub unsettled: Vec<Item>,
    #[serde(skip)]
    pub required: usize,
    /// What the command did, for the first line of the table.
    #[serde(skip)]
    pub note: Option<String>,
}

fn stamp(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl PlanDoc {
    fn header(&self, width: Option<usize>) -> String {
        let p = &self.plan;
        let mut out = String::new();
        if let Some(n) = &self.note {
            out.push_str(n);
            out.push('\n');
        }
        out.push_str(&format!(
            "plan {}  {}\nmove: to {}, by {}\ncreated {}, expires {}\n",
            p.id,
            p.status,
            p.target,
            crate::escape::escape(&p.actor),
            stamp(p.created_at),
            stamp(p.expires_at),
        ));
        out.push_str(&wrap(
            &format!("reason: {}", crate::escape::escape(&p.reason)),
            width,
        ));
        if p.no_lookup {
            out.push_str("lookups: skipped (--no-lookup; recorded in every event)\n");
        }
        let approvals: Vec<String> = p
            .approvals
            .iter()
            .map(|a| format!("{} ({})", a.actor, stamp(a.at)))
            .collect();
        out.push_str(&format!(
            "approvals: {} of {} needed{}{}\n",
            p.counted_approvals(),
            self.required,
            if approvals.is_empty() { "" } else { ": " },
            approvals.join(", ")
        ));
        out.push_str(&format!(
            "items: {} planned, {} moved, {} skipped, {} refused\n",
            self.summary.planned, self.summary.moved, self.summary.skipped, self.summary.refused
        ));
        out
    }

    fn counts_table(&self, ui: &Ui) -> String {
        let mut t = Table::new(vec![
            Column::new("MOVE"),
            Column::new("DESTINATION").truncate(10),
            Column::new("STATUS"),
            Column::new("JOBS").right(),
        ]);
        for (action, dest, status, n) in &self.counts {
            t.row(vec![
                Cell::new(action),
                Cell::new(dest),
                Cell::new(status),
                Cell::new(n.to_string()),
            ]);
        }
        t.render(ui)
    }

    fn items_table(items: &[Item], ui: &Ui) -> String {
        let mut t = Table::new(vec![
            Column::id("JOB"),
            Column::new("FROM"),
            Column::new("V").right(),
            Column::new("TO"),
            Column::new("STATUS"),
            Column::new("DESTINATION").truncate(8).priority(2),
            Column::new("WHY").truncate(12).priority(1).or_below(),
        ]);
        for i in items {
            t.row(vec![
                Cell::id(i.job_id),
                Cell::state(i.from_state),
                Cell::new(i.version.to_string()),
                Cell::state(i.to_state),
                Cell::new(&i.status),
                Cell::new(&i.destination),
                Cell::new(crate::escape::escape(i.reason.as_deref().unwrap_or(""))),
            ]);
        }
        t.render(ui)
    }
}

impl Render for PlanDoc {
    fn table(&self, ui: &Ui) -> String {
        let mut out = self.header(ui.width().map(usize::from));
        if self.counts.is_empty() {
            out.push_str("no job matched: the plan is empty");
            return out;
        }
        out.push('\n');
        out.push_str(&self.counts_table(ui));
        if self.all_items {
            out.push_str("\n\nitems\n");
            out.push_str(&Self::items_table(&self.items, ui));
        } else {
            out.push_str("\n\nsample\n");
            out.push_str(&Self::items_table(&self.items, ui));
            if !self.unsettled.is_empty() {
                out.push_str("\n\nskipped and refused (sample)\n");
                out.push_str(&Self::items_table(&self.unsettled, ui));
            }
        }
        let id = &self.plan.id;
        match self.plan.status.as_str() {
            "awaiting_approval" => out.push_str(&format!(
                "\n\nnext: a reviewer runs `reconctl plan approve {id} --reason TEXT`"
            )),
            "ready" | "partially_applied" if self.summary.planned > 0 => {
                out.push_str(&format!("\n\nnext: reconctl plan apply {id}"))
            }
            _ => {}
        }
        out
    }

    fn output(&self) -> Output {
        Output::Report
    }
}

/// The plan's header and counts (approve, discard).
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct Short(pub PlanDoc);

impl Render for Short {
    fn table(&self, ui: &Ui) -> String {
        self.0
            .header(ui.width().map(usize::from))
            .trim_end()
            .to_string()
    }

    fn output(&self) -> Output {
        Output::Report
    }
}

/// What the consent screen of `plan apply` shows (on stderr, before the question).
pub fn consent_text(doc: &PlanDoc, width: Option<usize>) -> String {
    let ui = Ui::plain(crate::ui::Format::Table).with_width(width.map(|w| w as u16));
    let mut out = doc.header(width);
    out.push('\n');
    out.push_str(&doc.counts_table(&ui));
    out.push_str("\n\nsample\n");
    out.push_str(&PlanDoc::items_table(&doc.items, &ui));
    out.push_str("\n\n");
    out.push_str(&wrap(
        "Each job moves only if it is still at the version shown; accepted and safe_to_retry are asked of the destination again first.",
        width,
    ));
    out
}

/// `text` broken at spaces into lines no wider than `width` (a word longer than the width
/// stays whole on its own line), each ending in a newline.
fn wrap(text: &str, width: Option<usize>) -> String {
    let width = width.unwrap_or(usize::MAX).max(20);
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = format!("  {word}");
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// `plan list`.
#[derive(Debug, Clone, Serialize)]
pub struct PlanList {
    plans: Vec<ListedPlan>,
}

#[derive(Debug, Clone, Serialize)]
struct ListedPlan {
    #[serde(flatten)]
    plan: Plan,
    summary: Summary,
}

impl PlanList {
    pub fn new(plans: Vec<(Plan, Summary)>) -> PlanList {
        PlanList {
            plans: plans
                .into_iter()
                .map(|(plan, summary)| ListedPlan { plan, summary })
                .collect(),
        }
    }
}

impl Render for PlanList {
    fn table(&self, ui: &Ui) -> String {
        if self.plans.is_empty() {
            return "no plans".into();
        }
        let mut t = Table::new(vec![
            Column::new("ID"),
            Column::new("STATUS"),
            Column::new("MOVE"),
            Column::new("ITEMS").right(),
            Column::new("BY").truncate(8).priority(2),
            Column::new("CREATED").priority(3),
            Column::new("REASON").truncate(10).priority(1),
        ]);
        for p in &self.plans {
            let s = &p.summary;
            t.row(vec![
                Cell::new(&p.plan.id),
                Cell::new(&p.plan.status),
                Cell::new(p.plan.target.as_str()),
                Cell::new((s.planned + s.moved + s.skipped + s.refused).to_string()),
                Cell::new(&p.plan.actor),
                Cell::new(stamp(p.plan.created_at)),
                Cell::new(crate::escape::escape(&p.plan.reason)),
            ]);
        }
        t.render(ui)
    }

    fn output(&self) -> Output {
        Output::Data
    }
}

/// `events --plan ID`: `{"events": [...], "next_cursor": null}`, the plan's lifecycle records
/// (with `plan_id`) and the events of its moves (every `job_events` column, with the job's
/// destination and external_ref), oldest first.
#[derive(Debug, Clone, Serialize)]
pub struct PlanEvents {
    events: Vec<serde_json::Value>,
    next_cursor: Option<String>,
}

impl PlanEvents {
    pub fn new(
        lifecycle: Vec<crate::jobs::plans::PlanEvent>,
        moves: Vec<crate::jobs::Event>,
        items: std::collections::HashMap<uuid::Uuid, (String, String)>,
    ) -> PlanEvents {
        let mut all: Vec<(chrono::DateTime<chrono::Utc>, i64, serde_json::Value)> = lifecycle
            .into_iter()
            .map(|e| (e.at, e.id, serde_json::to_value(&e).unwrap_or_default()))
            .collect();
        for e in moves {
            let mut v = serde_json::to_value(&e).unwrap_or_default();
            if let (serde_json::Value::Object(o), Some((d, r))) = (&mut v, items.get(&e.job_id)) {
                o.insert("destination".into(), d.clone().into());
                o.insert("external_ref".into(), r.clone().into());
            }
            all.push((e.at, e.id, v));
        }
        all.sort_by_key(|e| (e.0, e.1));
        PlanEvents {
            events: all.into_iter().map(|(_, _, v)| v).collect(),
            next_cursor: None,
        }
    }
}

impl Render for PlanEvents {
    fn table(&self, ui: &Ui) -> String {
        if self.events.is_empty() {
            return "no events".into();
        }
        let mut t = Table::new(vec![
            Column::new("AT"),
            Column::new("ACTOR").truncate(8).priority(2),
            Column::new("ACTION"),
            Column::new("JOB").priority(1),
            Column::new("MOVE").priority(1),
            Column::new("REASON").truncate(10).priority(3),
        ]);
        let s = |v: &serde_json::Value, k: &str| v[k].as_str().unwrap_or("").to_string();
        for e in &self.events {
            let at = s(e, "at").chars().take(19).collect::<String>() + "Z";
            let (job, mv) = if e.get("job_id").is_some() {
                (
                    s(e, "job_id"),
                    format!(
                        "{} v{} → {} v{}",
                        s(e, "from_state"),
                        e["from_version"],
                        s(e, "to_state"),
                        e["to_version"]
                    ),
                )
            } else {
                (format!("plan {}", s(e, "plan_id")), String::new())
            };
            t.row(vec![
                Cell::new(at),
                Cell::new(crate::escape::escape(&s(e, "actor"))),
                Cell::new(s(e, "action")),
                Cell::new(job),
                Cell::new(mv),
                Cell::new(crate::escape::escape(&s(e, "reason"))),
            ]);
        }
        t.render(ui)
    }

    fn output(&self) -> Output {
        Output::Data
    }

    fn jsonl(&self) -> Vec<serde_json::Value> {
        self.events.clone()
    }
}

/// `reconcile --save-plan`: `{"plans": [{"plan", "items", "summary"}, ...]}`.
#[derive(Debug, Clone, Serialize)]
pub struct SavedPlans {
    plans: Vec<PlanDoc>,
}

impl SavedPlans {
    pub fn new(plans: Vec<PlanDoc>) -> SavedPlans {
        SavedPlans { plans }
    }
}

impl Render for SavedPlans {
    fn table(&self, ui: &Ui) -> String {
        if self.plans.is_empty() {
            return "no move is justified: no plan saved".into();
        }
        self.plans
            .iter()
            .map(|d| d.table(ui))
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    fn output(&self) -> Output {
        Output::Report
    }
}
