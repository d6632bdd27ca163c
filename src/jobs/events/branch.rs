//! Where events are read from, and the branches a filter makes of them: each branch one
//! source and its conditions, in the form that source's index serves (the table in `page`).
//! Listing and following build their statements from these.

use super::filter::EventFilter;
use crate::jobs::query::Sql;

/// Where a branch reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// job_events (with the job, for external_ref and destination).
    Jobs,
    /// Events older than V6, found by destination through job_event_destinations.
    Legacy,
    /// destination_events.
    Destinations,
}

impl Source {
    /// `FROM …` and the select list, in [`TrailEvent::from_row_at`]'s order.
    pub(super) fn select(self) -> &'static str {
        match self {
            Source::Jobs => {
                "SELECT e.id AS id, e.job_id AS job_id, e.at AS at, e.actor AS actor, e.action AS action, \
                 e.from_state AS from_state, e.to_state AS to_state, e.from_version AS from_version, \
                 e.to_version AS to_version, e.reason AS reason, e.evidence AS evidence, \
                 j.destination AS destination, j.external_ref AS external_ref, \
                 NULL::timestamptz AS until, e.xid::text AS xid \
                 FROM job_events e JOIN publication_jobs j ON j.id = e.job_id"
            }
            Source::Legacy => {
                "SELECT l.id AS id, e.job_id AS job_id, l.at AS at, e.actor AS actor, e.action AS action, \
                 e.from_state AS from_state, e.to_state AS to_state, e.from_version AS from_version, \
                 e.to_version AS to_version, e.reason AS reason, e.evidence AS evidence, \
                 j.destination AS destination, j.external_ref AS external_ref, \
                 NULL::timestamptz AS until, e.xid::text AS xid \
                 FROM job_event_destinations l JOIN job_events e ON e.id = l.id \
                 JOIN publication_jobs j ON j.id = e.job_id"
            }
            Source::Destinations => {
                "SELECT d.id AS id, NULL::uuid AS job_id, d.at AS at, d.actor AS actor, d.action AS action, \
                 NULL::text AS from_state, NULL::text AS to_state, NULL::bigint AS from_version, \
                 NULL::bigint AS to_version, d.reason AS reason, d.evidence AS evidence, \
                 d.destination AS destination, NULL::text AS external_ref, \
                 d.until AS until, d.xid::text AS xid \
                 FROM destination_events d"
            }
        }
    }

    /// The alias whose (at, id) the branch is ordered by.
    pub(super) fn key(self) -> &'static str {
        match self {
            Source::Jobs => "e",
            Source::Legacy => "l",
            Source::Destinations => "d",
        }
    }

    /// The alias of the event row (actor, action, xid).
    pub(super) fn row(self) -> &'static str {
        match self {
            Source::Jobs | Source::Legacy => "e",
            Source::Destinations => "d",
        }
    }
}

/// One branch of a statement: a source and its conditions.
pub(super) struct Branch {
    pub(super) source: Source,
    pub(super) conditions: Vec<String>,
}

/// The branches of `filter` and their own conditions (the filter's, in the form each
/// source's index serves). Bind parameters are added to `sql` once and shared.
pub(super) fn branches(sql: &mut Sql, filter: &EventFilter, split_actions: bool) -> Vec<Branch> {
    let actor = filter.actor.clone().map(|a| sql.bind(a));
    let destination = filter.destination.clone().map(|d| sql.bind(d));
    let job = filter.job.map(|j| sql.bind(j));
    let mut out = Vec::new();
    let common = |source: Source| {
        let mut c = Vec::new();
        if let Some(a) = &actor {
            c.push(format!("{}.actor = {a}::text", source.row()));
        }
        c
    };
    let mut base = common(Source::Jobs);
    match (&job, &destination) {
        (Some(j), d) => {
            base.push(format!("e.job_id = {j}::uuid"));
            // One job: its destination is the job's, old events and new alike.
            if let Some(d) = d {
                base.push(format!("j.destination = {d}::text"));
            }
        }
        (None, Some(d)) => base.push(format!("e.destination = {d}::text")),
        (None, None) => {}
    }
    if filter.wants_job_events() {
        let job_actions = filter.job_actions();
        match &job_actions {
            // Each action its own range of ix_job_events_action, merged in order.
            Some(actions) if split_actions && job.is_none() => {
                for a in actions {
                    let p = sql.bind(a.to_string());
                    let mut c = base.clone();
                    c.push(format!("e.action = {p}::text"));
                    out.push(Branch {
                        source: Source::Jobs,
                        conditions: c,
                    });
                }
            }
            Some(actions) => {
                let p = sql.bind(actions.iter().map(|a| a.to_string()).collect::<Vec<_>>());
                let mut c = base.clone();
                c.push(format!("e.action = ANY({p}::text[])"));
                out.push(Branch {
                    source: Source::Jobs,
                    conditions: c,
                });
            }
            None => out.push(Branch {
                source: Source::Jobs,
                conditions: base.clone(),
            }),
        }
        // Events older than V6 have no destination of their own (the log is append-only).
        if let (None, Some(d)) = (&job, &destination) {
            if split_actions {
                let mut c = common(Source::Legacy);
                c.push(format!("l.destination = {d}::text"));
                if let Some(actions) = &job_actions {
                    let p = sql.bind(actions.iter().map(|a| a.to_string()).collect::<Vec<_>>());
                    c.push(format!("e.action = ANY({p}::text[])"));
                }
                out.push(Branch {
                    source: Source::Legacy,
                    conditions: c,
                });
            }
        }
    }
    if filter.wants_destination_events() {
        let mut c = common(Source::Destinations);
        if let Some(d) = &destination {
            c.push(format!("d.destination = {d}::text"));
        }
        if let Some(actions) = filter.destination_actions() {
            let p = sql.bind(actions.iter().map(|a| a.to_string()).collect::<Vec<_>>());
            c.push(format!("d.action = ANY({p}::text[])"));
        }
        out.push(Branch {
            source: Source::Destinations,
            conditions: c,
        });
    }
    if out.is_empty() {
        // Nothing can match (`--job` with only destination actions): one branch that says
        // so, and still names every parameter.
        base.push("false".into());
        out.push(Branch {
            source: Source::Jobs,
            conditions: base,
        });
    }
    out
}

pub(super) fn where_clause(conditions: &[String]) -> String {
    if conditions.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", conditions.join(" AND "))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use uuid::Uuid;

    use super::super::{delta_sql, page_sql, Since, Snapshot};
    use super::*;

    #[test]
    fn statements_bind_every_input() {
        let f = EventFilter {
            destination: Some("cms'; DROP TABLE job_events; --".into()),
            actor: Some("o'neil".into()),
            actions: vec!["claim", "complete", "pause"],
            since: Some(Since::Ago(Duration::from_secs(60))),
            ..EventFilter::default()
        };
        let sql = page_sql(&f, None, 50, None);
        assert!(!sql.text.contains("DROP"), "{}", sql.text);
        assert!(!sql.text.contains("o'neil"), "{}", sql.text);
        // Two job actions (a branch each), the older events, the destination events.
        assert_eq!(sql.text.matches("UNION ALL").count(), 3, "{}", sql.text);
        let seen = Snapshot::parse("10:12:10").unwrap();
        let delta = delta_sql(&f, &seen, None, None, 100);
        assert!(!delta.text.contains("DROP"), "{}", delta.text);
        assert!(!delta.text.contains("job_event_destinations"));
    }

    #[test]
    fn a_job_filter_reads_no_destination_events() {
        let f = EventFilter {
            job: Some(Uuid::nil()),
            actions: vec!["pause"],
            ..EventFilter::default()
        };
        assert!(!f.wants_job_events() && !f.wants_destination_events());
        let sql = page_sql(&f, None, 50, None);
        assert!(sql.text.contains("AND false"), "{}", sql.text);
        assert!(!sql.text.contains("destination_events"), "{}", sql.text);
    }
}
