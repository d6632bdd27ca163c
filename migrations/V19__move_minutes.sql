-- reconctl schema, version 19: the move counters' folded ticks are also kept per minute, so
-- that the hour of `status -v` and `metrics` sums 60 rows per action and destination instead
-- of 360.
--
-- V17 counts the recent moves per 10-second tick. During an incident every tick of the hour
-- holds a row per destination: with 20 destinations timing out, the hour's window summed
-- about 7 000 rows, 2-3 ms of every `status -v` and `metrics` (measured on 1M and 10M jobs,
-- 20 000 and 200 000 timeouts in the hour), the part of those commands that grew with the
-- incident they are meant to watch.
--
-- job_move_minutes (minute, action, destination, n): for every minute (epoch seconds / 60,
-- rounded down: the ticks 6 * minute to 6 * minute + 5), the sum of that minute's folded
-- tick rows (slots -1 and -2) of job_move_counters. Only job_move_counters_fold() writes
-- both, in one statement, so in every snapshot a minute's row equals the sum of its folded
-- ticks; the writers' slots (0-15) are not in it until a fold takes them. A reader then sums,
-- for a window: its first minute's ticks after the window's start (at most 5 ticks, every
-- slot), the minutes after it (their rows here), and the writers' slots not folded yet in
-- those minutes (the recent ticks, and a late writer's: one range of the unfolded index).
-- The ticks stay (a window's first tick is still read from them, and whether the log has to
-- complete it).
--
-- The fold drops whole minutes now: the ticks and the minutes before the minute that holds
-- the tick two hours ago (no window reaches them), instead of ticks.
CREATE TABLE job_move_minutes (
    minute      bigint NOT NULL,
    action      text   NOT NULL,
    destination text   NOT NULL,
    n           bigint NOT NULL,
    PRIMARY KEY (minute, action, destination)
) WITH (fillfactor = 50);

DO $$
DECLARE
    s text := current_schema();
BEGIN
    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_move_counters_fold() RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        DECLARE
            past bigint := floor(extract(epoch FROM now()) / 10)::bigint - 1;
            -- The first tick kept: that of the minute holding the tick two hours ago.
            kept bigint := ((past - 720) / 6) * 6;
            dropped bigint;
            dropped_minutes bigint;
            taken bigint;
        BEGIN
            IF current_setting('transaction_read_only') = 'on' THEN
                RETURN 0;
            END IF;
            IF NOT pg_try_advisory_xact_lock(7164797301224207717) THEN
                RETURN 0;
            END IF;
            WITH victims AS (
                SELECT ctid FROM %1$I.job_move_counters WHERE tick < kept
                FOR UPDATE SKIP LOCKED)
            DELETE FROM %1$I.job_move_counters c USING victims v WHERE c.ctid = v.ctid;
            GET DIAGNOSTICS dropped = ROW_COUNT;
            DELETE FROM %1$I.job_move_minutes WHERE minute < kept / 6;
            GET DIAGNOSTICS dropped_minutes = ROW_COUNT;
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
                RETURNING 1),
            minutes AS (
                INSERT INTO %1$I.job_move_minutes AS m (minute, action, destination, n)
                SELECT tick / 6, action, destination, sum(n) FROM gone
                GROUP BY tick / 6, action, destination ORDER BY 1, 2, 3
                ON CONFLICT (minute, action, destination) DO UPDATE SET n = m.n + EXCLUDED.n
                RETURNING 1)
            -- (minutes runs whether or not it is read, as every data-modifying WITH does)
            SELECT (SELECT count(*) FROM gone) - (SELECT count(*) FROM folded) INTO taken;
            RETURN dropped + dropped_minutes + taken;
        END;
        $body$
    $f$, s);
END
$$;

-- The minutes of what is folded already (and of what V17 counted, slot -1), under the fold's
-- own lock: no fold runs meanwhile, and the writers, who write neither these rows nor slots
-- -1 and -2, are not held back.
SELECT pg_advisory_xact_lock(7164797301224207717);
INSERT INTO job_move_minutes (minute, action, destination, n)
SELECT tick / 6, action, destination, sum(n) FROM job_move_counters WHERE slot < 0
GROUP BY 1, 2, 3;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_reader') THEN
        GRANT SELECT ON job_move_minutes TO reconctl_reader;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_operator') THEN
        GRANT SELECT ON job_move_minutes TO reconctl_operator;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_worker') THEN
        GRANT SELECT ON job_move_minutes TO reconctl_worker;
    END IF;
END
$$;
