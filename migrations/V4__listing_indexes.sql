-- Listings that must stay flat as the table grows (scripts/bench at 1M and 10M rows):
-- `jobs list --tenant T`, `jobs list --article A` (SPEC §3 allows it without --tenant: article
-- ids are searched across tenants when an incident names only the article), and
-- `jobs list --destination D --state S` over the small non-accepted part of the table.
CREATE INDEX ix_publication_jobs_tenant_created
    ON publication_jobs (tenant_id, created_at, id);

CREATE INDEX ix_publication_jobs_article_created
    ON publication_jobs (article_id, created_at, id);

CREATE INDEX ix_publication_jobs_open_destination_created
    ON publication_jobs (destination, state, created_at, id)
    WHERE state <> 'accepted';
