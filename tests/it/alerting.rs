//! Alerting that ships with the tool (contrib/prometheus): `metrics` on a busy table passes
//! `promtool check metrics`, the rules read only metrics the exporter writes, every alert
//! links a runbook README has, and every alert has a firing and a silent unit test.
//! (`promtool test rules` itself runs in scripts/test.)

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use reconctl::jobs::State;

use crate::harness::*;

use State::*;

const RUNBOOKS: &str = "https://github.com/reconctl/reconctl/blob/main/README.md#";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `promtool`, or a failure that says what to install: a machine without it must not pass
/// the check by skipping it.
fn promtool() -> Command {
    let found = Command::new("promtool")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "this test needs promtool: install Debian's prometheus package (promtool); scripts/test installs it as root"
    );
    Command::new("promtool")
}

/// Jobs in every state at two destinations, cms-b paused, and moves in the audit log: a
/// sweep of the leases that expired an hour ago (one sent, now uncertain; one never sent, now
/// pending), which leaves a lease expired two minutes ago in flight at cms-a.
async fn busy_table() -> TestEnv {
    let env = TestEnv::new().await;
    for d in ["cms-a", "cms-b"] {
        for (n, state) in [
            Pending,
            InFlight,
            Uncertain,
            Conflict,
            SafeToRetry,
            Failed,
            Accepted,
        ]
        .into_iter()
        .enumerate()
        {
            env.seed(
                Seed::new(&format!("{d}-{state}"))
                    .destination(d)
                    .state(state)
                    .aged(60 * (n as i64 + 1)),
            )
            .await;
        }
    }
    env.seed(
        Seed::new("expired-sent")
            .state(InFlight)
            .lease("worker-2", -3600)
            .sent_ago(3700),
    )
    .await;
    env.seed(
        Seed::new("expired-unsent")
            .state(InFlight)
            .lease("worker-2", -3600),
    )
    .await;
    env.seed(
        Seed::new("expired-recently")
            .state(InFlight)
            .lease("worker-3", -120),
    )
    .await;
    env.run(&["sweep", "leases", "--grace", "30m", "-q"])
        .expect(0);
    env.run(&[
        "destination",
        "pause",
        "cms-b",
        "--reason",
        "CMS answers 503",
        "--yes",
    ])
    .expect(0);
    env
}

#[tokio::test]
async fn metrics_of_a_busy_table_pass_promtool_check_metrics() {
    let env = busy_table().await;
    let exposition = env.run(&["metrics"]).expect(0).stdout();
    // The table is busy enough that every family has samples that are not 0.
    for line in [
        r#"reconctl_jobs{destination="cms-b",state="conflict"} 1"#,
        r#"reconctl_destination_paused{destination="cms-b"} 1"#,
        r#"reconctl_expired_leases{destination="cms-a"} 1"#,
        r#"reconctl_moves{action="sweep_sent",destination="cms-a",window="5m"} 1"#,
        r#"reconctl_moves{action="sweep_unsent",destination="cms-a",window="1h"} 1"#,
    ] {
        assert!(
            exposition.lines().any(|l| l == line),
            "no `{line}` in:\n{exposition}"
        );
    }
    let mut child = promtool()
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run promtool");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(exposition.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned()
        ),
        (Some(0), String::new(), String::new()),
        "promtool check metrics on:\n{exposition}"
    );
}

/// One rule of the rules file: `alert` or `record`, its name, its expression, its runbook.
#[derive(Debug)]
struct Rule {
    alert: bool,
    name: String,
    expr: String,
    runbook_url: Option<String>,
}

/// A YAML scalar as written on one line: quotes removed.
fn scalar(v: &str) -> String {
    let v = v.trim();
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner.to_string();
        }
    }
    v.to_string()
}

/// The rules of a Prometheus rules file, read line by line: enough YAML for `- alert:`,
/// `- record:`, `expr:` (one line, or a `|`/`>` block of the lines indented below it) and
/// `runbook_url:`.
fn rules(text: &str) -> Vec<Rule> {
    let lines: Vec<&str> = text.lines().collect();
    let mut rules: Vec<Rule> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        i += 1;
        if trimmed.starts_with('#') {
            continue;
        }
        for (key, alert) in [("- alert:", true), ("- record:", false)] {
            if let Some(name) = trimmed.strip_prefix(key) {
                rules.push(Rule {
                    alert,
                    name: scalar(name),
                    expr: String::new(),
                    runbook_url: None,
                });
            }
        }
        if let Some(v) = trimmed.strip_prefix("expr:") {
            let rule = rules.last_mut().expect("expr: before any rule");
            let v = v.trim();
            rule.expr = if v.starts_with('|') || v.starts_with('>') {
                let mut block = Vec::new();
                while i < lines.len() {
                    let l = lines[i];
                    let inner = l.len() - l.trim_start().len();
                    if !l.trim().is_empty() && inner <= indent {
                        break;
                    }
                    block.push(l.trim());
                    i += 1;
                }
                block.join("\n")
            } else {
                scalar(v)
            };
        }
        if let Some(v) = trimmed.strip_prefix("runbook_url:") {
            rules
                .last_mut()
                .expect("runbook_url: before any rule")
                .runbook_url = Some(scalar(v));
        }
    }
    rules
}

/// The metric names an expression reads: its identifiers outside string literals, without
/// the recording rules' outputs (their names have a `:`), split into `reconctl_` metrics and
/// recording-rule outputs.
fn references(expr: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut metrics = BTreeSet::new();
    let mut recorded = BTreeSet::new();
    let mut chars = expr.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '"' || c == '\'' || c == '`' {
            while let Some(d) = chars.next() {
                if d == '\\' {
                    chars.next();
                } else if d == c {
                    break;
                }
            }
        } else if c.is_ascii_alphabetic() || c == '_' || c == ':' {
            let mut ident = String::from(c);
            while let Some(&d) = chars.peek() {
                if d.is_ascii_alphanumeric() || d == '_' || d == ':' {
                    ident.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            if ident.contains(':') {
                recorded.insert(ident);
            } else if ident.starts_with("reconctl_") {
                metrics.insert(ident);
            }
        } else if c.is_ascii_digit() {
            // A number or a duration (`5m`): not an identifier.
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_alphanumeric() || *d == '.')
            {
                chars.next();
            }
        }
    }
    (metrics, recorded)
}

#[test]
fn the_rules_file_reads_as_its_rules() {
    let text = read("contrib/prometheus/reconctl.rules.yml");
    let rules = rules(&text);
    let rule_lines = text
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            t.starts_with("- alert:") || t.starts_with("- record:")
        })
        .count();
    assert_eq!(rules.len(), rule_lines);
    for r in &rules {
        assert!(!r.expr.is_empty(), "{} has no expr", r.name);
    }
    let burst = rules
        .iter()
        .find(|r| r.name == "ReconctlUncertainBurst")
        .unwrap();
    assert_eq!(
        burst.expr,
        r#"destination_window:reconctl_moves_to_uncertain:sum{window="5m"} >= 10"#
    );
    assert_eq!(
        references(
            r#"sum by (destination, window) (reconctl_moves{action=~"reconctl_x|sweep_sent",window="5m"}) / x:reconctl_jobs:sum offset 5m > 1e3"#
        ),
        (
            BTreeSet::from(["reconctl_moves".to_string()]),
            BTreeSet::from(["x:reconctl_jobs:sum".to_string()])
        )
    );
}

/// Every metric the rules read is one `reconctl metrics` writes, and every recording rule
/// they read is defined: a renamed metric or a typo would leave an alert that never fires,
/// which `promtool check rules` does not notice.
#[tokio::test]
async fn the_rules_read_only_metrics_the_exporter_writes() {
    let rules = rules(&read("contrib/prometheus/reconctl.rules.yml"));
    let mut metrics = BTreeSet::new();
    let mut recorded = BTreeSet::new();
    for r in &rules {
        let (m, rec) = references(&r.expr);
        metrics.extend(m);
        recorded.extend(rec);
    }
    let defined: BTreeSet<String> = rules
        .iter()
        .filter(|r| !r.alert)
        .map(|r| r.name.clone())
        .collect();
    let undefined: Vec<&String> = recorded.difference(&defined).collect();
    assert!(
        undefined.is_empty(),
        "the rules read recording rules nobody records: {undefined:?}"
    );
    assert_eq!(
        metrics,
        [
            "reconctl_collected_timestamp_seconds",
            "reconctl_destination_paused_seconds",
            "reconctl_jobs",
            "reconctl_moves",
            "reconctl_oldest_age_seconds",
            "reconctl_oldest_expired_lease_seconds",
        ]
        .map(String::from)
        .into_iter()
        .collect::<BTreeSet<_>>()
    );

    let env = busy_table().await;
    let exposition = env.run(&["metrics"]).expect(0).stdout();
    let exported: BTreeSet<&str> = exposition
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(['{', ' ']).next().unwrap())
        .collect();
    let missing: Vec<&String> = metrics
        .iter()
        .filter(|m| !exported.contains(m.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "the rules read metrics `reconctl metrics` does not write: {missing:?}\n{exposition}"
    );
}

/// GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces
/// to `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of README's headings (outside code blocks, whose `#` lines are comments).
fn readme_anchors() -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    let mut fenced = false;
    for line in read("README.md").lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            anchors.insert(anchor(&line[hashes..]));
        }
    }
    anchors
}

#[test]
fn every_alert_links_a_runbook_in_the_readme() {
    assert_eq!(
        anchor("Runbook: a destination paused too long"),
        "runbook-a-destination-paused-too-long"
    );
    assert_eq!(
        anchor("`check` and `metrics` (cron, alerting)"),
        "check-and-metrics-cron-alerting"
    );
    let anchors = readme_anchors();
    let rules = rules(&read("contrib/prometheus/reconctl.rules.yml"));
    let mut problems = Vec::new();
    let mut linked = BTreeSet::new();
    for r in rules.iter().filter(|r| r.alert) {
        match r.runbook_url.as_deref().map(|u| u.strip_prefix(RUNBOOKS)) {
            None => problems.push(format!("{}: no runbook_url", r.name)),
            Some(None) => problems.push(format!("{}: runbook_url not under {RUNBOOKS}", r.name)),
            Some(Some(a)) if !anchors.contains(a) => {
                problems.push(format!("{}: README has no heading for #{a}", r.name))
            }
            Some(Some(a)) => {
                if !linked.insert(a) {
                    problems.push(format!("{}: #{a} is another alert's runbook", r.name));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // And no runbook in README is left without its alert.
    let runbooks: BTreeSet<&str> = anchors
        .iter()
        .map(String::as_str)
        .filter(|a| a.starts_with("runbook-"))
        .collect();
    assert_eq!(runbooks, linked);
}

/// Each alert has a unit test in which it fires and one in which it stays silent
/// (`exp_alerts: []`), so `promtool test rules` in scripts/test checks both sides of every
/// threshold.
#[test]
fn every_alert_has_a_firing_and_a_silent_unit_test() {
    let tests = read("contrib/prometheus/reconctl.rules.test.yml");
    let lines: Vec<&str> = tests.lines().map(str::trim).collect();
    // alertname → (fires somewhere, silent somewhere)
    let mut cases: BTreeMap<String, (bool, bool)> = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = line.strip_prefix("alertname:") else {
            continue;
        };
        let expected = lines[i + 1..]
            .iter()
            .find(|l| l.starts_with("exp_alerts:"))
            .unwrap_or_else(|| panic!("alertname {name} without exp_alerts"));
        let case = cases.entry(scalar(name)).or_default();
        if expected.trim_end() == "exp_alerts: []" {
            case.1 = true;
        } else {
            case.0 = true;
        }
    }
    let alerts: BTreeMap<String, (bool, bool)> =
        rules(&read("contrib/prometheus/reconctl.rules.yml"))
            .into_iter()
            .filter(|r| r.alert)
            .map(|r| (r.name, (true, true)))
            .collect();
    assert_eq!(cases, alerts);
}
