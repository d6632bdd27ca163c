-- reconctl schema, version 6: the audit trail across jobs (`reconctl events`, SPEC §7).
--
-- Three things, each for one question an incident review asks of 10M events without reading
-- them all:
--
-- 1. Which transaction wrote each event: `xid` (xid8, `pg_current_xact_id()`) on job_events
--    and destination_events. `events --follow` needs it: ids come from a sequence at INSERT,
--    not at COMMIT, so a transaction holding id 100 can commit after the one holding id 101,
--    and a follower that remembers "the last id I printed" skips id 100 for ever. With the
--    writing transaction on the row, the follower asks the snapshot which transactions have
--    finished since it last looked (src/jobs/events.rs, "Following") and prints exactly
--    their events. A column DEFAULT covers every writer, workers outside this crate included,
--    and a BEFORE INSERT trigger (below) makes it unforgeable: a writer's explicit value is
--    replaced, since a NULL or an old xid would hide its event from every follower.
--
-- 2. The job's destination on each job event: `destination` on job_events, filled by a
--    BEFORE INSERT trigger from publication_jobs (a job's destination is part of its business
--    key and never changes), so `events --destination D` is one range scan of
--    (destination, at, id) whether D has 3 events or 3 million. Joining publication_jobs
--    instead would either walk every event in order probing each job (fine when D is common,
--    a scan of the whole log when D is rare or new) or fetch all of D's jobs' events and sort
--    them (the reverse). A trigger, not the writers, fills it, so every writer is right.
--
--    job_events is append-only: its UPDATE trigger rejects a backfill, and rewriting 10M rows
--    in a migration is not acceptable anyway. So the events written before this migration
--    keep destination NULL, and their destinations are recorded once, here, in
--    job_event_destinations (id, at, destination): `events --destination` reads both, each a
--    range scan of (destination, at, id), merged. Nothing writes that table again.
--
-- 3. Indexes for every filter of `events`, in the listing's keyset order (at, id): alone, or
--    after an equality on actor, action or destination; `--since`/`--until` bound the same
--    range. `--job` uses ix_job_events_job (job_id, id) from V1: one job's few events.
--
-- Both columns are added without defaults (no table rewrite: a catalog change only), the
-- DEFAULT is set afterwards and applies to new rows. The indexes are built over the whole
-- log, and the migration holds job_events' lock until it commits: writers of events wait
-- for it. On a large table give it time, e.g. `reconctl migrate --statement-timeout 30m`,
-- in a quiet moment (scripts/bench-events times it: about 5 s on 1M events and 70-80 s on
-- 10M on a shared 2-core machine). The trigger costs a writer one primary-key probe of
-- publication_jobs per event: ~5% of a single-row event INSERT (pgbench).

ALTER TABLE job_events ADD COLUMN destination text;
ALTER TABLE job_events ADD COLUMN xid xid8;
ALTER TABLE job_events ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
ALTER TABLE destination_events ADD COLUMN xid xid8;
ALTER TABLE destination_events ALTER COLUMN xid SET DEFAULT pg_current_xact_id();

-- The trigger functions name publication_jobs with the schema the migration runs in, so a
-- writer whose search_path differs still finds it.
DO $$
BEGIN
    EXECUTE format($f$
        CREATE FUNCTION job_events_fill() RETURNS trigger
        LANGUAGE plpgsql AS $body$
        BEGIN
            NEW.destination := (SELECT j.destination FROM %I.publication_jobs j WHERE j.id = NEW.job_id);
            IF NEW.destination IS NULL THEN
                RAISE EXCEPTION 'job_events: no job %% for this event', NEW.job_id
                    USING ERRCODE = 'foreign_key_violation';
            END IF;
            NEW.xid := pg_current_xact_id();
            RETURN NEW;
        END;
        $body$
    $f$, current_schema());
END
$$;

CREATE FUNCTION destination_events_fill() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.xid := pg_current_xact_id();
    RETURN NEW;
END;
$$;

CREATE TRIGGER job_events_fill
    BEFORE INSERT ON job_events
    FOR EACH ROW EXECUTE FUNCTION job_events_fill();

CREATE TRIGGER destination_events_fill
    BEFORE INSERT ON destination_events
    FOR EACH ROW EXECUTE FUNCTION destination_events_fill();

-- The destinations of the events written before this migration (see 2. above). The lock the
-- ALTERs took keeps writers out until commit, so no event falls between this and the trigger.
CREATE TABLE job_event_destinations (
    id          bigint      PRIMARY KEY,
    at          timestamptz NOT NULL,
    destination text        NOT NULL
);

INSERT INTO job_event_destinations (id, at, destination)
SELECT e.id, e.at, j.destination
FROM job_events e JOIN publication_jobs j ON j.id = e.job_id
WHERE e.destination IS NULL;

CREATE TRIGGER job_event_destinations_no_update_delete
    BEFORE UPDATE OR DELETE ON job_event_destinations
    FOR EACH ROW EXECUTE FUNCTION job_events_append_only();

CREATE TRIGGER job_event_destinations_no_truncate
    BEFORE TRUNCATE ON job_event_destinations
    FOR EACH STATEMENT EXECUTE FUNCTION job_events_append_only();

-- `events`, `events --since/--until`: the whole log in keyset order.
CREATE INDEX ix_job_events_at ON job_events (at, id);

-- `events --actor A`: "what did this person (or worker) do".
CREATE INDEX ix_job_events_actor ON job_events (actor, at, id);

-- `events --action X` (one range per action, merged).
CREATE INDEX ix_job_events_action ON job_events (action, at, id);

-- `events --destination D`: events written from V6 on (older ones: the next index).
CREATE INDEX ix_job_events_destination ON job_events (destination, at, id)
    WHERE destination IS NOT NULL;

CREATE INDEX ix_job_event_destinations_destination
    ON job_event_destinations (destination, at, id);

-- `events --follow`: the events of the transactions that finished since the last look.
CREATE INDEX ix_job_events_xid ON job_events (xid) WHERE xid IS NOT NULL;

-- Pauses and resumes are few, but the follower looks every second and the listing merges
-- them in the same order.
CREATE INDEX ix_destination_events_at ON destination_events (at, id);
CREATE INDEX ix_destination_events_xid ON destination_events (xid) WHERE xid IS NOT NULL;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_reader') THEN
        GRANT SELECT ON job_event_destinations TO reconctl_reader;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_operator') THEN
        GRANT SELECT ON job_event_destinations TO reconctl_operator;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_worker') THEN
        GRANT SELECT ON job_event_destinations TO reconctl_worker;
    END IF;
END
$$;
