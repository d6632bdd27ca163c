-- reconctl schema, version 10: exact counts per state and destination, kept by the database
-- itself, so `status`, `metrics` and `check` read a few counter rows instead of the table.
--
-- job_counters (state, destination, slot, n): the number of jobs in a state at a destination
-- is the sum of n over the group's slots. Triggers on publication_jobs keep it in the same
-- transaction as every write, whoever writes (reconctl, workers outside this crate, plain
-- SQL, COPY): a rolled-back write rolls its counts back with it.
--
-- * Statement-level triggers with transition tables: one upsert per changed group and
--   statement, so a sweep of 100 000 leases adds a handful of counter writes, not 200 000.
--   An UPDATE that changes neither state nor destination (a lease renewal) nets to zero per
--   group and writes nothing.
-- * Slots 0..15: a statement writes the slot pg_backend_pid() % 16, so concurrent workers
--   (other backends) mostly write different rows instead of queueing on one. Each statement
--   upserts its groups in (state, destination) order, so two statements never wait for each
--   other's slots in opposite orders within one statement. (Two multi-statement transactions
--   on backends sharing a slot that touch two groups in opposite orders can still deadlock;
--   PostgreSQL detects it and cancels one, which the workers' retry already handles.)
-- * Slot -1 holds the base: what `reconctl migrate` counted for the rows written before this
--   migration, and `doctor --recount`'s repairs. Only those two write it, under the
--   migration lock.
-- * The triggers are ENABLE ALWAYS: they fire under session_replication_role = replica too,
--   which a superuser uses to delete jobs around the audit log's foreign key.
-- * TRUNCATE empties the counters (exact: no jobs).
-- * The functions are SECURITY DEFINER (owned by the migrating user, search_path pinned):
--   writers need no privilege on job_counters, and only the owner can tamper with it.
--
-- Building the counts of an existing table is not done here: refinery runs this file in one
-- transaction, and CREATE TRIGGER holds a lock that stops every writer of publication_jobs
-- until it commits; counting 10M rows inside it would stop the workers for many seconds.
-- This migration only installs the triggers (milliseconds) and records whether the table
-- was empty; `reconctl migrate` then counts the existing rows in a snapshot of its own,
-- concurrently with the workers, and combines the two exactly (src/jobs/counters.rs).
-- Until then `status` says the accepted count is unknown, and counts the open states
-- from their index as before.

CREATE TABLE job_counters (
    state       text     NOT NULL,
    destination text     NOT NULL,
    slot        smallint NOT NULL,
    n           bigint   NOT NULL,
    PRIMARY KEY (state, destination, slot)
) WITH (fillfactor = 50);

-- One row: whether job_counters holds every job (built_at set), and since when.
CREATE TABLE job_counters_build (
    one      boolean PRIMARY KEY DEFAULT true CHECK (one),
    built_at timestamptz,
    built_by text
);

-- What `doctor --recount` found wrong and repaired: one row per group it corrected.
CREATE TABLE job_counters_repairs (
    id          bigserial   PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text        NOT NULL,
    state       text        NOT NULL,
    destination text        NOT NULL,
    counted     bigint      NOT NULL,
    counters    bigint      NOT NULL
);

DO $$
DECLARE
    s text := current_schema();
BEGIN
    EXECUTE format($f$
        CREATE FUNCTION job_counters_insert() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            INSERT INTO %1$I.job_counters AS c (state, destination, slot, n)
            SELECT state, destination, pg_backend_pid() %% 16, count(*)
            FROM new_rows GROUP BY state, destination ORDER BY state, destination
            ON CONFLICT (state, destination, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s);

    EXECUTE format($f$
        CREATE FUNCTION job_counters_update() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            INSERT INTO %1$I.job_counters AS c (state, destination, slot, n)
            SELECT state, destination, pg_backend_pid() %% 16, sum(d)
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
        CREATE FUNCTION job_counters_delete() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            INSERT INTO %1$I.job_counters AS c (state, destination, slot, n)
            SELECT state, destination, pg_backend_pid() %% 16, -count(*)
            FROM old_rows GROUP BY state, destination ORDER BY state, destination
            ON CONFLICT (state, destination, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
            RETURN NULL;
        END;
        $body$
    $f$, s);

    EXECUTE format($f$
        CREATE FUNCTION job_counters_truncate() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, %1$I, pg_temp AS $body$
        BEGIN
            DELETE FROM %1$I.job_counters;
            UPDATE %1$I.job_counters_build SET built_at = now(), built_by = 'truncate';
            RETURN NULL;
        END;
        $body$
    $f$, s);
END
$$;

REVOKE ALL ON FUNCTION job_counters_insert(), job_counters_update(), job_counters_delete(),
    job_counters_truncate() FROM PUBLIC;

CREATE TRIGGER job_counters_insert AFTER INSERT ON publication_jobs
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION job_counters_insert();
CREATE TRIGGER job_counters_update AFTER UPDATE ON publication_jobs
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION job_counters_update();
CREATE TRIGGER job_counters_delete AFTER DELETE ON publication_jobs
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION job_counters_delete();
CREATE TRIGGER job_counters_truncate AFTER TRUNCATE ON publication_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION job_counters_truncate();

ALTER TABLE publication_jobs ENABLE ALWAYS TRIGGER job_counters_insert;
ALTER TABLE publication_jobs ENABLE ALWAYS TRIGGER job_counters_update;
ALTER TABLE publication_jobs ENABLE ALWAYS TRIGGER job_counters_delete;
ALTER TABLE publication_jobs ENABLE ALWAYS TRIGGER job_counters_truncate;

-- The triggers hold publication_jobs' lock from here to COMMIT: no writer can slip between
-- this look and the triggers. An empty table's counters are complete already.
INSERT INTO job_counters_build (built_at, built_by)
SELECT CASE WHEN EXISTS (SELECT 1 FROM publication_jobs) THEN NULL ELSE now() END,
       CASE WHEN EXISTS (SELECT 1 FROM publication_jobs) THEN NULL ELSE 'migration' END;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_reader') THEN
        GRANT SELECT ON job_counters, job_counters_build, job_counters_repairs TO reconctl_reader;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_operator') THEN
        GRANT SELECT ON job_counters, job_counters_build, job_counters_repairs TO reconctl_operator;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_worker') THEN
        GRANT SELECT ON job_counters, job_counters_build, job_counters_repairs TO reconctl_worker;
    END IF;
END
$$;
