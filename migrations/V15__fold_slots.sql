-- reconctl schema, version 15: job_counters_fold() touches only what is left to fold, so that
-- status, check and metrics can run it before they read (they do, since V15); it returns 0
-- in a read-only session (a standby) instead of failing, and reconctl_reader may run it.
--
-- V14's fold took every row of a past minute but the base (slot -1), its own folded row
-- (slot -2) included, deleted them and wrote the folded row again: each fold rewrote every
-- past minute's row, whether or not a worker had written to that minute since. This one takes
-- only the slots the triggers write (0-15), adds their sum to the minute's folded row, and
-- drops a folded row that reaches zero (every job of that minute has left in_flight). The
-- sums are unchanged in every snapshot, as before; folds still take turns (the same advisory
-- lock) and never wait for a writer (SKIP LOCKED): a writer writes slots 0-15, never -2.
DO $$
DECLARE
    s text := current_schema();
BEGIN
    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_counters_fold() RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        DECLARE
            past bigint := floor(extract(epoch FROM now()) / 60)::bigint - 1;
            taken bigint;
            added bigint;
            zero_destinations text[];
            zero_minutes bigint[];
            dropped bigint;
        BEGIN
            -- A standby, or a session that only reads: nothing to fold here (not an error,
            -- since status and check call this before they read).
            IF current_setting('transaction_read_only') = 'on' THEN
                RETURN 0;
            END IF;
            IF NOT pg_try_advisory_xact_lock(7164797301224207716) THEN
                RETURN 0;
            END IF;
            WITH victims AS (
                SELECT ctid FROM %1$I.job_counters
                WHERE state = 'in_flight' AND slot >= 0 AND lease_minute < past
                FOR UPDATE SKIP LOCKED),
            gone AS (
                DELETE FROM %1$I.job_counters c USING victims v WHERE c.ctid = v.ctid
                RETURNING c.destination, c.lease_minute, c.n),
            folded AS (
                INSERT INTO %1$I.job_counters AS c (state, destination, lease_minute, slot, n)
                SELECT 'in_flight', destination, lease_minute, -2, sum(n) FROM gone
                GROUP BY destination, lease_minute HAVING sum(n) <> 0
                ORDER BY destination, lease_minute
                ON CONFLICT (state, destination, lease_minute, slot) DO UPDATE SET n = c.n + EXCLUDED.n
                RETURNING c.destination, c.lease_minute, c.n, (xmax = 0) AS inserted)
            SELECT (SELECT count(*) FROM gone),
                   (SELECT count(*) FROM folded WHERE inserted),
                   (SELECT array_agg(destination) FROM folded WHERE n = 0),
                   (SELECT array_agg(lease_minute) FROM folded WHERE n = 0)
            INTO taken, added, zero_destinations, zero_minutes;
            DELETE FROM %1$I.job_counters c
            USING unnest(zero_destinations, zero_minutes) AS z(destination, lease_minute)
            WHERE c.state = 'in_flight' AND c.destination = z.destination
              AND c.lease_minute = z.lease_minute AND c.slot = -2 AND c.n = 0;
            GET DIAGNOSTICS dropped = ROW_COUNT;
            RETURN taken - added + dropped;
        END;
        $body$
    $f$, s);
END
$$;

-- The readers fold before they read (what the fold leaves is what they sum), whatever role
-- they run as. A fold changes no count in any snapshot, only how many rows hold it, so the
-- reader, who may change nothing, may run it too (like VACUUM's, its writes are
-- housekeeping). reconctl_operator and reconctl_worker have it since V14.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_reader') THEN
        GRANT EXECUTE ON FUNCTION job_counters_fold() TO reconctl_reader;
    END IF;
END
$$;
