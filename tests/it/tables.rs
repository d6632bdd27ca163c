//! Every table at 60, 80, 120 and 200 columns, twice: with `COLUMNS=N` (stdout a pipe) and
//! in a pseudo-terminal of that size (`stty cols N`, no `COLUMNS`). At each width no line is
//! wider than the width and nothing that must stay whole is broken: a state name, a header,
//! a job id (whole, or a prefix of 8+ hex digits), a command. The snapshots show what each
//! width keeps: the fixture's ids are fixed (two of them share their first 8 digits, so
//! tables tell them apart with 12) and times are masked. A command's own module may use the
//! fixture for its table (`jobs show`: inspect/show.rs).

use reconctl::jobs::{external_ref, payload_hash, State};
use std::collections::BTreeSet;
use std::time::Duration;

use uuid::Uuid;

use crate::cms::{found, none, Cms};
use crate::harness::*;

const WIDTHS: [usize; 4] = [60, 80, 120, 200];

/// Uncertain, the destination has it: accept.
pub(crate) const U1: &str = "6ce568d4-075a-4d3c-b189-8d55d6202bbd";
/// Uncertain, the destination lacks it: safe_to_retry. Shares 8 digits with U1.
const U2: &str = "6ce568d4-07ff-4e2a-9c1d-1f2e3d4c5b6a";
/// Uncertain at the paused destination nobody configured: unknown.
const U3: &str = "8ddbb177-06bf-49e5-ac84-a9433d0606e6";
/// In flight, its lease expired long ago (sent).
const F1: &str = "0da3e243-8342-4ea4-b503-f9181b135cc4";
const P1: &str = "b9dee0a7-14ac-4f53-8031-dccc91694968";
const S1: &str = "27a09315-779a-4b3a-8f06-072f60377aa2";
const C1: &str = "66330353-9e26-4e87-888c-645721f1dc1e";
const A1: &str = "dffe9783-c910-449b-9dab-ab0e3e2662aa";
const X1: &str = "149ae496-16a4-4c3e-87a0-ba15b5573e5a";

const IDS: [&str; 9] = [U1, U2, U3, F1, P1, S1, C1, A1, X1];

struct Job {
    id: &'static str,
    state: State,
    destination: &'static str,
    tenant: &'static str,
    article: &'static str,
    revision: &'static str,
    /// Seconds in its state (and since created, an hour more).
    age: i64,
    sent_ago: Option<i64>,
    lease: Option<(&'static str, i64)>,
    remote_id: Option<&'static str>,
    last_error: Option<&'static str>,
    attempts: i32,
}

fn job(id: &'static str, state: State, destination: &'static str, article: &'static str) -> Job {
    Job {
        id,
        state,
        destination,
        tenant: "acme",
        article,
        revision: "1",
        age: 3600 + 20 * 60,
        sent_ago: None,
        lease: None,
        remote_id: None,
        last_error: None,
        attempts: 1,
    }
}

fn jobs() -> Vec<Job> {
    // Ages are hours and minutes: a duration shown as `3h 10m` stays so for the test's minute.
    vec![
        Job {
            tenant: "acme-publishing",
            revision: "3",
            age: 3 * 3600 + 5 * 60,
            sent_ago: Some(3 * 3600 + 10 * 60),
            attempts: 2,
            ..job(
                U1,
                State::Uncertain,
                "cms-a",
                "breaking-news-election-results-live-coverage",
            )
        },
        Job {
            tenant: "globex",
            age: 2 * 3600 + 35 * 60,
            sent_ago: Some(2 * 3600 + 40 * 60),
            ..job(U2, State::Uncertain, "cms-a", "a-17")
        },
        Job {
            tenant: "initech",
            age: 2 * 3600 + 5 * 60,
            sent_ago: Some(2 * 3600 + 6 * 60),
            ..job(U3, State::Uncertain, "cms-b", "a-18")
        },
        Job {
            sent_ago: Some(2 * 3600 + 10 * 60),
            lease: Some(("worker-eu-west-1-7f9c", -(2 * 3600 + 5 * 60))),
            ..job(F1, State::InFlight, "cms-a", "a-19")
        },
        Job {
            attempts: 0,
            ..job(P1, State::Pending, "cms-a", "a-20")
        },
        Job {
            age: 3600 + 30 * 60,
            ..job(S1, State::SafeToRetry, "cms-b", "a-21")
        },
        Job {
            age: 4 * 3600 + 15 * 60,
            sent_ago: Some(4 * 3600 + 20 * 60),
            ..job(C1, State::Conflict, "cms-a", "a-22")
        },
        Job {
            age: 5 * 3600 + 20 * 60,
            sent_ago: Some(5 * 3600 + 21 * 60),
            remote_id: Some("art-4700"),
            ..job(A1, State::Accepted, "cms-a", "a-23")
        },
        Job {
            age: 6 * 3600 + 10 * 60,
            last_error: Some("rejected by the destination: 422 the article body is empty"),
            ..job(X1, State::Failed, "cms-a", "a-24")
        },
    ]
}

async fn insert(env: &TestEnv, j: &Job) {
    let ext = external_ref(j.tenant, j.article, j.revision, j.destination);
    let hash = payload_hash(format!("payload of {}", j.article).as_bytes());
    let id = Uuid::parse_str(j.id).unwrap();
    let (owner, lease_secs) = match j.lease {
        Some((o, s)) => (Some(o), Some(s as f64)),
        None => (None, None),
    };
    env.client
        .execute(
            "WITH j AS (
               INSERT INTO publication_jobs (id, tenant_id, article_id, revision_id, destination,
                   external_ref, payload_hash, state, attempts, lease_owner, lease_expires_at,
                   sent_at, remote_id, last_error, created_at, updated_at, state_changed_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
                   now() + make_interval(secs => $11::float8),
                   now() - make_interval(secs => $12::float8), $13, $14,
                   now() - make_interval(secs => $15::float8 + 3600),
                   now() - make_interval(secs => $15::float8),
                   now() - make_interval(secs => $15::float8))
               RETURNING id, state, version, state_changed_at
             )
             INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version, reason)
             SELECT id, state_changed_at, 'seed', 'seed', NULL, state, NULL, version, 'test fixture' FROM j",
            &[
                &id,
                &j.tenant,
                &j.article,
                &j.revision,
                &j.destination,
                &ext,
                &hash,
                &j.state.as_str(),
                &j.attempts,
                &owner,
                &lease_secs,
                &j.sent_ago.map(|s| s as f64),
                &j.remote_id,
                &j.last_error,
                &(j.age as f64),
            ],
        )
        .await
        .expect("insert a fixture job");
}

pub(crate) struct Fixture {
    pub(crate) env: TestEnv,
    cfg: String,
    _cms: Cms,
}

impl Fixture {
    /// The jobs above; cms-a configured (it has U1, lacks U2), cms-b paused for 2h 15m and
    /// not configured.
    pub(crate) async fn new() -> Fixture {
        let env = TestEnv::new().await;
        let cms = Cms::start().await;
        let cfg = env.write_config(&cms.config(""));
        for j in jobs() {
            insert(&env, &j).await;
        }
        let u1 = env.job(Uuid::parse_str(U1).unwrap()).await;
        cms.answer(&u1.external_ref, found("art-4711", &u1.payload_hash))
            .await;
        let u2 = env.job(Uuid::parse_str(U2).unwrap()).await;
        cms.answer(&u2.external_ref, none()).await;
        env.client
            .execute(
                "INSERT INTO destination_pauses (destination, reason, actor, since)
                 VALUES ('cms-b', $1, 'alice@ops-laptop-7', now() - interval '2 hours 15 minutes 10 seconds')",
                &[&"CMS answers 503 since the 14:00 deploy; vendor ticket INC-4711, do not resume before they confirm"],
            )
            .await
            .unwrap();
        // Migrations applied at a fixed time, so `migrate status` reads the same every run.
        env.client
            .batch_execute(
                "UPDATE refinery_schema_history SET applied_on = '2024-05-01T10:00:00.000000Z'",
            )
            .await
            .unwrap();
        Fixture {
            env,
            cfg,
            _cms: cms,
        }
    }

    fn args<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
        let mut all = vec!["--config", self.cfg.as_str()];
        all.extend_from_slice(args);
        all
    }

    /// `args` with `COLUMNS=width`, stdout a pipe: its stdout, checked at that width, with
    /// times masked.
    fn at(&self, width: usize, args: &[&str], code: i32) -> String {
        let text = self.raw(width, args, code);
        check(&text, width, &format!("COLUMNS={width} reconctl {args:?}"));
        mask(&text)
    }

    /// `args` with `COLUMNS=width`: its stdout as it is.
    fn raw(&self, width: usize, args: &[&str], code: i32) -> String {
        let out = self
            .env
            .cmd()
            .env("COLUMNS", width.to_string())
            .args(self.args(args))
            .write_stdin("")
            .output()
            .unwrap();
        Run(out).expect(code).stdout()
    }

    /// Each of the four widths.
    pub(crate) fn widths(&self, args: &[&str], code: i32) -> [String; 4] {
        WIDTHS.map(|w| self.at(w, args, code))
    }

    /// `args` with stdout a pseudo-terminal `width` columns wide (the terminal's own size:
    /// no `COLUMNS`; stderr elsewhere): what it printed, checked at that width.
    fn in_pty(&self, width: usize, args: &[&str]) -> String {
        let text = pty_run(&self.env, width, &self.args(args), None);
        check(
            &text,
            width,
            &format!("a {width}-column terminal: reconctl {args:?}"),
        );
        text
    }

    /// `args` on a terminal `width` columns wide (stdin, stdout, stderr), answering its
    /// question with `answer`: what the terminal showed (escape sequences resolved).
    fn asked(&self, width: usize, args: &[&str], answer: &str) -> String {
        pty_run(&self.env, width, &self.args(args), Some(answer))
    }

    /// In a pseudo-terminal of each width, the same table as with COLUMNS.
    pub(crate) fn same_in_pty(&self, args: &[&str], code: i32) {
        for w in WIDTHS {
            let piped = self.at(w, args, code);
            let shown = mask(&self.in_pty(w, args));
            assert!(
                shown.contains(piped.trim_end()),
                "a {w}-column terminal shows another layout than COLUMNS={w}:\n{shown}\n--- COLUMNS:\n{piped}"
            );
        }
    }
}

/// Run `args` in a pty of `width` columns; with `answer`, type it at the first prompt (and
/// stderr is the terminal too), else stderr goes to /dev/null (a progress bar's drawing).
fn pty_run(env: &TestEnv, width: usize, args: &[&str], answer: Option<&str>) -> String {
    let mut p = env.pty_cols(width, args, answer.is_some());
    let mut text = String::new();
    if let Some(answer) = answer {
        text.push_str(&pty_utf8(&p.exp_string("[y/N]").expect("a prompt")));
        p.send_line(answer).unwrap();
    }
    text.push_str(&pty_rest(&mut p));
    screen_lines(&text)
}

/// What a terminal shows of `raw`: escape sequences (a prompt's, a progress bar's) and
/// carriage returns resolved to lines.
fn screen_lines(raw: &str) -> String {
    let mut out = String::new();
    let mut chars = raw.chars().peekable();
    let mut line = String::new();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => {
                // CSI: ESC [ params final-byte.
                if chars.peek() == Some(&'[') {
                    chars.next();
                    while let Some(&n) = chars.peek() {
                        chars.next();
                        if ('@'..='~').contains(&n) {
                            break;
                        }
                    }
                } else {
                    chars.next();
                }
            }
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    line.clear();
                }
            }
            '\n' => {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            c => line.push(c),
        }
    }
    out.push_str(&line);
    out
}

/// From `width` on, every width prints the same as at `width` (the table has room for all
/// it shows): one snapshot, at `width`, stands for the wider ones.
fn same_from(texts: &[String; 4], width: usize) {
    let from = WIDTHS
        .iter()
        .position(|w| *w == width)
        .expect("one of WIDTHS");
    for (w, text) in WIDTHS.iter().zip(texts).skip(from + 1) {
        assert_eq!(
            text, &texts[from],
            "{w} columns print other than {width} do"
        );
    }
}

/// The part of each width's text above `sep` reads the same at every width: that part once,
/// and each width's part below.
fn same_above(texts: [String; 4], sep: &str) -> (String, [String; 4]) {
    let halves = texts.map(|t| {
        let (above, below) = t.split_once(sep).expect("the separator");
        (above.to_string(), below.to_string())
    });
    same_from(&halves.clone().map(|h| h.0), 60);
    (halves[0].0.clone(), halves.map(|h| h.1))
}

/// The words a table must never break, as the fixture has them.
const STATES: [&str; 7] = [
    "pending",
    "in_flight",
    "uncertain",
    "accepted",
    "safe_to_retry",
    "failed",
    "conflict",
];
const HEADERS: [&str; 17] = [
    "DESTINATION",
    "ATTEMPTS",
    "UNCERTAIN",
    "ARTICLE",
    "TENANT",
    "REASON",
    "EVIDENCE",
    "VERDICT",
    "ACTION",
    "OLDEST",
    "PAUSED",
    "APPLIED",
    "VERSION",
    "RESULT",
    "DETAIL",
    "OWNER",
    "STUCK",
];
/// Whole words that are also the start of a state (a verdict, English).
const ALSO_WORDS: [&str; 5] = ["accept", "fail", "flight", "in", "safe"];

/// No line wider than `width`; no state, header, id or command broken across lines.
fn check(text: &str, width: usize, what: &str) {
    for line in text.lines() {
        let n = line.chars().count();
        assert!(
            n <= width,
            "{what}: a line of {n} columns:\n{line}\n--- in:\n{text}"
        );
        // A `command` in backticks never spans lines.
        assert!(
            line.matches('`').count() % 2 == 0,
            "{what}: a command broken across lines at:\n{line}\n--- in:\n{text}"
        );
        if let Some(cmd) = line.trim_start().strip_prefix("$ reconctl ") {
            assert!(
                cmd.ends_with("--reason TEXT") || cmd.contains("--destination "),
                "{what}: a suggested command cut short:\n{line}"
            );
        }
    }
    for word in text.split(|c: char| c.is_whitespace() || "(),;:[]=`".contains(c)) {
        let word = word.trim_end_matches('…');
        if word.len() < 2 {
            continue;
        }
        for token in STATES.iter().chain(HEADERS.iter()) {
            let fragment = word != *token
                && (token.starts_with(word) || token.ends_with(word))
                && !ALSO_WORDS.contains(&word);
            // `cms-a (paused)`: the state word is whole; "in" and "flight" alone are English
            // (status -v: "1 in flight at cms-a past their lease").
            assert!(
                !fragment || word.len() < 3,
                "{what}: `{token}` broken (`{word}`):\n{text}"
            );
        }
        for id in IDS {
            let part = id.contains(word)
                && word.len() >= 4
                && word.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
            if part {
                assert!(
                    id.starts_with(word) && word.len() >= 8,
                    "{what}: id {id} broken (`{word}`):\n{text}"
                );
            }
        }
    }
}

/// Times masked, length kept: `2024-05-01T10:00:00Z` → `YYYY-MM-DDThh:mm:ssZ`.
fn mask(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let pattern = "dddd-dd-ddTdd:dd:ddZ";
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let matches = pattern.chars().enumerate().all(|(k, p)| {
            chars.get(i + k).is_some_and(|c| match p {
                'd' => c.is_ascii_digit(),
                p => *c == p,
            })
        });
        if matches {
            out.push_str("YYYY-MM-DDThh:mm:ssZ");
            i += pattern.len();
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Doctor's lines without the two checks whose detail depends on the machine (the server's
/// address and version, the temporary config file's path).
fn without_machine_rows(text: &str) -> String {
    let mut out = Vec::new();
    let mut skipping = false;
    for line in text.lines() {
        if !line.starts_with(' ') {
            skipping = line.starts_with("connection ") || line.starts_with("config ");
        }
        if !skipping {
            out.push(line);
        }
    }
    out.join("\n")
}

/// Doctor's index rows (`index NAME  ok` and their detail, beside or below) taken out of
/// `text`, each run of them replaced by a line `[index rows]`: (the rest, the rows). The rows
/// are laid out alike at every width that lays them out one way, so one snapshot a layout.
fn index_rows(text: &str) -> (String, String) {
    let (mut rest, mut rows) = (Vec::new(), Vec::new());
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("index ") {
            if !inside {
                rest.push("[index rows]");
            }
            inside = true;
            rows.push(line);
        } else if inside && line.starts_with(' ') {
            rows.push(line);
        } else {
            inside = false;
            rest.push(line);
        }
    }
    (rest.join("\n"), rows.join("\n"))
}

#[tokio::test]
async fn jobs_list_fits_every_width() {
    let fx = Fixture::new().await;
    let [a, b, c, d] = fx.widths(&["jobs", "list"], 0);
    insta::assert_snapshot!(a, @"
    ID            STATE          DESTINATION     REV  IN STATE
    149ae496-16a  failed         cms-a           1    6h 10m
    dffe9783-c91  accepted       cms-a           1    5h 20m
    66330353-9e2  conflict       cms-a           1    4h 15m
    6ce568d4-075  uncertain      cms-a           3    3h 5m
    6ce568d4-07f  uncertain      cms-a           1    2h 35m
    8ddbb177-06b  uncertain      cms-b (paused)  1    2h 5m
    27a09315-779  safe_to_retry  cms-b (paused)  1    1h 30m
    0da3e243-834  in_flight      cms-a           1    1h 20m
    b9dee0a7-14a  pending        cms-a           1    1h 20m
    ");
    insta::assert_snapshot!(b, @"
    ID            STATE          DESTINATION     TENANT    ARTICLE     REV  IN STATE
    149ae496-16a  failed         cms-a           acme      a-24        1    6h 10m
    dffe9783-c91  accepted       cms-a           acme      a-23        1    5h 20m
    66330353-9e2  conflict       cms-a           acme      a-22        1    4h 15m
    6ce568d4-075  uncertain      cms-a           acme-pu…  breaking-…  3    3h 5m
    6ce568d4-07f  uncertain      cms-a           globex    a-17        1    2h 35m
    8ddbb177-06b  uncertain      cms-b (paused)  initech   a-18        1    2h 5m
    27a09315-779  safe_to_retry  cms-b (paused)  acme      a-21        1    1h 30m
    0da3e243-834  in_flight      cms-a           acme      a-19        1    1h 20m
    b9dee0a7-14a  pending        cms-a           acme      a-20        1    1h 20m
    ");
    insta::assert_snapshot!(c, @"
    ID            STATE          DESTINATION     TENANT           ARTICLE                            REV  IN STATE  ATTEMPTS
    149ae496-16a  failed         cms-a           acme             a-24                               1    6h 10m           1
    dffe9783-c91  accepted       cms-a           acme             a-23                               1    5h 20m           1
    66330353-9e2  conflict       cms-a           acme             a-22                               1    4h 15m           1
    6ce568d4-075  uncertain      cms-a           acme-publishing  breaking-news-election-results-l…  3    3h 5m            2
    6ce568d4-07f  uncertain      cms-a           globex           a-17                               1    2h 35m           1
    8ddbb177-06b  uncertain      cms-b (paused)  initech          a-18                               1    2h 5m            1
    27a09315-779  safe_to_retry  cms-b (paused)  acme             a-21                               1    1h 30m           1
    0da3e243-834  in_flight      cms-a           acme             a-19                               1    1h 20m           1
    b9dee0a7-14a  pending        cms-a           acme             a-20                               1    1h 20m           0
    ");
    insta::assert_snapshot!(d, @"
    ID                                    STATE          DESTINATION     TENANT           ARTICLE                                       REV  IN STATE  ATTEMPTS
    149ae496-16a4-4c3e-87a0-ba15b5573e5a  failed         cms-a           acme             a-24                                          1    6h 10m           1
    dffe9783-c910-449b-9dab-ab0e3e2662aa  accepted       cms-a           acme             a-23                                          1    5h 20m           1
    66330353-9e26-4e87-888c-645721f1dc1e  conflict       cms-a           acme             a-22                                          1    4h 15m           1
    6ce568d4-075a-4d3c-b189-8d55d6202bbd  uncertain      cms-a           acme-publishing  breaking-news-election-results-live-coverage  3    3h 5m            2
    6ce568d4-07ff-4e2a-9c1d-1f2e3d4c5b6a  uncertain      cms-a           globex           a-17                                          1    2h 35m           1
    8ddbb177-06bf-49e5-ac84-a9433d0606e6  uncertain      cms-b (paused)  initech          a-18                                          1    2h 5m            1
    27a09315-779a-4b3a-8f06-072f60377aa2  safe_to_retry  cms-b (paused)  acme             a-21                                          1    1h 30m           1
    0da3e243-8342-4ea4-b503-f9181b135cc4  in_flight      cms-a           acme             a-19                                          1    1h 20m           1
    b9dee0a7-14ac-4f53-8031-dccc91694968  pending        cms-a           acme             a-20                                          1    1h 20m           0
    ");
    fx.same_in_pty(&["jobs", "list"], 0);
    // A page's cursor is copied whole: on a line of its own where both do not fit.
    let paged = fx.at(60, &["jobs", "list", "--limit", "2"], 0);
    let cursor = paged.lines().last().unwrap();
    assert!(cursor.starts_with("--cursor "), "{paged}");
    let paged = fx.at(80, &["jobs", "list", "--limit", "2"], 0);
    assert!(
        paged.lines().last().unwrap().starts_with("more: --cursor "),
        "{paged}"
    );
}

#[tokio::test]
async fn jobs_uncertain_fits_every_width() {
    let fx = Fixture::new().await;
    let [a, b, c, d] = fx.widths(&["jobs", "uncertain"], 0);
    insta::assert_snapshot!(a, @"
    ID            DESTINATION     ARTICLE     REV  UNCERTAIN FOR
    6ce568d4-075  cms-a           breaking-…  3    3h 5m
    6ce568d4-07f  cms-a           a-17        1    2h 35m
    8ddbb177-06b  cms-b (paused)  a-18        1    2h 5m
    ");
    insta::assert_snapshot!(b, @"
    ID            DESTINATION     TENANT       ARTICLE     SENT        UNCERTAIN FOR
    6ce568d4-075  cms-a           acme-publi…  breaking-…  3h 10m ago  3h 5m
    6ce568d4-07f  cms-a           globex       a-17        2h 40m ago  2h 35m
    8ddbb177-06b  cms-b (paused)  initech      a-18        2h 6m ago   2h 5m
    ");
    insta::assert_snapshot!(c, @"
    ID            DESTINATION     TENANT           ARTICLE                          REV  SENT        UNCERTAIN FOR  ATTEMPTS
    6ce568d4-075  cms-a           acme-publishing  breaking-news-election-results…  3    3h 10m ago  3h 5m                 2
    6ce568d4-07f  cms-a           globex           a-17                             1    2h 40m ago  2h 35m                1
    8ddbb177-06b  cms-b (paused)  initech          a-18                             1    2h 6m ago   2h 5m                 1
    ");
    insta::assert_snapshot!(d, @"
    ID                                    DESTINATION     TENANT           ARTICLE                                       REV  SENT        UNCERTAIN FOR  ATTEMPTS
    6ce568d4-075a-4d3c-b189-8d55d6202bbd  cms-a           acme-publishing  breaking-news-election-results-live-coverage  3    3h 10m ago  3h 5m                 2
    6ce568d4-07ff-4e2a-9c1d-1f2e3d4c5b6a  cms-a           globex           a-17                                          1    2h 40m ago  2h 35m                1
    8ddbb177-06bf-49e5-ac84-a9433d0606e6  cms-b (paused)  initech          a-18                                          1    2h 6m ago   2h 5m                 1
    ");
    fx.same_in_pty(&["jobs", "uncertain"], 0);
}

#[tokio::test]
async fn jobs_stuck_fits_every_width() {
    let fx = Fixture::new().await;
    let args = ["jobs", "stuck", "--older-than", "15m"];
    let [a, b, c, d] = fx.widths(&args, 0);
    insta::assert_snapshot!(a, @"
    ID        STATE          ARTICLE  STUCK
    27a09315  safe_to_retry  a-21     waiting 1h 30m
    0da3e243  in_flight      a-19     lease expired 2h 5m ago
    b9dee0a7  pending        a-20     waiting 1h 20m
    ");
    insta::assert_snapshot!(b, @"
    ID        STATE          DESTINATION     ARTICLE  REV  STUCK
    27a09315  safe_to_retry  cms-b (paused)  a-21     1    waiting 1h 30m
    0da3e243  in_flight      cms-a           a-19     1    lease expired 2h 5m ago
    b9dee0a7  pending        cms-a           a-20     1    waiting 1h 20m
    ");
    insta::assert_snapshot!(c, @"
    ID        STATE          DESTINATION     TENANT  ARTICLE  REV  STUCK                    LEASE OWNER
    27a09315  safe_to_retry  cms-b (paused)  acme    a-21     1    waiting 1h 30m
    0da3e243  in_flight      cms-a           acme    a-19     1    lease expired 2h 5m ago  worker-eu-west-1-7f9c
    b9dee0a7  pending        cms-a           acme    a-20     1    waiting 1h 20m
    ");
    insta::assert_snapshot!(d, @"
    ID                                    STATE          DESTINATION     TENANT  ARTICLE  REV  STUCK                    LEASE OWNER
    27a09315-779a-4b3a-8f06-072f60377aa2  safe_to_retry  cms-b (paused)  acme    a-21     1    waiting 1h 30m
    0da3e243-8342-4ea4-b503-f9181b135cc4  in_flight      cms-a           acme    a-19     1    lease expired 2h 5m ago  worker-eu-west-1-7f9c
    b9dee0a7-14ac-4f53-8031-dccc91694968  pending        cms-a           acme    a-20     1    waiting 1h 20m
    ");
    fx.same_in_pty(&args, 0);
}

#[tokio::test]
async fn status_fits_every_width() {
    let fx = Fixture::new().await;
    // The counts by state read the same at every width; the pauses below them do not.
    let (counts, [a, b, c, d]) = same_above(fx.widths(&["status"], 0), "\n\n");
    insta::assert_snapshot!(counts, @"
    STATE          DESTINATION     JOBS  OLDEST
    uncertain      (all)              3  3h 5m
                   cms-a              2  3h 5m
                   cms-b (paused)     1  2h 5m
    conflict       cms-a              1  4h 15m
    in_flight      cms-a              1  1h 20m
    pending        cms-a              1  1h 20m
    safe_to_retry  cms-b (paused)     1  1h 30m
    failed         cms-a              1  6h 10m
    accepted       (all)              1
    ");
    insta::assert_snapshot!(a, @"
    PAUSED  UNTIL    BY                 REASON
    cms-b   not set  alice@ops-laptop…  CMS answers 503 since t…

    oldest uncertain job, for 3h 5m at cms-a:
    reconctl remote lookup 6ce568d4-075a-4d3c-b189-8d55d6202bbd
    ");
    insta::assert_snapshot!(b, @"
    PAUSED  SINCE       UNTIL    BY                  REASON
    cms-b   2h 15m ago  not set  alice@ops-laptop-7  CMS answers 503 since the 14:0…

    oldest uncertain job, for 3h 5m at cms-a:
    reconctl remote lookup 6ce568d4-075a-4d3c-b189-8d55d6202bbd
    ");
    insta::assert_snapshot!(c, @"
    PAUSED  SINCE       UNTIL    BY                  REASON
    cms-b   2h 15m ago  not set  alice@ops-laptop-7  CMS answers 503 since the 14:00 deploy; vendor ticket INC-4711, do not…

    oldest uncertain job, for 3h 5m at cms-a:
    reconctl remote lookup 6ce568d4-075a-4d3c-b189-8d55d6202bbd
    ");
    insta::assert_snapshot!(d, @"
    PAUSED  SINCE       UNTIL    BY                  REASON
    cms-b   2h 15m ago  not set  alice@ops-laptop-7  CMS answers 503 since the 14:00 deploy; vendor ticket INC-4711, do not resume before they confirm

    oldest uncertain job, for 3h 5m at cms-a:
    reconctl remote lookup 6ce568d4-075a-4d3c-b189-8d55d6202bbd
    ");
    fx.same_in_pty(&["status"], 0);
}

/// `status -v` with no counted move in the hour says so in one sentence, wrapped between
/// words at the terminal's width like the lines around it (it was printed whole, so a
/// 60-column terminal cut it inside a word).
#[tokio::test]
async fn status_verbose_without_moves_fits_every_width() {
    let fx = Fixture::new().await;
    // (widths() holds every line to its width.)
    let texts = fx.widths(&["status", "-v"], 0);
    let sentence = |text: &str| {
        let at = text.find("moves: none").expect("the no-moves sentence");
        text[at..].split("\n\n").next().unwrap().to_string()
    };
    assert_eq!(
        sentence(&texts[0]),
        "moves: none in the last hour (timeouts, sweeps, reconcile\n  verdicts, marks)"
    );
    assert_eq!(
        sentence(&texts[1]),
        "moves: none in the last hour (timeouts, sweeps, reconcile verdicts, marks)"
    );
}

#[tokio::test]
async fn doctor_fits_every_width() {
    let fx = Fixture::new().await;
    let [a, b, c, d] = fx
        .widths(&["doctor"], 0)
        .map(|t| index_rows(&without_machine_rows(&t)));
    // The index rows, laid out two ways: their detail below them, or beside them.
    assert_eq!(b.1, a.1, "the index rows at 80 columns");
    assert_eq!(d.1, c.1, "the index rows at 200 columns");
    insta::assert_snapshot!(a.1, @"
    index ux_publication_jobs_identity               ok
      unique, valid
    index ux_publication_jobs_external_ref           ok
      unique, valid
    index ix_publication_jobs_created                ok
      valid
    index ix_publication_jobs_destination_created    ok
      valid
    index ix_publication_jobs_open_created           ok
      valid
    index ix_publication_jobs_open_state_age         ok
      valid
    index ix_publication_jobs_lease                  ok
      valid
    index ix_job_events_job                          ok
      valid
    index ix_publication_jobs_claimable              ok
      valid
    index ix_publication_jobs_tenant_created         ok
      valid
    index ix_publication_jobs_article_created        ok
      valid
    index ix_destination_events_destination          ok
      valid
    index ix_job_events_at                           ok
      valid
    index ix_job_events_actor                        ok
      valid
    index ix_job_events_action                       ok
      valid
    index ix_job_events_destination                  ok
      valid
    index ix_job_events_xid                          ok
      valid
    index ix_job_event_destinations_destination      ok
      valid
    index ix_destination_events_at                   ok
      valid
    index ix_destination_events_xid                  ok
      valid
    index ix_publication_jobs_destination_remote_id  ok
      valid
    index plan_items_job_unique                      ok
      unique, valid
    index ix_plans_created                           ok
      valid
    index ix_plan_items_open                         ok
      valid
    index ix_plan_events_plan                        ok
      valid
    index ix_publication_jobs_lease_by_destination   ok
      valid
    index ix_plan_events_at                          ok
      valid
    index ix_job_order_suspects_accepted             ok
      valid
    index ix_job_move_counters_unfolded              ok
      valid
    index ix_job_counters_unfolded                   ok
      valid
    ");
    insta::assert_snapshot!(c.1, @"
    index ux_publication_jobs_identity               ok      unique, valid
    index ux_publication_jobs_external_ref           ok      unique, valid
    index ix_publication_jobs_created                ok      valid
    index ix_publication_jobs_destination_created    ok      valid
    index ix_publication_jobs_open_created           ok      valid
    index ix_publication_jobs_open_state_age         ok      valid
    index ix_publication_jobs_lease                  ok      valid
    index ix_job_events_job                          ok      valid
    index ix_publication_jobs_claimable              ok      valid
    index ix_publication_jobs_tenant_created         ok      valid
    index ix_publication_jobs_article_created        ok      valid
    index ix_destination_events_destination          ok      valid
    index ix_job_events_at                           ok      valid
    index ix_job_events_actor                        ok      valid
    index ix_job_events_action                       ok      valid
    index ix_job_events_destination                  ok      valid
    index ix_job_events_xid                          ok      valid
    index ix_job_event_destinations_destination      ok      valid
    index ix_destination_events_at                   ok      valid
    index ix_destination_events_xid                  ok      valid
    index ix_publication_jobs_destination_remote_id  ok      valid
    index plan_items_job_unique                      ok      unique, valid
    index ix_plans_created                           ok      valid
    index ix_plan_items_open                         ok      valid
    index ix_plan_events_plan                        ok      valid
    index ix_publication_jobs_lease_by_destination   ok      valid
    index ix_plan_events_at                          ok      valid
    index ix_job_order_suspects_accepted             ok      valid
    index ix_job_move_counters_unfolded              ok      valid
    index ix_job_counters_unfolded                   ok      valid
    ");
    insta::assert_snapshot!(a.0, @"
    CHECK                                            RESULT
    migrations                                       ok
      22 applied, 0 pending, 0 divergent, 0 unknown to this
        reconctl
    [index rows]
    pause cms-b                                      ok
      paused by alice@ops-laptop-7 for 2h 15m, until resumed
        (workers claim none of its jobs): CMS answers 503 since
        the 14:00 deploy; vendor ticket INC-4711, do not resume
        before they confirm
    counters                                         ok
      built (`doctor --recount` compares them with the table)
    destination cms-a                                ok
      kind http, auth none: lookup works:
        [external_ref: see -o json] found (positive control), a
        made-up reference not found (negative control)
    all checks passed
    ");
    insta::assert_snapshot!(b.0, @"
    CHECK                                            RESULT
    migrations                                       ok
      22 applied, 0 pending, 0 divergent, 0 unknown to this reconctl
    [index rows]
    pause cms-b                                      ok
      paused by alice@ops-laptop-7 for 2h 15m, until resumed (workers claim none
        of its jobs): CMS answers 503 since the 14:00 deploy; vendor ticket
        INC-4711, do not resume before they confirm
    counters                                         ok
      built (`doctor --recount` compares them with the table)
    destination cms-a                                ok
      kind http, auth none: lookup works:
        pub_cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc found
        (positive control), a made-up reference not found (negative control)
    all checks passed
    ");
    insta::assert_snapshot!(c.0, @"
    CHECK                                            RESULT  DETAIL
    migrations                                       ok      22 applied, 0 pending, 0 divergent, 0 unknown to this reconctl
    [index rows]
    pause cms-b                                      ok      paused by alice@ops-laptop-7 for 2h 15m, until resumed (workers
                                                             claim none of its jobs): CMS answers 503 since the 14:00
                                                             deploy; vendor ticket INC-4711, do not resume before they
                                                             confirm
    counters                                         ok      built (`doctor --recount` compares them with the table)
    destination cms-a                                ok      kind http, auth none: lookup works:
                                                             [external_ref: see -o json] found (positive control), a made-up
                                                             reference not found (negative control)
    all checks passed
    ");
    insta::assert_snapshot!(d.0, @"
    CHECK                                            RESULT  DETAIL
    migrations                                       ok      22 applied, 0 pending, 0 divergent, 0 unknown to this reconctl
    [index rows]
    pause cms-b                                      ok      paused by alice@ops-laptop-7 for 2h 15m, until resumed (workers claim none of its jobs): CMS answers 503 since the 14:00 deploy; vendor ticket
                                                             INC-4711, do not resume before they confirm
    counters                                         ok      built (`doctor --recount` compares them with the table)
    destination cms-a                                ok      kind http, auth none: lookup works: pub_cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc found (positive control), a made-up
                                                             reference not found (negative control)
    all checks passed
    ");
    for w in WIDTHS {
        let shown = fx.in_pty(w, &["doctor"]);
        assert!(shown.contains("all checks passed"), "{shown}");
    }
}

/// `check` prints one line per violation at every width (SPEC: scripts count them, cron
/// mails them): a long one goes on past the width, to be wrapped by the terminal, which
/// keeps it one line to copy; it is never cut or broken by reconctl.
#[tokio::test]
async fn check_prints_one_line_per_violation_at_every_width() {
    let fx = Fixture::new().await;
    let args = ["check", "--max-pause", "1h"];
    let [a, b, c, d] = WIDTHS.map(|w| mask(&fx.raw(w, &args, 5)));
    insta::assert_snapshot!(a, @"
    uncertain: 3 jobs (at most 0 allowed), the oldest uncertain for 3h 5m; see `reconctl jobs uncertain`, settle with `reconctl reconcile`
    conflict: 1 job (at most 0 allowed), the oldest in conflict for 4h 15m; see `reconctl jobs list --state conflict`
    stuck: 3 jobs: 2 pending or safe_to_retry for more than 15m (the oldest for 1h 30m; 1 of them wait for a paused destination (cms-b)), 1 in_flight with a lease expired more than 15m ago (the oldest 2h 5m ago; is `reconctl sweep leases` running?); see `reconctl jobs stuck --older-than 15m`
    paused longer than 1h: cms-b for 2h 15m by alice@ops-laptop-7 (CMS answers 503 since the 14:00 deploy; vendor ticket INC-4711, do not resume before they confirm); resume with `reconctl destination resume cms-b --reason TEXT` once it is healthy
    ");
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(a, d);
    assert_eq!(a.lines().count(), 4, "{a}");
    for w in WIDTHS {
        let shown = pty_run(&fx.env, w, &fx.args(&args), None);
        assert_eq!(mask(&shown).trim_end(), a.trim_end());
    }
}

#[tokio::test]
async fn sweep_leases_fits_every_width() {
    let fx = Fixture::new().await;
    let args = ["sweep", "leases", "--dry-run"];
    // The counts' table (the summary line above it says how long the run took).
    let texts = fx.widths(&args, 0).map(|t| {
        let from = t.find("  examined").expect("the counts");
        t[from..].to_string()
    });
    same_from(&texts, 80);
    let [a, b, ..] = texts;
    insta::assert_snapshot!(a, @"
    examined           1  expired in_flight jobs reached
    → pending          0  never sent: workers will claim them…
    → uncertain        1  sent: `reconctl reconcile` asks the…
    skipped as locked  0  held or changed by a worker or anot…
    ");
    insta::assert_snapshot!(b, @"
    examined           1  expired in_flight jobs reached
    → pending          0  never sent: workers will claim them again
    → uncertain        1  sent: `reconctl reconcile` asks the destinations
    skipped as locked  0  held or changed by a worker or another sweeper
    ");
    for w in WIDTHS {
        fx.in_pty(w, &args);
    }
}

#[tokio::test]
async fn mark_reports_and_the_consent_summary_fit_every_width() {
    let fx = Fixture::new().await;
    let args = [
        "mark",
        "accepted",
        U1,
        "--reason",
        "the CMS shows it under art-4711, checked by hand in the editor's view",
        "--dry-run",
    ];
    let texts = fx.widths(&args, 0);
    same_from(&texts, 120);
    let [a, b, c, _] = texts;
    insta::assert_snapshot!(a, @"
    dry run: would move job 6ce568d4-075a-4d3c-b189-8d55d6202bbd
      uncertain v1 → accepted v2 (remote_id art-4711)
      proved against the database now (the move was rolled
        back); nothing changed
      evidence: lookup at cms-a: found, verdict accept: the
        destination has it as art-4711 with the same content
    ");
    insta::assert_snapshot!(b, @"
    dry run: would move job 6ce568d4-075a-4d3c-b189-8d55d6202bbd uncertain v1 →
      accepted v2 (remote_id art-4711)
      proved against the database now (the move was rolled back); nothing changed
      evidence: lookup at cms-a: found, verdict accept: the destination has it as
        art-4711 with the same content
    ");
    insta::assert_snapshot!(c, @"
    dry run: would move job 6ce568d4-075a-4d3c-b189-8d55d6202bbd uncertain v1 → accepted v2 (remote_id art-4711)
      proved against the database now (the move was rolled back); nothing changed
      evidence: lookup at cms-a: found, verdict accept: the destination has it as art-4711 with the same content
    ");
    // The summary shown before the question, at each terminal width; declined (exit 2).
    let ask = [
        "mark",
        "accepted",
        U1,
        "--reason",
        "the CMS shows it under art-4711, checked by hand in the editor's view",
    ];
    let summaries = WIDTHS.map(|w| {
        let shown = fx.asked(w, &ask, "n");
        let from = shown.find("Job ").expect("the summary");
        let to = shown.find("Mark job").expect("the question");
        let summary = mask(shown[from..to].trim_end());
        check(
            &summary,
            w,
            &format!("the mark's summary on a {w}-column terminal"),
        );
        summary
    });
    same_from(&summaries, 120);
    let [a, b, c, _] = summaries;
    insta::assert_snapshot!(a, @"
    Job        6ce568d4-075a-4d3c-b189-8d55d6202bbd
    Ref
      [68 characters, wider than this terminal: see -o json]
    Key        tenant acme-publishing, article
               breaking-news-election-results-live-coverage,
               revision 3, destination cms-a
    State      uncertain, version 1, for 3h 5m
    Attempts   2
    Sent at    YYYY-MM-DDThh:mm:ssZ (3h 10m ago)
    Remote id  (none)
    Move       uncertain v1 → accepted v2 (mark_accepted, as
               tester)
    Records    remote_id art-4711
    Reason     the CMS shows it under art-4711, checked by hand
               in the editor's view
    Evidence   lookup at cms-a: found, verdict accept: the
               destination has it as art-4711 with the same
               content
    ");
    insta::assert_snapshot!(b, @"
    Job        6ce568d4-075a-4d3c-b189-8d55d6202bbd
    Ref        pub_b43a2323ef464d2876cd4556a3b20a74dcee2c83ecec6db824aed60b49b64f7a
    Key        tenant acme-publishing, article
               breaking-news-election-results-live-coverage, revision 3, destination
               cms-a
    State      uncertain, version 1, for 3h 5m
    Attempts   2
    Sent at    YYYY-MM-DDThh:mm:ssZ (3h 10m ago)
    Remote id  (none)
    Move       uncertain v1 → accepted v2 (mark_accepted, as tester)
    Records    remote_id art-4711
    Reason     the CMS shows it under art-4711, checked by hand in the editor's view
    Evidence   lookup at cms-a: found, verdict accept: the destination has it as
               art-4711 with the same content
    ");
    insta::assert_snapshot!(c, @"
    Job        6ce568d4-075a-4d3c-b189-8d55d6202bbd
    Ref        pub_b43a2323ef464d2876cd4556a3b20a74dcee2c83ecec6db824aed60b49b64f7a
    Key        tenant acme-publishing, article breaking-news-election-results-live-coverage, revision 3, destination cms-a
    State      uncertain, version 1, for 3h 5m
    Attempts   2
    Sent at    YYYY-MM-DDThh:mm:ssZ (3h 10m ago)
    Remote id  (none)
    Move       uncertain v1 → accepted v2 (mark_accepted, as tester)
    Records    remote_id art-4711
    Reason     the CMS shows it under art-4711, checked by hand in the editor's view
    Evidence   lookup at cms-a: found, verdict accept: the destination has it as art-4711 with the same content
    ");
    assert_eq!(fx.env.job(Uuid::parse_str(U1).unwrap()).await.version, 1);
}

#[tokio::test]
async fn reconcile_rows_and_plan_fit_every_width() {
    let fx = Fixture::new().await;
    // U3's destination is not configured: unknown, so exit 5.
    // One lookup at a time: the rows come in the order the jobs are read.
    let args = ["reconcile", "--concurrency", "1"];
    let [a, b, c, d] = fx.widths(&args, 5);
    insta::assert_snapshot!(a, @"
    JOB       DESTINATION   VERDICT        ACTION   REASON
    6ce568d4-075  cms-a                   accept         planned
    6ce568d4-07f  cms-a                   safe_to_retry  planned
    8ddbb177-06b  cms-b                   unknown        -
    reconcile: examined 3: accept 1, safe_to_retry 1, conflict
      0, wait 0, unknown 1; 2 would move: nothing changed, run
      with --apply to make these moves
    ");
    insta::assert_snapshot!(b, @"
    JOB       DESTINATION   VERDICT        ACTION   REASON
    6ce568d4-075  cms-a         accept         planned  the destination has it as a…
    6ce568d4-07f  cms-a         safe_to_retry  planned  not at the destination, and…
    8ddbb177-06b  cms-b         unknown        -        not looked up: destination …
    reconcile: examined 3: accept 1, safe_to_retry 1, conflict 0, wait 0, unknown 1;
      2 would move: nothing changed, run with --apply to make these moves
    ");
    insta::assert_snapshot!(c, @"
    JOB                                   DESTINATION   VERDICT        ACTION   TO             REASON
    6ce568d4-075a-4d3c-b189-8d55d6202bbd  cms-a         accept         planned  accepted       the destination has it as ar…
    6ce568d4-07ff-4e2a-9c1d-1f2e3d4c5b6a  cms-a         safe_to_retry  planned  safe_to_retry  not at the destination, and …
    8ddbb177-06bf-49e5-ac84-a9433d0606e6  cms-b         unknown        -        -              not looked up: destination c…
    reconcile: examined 3: accept 1, safe_to_retry 1, conflict 0, wait 0, unknown 1; 2 would move: nothing changed, run with
      --apply to make these moves
    ");
    insta::assert_snapshot!(d, @"
    JOB                                   DESTINATION   VERDICT        ACTION   TO             REASON
    6ce568d4-075a-4d3c-b189-8d55d6202bbd  cms-a         accept         planned  accepted       the destination has it as art-4711 with the same content
    6ce568d4-07ff-4e2a-9c1d-1f2e3d4c5b6a  cms-a         safe_to_retry  planned  safe_to_retry  not at the destination, and it was sent 2h 40m before the lookup (more than settle_after 2m): safe to send a…
    8ddbb177-06bf-49e5-ac84-a9433d0606e6  cms-b         unknown        -        -              not looked up: destination cms-b is not configured
    reconcile: examined 3: accept 1, safe_to_retry 1, conflict 0, wait 0, unknown 1; 2 would move: nothing changed, run with --apply to make these moves
    ");
    // U1 and U2 share 8 digits: every row's id is as long as the database needs, the first
    // row's too (issue 25: it used to be unique only among the rows printed before it).
    assert!(a.contains("6ce568d4-075 "), "{a}");
    // Full ids where they fit.
    assert!(d.contains(U1), "{d}");
    for w in WIDTHS {
        fx.in_pty(w, &args);
    }
    // The plan shown before --apply asks, declined.
    let plans = WIDTHS.map(|w| {
        let shown = fx.asked(w, &["reconcile", "--apply", "--concurrency", "1"], "n");
        let from = shown.find("reconcile would move").expect("the plan");
        let to = shown.find("Move these").unwrap_or(shown.len());
        let plan = shown[from..to].trim_end().to_string();
        check(
            &plan,
            w,
            &format!("reconcile's plan on a {w}-column terminal"),
        );
        plan
    });
    // The counts by verdict read the same at every width; the examples below them do not.
    let (counts, [a, b, c, d]) = same_above(plans, "\nfor example:\n");
    insta::assert_snapshot!(counts, @"
    reconcile would move 2 of 3 examined jobs:
    VERDICT        JOBS  MOVE
    accept            1  → accepted
    safe_to_retry     1  → safe_to_retry
    conflict          0  → conflict
    wait              0  (stay uncertain)
    unknown           1  (stay uncertain)
    ");
    insta::assert_snapshot!(a, @"
    JOB           DESTINATION  VERDICT        TO
    6ce568d4-075  cms-a        accept         accepted
    6ce568d4-07f  cms-a        safe_to_retry  safe_to_retry
    ");
    insta::assert_snapshot!(b, @"
    JOB           DESTINATION  VERDICT        TO             REASON
    6ce568d4-075  cms-a        accept         accepted       the destination has it…
    6ce568d4-07f  cms-a        safe_to_retry  safe_to_retry  not at the destination…
    ");
    insta::assert_snapshot!(c, @"
    JOB           DESTINATION  VERDICT        TO             REASON
    6ce568d4-075  cms-a        accept         accepted       the destination has it as art-4711 with the same content
    6ce568d4-07f  cms-a        safe_to_retry  safe_to_retry  not at the destination, and it was sent 2h 40m before the look…
    ");
    insta::assert_snapshot!(d, @"
    JOB                                   DESTINATION  VERDICT        TO             REASON
    6ce568d4-075a-4d3c-b189-8d55d6202bbd  cms-a        accept         accepted       the destination has it as art-4711 with the same content
    6ce568d4-07ff-4e2a-9c1d-1f2e3d4c5b6a  cms-a        safe_to_retry  safe_to_retry  not at the destination, and it was sent 2h 40m before the lookup (more than settle_after 2m): safe to send again
    ");
}

#[tokio::test]
async fn destination_list_fits_every_width() {
    let fx = Fixture::new().await;
    let [a, b, c, d] = fx.widths(&["destination", "list"], 0);
    insta::assert_snapshot!(a, @"
    DESTINATION  PAUSED  UNTIL    REASON
    cms-a        no
    cms-b        yes     not set  CMS answers 503 since the 14:…
    ");
    insta::assert_snapshot!(b, @"
    DESTINATION  PAUSED  SINCE       UNTIL    BY            REASON
    cms-a        no
    cms-b        yes     2h 15m ago  not set  alice@ops-l…  CMS answers 503 since t…
    ");
    insta::assert_snapshot!(c, @"
    DESTINATION  PAUSED  SINCE       UNTIL    BY                  REASON                                     LOOKUP
    cms-a        no                                                                                          http, auth none
    cms-b        yes     2h 15m ago  not set  alice@ops-laptop-7  CMS answers 503 since the 14:00 deploy; …  not configured
    ");
    insta::assert_snapshot!(d, @"
    DESTINATION  PAUSED  SINCE       UNTIL    BY                  REASON                                                                                             LOOKUP
    cms-a        no                                                                                                                                                  http, auth none
    cms-b        yes     2h 15m ago  not set  alice@ops-laptop-7  CMS answers 503 since the 14:00 deploy; vendor ticket INC-4711, do not resume before they confirm  not configured
    ");
    fx.same_in_pty(&["destination", "list"], 0);
}

#[tokio::test]
async fn migrate_status_fits_every_width() {
    let fx = Fixture::new().await;
    let texts = fx.widths(&["migrate", "status"], 0);
    same_from(&texts, 60);
    let [a, ..] = texts;
    insta::assert_snapshot!(a, @"
    VERSION  NAME                STATE    APPLIED ON
          1  publication_jobs    applied  YYYY-MM-DDThh:mm:ssZ
          2  roles               applied  YYYY-MM-DDThh:mm:ssZ
          3  claim_index         applied  YYYY-MM-DDThh:mm:ssZ
          4  listing_indexes     applied  YYYY-MM-DDThh:mm:ssZ
          5  destination_pauses  applied  YYYY-MM-DDThh:mm:ssZ
          6  event_trail         applied  YYYY-MM-DDThh:mm:ssZ
          7  pause_clock         applied  YYYY-MM-DDThh:mm:ssZ
          8  remote_id_index     applied  YYYY-MM-DDThh:mm:ssZ
          9  plans               applied  YYYY-MM-DDThh:mm:ssZ
         10  job_counters        applied  YYYY-MM-DDThh:mm:ssZ
         11  partitioned_events  applied  YYYY-MM-DDThh:mm:ssZ
         12  counter_slots       applied  YYYY-MM-DDThh:mm:ssZ
         13  plan_events_at      applied  YYYY-MM-DDThh:mm:ssZ
         14  lease_minutes       applied  YYYY-MM-DDThh:mm:ssZ
         15  fold_slots          applied  YYYY-MM-DDThh:mm:ssZ
         16  order_suspects      applied  YYYY-MM-DDThh:mm:ssZ
         17  move_counters       applied  YYYY-MM-DDThh:mm:ssZ
         18  fold_every_group    applied  YYYY-MM-DDThh:mm:ssZ
         19  move_minutes        applied  YYYY-MM-DDThh:mm:ssZ
         20  unfolded_index      applied  YYYY-MM-DDThh:mm:ssZ
         21  routine_events      applied  YYYY-MM-DDThh:mm:ssZ
         22  qualified_triggers  applied  YYYY-MM-DDThh:mm:ssZ
    ");
    fx.same_in_pty(&["migrate", "status"], 0);
}

/// What `migrate` built after the migrations (here: the index of the expired leases, in place
/// of its predecessor), a line each, broken between words at the terminal's width: an index
/// name is never cut.
#[tokio::test]
async fn migrate_says_what_it_built_at_every_width() {
    let fx = Fixture::new().await;
    let built = |text: &str| -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        let from = lines
            .iter()
            .position(|l| l.starts_with("built index"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            lines[..from]
                .iter()
                .map(|l| l.trim())
                .collect::<Vec<_>>()
                .join(" ")
                .ends_with("; no migration to apply"),
            "{text}"
        );
        lines[from..].iter().map(|l| l.to_string()).collect()
    };
    for w in WIDTHS {
        fx.env
            .client
            .batch_execute(crate::foundation::LEASE_INDEX_BEFORE)
            .await
            .unwrap();
        let text = fx.at(w, &["migrate"], 0);
        let expected: &[&str] = match w {
            60 => &[
                "built index ix_publication_jobs_lease_by_destination",
                "  CONCURRENTLY",
                "dropped index ix_publication_jobs_lease_destination:",
                "  replaced by ix_publication_jobs_lease_by_destination",
            ],
            80 => &[
                "built index ix_publication_jobs_lease_by_destination CONCURRENTLY",
                "dropped index ix_publication_jobs_lease_destination: replaced by",
                "  ix_publication_jobs_lease_by_destination",
            ],
            _ => &[
                "built index ix_publication_jobs_lease_by_destination CONCURRENTLY",
                "dropped index ix_publication_jobs_lease_destination: replaced by ix_publication_jobs_lease_by_destination",
            ],
        };
        assert_eq!(built(&text), expected, "COLUMNS={w}:\n{text}");
    }
    // Run again: nothing was done, and it says so.
    let text = fx.at(200, &["migrate"], 0);
    assert!(text.trim_end().ends_with("; nothing to apply"), "{text}");
}

#[tokio::test]
async fn remote_lookup_fits_every_width() {
    let fx = Fixture::new().await;
    let texts = fx.widths(&["remote", "lookup", U1], 0);
    same_from(&texts, 120);
    let [a, b, c, _] = texts;
    insta::assert_snapshot!(a, @"
    destination   cms-a
    external_ref
      [68 characters, wider than this terminal: see -o json]
    outcome       found
    matches       art-4711 (content hash
                  [hash: see -o json]
    content       same as the job's payload
    controls      passed (a known publication found, a made-up
                  reference not found)
    verdict       accept (the job can be marked accepted)
    reason        the destination has it as art-4711 with the
                  same content
    ");
    insta::assert_snapshot!(b, @"
    destination   cms-a
    external_ref
      pub_b43a2323ef464d2876cd4556a3b20a74dcee2c83ecec6db824aed60b49b64f7a
    outcome       found
    matches       art-4711 (content hash
                  9124ebe91e4af54063a95edca87e220510738bf5f37b8e3832293387bed1e71a)
    content       same as the job's payload
    controls      passed (a known publication found, a made-up reference not found)
    verdict       accept (the job can be marked accepted)
    reason        the destination has it as art-4711 with the same content
    ");
    insta::assert_snapshot!(c, @"
    destination   cms-a
    external_ref  pub_b43a2323ef464d2876cd4556a3b20a74dcee2c83ecec6db824aed60b49b64f7a
    outcome       found
    matches       art-4711 (content hash 9124ebe91e4af54063a95edca87e220510738bf5f37b8e3832293387bed1e71a)
    content       same as the job's payload
    controls      passed (a known publication found, a made-up reference not found)
    verdict       accept (the job can be marked accepted)
    reason        the destination has it as art-4711 with the same content
    ");
    fx.same_in_pty(&["remote", "lookup", U1], 0);
}

/// Regression: comfy-table squeezed every column to three letters at 80 columns
/// (`acc/ept/ed`, `in_/fli/ght`, `DESTINATIO/N`) and kept the 36-character id.
#[tokio::test]
async fn no_state_or_header_is_squeezed_into_pieces_at_60_columns() {
    let fx = Fixture::new().await;
    for args in [
        vec!["jobs", "list"],
        vec!["jobs", "uncertain"],
        vec!["jobs", "stuck", "--older-than", "15m"],
        vec!["status"],
        vec!["destination", "list"],
    ] {
        let text = fx.at(60, &args, 0);
        for piece in ["acc\n", "in_\n", "DESTINATIO\n", "uncerta\n"] {
            assert!(!text.contains(piece), "{args:?}:\n{text}");
        }
        let ids: Vec<&str> = text
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| IDS.iter().any(|id| id.starts_with(*w)))
            .collect();
        for id in ids {
            assert!(id.len() < 36, "{args:?}: a whole id at 60 columns:\n{text}");
        }
    }
}

/// A value from outside never moves the cursor or forges a line in a table.
#[tokio::test]
async fn outside_strings_are_escaped_in_every_table() {
    let fx = Fixture::new().await;
    fx.env
        .client
        .batch_execute(
            "UPDATE destination_pauses SET reason = E'evil\\x1b[2J\\nforged line', actor = E'mallory\\u202e' WHERE destination = 'cms-b'",
        )
        .await
        .unwrap();
    let hostile = Job {
        tenant: "t\u{1b}]0;pwned\u{7}",
        ..job(
            "5fe4d919-7237-41d0-8077-ed2b373cba7e",
            State::Pending,
            "cms-\u{1b}[31mred",
            "a\nb",
        )
    };
    insert(&fx.env, &hostile).await;
    for args in [
        vec!["jobs", "list"],
        vec!["jobs", "stuck", "--older-than", "15m"],
        vec!["jobs", "show", "5fe4d919"],
        vec!["status"],
        vec!["destination", "list"],
    ] {
        for w in [60, 200] {
            let text = fx.at(w, &args, 0);
            assert!(!text.contains('\u{1b}'), "{args:?}: {text:?}");
            assert!(!text.contains('\u{202e}'), "{args:?}: {text:?}");
            assert!(!text.contains("\nforged line"), "{args:?}: {text:?}");
        }
    }
}

/// Every external_ref and 64-digit hash in `text` is whole: `pub_` is followed by 64 hex
/// digits and never by a cut; no hex run of a hash ends in `…`.
fn ids_whole(text: &str, what: &str) {
    for (i, _) in text.match_indices("pub_") {
        let rest = &text[i + 4..];
        let hex = rest.chars().take_while(|c| c.is_ascii_hexdigit()).count();
        assert_eq!(
            hex, 64,
            "{what}: an external_ref cut at {hex} digits:\n{text}"
        );
    }
    for word in text.split(|c: char| !c.is_ascii_hexdigit() && c != '…') {
        if word.ends_with('…') {
            assert!(
                word.chars().count() < 12,
                "{what}: a hash or id cut (`{word}`):\n{text}"
            );
        }
    }
}

/// Issue 23 item 12: at 60 columns `jobs show`, `remote lookup` and `doctor` cut the
/// external_ref (and the payload hash) in the middle. An id is whole or not shown at all
/// (saying where it is whole); at 80 columns, where a line holds it, it is whole.
#[tokio::test]
async fn item_12_ids_are_whole_or_not_shown_at_60_and_80_columns() {
    let fx = Fixture::new().await;
    let job = fx
        .env
        .run(&fx.args(&["jobs", "show", U1, "-o", "json"]))
        .expect(0)
        .json();
    let external_ref = job["external_ref"].as_str().unwrap().to_string();
    let hash = job["payload_hash"].as_str().unwrap().to_string();
    for width in [60, 80] {
        for (args, code) in [
            (vec!["jobs", "show", U1], 0),
            (vec!["remote", "lookup", U1], 0),
            (vec!["doctor"], 0),
        ] {
            let text = fx.at(width, &args, code);
            let what = format!("COLUMNS={width} {args:?}");
            ids_whole(&text, &what);
            assert!(
                !text.contains(&hash[..12]) || text.contains(&hash),
                "{what}: the payload hash cut:\n{text}"
            );
            if width == 60 && args[0] != "doctor" {
                assert!(
                    text.contains("wider than this terminal: see -o json"),
                    "{what}: says where the id is whole:\n{text}"
                );
            }
            if width == 80 && args[0] != "doctor" {
                assert!(text.contains(&external_ref), "{what}: not whole:\n{text}");
            }
        }
    }
    let text = fx.at(80, &["jobs", "show", U1], 0);
    assert!(text.contains(&format!("\n  {hash}\n")), "{text}");
}

/// Issue 23 item 13: in an audit view who and why outrank everything but time and action:
/// `events` at 60 columns cuts no actor, `events --follow` keeps the reason (a pause's
/// reason was invisible), `jobs show`'s history at 80 keeps ACTOR, `reconcile` at 60 keeps
/// DESTINATION.
#[tokio::test]
async fn item_13_audit_views_keep_actor_and_reason() {
    let fx = Fixture::new().await;
    let events = fx.env.run(&["events", "-o", "json"]).expect(0).json();
    let actors: BTreeSet<String> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["actor"].as_str().unwrap().to_string())
        .collect();
    let reasons: Vec<String> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["reason"].as_str().map(str::to_string))
        .collect();
    assert!(!actors.is_empty() && !reasons.is_empty());
    for width in [60, 80] {
        let text = fx.at(width, &["events", "--limit", "1000"], 0);
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for a in &actors {
            assert!(
                text.contains(a.as_str()),
                "COLUMNS={width}: actor {a} cut:\n{text}"
            );
        }
        for r in &reasons {
            let r = r.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                flat.contains(&r),
                "COLUMNS={width}: reason {r:?} cut:\n{text}"
            );
        }
    }
    // --follow: the pause's reason, as it commits.
    let follow = fx
        .env
        .std_cmd()
        .env("COLUMNS", "60")
        .args(["events", "--follow"])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    fx.env
        .run(&fx.args(&[
            "destination",
            "pause",
            "cms-a",
            "--reason",
            "vendor ticket 4711: the CMS answers 503",
            "--yes",
        ]))
        .expect(0);
    std::thread::sleep(Duration::from_millis(2500));
    unsafe {
        libc::kill(follow.id() as i32, libc::SIGINT);
    }
    let out = follow.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("vendor ticket 4711: the CMS answers 503"),
        "the pause's reason:\n{text}"
    );
    assert!(text.contains("tester"), "the actor:\n{text}");
    for line in text.lines() {
        assert!(line.chars().count() <= 60, "{line}\n{text}");
    }
    // jobs show's history at 80 keeps ACTOR.
    let text = fx.at(80, &["jobs", "show", U1], 0);
    let history = text.split("history").nth(1).unwrap();
    assert!(history.lines().nth(1).unwrap().contains("ACTOR"), "{text}");
    // reconcile at 60 keeps DESTINATION.
    let text = fx.at(60, &["reconcile"], 5);
    assert!(text.contains("DESTINATION"), "{text}");
}

/// Issue 23 item 14: "looking up … at cms-a…" is progress for a person at a terminal: never
/// in a pipe or from cron.
#[tokio::test]
async fn item_14_looking_up_is_not_said_in_a_pipe() {
    let fx = Fixture::new().await;
    let out = fx
        .env
        .cmd()
        .args(fx.args(&[
            "mark",
            "accepted",
            U1,
            "--reason",
            "seen in the CMS",
            "--yes",
        ]))
        .output()
        .unwrap();
    let run = Run(out).expect(0);
    assert!(!run.stderr().contains("looking up"), "{}", run.stderr());
}
