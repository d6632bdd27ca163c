-- reconctl schema, version 18: job_counters_fold() folds the writers' slots of every group,
-- not only those of the in_flight minutes that ended.
--
-- The triggers count each write in the slot of its transaction's id modulo 16 (V12), so on a
-- table that workers write every group soon has 16 rows: 7 states and 20 destinations are
-- 2 240 rows, and status, check and metrics sum them all on every run (1.2 ms of a 15 ms
-- status, measured on 10M jobs, against 0.3 ms for one row a group). The fold now takes the
-- writers' slots (0-15) of every state but in_flight as well, and adds each group's sum to
-- its folded row (slot -2, lease_minute 0), which no writer writes; in_flight as before, only
-- for the minutes that ended (a live minute's slots are what its workers write now).
--
-- Everything V15 says still holds: the sums are unchanged in every snapshot (the rows taken
-- and the folded row change in one transaction); folds take turns (the same advisory lock);
-- a fold never waits for a writer (SKIP LOCKED: a slot a writer holds stays for the next
-- fold); a writer that meets a slot the fold holds waits for the fold's commit, then writes
-- a new row for its slot; a folded row that reaches zero is dropped. When the fold runs is
-- unchanged: the readers and sweep call it when an in_flight minute's slots are due
-- (reconctl's FOLD_SQL), which on a table that workers write is about once a minute, so a
-- hot group's slots are taken once a minute and written anew, and a quiet group's are one
-- row.
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
            zero_states text[];
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
                WHERE slot >= 0 AND (state <> 'in_flight' OR lease_minute < past)
                FOR UPDATE SKIP LOCKED),
            gone AS (
                DELETE FROM %1$I.job_counters c USING victims v WHERE c.ctid = v.ctid
                RETURNING c.state, c.destination, c.lease_minute, c.n),
            folded AS (
                INSERT INTO %1$I.job_counters AS c (state, destination, lease_minute, slot, n)
                SELECT state, destination, lease_minute, -2, sum(n) FROM gone
                GROUP BY state, destination, lease_minute HAVING sum(n) <> 0
                ORDER BY state, destination, lease_minute
                ON CONFLICT (state, destination, lease_minute, slot) DO UPDATE SET n = c.n + EXCLUDED.n
                RETURNING c.state, c.destination, c.lease_minute, c.n, (xmax = 0) AS inserted)
            SELECT (SELECT count(*) FROM gone),
                   (SELECT count(*) FROM folded WHERE inserted),
                   (SELECT array_agg(state) FROM folded WHERE n = 0),
                   (SELECT array_agg(destination) FROM folded WHERE n = 0),
                   (SELECT array_agg(lease_minute) FROM folded WHERE n = 0)
            INTO taken, added, zero_states, zero_destinations, zero_minutes;
            DELETE FROM %1$I.job_counters c
            USING unnest(zero_states, zero_destinations, zero_minutes)
                  AS z(state, destination, lease_minute)
            WHERE c.state = z.state AND c.destination = z.destination
              AND c.lease_minute = z.lease_minute AND c.slot = -2 AND c.n = 0;
            GET DIAGNOSTICS dropped = ROW_COUNT;
            RETURN taken - added + dropped;
        END;
        $body$
    $f$, s);
END
$$;
