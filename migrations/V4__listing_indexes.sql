-- Listings that must stay flat as the table grows (scripts/bench at 1M and 10M rows):
-- `jobs list --tenant T`, and `jobs list --article A` (SPEC §3 allows it without --tenant:
-- article ids are searched across tenants when an incident names only the article).
--
-- Not added: a partial (destination, state, created_at, id) index for `--destination D
-- --state S`. The planner then preferred it, through a bitmap heap scan, over the
-- index-only scan of ix_publication_jobs_open_state_age for `status`, `check` and `metrics`,
-- which must stay under 100 ms at 10M rows; those matter more during an incident.
CREATE INDEX ix_publication_jobs_tenant_created
    ON publication_jobs (tenant_id, created_at, id);

CREATE INDEX ix_publication_jobs_article_created
    ON publication_jobs (article_id, created_at, id);
