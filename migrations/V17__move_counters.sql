-- reconctl schema, version 17: the recent moves that `status -v` and `metrics` show (how
-- many jobs each counted action moved per destination in the last 5 minutes and the last
-- hour) are counted by the database as the events are written, per 10-second tick, so that
-- those commands read a few counter rows instead of every counted event of the last hour.
--
-- Before V17 they read the audit log's counted events of the hour one by one (an index range
-- and a heap visit each, for the destination): about 2 µs per event, so during an incident
-- (20 000 timeouts in an hour) `status -v` took 27 ms instead of 12, and its cost grew with
-- the incident it was meant to watch.
--
-- job_move_counters (tick, action, destination, slot, n): how many events of a counted
-- action (the list below; src/jobs/query/moves.rs COUNTED, a test holds the two together)
-- for a destination have their `at` in that tick (epoch seconds / 10, rounded down). The
-- readers sum the whole ticks inside a window and read only the rest of the window's first
-- tick from the log (at most 10 seconds of counted events), so every window is still exact
-- to the microsecond. (Ticks of a minute would make the counters 6 times smaller and the
-- log's part 6 times larger: with 200 000 timeouts in the hour, 20 ms a read.)
--
-- * A statement-level trigger over the inserted events (one upsert per tick, action and
--   destination a statement wrote, whatever its size): a worker's claim, renewal, mark_sent
--   or complete event writes no counter row.
-- * Slots 0..15 by transaction, as job_counters' (V12): concurrent writers mostly write
--   different rows. Slot -1 holds what this migration counted of the last two hours; slot
--   -2 what job_move_counters_fold() folded.
-- * An event with no destination (one written with the log's fill trigger disabled) counts
--   under its job's destination. An event dated more than two hours before it is written
--   (a backfill's) is not counted: no window reaches it.
-- * job_move_counters_fold() (run before the counters are read, like job_counters_fold()):
--   folds the slots of every tick that is over into one row, and drops the ticks older than
--   two hours. SKIP LOCKED: it never waits for a writer.
-- * ENABLE ALWAYS and SECURITY DEFINER, as the other counters' triggers (V10).
--
-- The counts of the last two hours are taken here, in the migration's transaction, after
-- the trigger is created: its lock waits for the event writers in progress and holds the
-- next ones back until the commit, so every event is counted once, by this or by the
-- trigger (two hours of counted events, one index range: milliseconds).

CREATE TABLE job_move_counters (
    tick        bigint   NOT NULL,
    action      text     NOT NULL,
    destination text     NOT NULL,
    slot        smallint NOT NULL,
    n           bigint   NOT NULL,
    PRIMARY KEY (tick, action, destination, slot)
) WITH (fillfactor = 50);

-- What a fold takes: the writers' slots (the fold's guard is one probe of this).
CREATE INDEX ix_job_move_counters_unfolded ON job_move_counters (tick) WHERE slot >= 0;

DO $$
DECLARE
    s text := current_schema();
BEGIN
    EXECUTE format($f$
        CREATE FUNCTION job_move_counters_insert() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            INSERT INTO %1$I.job_move_counters AS c (tick, action, destination, slot, n)
            SELECT floor(extract(epoch FROM r.at) / 10)::bigint, r.action,
                   coalesce(r.destination,
                            (SELECT j.destination FROM %1$I.publication_jobs j WHERE j.id = r.job_id), ''),
                   (pg_current_xact_id()::text::bigint %% 16)::smallint, count(*)
            FROM new_rows r
            WHERE r.action IN ('timed_out', 'sweep_sent', 'sweep_unsent', 'reconcile_accepted',
                               'reconcile_safe_to_retry', 'reconcile_conflict', 'mark_accepted',
                               'mark_safe_to_retry', 'mark_failed', 'redrive')
              AND r.at > now() - interval '2 hours'
            GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
            ON CONFLICT (tick, action, destination, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s);

    EXECUTE format($f$
        CREATE FUNCTION job_move_counters_fold() RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        DECLARE
            past bigint := floor(extract(epoch FROM now()) / 10)::bigint - 1;
            dropped bigint;
            taken bigint;
        BEGIN
            IF current_setting('transaction_read_only') = 'on' THEN
                RETURN 0;
            END IF;
            IF NOT pg_try_advisory_xact_lock(7164797301224207717) THEN
                RETURN 0;
            END IF;
            WITH victims AS (
                SELECT ctid FROM %1$I.job_move_counters WHERE tick < past - 720
                FOR UPDATE SKIP LOCKED)
            DELETE FROM %1$I.job_move_counters c USING victims v WHERE c.ctid = v.ctid;
            GET DIAGNOSTICS dropped = ROW_COUNT;
            WITH victims AS (
                SELECT ctid FROM %1$I.job_move_counters WHERE slot >= 0 AND tick < past
                FOR UPDATE SKIP LOCKED),
            gone AS (
                DELETE FROM %1$I.job_move_counters c USING victims v WHERE c.ctid = v.ctid
                RETURNING c.tick, c.action, c.destination, c.n),
            folded AS (
                INSERT INTO %1$I.job_move_counters AS c (tick, action, destination, slot, n)
                SELECT tick, action, destination, -2, sum(n) FROM gone
                GROUP BY tick, action, destination ORDER BY tick, action, destination
                ON CONFLICT (tick, action, destination, slot) DO UPDATE SET n = c.n + EXCLUDED.n
                RETURNING 1)
            SELECT (SELECT count(*) FROM gone) - (SELECT count(*) FROM folded) INTO taken;
            RETURN dropped + taken;
        END;
        $body$
    $f$, s);
END
$$;

REVOKE ALL ON FUNCTION job_move_counters_insert(), job_move_counters_fold() FROM PUBLIC;

CREATE TRIGGER job_move_counters_insert AFTER INSERT ON job_events
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION job_move_counters_insert();
ALTER TABLE job_events ENABLE ALWAYS TRIGGER job_move_counters_insert;

-- The last two hours, as the readers will see them (an event without a destination: the one
-- the log's V6 backfill recorded, else its job's).
INSERT INTO job_move_counters (tick, action, destination, slot, n)
SELECT floor(extract(epoch FROM e.at) / 10)::bigint, e.action,
       coalesce(e.destination,
                (SELECT d.destination FROM job_event_destinations d WHERE d.id = e.id),
                (SELECT j.destination FROM publication_jobs j WHERE j.id = e.job_id), ''),
       -1, count(*)
FROM job_events e
WHERE e.action IN ('timed_out', 'sweep_sent', 'sweep_unsent', 'reconcile_accepted',
                   'reconcile_safe_to_retry', 'reconcile_conflict', 'mark_accepted',
                   'mark_safe_to_retry', 'mark_failed', 'redrive')
  AND e.at > now() - interval '2 hours'
GROUP BY 1, 2, 3;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_reader') THEN
        GRANT SELECT ON job_move_counters TO reconctl_reader;
        GRANT EXECUTE ON FUNCTION job_move_counters_fold() TO reconctl_reader;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_operator') THEN
        GRANT SELECT ON job_move_counters TO reconctl_operator;
        GRANT EXECUTE ON FUNCTION job_move_counters_fold() TO reconctl_operator;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_worker') THEN
        GRANT SELECT ON job_move_counters TO reconctl_worker;
        GRANT EXECUTE ON FUNCTION job_move_counters_fold() TO reconctl_worker;
    END IF;
END
$$;
