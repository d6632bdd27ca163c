//! V16: the acceptances `check` reads for out-of-order publication are recorded by the
//! database when a job is accepted (job_order_suspects), beside every newer revision it could
//! be out of order with, whoever accepts and however the transactions overlap.

use super::*;

/// Two jobs of one article at one destination, both pending: revisions `older` and `newer`.
async fn pending_pair(env: &TestEnv, article: &str, older: &str, newer: &str) -> (Job, Job) {
    let mut o = Seed::new(article);
    o.revision = older.into();
    let mut n = Seed::new(article);
    n.revision = newer.into();
    (env.seed(o).await, env.seed(n).await)
}

/// Accept a job by plain SQL, as a worker outside this crate would.
const ACCEPT: &str = "UPDATE publication_jobs SET state = 'accepted', remote_id = 'r-' || id,
     version = version + 1, state_changed_at = now(), updated_at = now() WHERE id = $1";

async fn suspects(c: &Client) -> BTreeSet<Uuid> {
    c.query("SELECT job_id FROM job_order_suspects", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// Every out-of-order pair the table holds (older id, newer id), read the long way.
async fn truth(c: &Client) -> BTreeSet<(Uuid, Uuid)> {
    c.query(
        "SELECT o.id, n.id FROM publication_jobs o JOIN publication_jobs n
           ON n.tenant_id = o.tenant_id AND n.article_id = o.article_id
          AND n.destination = o.destination AND n.id <> o.id
         WHERE o.state = 'accepted' AND n.state = 'accepted'
           AND n.state_changed_at < o.state_changed_at
           AND job_revision_newer(n.revision_id, o.revision_id)",
        &[],
    )
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1)))
    .collect()
}

async fn found(c: &Client) -> BTreeSet<(Uuid, Uuid)> {
    query::out_of_order(c, Duration::from_secs(3600))
        .await
        .unwrap()
        .iter()
        .map(|p| (p.older.id, p.newer.id))
        .collect()
}

#[tokio::test]
async fn an_acceptance_is_a_suspect_only_beside_a_newer_revision() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // plain SQL accepts without events, as outside workers may
    let c = &env.client;
    // A table that held no job when V16 ran: nothing to look for in the audit log.
    let since: String = c
        .query_one("SELECT since::text FROM job_order_watch", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(since, "-infinity");
    let alone = env.seed(Seed::new("alone")).await;
    c.execute(ACCEPT, &[&alone.id]).await.unwrap();
    let (one, two) = pending_pair(&env, "in-order", "1", "2").await;
    c.execute(ACCEPT, &[&one.id]).await.unwrap();
    c.execute(ACCEPT, &[&two.id]).await.unwrap();
    // "10" is numerically newer than "9": accepted first, then 9.
    let (nine, ten) = pending_pair(&env, "late", "9", "10").await;
    c.execute(ACCEPT, &[&ten.id]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    c.execute(ACCEPT, &[&nine.id]).await.unwrap();
    // Revision 1 was accepted while 2 was pending (it could have become out of order), 9
    // after 10; neither the newest revisions nor a job alone are suspects.
    assert_eq!(suspects(c).await, BTreeSet::from([one.id, nine.id]));
    assert_eq!(found(c).await, BTreeSet::from([(nine.id, ten.id)]));
    assert_eq!(found(c).await, truth(c).await);
    let v = env.run(&["check", "-o", "json"]).expect(5).json();
    assert_eq!(v["out_of_order"][0]["older"]["id"], json!(nine.id));
    assert_eq!(v["out_of_order"][0]["newer"]["id"], json!(ten.id));
    assert_eq!(v["out_of_order"].as_array().unwrap().len(), 1);
    // Outside the window: a suspect accepted two hours ago is not read.
    c.execute(
        "UPDATE job_order_suspects SET accepted_at = now() - interval '2 hours' WHERE job_id = $1",
        &[&nine.id],
    )
    .await
    .unwrap();
    env.run(&["check"]).expect(0);
    env.run(&["check", "--order-window", "3h"]).expect(5);
}

/// The acceptances of two revisions overlap in every way two transactions can: accepted by
/// UPDATE in either order with either transaction started first, or the newer revision
/// inserted already accepted in a transaction overlapping the older one's acceptance. The
/// pairs `check` finds are exactly the table's, every time.
#[tokio::test]
async fn no_out_of_order_pair_escapes_however_the_acceptances_overlap() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let a = env.connect().await;
    let b = env.connect().await;
    let c = &env.client;
    let mut out_of_order = 0;
    for i in 0..48 {
        let article = format!("art-{i}");
        let insert_newer = i % 3 == 2;
        let (older, newer) = if insert_newer {
            let mut o = Seed::new(&article);
            o.revision = "4".into();
            (env.seed(o).await, None)
        } else {
            let (o, n) = pending_pair(&env, &article, "4", "5").await;
            (o, Some(n))
        };
        // Transaction `first` begins (its now() is the earlier), then `second`; the newer
        // revision is `first`'s when i is even.
        let newer_first = i % 2 == 0;
        let (tn, to) = if newer_first { (&a, &b) } else { (&b, &a) };
        let (first, second) = if newer_first { (tn, to) } else { (to, tn) };
        first.batch_execute("BEGIN").await.unwrap();
        first.execute("SELECT now()", &[]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
        second.batch_execute("BEGIN").await.unwrap();
        second.execute("SELECT now()", &[]).await.unwrap();
        // Which one writes first, and which commits first, vary too.
        let newer_writes_first = (i / 2) % 2 == 0;
        let write_newer = async {
            match &newer {
                Some(n) => {
                    tn.execute(ACCEPT, &[&n.id]).await.unwrap();
                }
                None => {
                    tn.execute(
                        "INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination,
                             external_ref, payload_hash, state, remote_id)
                         SELECT tenant_id, article_id, '5', destination,
                             'pub_' || encode(sha256(convert_to(article_id || '/5', 'UTF8')), 'hex'),
                             payload_hash, 'accepted', 'r-new'
                         FROM publication_jobs WHERE id = $1",
                        &[&older.id],
                    )
                    .await
                    .unwrap();
                }
            }
        };
        if newer_writes_first {
            write_newer.await;
            to.execute(ACCEPT, &[&older.id]).await.unwrap();
        } else {
            to.execute(ACCEPT, &[&older.id]).await.unwrap();
            write_newer.await;
        }
        let commit_first = if (i / 4) % 2 == 0 { first } else { second };
        let commit_last = if (i / 4) % 2 == 0 { second } else { first };
        commit_first.batch_execute("COMMIT").await.unwrap();
        commit_last.batch_execute("COMMIT").await.unwrap();
        let t = truth(c).await;
        out_of_order = t.len();
        assert_eq!(found(c).await, t, "iteration {i}");
    }
    // Half the interleavings leave the older revision accepted last: the test saw pairs.
    assert!(out_of_order >= 12, "{out_of_order} out-of-order pairs");
}

/// A table that held jobs when V16 was installed: the acceptances before it are found in the
/// audit log, as before, for as long as they are inside the window.
#[tokio::test]
async fn acceptances_before_v16_are_read_from_the_audit_log() {
    let env = TestEnv::empty().await;
    let mut admin = env.connect().await;
    reconctl::migrate::migrate_to(&mut admin, 15).await.unwrap();
    let mut newer = Seed::new("late").state(Accepted).aged(600);
    newer.revision = "10".into();
    let mut older = Seed::new("late").state(Accepted).aged(60);
    older.revision = "9".into();
    let (newer, older) = (env.seed(newer).await, env.seed(older).await);
    env.run(&["migrate"]).expect(0);
    assert!(
        suspects(&env.client).await.is_empty(),
        "no trigger before V16"
    );
    let v = env.run(&["check", "-o", "json"]).expect(5).json();
    assert_eq!(v["out_of_order"][0]["older"]["id"], json!(older.id));
    assert_eq!(v["out_of_order"][0]["newer"]["id"], json!(newer.id));
    // Once V16 is older than the window, the log is not read: nothing else found them.
    env.client
        .batch_execute("UPDATE job_order_watch SET since = now() - interval '2 hours'")
        .await
        .unwrap();
    env.run(&["check"]).expect(0);
}

/// `check`'s out-of-order search plans its pairs' statement (two joins over
/// `publication_jobs`) only when a suspect was accepted within the window: with none, it
/// answers while another session holds `publication_jobs` in ACCESS EXCLUSIVE mode (a
/// statement over the table would wait into the 2 s lock timeout); with one, it finds the
/// pair.
#[tokio::test]
async fn without_a_suspect_in_the_window_the_pairs_are_not_looked_for() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // plain SQL accepts without events, as outside workers may
    let c = &env.client;
    let (one, two) = pending_pair(&env, "in-order", "1", "2").await;
    c.execute(ACCEPT, &[&two.id]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    c.execute(ACCEPT, &[&one.id]).await.unwrap();
    // Revision 1 accepted after 2: out of order, but its suspect row is older than the window.
    c.execute(
        "UPDATE job_order_suspects SET accepted_at = now() - interval '2 hours'",
        &[],
    )
    .await
    .unwrap();
    let held = env.hold("publication_jobs").await;
    let quiet = query::out_of_order(c, Duration::from_secs(3600)).await;
    held.release().await;
    assert_eq!(
        quiet
            .expect("the pairs' statement waited for the table")
            .len(),
        0
    );
    // Within the window again: the pair is found.
    c.execute("UPDATE job_order_suspects SET accepted_at = now()", &[])
        .await
        .unwrap();
    assert_eq!(found(c).await, BTreeSet::from([(one.id, two.id)]));
    assert_eq!(found(c).await, truth(c).await);
}
