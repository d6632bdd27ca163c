//! `metrics`: the exposition parses back to the counts and ages the database holds.

use super::*;

/// A minimal parser of the Prometheus text format (0.0.4): every sample of a family after
/// its `# HELP` and `# TYPE … gauge`, label values unescaped. Returns
/// `(name, labels) → value`.
fn parse_exposition(text: &str) -> BTreeMap<(String, BTreeMap<String, String>), f64> {
    let mut samples = BTreeMap::new();
    let mut helped = BTreeSet::new();
    let mut typed = BTreeSet::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').unwrap();
            assert!(!help.is_empty());
            assert!(helped.insert(name.to_string()), "HELP twice for {name}");
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap();
            assert_eq!(kind, "gauge");
            assert!(helped.contains(name), "TYPE before HELP for {name}");
            typed.insert(name.to_string());
            continue;
        }
        assert!(!line.starts_with('#') && !line.is_empty(), "{line:?}");
        let (series, value) = line.rsplit_once(' ').unwrap();
        let value: f64 = value.parse().unwrap();
        let (name, labels) = match series.split_once('{') {
            Some((name, rest)) => {
                let body = rest.strip_suffix('}').unwrap();
                let mut labels = BTreeMap::new();
                let mut chars = body.chars().peekable();
                while chars.peek().is_some() {
                    let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
                    assert_eq!(chars.next(), Some('"'));
                    let mut val = String::new();
                    loop {
                        match chars.next().unwrap() {
                            '\\' => match chars.next().unwrap() {
                                'n' => val.push('\n'),
                                c => val.push(c),
                            },
                            '"' => break,
                            c => val.push(c),
                        }
                    }
                    labels.insert(key, val);
                    if chars.peek() == Some(&',') {
                        chars.next();
                    }
                }
                (name.to_string(), labels)
            }
            None => (series.to_string(), BTreeMap::new()),
        };
        assert!(typed.contains(&name), "sample before TYPE: {name}");
        assert!(
            samples.insert((name, labels), value).is_none(),
            "duplicate series: {line}"
        );
    }
    samples
}

fn series(
    m: &BTreeMap<(String, BTreeMap<String, String>), f64>,
    name: &str,
    labels: &[(&str, &str)],
) -> Option<f64> {
    let labels: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    m.get(&(name.to_string(), labels)).copied()
}

#[tokio::test]
async fn metrics_parse_back_to_the_counts_and_ages() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("u1").state(Uncertain).aged(600)).await;
    env.seed(Seed::new("u2").state(Uncertain).aged(60)).await;
    let odd = "we\"ird\\dest";
    env.seed(Seed::new("c1").state(Conflict).destination(odd).aged(120))
        .await;
    env.seed(Seed::new("a1").state(Accepted)).await;
    env.seed(Seed::new("a2").state(Accepted)).await;
    let config =
        env.write_config("[destinations.cms-z]\nlookup_url = \"http://127.0.0.1:9/x?ref={ref}\"\n");
    let run = env.run(&["--config", &config, "metrics"]).expect(0);
    let m = parse_exposition(&run.stdout());
    let jobs =
        |state: &str, d: &str| series(&m, "reconctl_jobs", &[("destination", d), ("state", state)]);
    assert_eq!(jobs("uncertain", "cms-a"), Some(2.0));
    assert_eq!(jobs("conflict", odd), Some(1.0));
    assert_eq!(jobs("conflict", "cms-a"), Some(0.0));
    // Every open state of every known destination, configured ones included.
    for d in ["cms-a", "cms-z", odd] {
        for s in [
            "uncertain",
            "conflict",
            "in_flight",
            "pending",
            "safe_to_retry",
            "failed",
        ] {
            assert!(jobs(s, d).is_some(), "{s} {d}");
        }
    }
    assert_eq!(jobs("pending", "cms-z"), Some(0.0));
    assert_eq!(
        jobs("accepted", "cms-a"),
        None,
        "accepted is a metric of its own"
    );
    let age = series(
        &m,
        "reconctl_oldest_age_seconds",
        &[("destination", "cms-a"), ("state", "uncertain")],
    )
    .unwrap();
    assert!((600.0..630.0).contains(&age), "{age}");
    let age = series(
        &m,
        "reconctl_oldest_age_seconds",
        &[("destination", odd), ("state", "conflict")],
    )
    .unwrap();
    assert!((120.0..150.0).contains(&age), "{age}");
    assert_eq!(
        series(
            &m,
            "reconctl_oldest_age_seconds",
            &[("destination", "cms-z"), ("state", "pending")]
        ),
        Some(0.0),
        "no job: age 0, the series present"
    );
    assert_eq!(series(&m, "reconctl_jobs_accepted", &[]), Some(2.0));
    // Exact: no estimate, so no series saying whether it is one.
    assert_eq!(series(&m, "reconctl_jobs_accepted_estimated", &[]), None);
    let ts = series(&m, "reconctl_collected_timestamp_seconds", &[]).unwrap();
    let now = chrono::Utc::now().timestamp() as f64;
    assert!((ts - now).abs() < 60.0, "{ts} vs {now}");
    // 6 states × 3 destinations, counts and ages, accepted, timestamp, per destination
    // whether (and how long) it is paused and its expired leases (count, oldest), and 10
    // counted moves × 3 destinations × 2 windows.
    assert_eq!(m.len(), 18 + 18 + 2 + 2 * 3 + 2 * 3 + 10 * 3 * 2);

    let v = env.run(&["metrics", "-o", "json"]).expect(0).json();
    let names: Vec<&str> = v["families"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "reconctl_jobs",
            "reconctl_oldest_age_seconds",
            "reconctl_jobs_accepted",
            "reconctl_destination_paused",
            "reconctl_destination_paused_seconds",
            "reconctl_expired_leases",
            "reconctl_oldest_expired_lease_seconds",
            "reconctl_moves",
            "reconctl_collected_timestamp_seconds"
        ]
    );
}

/// Issue 23 item 11: `reconctl_oldest_age_seconds` has a sample for every open state of every
/// known destination, like `reconctl_jobs` (0 where no job is in that state), so an alert on
/// it never sees a series vanish when the last job leaves a state.
#[tokio::test]
async fn item_11_oldest_age_is_present_for_every_state_and_destination() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("u1").state(Uncertain).aged(600)).await;
    env.seed(Seed::new("p1").destination("cms-b").aged(60))
        .await;
    let config = env.write_config(
        "[destinations.cms-c]\nlookup_url = \"http://127.0.0.1:9/?r={ref}\"\nremote_id = \"/id\"\n",
    );
    let m = parse_exposition(
        &env.run(&["metrics", "--config", &config])
            .expect(0)
            .stdout(),
    );
    let key = |name: &str| -> BTreeSet<(String, String)> {
        m.keys()
            .filter(|(n, _)| n == name)
            .map(|(_, l)| (l["state"].clone(), l["destination"].clone()))
            .collect()
    };
    let counts = key("reconctl_jobs");
    assert_eq!(counts.len(), 6 * 3, "{counts:?}");
    assert_eq!(key("reconctl_oldest_age_seconds"), counts);
    for (state, d) in &counts {
        let age = series(
            &m,
            "reconctl_oldest_age_seconds",
            &[("destination", d), ("state", state)],
        )
        .unwrap();
        let held = (state == "uncertain" && d == "cms-a") || (state == "pending" && d == "cms-b");
        assert_eq!(age > 0.0, held, "{state} {d}: {age}");
    }
}
