-- The jobs of scripts/bench-counters and scripts/bench-worker-variants: rows :from to :to - 1
-- of a table of :n jobs, the states, destinations, ages and leases bench-counters describes,
-- every age and lease taken from the one clock :t0.
--   psql -v n=… -v from=… -v to=… -v t0=… -f scripts/lib/seed_jobs.sql
SET synchronous_commit = off;
SET statement_timeout = 0;
INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref,
    payload_hash, state, version, attempts, lease_owner, lease_expires_at, sent_at, remote_id,
    created_at, updated_at, state_changed_at)
SELECT 't' || (i % 1000), 'a' || i, '1', 'cms-' || ((i / 1000) % 20),
       'pub_' || encode(sha256(convert_to('ref ' || i, 'UTF8')), 'hex'),
       encode(sha256(convert_to('payload ' || i, 'UTF8')), 'hex'),
       s.state, 2, 1,
       CASE WHEN s.state = 'in_flight' THEN 'worker-' || (i % 8) END,
       CASE WHEN s.state = 'in_flight' THEN
            CASE WHEN i >= :n - 12800 THEN now() + interval '5 minutes'
                 ELSE :'t0'::timestamptz - make_interval(secs => 60 + ((i * 104729) % 3600000) / 1000.0 + i::float8 / :n / 1000) END END,
       CASE WHEN s.state IN ('accepted', 'uncertain', 'conflict', 'failed') THEN c.at END,
       CASE WHEN s.state = 'accepted' THEN 'remote-' || i END,
       c.at, c.at, c.at
FROM generate_series(:from::bigint, :to::bigint - 1) AS i,
     LATERAL (SELECT :'t0'::timestamptz - make_interval(secs => (:n - i) * 86400.0 / 20000) AS at) c,
     LATERAL (SELECT CASE
                WHEN (i * 7919) % 1000 < 970 THEN 'accepted'
                WHEN (i * 7919) % 1000 < 980 THEN 'pending'
                WHEN (i * 7919) % 1000 < 985 THEN 'in_flight'
                WHEN (i * 7919) % 1000 < 990 THEN 'uncertain'
                WHEN (i * 7919) % 1000 < 994 THEN 'safe_to_retry'
                WHEN (i * 7919) % 1000 < 997 THEN 'failed'
                ELSE 'conflict' END AS state) s;
