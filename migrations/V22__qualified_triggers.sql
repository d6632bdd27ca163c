-- reconctl schema, version 22: the counters' trigger functions that every worker statement
-- calls (job_counters_insert, job_counters_update, job_counters_delete on publication_jobs,
-- job_move_counters_insert on job_events) run without a `SET search_path` clause, every name
-- in them qualified instead.
--
-- They are SECURITY DEFINER (a worker may move jobs but not write the counters), and such a
-- function must not resolve a name through a schema its caller can write: a worker that puts
-- its own `+`, `=`, `sum` or `text` ahead of pg_catalog would otherwise have the table's owner
-- run them. V10 to V21 guarded that by setting the function's search_path on every call. That
-- costs the call a GUC save and restore, and each cached plan in it a check that the path is
-- the one it was planned with: 9 µs of the 20 µs the update trigger adds to a statement that
-- moves no job (a procedure committing 10 000 one-row updates in a loop, PostgreSQL 15, fsync
-- off: 64.6 µs a statement without the clause, 73.9 µs with it, 54.0 µs without the trigger;
-- medians of five).
--
-- The guard here is PostgreSQL's own for extension scripts: nothing is left to the path.
-- Tables are schema-qualified (the transition tables old_rows and new_rows are the
-- statement's own, found before any schema), functions are pg_catalog.*, every operator is
-- OPERATOR(pg_catalog.x), every type pg_catalog's (bigint and smallint are keywords that name
-- pg_catalog.int8 and int2; text is written pg_catalog.text), and the constructs that look up
-- an operator by path (IN, IS DISTINCT FROM, CASE x WHEN) are not used. OPERATOR() binds
-- tighter than a comparison, so an expression on its right stands in parentheses. GROUP BY,
-- ORDER BY and ON CONFLICT take their operators from the types' default operator classes, not
-- the path.
-- pg_temp is never searched for functions or operators. tests/it/counters.rs holds a worker
-- whose search path puts a schema of shadowing objects first to it.
--
-- What the functions count is unchanged (the same minute, slot and filter as V14 and V21);
-- the rarely called ones (the folds, the truncate trigger) keep their SET clause.
DO $$
DECLARE
    s text := current_schema();
    -- V14's minute of a row (src/jobs/counters.rs MINUTE_EXPR), qualified.
    m text := $m$CASE WHEN state OPERATOR(pg_catalog.=) 'in_flight'
                     THEN coalesce(pg_catalog.floor(EXTRACT(epoch FROM lease_expires_at) OPERATOR(pg_catalog./) 60)::bigint, 0)
                     ELSE 0 END$m$;
    -- V12's slot: the transaction's id modulo 16.
    slot text := $x$(pg_catalog.pg_current_xact_id()::pg_catalog.text::bigint OPERATOR(pg_catalog.%) 16)::smallint$x$;
    -- V21's counted actions (src/jobs/query/moves.rs COUNTED).
    counted text := $c$'{timed_out,sweep_sent,sweep_unsent,reconcile_accepted,reconcile_safe_to_retry,reconcile_conflict,mark_accepted,mark_safe_to_retry,mark_failed,redrive}'::pg_catalog.text[]$c$;
BEGIN
    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_counters_insert() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER AS $body$
        BEGIN
            INSERT INTO %1$I.job_counters AS c (state, destination, lease_minute, slot, n)
            SELECT state, destination, minute, %3$s, pg_catalog.count(*)
            FROM (SELECT state, destination, %2$s AS minute FROM new_rows) r
            GROUP BY state, destination, minute ORDER BY state, destination, minute
            ON CONFLICT (state, destination, lease_minute, slot)
                DO UPDATE SET n = c.n OPERATOR(pg_catalog.+) EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s, m, slot);

    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_counters_update() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER AS $body$
        BEGIN
            INSERT INTO %1$I.job_counters AS c (state, destination, lease_minute, slot, n)
            SELECT state, destination, minute, %3$s, pg_catalog.sum(d)
            FROM (SELECT state, destination, %2$s AS minute, -1 AS d FROM old_rows
                  UNION ALL
                  SELECT state, destination, %2$s, 1 FROM new_rows) moved
            GROUP BY state, destination, minute HAVING pg_catalog.sum(d) OPERATOR(pg_catalog.<>) 0
            ORDER BY state, destination, minute
            ON CONFLICT (state, destination, lease_minute, slot)
                DO UPDATE SET n = c.n OPERATOR(pg_catalog.+) EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s, m, slot);

    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_counters_delete() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER AS $body$
        BEGIN
            INSERT INTO %1$I.job_counters AS c (state, destination, lease_minute, slot, n)
            SELECT state, destination, minute, %3$s, OPERATOR(pg_catalog.-) pg_catalog.count(*)
            FROM (SELECT state, destination, %2$s AS minute FROM old_rows) r
            GROUP BY state, destination, minute ORDER BY state, destination, minute
            ON CONFLICT (state, destination, lease_minute, slot)
                DO UPDATE SET n = c.n OPERATOR(pg_catalog.+) EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s, m, slot);

    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION job_move_counters_insert() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER AS $body$
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM new_rows r WHERE r.action OPERATOR(pg_catalog.=) ANY (%2$s)) THEN
                RETURN NULL;
            END IF;
            INSERT INTO %1$I.job_move_counters AS c (tick, action, destination, slot, n)
            SELECT pg_catalog.floor(EXTRACT(epoch FROM r.at) OPERATOR(pg_catalog./) 10)::bigint, r.action,
                   coalesce(r.destination,
                            (SELECT j.destination FROM %1$I.publication_jobs j
                             WHERE j.id OPERATOR(pg_catalog.=) r.job_id), ''),
                   %3$s, pg_catalog.count(*)
            FROM new_rows r
            WHERE r.action OPERATOR(pg_catalog.=) ANY (%2$s)
              AND r.at OPERATOR(pg_catalog.>) (pg_catalog.now() OPERATOR(pg_catalog.-) interval '2 hours')
            GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
            ON CONFLICT (tick, action, destination, slot)
                DO UPDATE SET n = c.n OPERATOR(pg_catalog.+) EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s, counted, slot);
END
$$;
