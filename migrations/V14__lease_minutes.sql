-- reconctl schema, version 14: the in_flight counters kept per minute of lease expiry, so that
-- `check --stuck-after` counts the leases that expired before its cutoff from counter rows
-- instead of reading every lease that expired inside its window.
--
-- job_counters gains lease_minute: for an in_flight job, the minute its lease expires
-- (floor(epoch / 60)); 0 for every other state. It joins the primary key, so an in_flight
-- group is spread over its expiry minutes as well as its slots, and every read that sums a
-- (state, destination) group sums those too, unchanged.
--
-- What it costs the workers: nothing for a claim, mark_sent or complete. The triggers' one
-- upsert per statement writes the same number of rows as before (a claim still takes one
-- from pending and adds one to in_flight, now in its expiry minute's row). A lease renewal,
-- which netted to zero before, now moves one job from its old expiry minute to its new one:
-- two rows. Only the slots of a minute still being written are many; `sweep leases` and
-- `doctor --recount` fold the slots of minutes that are past into one row each
-- (job_counters_fold()), so what `status` sums stays a few rows per destination.
--
-- The in_flight rows are rebuilt here, under a lock that holds the writers of
-- publication_jobs for as long as counting the in_flight jobs takes (an index of them, a
-- small part of the table: milliseconds at 10M jobs), so the minutes are exact from the first
-- write after this migration. The rest of the counters is untouched.
LOCK TABLE publication_jobs IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE job_counters ADD COLUMN lease_minute bigint NOT NULL DEFAULT 0;
ALTER TABLE job_counters DROP CONSTRAINT job_counters_pkey;
ALTER TABLE job_counters ADD PRIMARY KEY (state, destination, lease_minute, slot);

ALTER TABLE job_counters_repairs ADD COLUMN lease_minute bigint NOT NULL DEFAULT 0;

DO $$
DECLARE
    s text := current_schema();
    -- The one definition of a row's minute (src/jobs/counters.rs writes it out again for the
    -- recount, and a test holds the two together).
    m text := $m$CASE WHEN state = 'in_flight' THEN coalesce(floor(extract(epoch FROM lease_expires_at) / 60)::bigint, 0) ELSE 0 END$m$;
BEGIN
    -- The in_flight counters, counted again per minute in place of what the slots held: exact
    -- whether or not the rest is built yet (migrate's build then finds nothing to add to them).
    EXECUTE format('DELETE FROM %1$I.job_counters WHERE state = %2$L', s, 'in_flight');
    EXECUTE format($f$
        INSERT INTO %1$I.job_counters (state, destination, lease_minute, slot, n)
        SELECT state, destination, %2$s, -1, count(*)
        FROM %1$I.publication_jobs WHERE state = 'in_flight' GROUP BY 1, 2, 3
    $f$, s, m);

    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_counters_insert() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            INSERT INTO %1$I.job_counters AS c (state, destination, lease_minute, slot, n)
            SELECT state, destination, minute, (pg_current_xact_id()::text::bigint %% 16)::smallint, count(*)
            FROM (SELECT state, destination, %2$s AS minute FROM new_rows) r
            GROUP BY state, destination, minute ORDER BY state, destination, minute
            ON CONFLICT (state, destination, lease_minute, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s, m);

    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_counters_update() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            INSERT INTO %1$I.job_counters AS c (state, destination, lease_minute, slot, n)
            SELECT state, destination, minute, (pg_current_xact_id()::text::bigint %% 16)::smallint, sum(d)
            FROM (SELECT state, destination, %2$s AS minute, -1 AS d FROM old_rows
                  UNION ALL
                  SELECT state, destination, %2$s, 1 FROM new_rows) moved
            GROUP BY state, destination, minute HAVING sum(d) <> 0
            ORDER BY state, destination, minute
            ON CONFLICT (state, destination, lease_minute, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s, m);

    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_counters_delete() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            INSERT INTO %1$I.job_counters AS c (state, destination, lease_minute, slot, n)
            SELECT state, destination, minute, (pg_current_xact_id()::text::bigint %% 16)::smallint, -count(*)
            FROM (SELECT state, destination, %2$s AS minute FROM old_rows) r
            GROUP BY state, destination, minute ORDER BY state, destination, minute
            ON CONFLICT (state, destination, lease_minute, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s, m);

    -- Fold the slots of the in_flight minutes that ended more than a minute ago into one row
    -- each (slot -2), dropping the minutes whose jobs have all left in_flight. Rows a writer
    -- holds are skipped (SKIP LOCKED: the fold never waits for a worker, nor a worker for
    -- long on the fold), and folds take turns (an advisory lock; one already running makes
    -- this one return 0). The base slot -1 (migrate's build, doctor's repairs) is not
    -- touched. Returns how many rows it removed. The sums are unchanged in every snapshot.
    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_counters_fold() RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        DECLARE
            removed bigint;
        BEGIN
            IF NOT pg_try_advisory_xact_lock(7164797301224207716) THEN
                RETURN 0;
            END IF;
            WITH victims AS (
                SELECT ctid FROM %1$I.job_counters
                WHERE state = 'in_flight' AND slot <> -1
                  AND lease_minute < floor(extract(epoch FROM now()) / 60)::bigint - 1
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
                RETURNING 1)
            SELECT (SELECT count(*) FROM gone) - (SELECT count(*) FROM folded) INTO removed;
            RETURN removed;
        END;
        $body$
    $f$, s);
END
$$;

REVOKE ALL ON FUNCTION job_counters_fold() FROM PUBLIC;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_operator') THEN
        GRANT EXECUTE ON FUNCTION job_counters_fold() TO reconctl_operator;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_worker') THEN
        GRANT EXECUTE ON FUNCTION job_counters_fold() TO reconctl_worker;
    END IF;
END
$$;
