-- reconctl schema, version 16: what `check` needs to find an out-of-order publication (an
-- older revision accepted after a newer one) is recorded when a job is accepted, by the
-- database itself, so that check reads a few rows instead of every acceptance of its window.
--
-- Before V16, check read the audit log's acceptances within --order-window and each one's
-- siblings: about 9 µs per acceptance, 1.2 s (past its statement timeout: exit 6) for the
-- 137 000 acceptances of an hour in which a backlog drained. Its cost grew with the work the
-- workers did, and it planned a statement over every month's partition of job_events.
--
-- job_order_suspects (job_id, accepted_at): the accepted jobs that a newer revision (same
-- tenant, article and destination) already existed beside when they were accepted, unless
-- that newer one was visibly accepted later. Only such a job can be the older half of an
-- out-of-order pair, so check reads the suspects of its window and verifies each against
-- the table (the pair is decided there, as before; a suspect is only where to look).
--
-- Why no acceptance is missed without a lock: a pair is out of order when the older revision
-- o was accepted after the newer revision n (state_changed_at). n's row was inserted before
-- n was accepted, so before o's acceptance began, and o's trigger sees it (in any state,
-- whatever n's own transaction is doing): o is recorded. Only a newer revision inserted
-- already accepted, in a transaction that overlaps o's acceptance, is invisible to o's
-- trigger; the insert trigger records the older siblings it finds (in any state) instead.
--
-- * The update trigger is a row trigger WHEN the state becomes accepted: every other update
--   (claims, renewals, sweeps) runs no function. An acceptance costs one probe of
--   ux_publication_jobs_identity (the article's revisions), and a row only when it is a suspect.
-- * The insert trigger is a statement trigger over the inserted rows (a bulk load runs one
--   function per statement, one probe per accepted row).
-- * Both are ENABLE ALWAYS and SECURITY DEFINER, as the counters' triggers (V10).
-- * job_order_watch: when V16 was installed and the last audit event before it. check reads
--   the acceptances before it from the audit log, as before, until they leave its window
--   (a table that held no job needs nothing of the kind).
-- * `events prune` drops the suspects accepted before its month, with the months.

CREATE TABLE job_order_suspects (
    job_id      uuid        PRIMARY KEY,
    accepted_at timestamptz NOT NULL
);

CREATE INDEX ix_job_order_suspects_accepted ON job_order_suspects (accepted_at);

CREATE TABLE job_order_watch (
    one          boolean     PRIMARY KEY DEFAULT true CHECK (one),
    since        timestamptz NOT NULL,
    before_event bigint      NOT NULL
);

-- Whether revision a is newer than revision b: numerically when both are integers (leading
-- zeros stripped, then the longer is the larger, equal lengths compare digit by digit: no
-- overflow whatever their length), otherwise byte by byte (COLLATE "C": never the locale's).
-- A plain SQL function: the planner inlines it into check's statement.
CREATE FUNCTION job_revision_newer(a text, b text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN a ~ '^[0-9]+$' AND b ~ '^[0-9]+$'
                THEN (length(ltrim(a, '0')), ltrim(a, '0') COLLATE "C")
                   > (length(ltrim(b, '0')), ltrim(b, '0') COLLATE "C")
                ELSE a COLLATE "C" > b COLLATE "C"
           END
$$;

DO $$
DECLARE
    s text := current_schema();
BEGIN
    EXECUTE format($f$
        CREATE FUNCTION job_order_accepted() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            INSERT INTO %1$I.job_order_suspects AS s (job_id, accepted_at)
            SELECT NEW.id, now()
            FROM (SELECT 1 FROM %1$I.publication_jobs n
                  WHERE n.tenant_id = NEW.tenant_id AND n.article_id = NEW.article_id
                    AND n.destination = NEW.destination AND n.id <> NEW.id
                    AND %1$I.job_revision_newer(n.revision_id, NEW.revision_id)
                    AND (n.state <> 'accepted' OR n.state_changed_at < NEW.state_changed_at)
                  LIMIT 1) newer
            ON CONFLICT (job_id) DO UPDATE SET accepted_at = greatest(s.accepted_at, EXCLUDED.accepted_at);
            RETURN NULL;
        END;
        $body$
    $f$, s);

    -- Inserted rows: each one inserted accepted beside a newer revision (as above, at its
    -- own state_changed_at: a load says when its jobs were accepted), and each older sibling
    -- of one inserted accepted that is not accepted yet (it may be being accepted right now,
    -- unseen: the overlap) or was accepted after it. One probe of the identity index per
    -- accepted row (LATERAL … OFFSET 0: never a join planned over the whole table).
    EXECUTE format($f$
        CREATE FUNCTION job_order_inserted() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            INSERT INTO %1$I.job_order_suspects AS s (job_id, accepted_at)
            SELECT job_id, max(accepted_at)
            FROM (
                SELECT CASE WHEN x.newer THEN r.id ELSE x.id END AS job_id,
                       CASE WHEN x.newer THEN r.state_changed_at
                            WHEN x.state = 'accepted' THEN x.state_changed_at
                            ELSE now() END AS accepted_at
                FROM new_rows r
                CROSS JOIN LATERAL (
                    SELECT x.id, x.state, x.state_changed_at,
                           %1$I.job_revision_newer(x.revision_id, r.revision_id) AS newer,
                           %1$I.job_revision_newer(r.revision_id, x.revision_id) AS older
                    FROM %1$I.publication_jobs x
                    WHERE x.tenant_id = r.tenant_id AND x.article_id = r.article_id
                      AND x.destination = r.destination AND x.id <> r.id
                    OFFSET 0) x
                WHERE r.state = 'accepted'
                  AND ((x.newer AND (x.state <> 'accepted' OR x.state_changed_at < r.state_changed_at))
                    OR (x.older AND (x.state <> 'accepted' OR x.state_changed_at > r.state_changed_at)))
            ) found
            GROUP BY job_id
            ON CONFLICT (job_id) DO UPDATE SET accepted_at = greatest(s.accepted_at, EXCLUDED.accepted_at);
            RETURN NULL;
        END;
        $body$
    $f$, s);
END
$$;

REVOKE ALL ON FUNCTION job_order_accepted(), job_order_inserted() FROM PUBLIC;

CREATE TRIGGER job_order_accepted AFTER UPDATE ON publication_jobs
    FOR EACH ROW WHEN (NEW.state = 'accepted' AND OLD.state IS DISTINCT FROM 'accepted')
    EXECUTE FUNCTION job_order_accepted();
CREATE TRIGGER job_order_inserted AFTER INSERT ON publication_jobs
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION job_order_inserted();

ALTER TABLE publication_jobs ENABLE ALWAYS TRIGGER job_order_accepted;
ALTER TABLE publication_jobs ENABLE ALWAYS TRIGGER job_order_inserted;

-- The triggers hold publication_jobs' lock from here to COMMIT: every acceptance is either
-- an event up to before_event or seen by the triggers. A table that held no job needs no
-- look back (since: -infinity).
INSERT INTO job_order_watch (since, before_event)
SELECT CASE WHEN EXISTS (SELECT 1 FROM publication_jobs) THEN now() ELSE '-infinity' END,
       COALESCE((SELECT max(id) FROM job_events), 0);

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_reader') THEN
        GRANT SELECT ON job_order_suspects, job_order_watch TO reconctl_reader;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_operator') THEN
        GRANT SELECT ON job_order_suspects, job_order_watch TO reconctl_operator;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_worker') THEN
        GRANT SELECT ON job_order_suspects, job_order_watch TO reconctl_worker;
    END IF;
END
$$;
