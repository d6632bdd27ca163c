//! Inspection at scale: `jobs list / show / uncertain / stuck`, `status`, `check`, `metrics`,
//! `doctor`. Exact JSON, tables at a fixed width (COLUMNS=120), keyset pages under concurrent
//! inserts, thresholds at their boundaries, and an EXPLAIN of every inspection statement on a
//! skewed table.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reconctl::jobs::query::{self, ExpiredLeases, ListFilter, Listing};
use reconctl::jobs::{Job, State};
use serde_json::{json, Value};
use tokio_postgres::Client;
use uuid::Uuid;

use crate::harness::*;

use State::*;

mod check;
mod doctor;
mod list;
mod metrics;
mod order;
mod plans;
mod show;
mod status;
mod uncertain;

/// `n` jobs inserted in one statement, each with its creation event at its creation time
/// (the harness invariants hold): tenant `bulk`, articles `{prefix}{i}`, destination `cms-{i % destinations}`, created
/// `oldest_secs` ago and then one second apart. `state`: all in this state, or (None) the
/// production skew: 97% accepted, 1% pending, 0.5% in_flight, 0.5% uncertain, 1% spread over
/// safe_to_retry, failed and conflict.
pub(crate) async fn bulk(
    client: &Client,
    prefix: &str,
    n: i64,
    state: Option<State>,
    oldest_secs: i64,
    destinations: i64,
) -> u64 {
    let state = state.map(|s| s.as_str().to_string());
    client
        .execute(
            "WITH j AS (
               INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination,
                   external_ref, payload_hash, state, attempts, lease_owner, lease_expires_at,
                   sent_at, remote_id, created_at, updated_at, state_changed_at)
               SELECT k.t, k.a, k.r, k.d,
                      'pub_' || encode(sha256(convert_to(
                          octet_length(k.t) || ':' || k.t || ',' || octet_length(k.a) || ':' || k.a || ',' ||
                          octet_length(k.r) || ':' || k.r || ',' || octet_length(k.d) || ':' || k.d || ',',
                          'UTF8')), 'hex'),
                      encode(sha256(convert_to('payload ' || k.a, 'UTF8')), 'hex'),
                      s.state, 1,
                      CASE WHEN s.state = 'in_flight' THEN 'worker-1' END,
                      CASE WHEN s.state = 'in_flight' THEN now() + interval '5 minutes' END,
                      CASE WHEN s.state IN ('uncertain', 'accepted', 'conflict') THEN now() - interval '2 hours' END,
                      CASE WHEN s.state = 'accepted' THEN 'remote-' || k.a END,
                      c.at, c.at, c.at
               FROM generate_series(0::bigint, $2::bigint - 1) AS i,
                    LATERAL (SELECT 'bulk' AS t, $1 || i AS a, '1' AS r,
                                    'cms-' || (i % $5::bigint) AS d) k,
                    LATERAL (SELECT now() - make_interval(secs => ($4::bigint - i)::float8) AS at) c,
                    LATERAL (SELECT COALESCE($3::text, CASE
                        WHEN (i * 7919) % 1000 < 970 THEN 'accepted'
                        WHEN (i * 7919) % 1000 < 980 THEN 'pending'
                        WHEN (i * 7919) % 1000 < 985 THEN 'in_flight'
                        WHEN (i * 7919) % 1000 < 990 THEN 'uncertain'
                        WHEN (i * 7919) % 1000 < 994 THEN 'safe_to_retry'
                        WHEN (i * 7919) % 1000 < 997 THEN 'failed'
                        ELSE 'conflict' END) AS state) s
               RETURNING id, state, version, state_changed_at
             )
             INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version, reason)
             SELECT id, state_changed_at, 'seed', 'seed', NULL, state, NULL, version, 'bulk fixture'
             FROM j ORDER BY state_changed_at",
            &[&prefix, &n, &state, &oldest_secs, &destinations],
        )
        .await
        .expect("bulk insert")
}

fn job_json(job: &Job) -> Value {
    serde_json::to_value(job).unwrap()
}

fn ids(v: &Value) -> Vec<String> {
    v["jobs"]
        .as_array()
        .expect("a jobs array")
        .iter()
        .map(|j| j["id"].as_str().unwrap().to_string())
        .collect()
}

fn id_strings(jobs: &[&Job]) -> Vec<String> {
    jobs.iter().map(|j| j.id.to_string()).collect()
}

/// Replace each job's id, external_ref and payload hash by a name, padded to the same width
/// so that the columns stay aligned.
fn redact(mut text: String, jobs: &[(&str, &Job)]) -> String {
    let swap = |text: &mut String, from: &str, to: String| {
        let to = format!("{to:<width$}", width = from.chars().count());
        *text = text.replace(from, &to);
    };
    for (name, j) in jobs {
        swap(&mut text, &j.id.to_string(), format!("[{name}]"));
        swap(&mut text, &j.external_ref, format!("[{name}.ref]"));
        swap(&mut text, &j.payload_hash, format!("[{name}.hash]"));
    }
    tidy(&text)
}

/// Every RFC 3339 time a table prints (`2026-01-02T03:04:05Z`) as `[time]` (same width), and "(250ms
/// ago)" or "(3s ago)" as "(moments ago)"; trailing blanks trimmed (the redactions change
/// the width of a last column).
fn tidy(text: &str) -> String {
    let text = &crate::harness::mask_uuids(text);
    let is_time = |w: &[u8]| {
        w.len() == 20
            && w.iter().enumerate().all(|(i, c)| match i {
                4 | 7 => *c == b'-',
                10 => *c == b'T',
                13 | 16 => *c == b':',
                19 => *c == b'Z',
                _ => c.is_ascii_digit(),
            })
    };
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < bytes.len() {
        if i + 20 <= bytes.len() && is_time(&bytes[i..i + 20]) {
            out.push_str("[time]              ");
            i += 20;
            continue;
        }
        if bytes[i] == b'(' {
            let digits = bytes[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            let rest = &text[i + 1 + digits..];
            if let Some(unit) = ["ms ago)", "s ago)"].iter().find(|u| rest.starts_with(**u)) {
                if digits > 0 {
                    out.push_str("(moments ago)");
                    i += 1 + digits + unit.len();
                    continue;
                }
            }
        }
        let c = text[i..].chars().next().unwrap();
        out.push(c);
        i += c.len_utf8();
    }
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Walk every page of `jobs list ARGS` with the binary; returns the jobs in the order seen
/// and the number of pages.
fn walk(env: &TestEnv, args: &[&str], limit: u32) -> (Vec<Value>, usize) {
    walk_command(env, "list", args, limit)
}

fn walk_command(env: &TestEnv, command: &str, args: &[&str], limit: u32) -> (Vec<Value>, usize) {
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let limit = limit.to_string();
        let mut full: Vec<&str> = vec!["jobs", command, "-o", "json", "--limit", &limit];
        full.extend_from_slice(args);
        if let Some(c) = &cursor {
            full.push("--cursor");
            full.push(c);
        }
        let v = env.run(&full).expect(0).json();
        pages += 1;
        let jobs = v["jobs"].as_array().unwrap().clone();
        assert!(jobs.len() <= limit.parse().unwrap());
        seen.extend(jobs);
        match v["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return (seen, pages),
        }
    }
}
