-- The worker bench's own :need pending jobs of cms-bench (examples/worker_bench.rs), older than
-- every other claimable job, so each claim of cms-bench takes the first entries of the
-- claimable index; then the table vacuumed and analyzed.
--   psql -v need=… -f scripts/lib/seed_worker_jobs.sql
SET statement_timeout = 0;
INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref, payload_hash, created_at, updated_at, state_changed_at)
SELECT 'bench', 'w' || i, '1', 'cms-bench',
       'pub_' || encode(sha256(convert_to('worker bench ' || i, 'UTF8')), 'hex'),
       encode(sha256(convert_to('worker bench payload ' || i, 'UTF8')), 'hex'),
       now() - interval '10 years', now() - interval '10 years', now() - interval '10 years' + make_interval(secs => i)
FROM generate_series(1, :need) i;
VACUUM (ANALYZE) publication_jobs;
