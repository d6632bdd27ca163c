-- reconctl schema, version 2: least-privilege roles.
--
--   reconctl_reader    SELECT on both tables: every inspection command (status, jobs list/show/
--                      uncertain/stuck, metrics, check, doctor, migrate status, remote lookup).
--   reconctl_operator  the reader's rights, plus UPDATE on only the job columns a transition
--                      writes and INSERT on job_events: mark, sweep leases, reconcile --apply.
--                      No INSERT of jobs, no DELETE, no TRUNCATE, no DDL, and (by privilege as
--                      well as by trigger) no UPDATE or DELETE of the audit log.
--   reconctl_worker    the operator's rights, plus INSERT on publication_jobs: the publishing
--                      workers (reserve, claim, renew, mark_sent, complete, fail, timed_out) and
--                      `jobs reserve`.
--
-- The roles are NOLOGIN groups: grant them to login users (GRANT reconctl_reader TO alice).
-- Roles are cluster-wide while grants are per database, so the roles are created when missing
-- (by a user with CREATEROLE; otherwise a NOTICE says what to run) and granted here, in this
-- database. Creation tolerates a concurrent migration of another database creating the same
-- role at the same moment.

DO $$
DECLARE
    r text;
    can_create boolean;
BEGIN
    SELECT rolsuper OR rolcreaterole INTO can_create FROM pg_roles WHERE rolname = current_user;
    FOREACH r IN ARRAY ARRAY['reconctl_reader', 'reconctl_operator', 'reconctl_worker'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
            IF can_create THEN
                BEGIN
                    EXECUTE format('CREATE ROLE %I NOLOGIN', r);
                EXCEPTION WHEN duplicate_object OR unique_violation THEN
                    NULL; -- created by a concurrent migration of another database
                END;
            ELSE
                RAISE NOTICE 'role % does not exist and % may not create it: run CREATE ROLE % NOLOGIN as a superuser, then the GRANTs of migrations/V2__roles.sql',
                    r, current_user, r;
            END IF;
        END IF;
    END LOOP;
END
$$;

DO $$
DECLARE
    schema_name text := current_schema();
    has_history boolean := to_regclass('refinery_schema_history') IS NOT NULL;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_reader') THEN
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO reconctl_reader', schema_name);
        GRANT SELECT ON publication_jobs, job_events TO reconctl_reader;
        IF has_history THEN
            GRANT SELECT ON refinery_schema_history TO reconctl_reader;
        END IF;
    END IF;

    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_operator') THEN
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO reconctl_operator', schema_name);
        GRANT SELECT ON publication_jobs, job_events TO reconctl_operator;
        IF has_history THEN
            GRANT SELECT ON refinery_schema_history TO reconctl_operator;
        END IF;
        -- Exactly the columns a transition writes (store.rs MOVE_SQL, worker.rs, sweep.rs).
        GRANT UPDATE (state, version, attempts, lease_owner, lease_expires_at, sent_at,
                      remote_id, last_error, updated_at, state_changed_at)
            ON publication_jobs TO reconctl_operator;
        GRANT INSERT ON job_events TO reconctl_operator;
        GRANT USAGE ON SEQUENCE job_events_id_seq TO reconctl_operator;
    END IF;

    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_worker') THEN
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO reconctl_worker', schema_name);
        GRANT SELECT ON publication_jobs, job_events TO reconctl_worker;
        GRANT UPDATE (state, version, attempts, lease_owner, lease_expires_at, sent_at,
                      remote_id, last_error, updated_at, state_changed_at)
            ON publication_jobs TO reconctl_worker;
        GRANT INSERT ON publication_jobs, job_events TO reconctl_worker;
        GRANT USAGE ON SEQUENCE job_events_id_seq TO reconctl_worker;
    END IF;
END
$$;
