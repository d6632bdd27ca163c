//! `jobs list`: exact JSON and JSON lines, filters, a 120-column table, keyset pages that
//! walk every job exactly once while others insert, opaque filter-bound cursors, a closed pipe.

use super::*;

#[tokio::test]
async fn list_json_is_every_column_of_every_job_oldest_first() {
    let env = TestEnv::new().await;
    let mut older = Seed::new("a1").state(Uncertain).sent_ago(700).aged(600);
    older.created_age_secs = Some(900);
    let newer = env
        .seed(Seed::new("a2").state(InFlight).lease("w-9", 120))
        .await;
    let older = env.seed(older).await;
    let accepted = env
        .seed(Seed::new("a3").state(Accepted).remote_id("r-3").aged(30))
        .await;
    let v = env.run(&["jobs", "list", "-o", "json"]).expect(0).json();
    // Oldest first by created_at: a1 (900s), a2 (60s), a3 (30s).
    assert_eq!(
        v,
        json!({
            "jobs": [job_json(&older), job_json(&newer), job_json(&accepted)],
            "next_cursor": null,
        })
    );
    // Every column of SPEC §1, and nothing else.
    let keys: BTreeSet<&str> = v["jobs"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let columns: BTreeSet<&str> = reconctl::jobs::model::JOB_COLUMNS.split(", ").collect();
    assert_eq!(keys, columns);
    assert_eq!(v["jobs"][1]["lease_owner"], "w-9");
    assert!(v["jobs"][0]["sent_at"].as_str().unwrap().ends_with('Z'));
}

#[tokio::test]
async fn list_jsonl_is_one_job_a_line_without_a_cursor_line() {
    let env = TestEnv::new().await;
    let a = env.seed(Seed::new("a1").aged(300)).await;
    let b = env.seed(Seed::new("a2").aged(200)).await;
    env.seed(Seed::new("a3").aged(100)).await;
    let run = env
        .run(&["jobs", "list", "-o", "jsonl", "--limit", "2"])
        .expect(0);
    let lines: Vec<Value> = run
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, vec![job_json(&a), job_json(&b)]);
}

#[tokio::test]
async fn list_filters_combine() {
    let env = TestEnv::new().await;
    let mut s = Seed::new("x1").state(Uncertain).sent_ago(4000).aged(3600);
    s.tenant = "t2".into();
    let t2_uncertain_old = env.seed(s).await;
    let uncertain_new = env.seed(Seed::new("x2").state(Uncertain).aged(60)).await;
    let conflict_b = env
        .seed(
            Seed::new("x3")
                .state(Conflict)
                .destination("cms-b")
                .aged(7200),
        )
        .await;
    let pending = env.seed(Seed::new("x4").aged(10)).await;
    let accepted = env.seed(Seed::new("x5").state(Accepted).aged(20)).await;
    let list = |args: &[&str]| {
        let mut full = vec!["jobs", "list", "-o", "json"];
        full.extend_from_slice(args);
        let mut got = ids(&env.run(&full).expect(0).json());
        got.sort();
        got
    };
    let want = |jobs: &[&Job]| {
        let mut w = id_strings(jobs);
        w.sort();
        w
    };
    assert_eq!(
        list(&["--state", "uncertain"]),
        want(&[&t2_uncertain_old, &uncertain_new])
    );
    assert_eq!(
        list(&["--state", "uncertain", "--state", "conflict"]),
        want(&[&t2_uncertain_old, &uncertain_new, &conflict_b])
    );
    assert_eq!(
        list(&["--state", "accepted", "--state", "pending"]),
        want(&[&pending, &accepted])
    );
    assert_eq!(list(&["--destination", "cms-b"]), want(&[&conflict_b]));
    assert_eq!(list(&["--tenant", "t2"]), want(&[&t2_uncertain_old]));
    assert_eq!(
        list(&["--tenant", "t1", "--article", "x4"]),
        want(&[&pending])
    );
    // SPEC §3: --article filters on its own too (across tenants; ix_publication_jobs_article_created).
    assert_eq!(list(&["--article", "x4"]), want(&[&pending]));
    assert_eq!(
        list(&["--external-ref", &accepted.external_ref]),
        want(&[&accepted])
    );
    // Age in the current state: uncertain for an hour, conflict for two.
    assert_eq!(
        list(&["--older-than", "30m"]),
        want(&[&t2_uncertain_old, &conflict_b])
    );
    assert_eq!(
        list(&["--older-than", "30m", "--state", "uncertain"]),
        want(&[&t2_uncertain_old])
    );
    assert_eq!(
        list(&["--older-than", "1h30m", "--destination", "cms-a"]),
        Vec::<String>::new()
    );
    // A malformed external_ref is a usage error, not an empty list.
    let run = env
        .run(&["jobs", "list", "--external-ref", "pub_nothex"])
        .expect(2);
    assert!(
        run.stderr().contains("is not an external_ref"),
        "{}",
        run.stderr()
    );
    env.run(&["jobs", "list", "--limit", "0"]).expect(2);
    env.run(&["jobs", "list", "--limit", "10001"]).expect(2);
    env.run(&["jobs", "list", "--state", "done"]).expect(2);
}

#[tokio::test]
async fn list_table_fits_120_columns() {
    let env = TestEnv::new().await;
    // Ages with two units each, so that the seconds a test takes cannot change them.
    let a = env
        .seed(
            Seed::new("article-1")
                .state(Uncertain)
                .aged(2 * 3600 + 30 * 60),
        )
        .await;
    let b = env
        .seed(
            Seed::new("article-2")
                .state(InFlight)
                .destination("cms-b")
                .lease("w", 300)
                .aged(5 * 3600 + 3 * 60),
        )
        .await;
    let c = env
        .seed(
            Seed::new("article-3")
                .state(Pending)
                .aged(86_400 + 3 * 3600),
        )
        .await;
    let run = env.run(&["jobs", "list", "--limit", "2"]).expect(0);
    let text = redact(run.stdout(), &[("a", &a), ("b", &b), ("c", &c)]);
    for line in text.lines() {
        assert!(line.chars().count() <= 120, "{line}");
    }
    // Page order is by created_at: c (27h), b (5h 3m), a (2h 30m); the cursor line ends it.
    let (table, cursor) = text.rsplit_once('\n').unwrap();
    insta::assert_snapshot!(table, @"
    ID                                    STATE      DESTINATION  TENANT  ARTICLE    REV  IN STATE  ATTEMPTS
    [c]                                   pending    cms-a        t1      article-3  1    1d 3h            0
    [b]                                   in_flight  cms-b        t1      article-2  1    5h 3m            0
    ");
    assert!(cursor.starts_with("more: --cursor "), "{cursor}");
}

#[tokio::test]
async fn empty_lists_say_so() {
    let env = TestEnv::new().await;
    assert_eq!(
        env.run(&["jobs", "list"]).expect(0).stdout(),
        "no jobs match\n"
    );
    assert_eq!(
        env.run(&["jobs", "uncertain"]).expect(0).stdout(),
        "no uncertain jobs\n"
    );
    assert_eq!(
        env.run(&["jobs", "stuck"]).expect(0).stdout(),
        "no stuck jobs\n"
    );
    assert_eq!(
        env.run(&["jobs", "list", "-o", "json"]).expect(0).json(),
        json!({"jobs": [], "next_cursor": null})
    );
    assert_eq!(
        env.run(&["jobs", "list", "-o", "jsonl"]).expect(0).stdout(),
        ""
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pagination_walks_the_seeded_jobs_exactly_once_while_others_insert() {
    let env = TestEnv::new().await;
    // 120 jobs created one second apart over the last 1000 seconds, in several states.
    bulk(&env.client, "seeded-", 40, Some(Pending), 1000, 3).await;
    bulk(&env.client, "seeded-u-", 40, Some(Uncertain), 990, 3).await;
    bulk(&env.client, "seeded-a-", 40, Some(Accepted), 980, 3).await;
    let seeded: BTreeSet<String> = env
        .client
        .query("SELECT id::text FROM publication_jobs", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(seeded.len(), 120);
    let seeded_open: BTreeSet<String> = env
        .client
        .query(
            "SELECT id::text FROM publication_jobs WHERE state IN ('pending', 'uncertain')",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(seeded_open.len(), 80);

    // Meanwhile another session keeps inserting jobs whose created_at falls inside the range
    // being walked, before and after the cursor.
    let stop = Arc::new(AtomicBool::new(false));
    let inserted = Arc::new(AtomicU64::new(0));
    let inserter = {
        let client = env.connect().await;
        let stop = stop.clone();
        let inserted = inserted.clone();
        tokio::spawn(async move {
            let mut i = 0i64;
            while !stop.load(Ordering::SeqCst) {
                let state = [Pending, Uncertain, Accepted][(i % 3) as usize];
                let age = 1000 - (i * 37) % 1000;
                let n = bulk(&client, &format!("racing-{i}-"), 1, Some(state), age, 3).await;
                inserted.fetch_add(n, Ordering::SeqCst);
                i += 1;
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    while inserted.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let before = inserted.load(Ordering::SeqCst);
    let (all, pages) = tokio::task::block_in_place(|| walk(&env, &[], 7));
    let (open, _) = tokio::task::block_in_place(|| {
        walk(&env, &["--state", "uncertain", "--state", "pending"], 5)
    });
    let during = inserted.load(Ordering::SeqCst) - before;
    stop.store(true, Ordering::SeqCst);
    inserter.await.unwrap();
    assert!(
        during > 10,
        "the inserter ran during the walk ({during} jobs)"
    );
    assert!(pages >= 18, "{pages} pages");

    for (walked, seeded, states) in [
        (&all, &seeded, &["pending", "uncertain", "accepted"][..]),
        (&open, &seeded_open, &["pending", "uncertain"][..]),
    ] {
        // Strict keyset order (so no job twice), only jobs of the filter, every seeded job of
        // the filter exactly once; racing inserts may or may not be seen.
        let keys: Vec<(String, String)> = walked
            .iter()
            .map(|j| {
                (
                    j["created_at"].as_str().unwrap().to_string(),
                    j["id"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        for w in keys.windows(2) {
            assert!(
                w[0] < w[1],
                "out of keyset order: {:?} then {:?}",
                w[0],
                w[1]
            );
        }
        for j in walked {
            assert!(states.contains(&j["state"].as_str().unwrap()), "{j}");
        }
        let seen: Vec<&str> = walked
            .iter()
            .map(|j| j["id"].as_str().unwrap())
            .filter(|id| seeded.contains(*id))
            .collect();
        let unique: BTreeSet<&str> = seen.iter().copied().collect();
        assert_eq!(seen.len(), seeded.len(), "every seeded job, once");
        assert_eq!(unique.len(), seeded.len());
    }
}

#[tokio::test]
async fn cursors_are_opaque_and_refused_when_altered_or_reused_elsewhere() {
    let env = TestEnv::new().await;
    for i in 0..3 {
        env.seed(Seed::new(&format!("a{i}")).state(Uncertain).aged(100 - i))
            .await;
    }
    let v = env
        .run(&[
            "jobs",
            "list",
            "--state",
            "uncertain",
            "--limit",
            "1",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    let cursor = v["next_cursor"].as_str().unwrap().to_string();
    assert!(!cursor.contains(&v["jobs"][0]["id"].as_str().unwrap()[..8]));
    // `jobs uncertain` lists the same jobs in another order (the longest uncertain first,
    // issue 23 item 6): a cursor of the other listing is refused, not misread.
    let run = env
        .run(&["jobs", "uncertain", "--limit", "1", "--cursor", &cursor])
        .expect(2);
    assert!(run.stderr().contains("other filters"), "{}", run.stderr());

    let mut altered: Vec<char> = cursor.chars().collect();
    altered[12] = if altered[12] == 'x' { 'y' } else { 'x' };
    let altered: String = altered.into_iter().collect();
    for (bad, why) in [
        (altered.as_str(), "altered"),
        ("not-a-cursor", "not a cursor"),
        ("", "not a cursor"),
    ] {
        let run = env
            .run(&["jobs", "list", "--state", "uncertain", "--cursor", bad])
            .expect(2);
        assert!(
            run.stderr().contains("invalid --cursor"),
            "{}",
            run.stderr()
        );
        assert!(run.stderr().contains(why), "{why}: {}", run.stderr());
        assert_eq!(run.stdout(), "");
    }
    // Another filter, another listing.
    let run = env
        .run(&[
            "jobs", "list", "--state", "pending", "--cursor", &cursor, "-o", "json",
        ])
        .expect(2);
    assert_eq!(run.json()["error"]["kind"], "usage");
    assert!(run.stderr().contains("other filters"), "{}", run.stderr());
    let run = env.run(&["jobs", "stuck", "--cursor", &cursor]).expect(2);
    assert!(run.stderr().contains("other filters"), "{}", run.stderr());
}

#[tokio::test]
async fn a_closed_pipe_ends_the_list_quietly_with_success() {
    let env = TestEnv::new().await;
    // Far more output than a pipe buffers, so the writes after `head` hangs up fail.
    bulk(&env.client, "pipe-", 2000, Some(Pending), 5000, 2).await;
    for format in ["table", "jsonl", "json"] {
        // A std Command: its stdout must be a pipe we can close.
        let mut child = env
            .std_cmd()
            .args(["jobs", "list", "--limit", "2000", "-o", format])
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        assert!(!first.is_empty());
        drop(out); // `| head -1`
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{format}: {output:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), "", "{format}");
    }
}

/// Issue 23 item 5: a destination filter naming no destination anything knows is exit 2
/// naming the known ones (configured, paused, or holding a job) in every command that
/// filters by destination, never an empty "all clear"; a state filter accepts exactly the
/// state names.
#[tokio::test]
async fn item_5_unknown_destination_filter_is_exit_2() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("u1").state(Uncertain)).await;
    env.seed(Seed::new("b1").destination("cms-b")).await;
    // Paused while configured, then no longer in the config: known by its pause.
    let pausing = env.write_config(
        "[destinations.cms-paused]\nlookup_url = \"http://127.0.0.1:9/?r={ref}\"\nremote_id = \"/id\"\n",
    );
    env.run(&[
        "destination",
        "pause",
        "cms-paused",
        "--reason",
        "drill",
        "--yes",
        "--config",
        &pausing,
    ])
    .expect(0);
    let config = env.write_config(
        "[destinations.cms-conf]\nlookup_url = \"http://127.0.0.1:9/?r={ref}\"\nremote_id = \"/id\"\n",
    );
    let known = "known destinations: cms-a, cms-b, cms-conf, cms-paused";
    let commands: Vec<Vec<&str>> = vec![
        vec!["jobs", "list"],
        vec!["jobs", "uncertain"],
        vec!["jobs", "uncertain", "--watch"],
        vec!["jobs", "stuck", "--older-than", "5m"],
        vec!["events"],
    ];
    for command in &commands {
        let with = |d: &str, extra: &[&str]| {
            let mut a: Vec<&str> = command.clone();
            a.extend_from_slice(&["--config", &config, "--destination"]);
            a.push(d);
            a.extend_from_slice(extra);
            a.iter().map(|s| s.to_string()).collect::<Vec<String>>()
        };
        let args = with("cms-x", &[]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = env.run(&args).expect(2);
        assert_eq!(run.stdout(), "", "{command:?}");
        assert!(
            run.stderr()
                .contains("unknown destination `cms-x`: it is not configured, not paused, and no job names it")
                && run.stderr().contains(known),
            "{command:?}: {}",
            run.stderr()
        );
        if !command.contains(&"--watch") {
            let args = with("cms-x", &["-o", "json"]);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let v = env.run(&args).expect(2).json();
            assert_eq!(v["error"]["kind"], "usage", "{command:?}: {v}");
            assert!(v["error"]["hint"].as_str().unwrap().contains(known), "{v}");
            // The known ones are accepted: configured, paused, holding a job.
            for d in ["cms-a", "cms-conf", "cms-paused"] {
                let args = with(d, &["-o", "json"]);
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                env.run(&args).expect(0);
            }
        }
    }
    // Without a config: the database's names still count, and no empty list is "all clear".
    let run = env
        .run(&["jobs", "uncertain", "--destination", "cms-conf"])
        .expect(2);
    assert!(
        run.stderr()
            .contains("known destinations: cms-a, cms-b, cms-paused"),
        "{}",
        run.stderr()
    );
    // States: exactly the names, refused at parse time, listing them.
    for bad in ["Uncertain", "UNCERTAIN", "in-flight", "uncertainn"] {
        let run = env.run(&["jobs", "list", "--state", bad]).expect(2);
        assert!(
            run.stderr().contains(&format!("invalid value '{bad}' for '--state <STATE>'"))
                && run.stderr().contains(
                    "expected one of: pending, in_flight, uncertain, accepted, safe_to_retry, failed, conflict"
                ),
            "{}",
            run.stderr()
        );
    }
    let run = env.run(&["jobs", "list", "--state", "Uncertain"]).expect(2);
    assert!(
        run.stderr()
            .contains("names are exact: did you mean 'uncertain'?"),
        "{}",
        run.stderr()
    );
    let v = env
        .run(&["jobs", "list", "--state", "Uncertain", "-o", "json"])
        .expect(2)
        .json();
    assert_eq!(v["error"]["kind"], "usage");
    env.run(&["jobs", "list", "--state", "uncertain"]).expect(0);
}
