-- Workers claim the oldest claimable job (`pending` or `safe_to_retry`, oldest state change
-- first). Without an index in that order, a claim sorts the whole claimable backlog: after a
-- sweep returned 50 000 jobs to pending, each claim took ~400 ms (scripts/bench-sweep).
CREATE INDEX ix_publication_jobs_claimable
    ON publication_jobs (state_changed_at, id)
    WHERE state IN ('pending', 'safe_to_retry');
