-- reconctl schema, version 8: a remote id is one publication of one article (SPEC §4).
--
-- Before a batch of accepting moves commits, reconcile, mark and plans ask whether the
-- destination's remote id is already recorded for a job of another article at the same
-- destination (a CMS that answers the same record for every reference would otherwise have
-- every job accepted as that one publication). This index makes that one probe per id, at any
-- size of the table, instead of a walk of the destination's jobs.
CREATE INDEX ix_publication_jobs_destination_remote_id
    ON publication_jobs (destination, remote_id)
    WHERE remote_id IS NOT NULL;
