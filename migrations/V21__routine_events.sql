-- reconctl schema, version 21: the move counters' trigger (V17) returns at once for a
-- statement that wrote no counted event, which is every write of a worker's routine: a
-- reservation, a claim, a renewal, mark_sent, complete.
--
-- The trigger is statement-level (one upsert per tick, action and destination a statement
-- wrote, whatever its size), so PostgreSQL calls it for every INSERT into job_events, and
-- until V21 each call ran its upsert over a grouped, sorted read of the statement's rows,
-- even when the filter left none: 16.6 µs per call (pg_stat_user_functions' self time,
-- track_functions = pl, one session writing one routine event per statement), three times
-- in every job's life. The test first is one read of the statement's rows, which stops at
-- the first counted event: 6.1 µs per routine call, and a counted statement pays it once
-- on top of the upsert.
--
-- What it counts is unchanged: the same filter decides, and the upsert is V17's.
DO $$
DECLARE
    s text := current_schema();
    -- The counted actions (V17's list; src/jobs/query/moves.rs COUNTED), written once for
    -- both the test and the upsert's filter.
    counted text := $c$'timed_out', 'sweep_sent', 'sweep_unsent', 'reconcile_accepted',
                       'reconcile_safe_to_retry', 'reconcile_conflict', 'mark_accepted',
                       'mark_safe_to_retry', 'mark_failed', 'redrive'$c$;
BEGIN
    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_move_counters_insert() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM new_rows r WHERE r.action IN (%2$s)) THEN
                RETURN NULL;
            END IF;
            INSERT INTO %1$I.job_move_counters AS c (tick, action, destination, slot, n)
            SELECT floor(extract(epoch FROM r.at) / 10)::bigint, r.action,
                   coalesce(r.destination,
                            (SELECT j.destination FROM %1$I.publication_jobs j WHERE j.id = r.job_id), ''),
                   (pg_current_xact_id()::text::bigint %% 16)::smallint, count(*)
            FROM new_rows r
            WHERE r.action IN (%2$s)
              AND r.at > now() - interval '2 hours'
            GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
            ON CONFLICT (tick, action, destination, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s, counted);
END
$$;
