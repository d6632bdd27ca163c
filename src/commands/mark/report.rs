//! What a mark shows: the summary a person confirms, and the result (SPEC §5:
//! `{"job": {...}, "event": {...}}`, `"event": null` when nothing changed).

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::Value;

use super::plan::Mark;
use crate::duration::format_duration;
use crate::jobs::{Event, Job};
use crate::ui::{escape, paragraphs, Cell, Fields, Output, Render, Ui};

#[derive(Debug, Serialize)]
pub struct MarkReport {
    pub job: Job,
    pub event: Option<Event>,
    /// Only present on a dry run: the job and event are what the move would produce; the
    /// transaction that proved it was rolled back.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    /// For "no change": what the destination said of it, when it was asked.
    #[serde(skip)]
    pub note: Option<String>,
}

impl Render for MarkReport {
    fn table(&self, ui: &Ui) -> String {
        paragraphs(&self.text(), ui.width().map(usize::from))
    }

    fn output(&self) -> Output {
        Output::Report
    }
}

impl MarkReport {
    /// What happened, a line for the move and one each for its event and evidence.
    fn text(&self) -> String {
        let job = &self.job;
        let remote = |r: &Option<String>| {
            r.as_deref()
                .map(|r| format!(" (remote_id {})", escape(r)))
                .unwrap_or_default()
        };
        let Some(ev) = &self.event else {
            let prefix = if self.dry_run { "dry run: " } else { "" };
            let note = self
                .note
                .as_deref()
                .map(|n| format!("\n  {}", escape(n)))
                .unwrap_or_default();
            return format!(
                "{prefix}no change: job {} is already {}{} at version {}{note}",
                job.id,
                job.state,
                remote(&job.remote_id),
                job.version
            );
        };
        let from = ev
            .from_state
            .map_or_else(|| "?".to_string(), |s| s.to_string());
        let from_version = ev
            .from_version
            .map_or_else(|| "?".to_string(), |v| v.to_string());
        let movement = format!(
            "job {} {from} v{from_version} → {} v{}{}",
            job.id,
            ev.to_state,
            ev.to_version,
            remote(&job.remote_id)
        );
        let evidence = evidence_line(&ev.evidence);
        if self.dry_run {
            return format!(
                "dry run: would move {movement}\n  proved against the database now (the move was rolled back); nothing changed\n  evidence: {evidence}"
            );
        }
        format!(
            "moved {movement}\n  event {} by {}: {}\n  evidence: {evidence}",
            ev.id,
            escape(&ev.actor),
            escape(ev.reason.as_deref().unwrap_or(""))
        )
    }
}

/// One line for an event's evidence.
pub fn evidence_line(evidence: &Value) -> String {
    match evidence.get("lookup") {
        Some(Value::String(s)) if s == "skipped" => {
            "lookup skipped (--no-lookup): the destination was not consulted".into()
        }
        Some(Value::String(s)) if s == "not_needed" => {
            "no lookup needed (giving up cannot publish twice)".into()
        }
        Some(Value::String(s)) => format!("lookup {s}"),
        Some(Value::Object(l)) => {
            let s = |k: &str| l.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
            let on_purpose =
                if evidence.get("accepted_different_content") == Some(&Value::Bool(true)) {
                    "; its content differs, accepted on purpose"
                } else {
                    ""
                };
            format!(
                "lookup at {}: {}, verdict {}: {}{on_purpose}",
                escape(&s("destination")),
                s("outcome"),
                s("verdict"),
                escape(&s("reason"))
            )
        }
        _ => evidence.to_string(),
    }
}

/// What a mark asks a person to consent to: the job, the move, who and why, on what evidence.
pub struct Consent<'a> {
    pub job: &'a Job,
    pub mark: &'a Mark,
    pub remote_id: Option<&'a str>,
    pub reason: &'a str,
    pub actor: &'a str,
    pub evidence: &'a Value,
    pub now: DateTime<Utc>,
}

/// What a person sees before answering: the job, the move, and the evidence; fitted to
/// `width` (stderr's), the id and the reference each whole on a line.
pub fn consent_summary(width: Option<usize>, consent: &Consent<'_>) -> String {
    let Consent {
        job,
        mark,
        remote_id,
        reason,
        actor,
        evidence,
        now,
    } = *consent;
    let ago = |t: DateTime<Utc>| format_duration((now - t).to_std().unwrap_or_default());
    let mut f = Fields::new();
    f.token("Job", Cell::id(job.id))
        .token("Ref", job.external_ref.as_str())
        .text(
            "Key",
            format!(
                "tenant {}, article {}, revision {}, destination {}",
                job.tenant_id, job.article_id, job.revision_id, job.destination
            ),
        )
        .text(
            "State",
            format!(
                "{}, version {}, for {}",
                job.state,
                job.version,
                ago(job.state_changed_at)
            ),
        )
        .text("Attempts", job.attempts.to_string())
        .text(
            "Sent at",
            job.sent_at.map_or_else(
                || "never".to_string(),
                |t| {
                    format!(
                        "{} ({} ago)",
                        t.to_rfc3339_opts(SecondsFormat::Secs, true),
                        ago(t)
                    )
                },
            ),
        )
        .token("Remote id", job.remote_id.as_deref().unwrap_or("(none)"))
        .text(
            "Move",
            format!(
                "{} v{} → {} v{} ({}, as {})",
                job.state,
                job.version,
                mark.target(),
                job.version + 1,
                mark.action(),
                actor
            ),
        );
    if let Some(r) = remote_id {
        f.text("Records", format!("remote_id {r}"));
    }
    if evidence.get("accepted_different_content") == Some(&Value::Bool(true)) {
        f.text(
            "Content",
            "the destination's copy differs from the job's payload: accepted on purpose (--accept-different-content), recorded in the event",
        );
    }
    f.text("Reason", reason)
        .text("Evidence", evidence_line(evidence));
    f.render_at(width, false)
}
