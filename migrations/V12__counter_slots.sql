-- reconctl schema, version 12: the job counters' slot is chosen by transaction, not by session.
--
-- V10 spread each (state, destination) group over 16 counter rows and let every statement
-- write slot pg_backend_pid() % 16, so that concurrent workers mostly write different rows.
-- "Mostly" was the trouble: two sessions whose pids agree modulo 16 share a slot for as long
-- as both live (8 long-lived workers share at least one slot 88% of the time), and a worker
-- that writes a shared slot waits for the other's COMMIT (its WAL flush) on every move.
--
-- Transaction ids are handed out in sequence, so transactions running at the same time have
-- neighbouring ids: with the slot pg_current_xact_id() % 16, up to 16 concurrent writing
-- transactions get 16 different slots, whichever sessions they run on, and a collision is
-- never the same pair twice in a row. A transaction keeps one slot for all its statements
-- (its id does not change), so V10's ordering argument is unchanged. Only the slot
-- expression changes; reads sum the slots as before, and the existing rows stay valid.
DO $$
DECLARE
    s text := current_schema();
BEGIN
    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_counters_insert() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            INSERT INTO %1$I.job_counters AS c (state, destination, slot, n)
            SELECT state, destination, (pg_current_xact_id()::text::bigint %% 16)::smallint, count(*)
            FROM new_rows GROUP BY state, destination ORDER BY state, destination
            ON CONFLICT (state, destination, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s);

    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_counters_update() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            INSERT INTO %1$I.job_counters AS c (state, destination, slot, n)
            SELECT state, destination, (pg_current_xact_id()::text::bigint %% 16)::smallint, sum(d)
            FROM (SELECT state, destination, -1 AS d FROM old_rows
                  UNION ALL
                  SELECT state, destination, 1 FROM new_rows) moved
            GROUP BY state, destination HAVING sum(d) <> 0 ORDER BY state, destination
            ON CONFLICT (state, destination, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s);

    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_counters_delete() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            INSERT INTO %1$I.job_counters AS c (state, destination, slot, n)
            SELECT state, destination, (pg_current_xact_id()::text::bigint %% 16)::smallint, -count(*)
            FROM old_rows GROUP BY state, destination ORDER BY state, destination
            ON CONFLICT (state, destination, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s);
END
$$;
