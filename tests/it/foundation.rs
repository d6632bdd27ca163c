//! The foundation: schema, transition table, guarded moves, worker API, reservation, fencing.

use crate::harness::*;

#[tokio::test]
async fn migrated_database_has_the_named_indexes() {
    let env = TestEnv::new().await;
    let n = env
        .count("SELECT count(*) FROM pg_indexes WHERE indexname IN ('ux_publication_jobs_identity', 'ux_publication_jobs_external_ref')")
        .await;
    assert_eq!(n, 2);
}
