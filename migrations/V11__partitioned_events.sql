-- reconctl schema, version 11: the audit log partitioned by month (SPEC §9).
--
-- job_events and destination_events become tables partitioned by RANGE (at), one partition
-- a calendar month of UTC (job_events_y2026m09: [2026-09-01T00:00Z, 2026-10-01T00:00Z)), so
-- that a month that was archived can leave the database by DROP TABLE of its partitions
-- (`reconctl events prune`), never by a row DELETE (still rejected, on the parent and on
-- every partition). Ids, their sequence, every column, every index `events` uses (same
-- names, now partitioned indexes) and the append-only triggers are kept.
--
-- **An existing log is not rewritten.** The table as it is becomes one partition,
-- `job_events_legacy`, FROM (MINVALUE) TO (the start of a coming month), of a new parent that
-- takes its name. Attaching a table costs a scan (to prove its rows fit the range) and an
-- index build (the parent's primary key must include `at`: (id, at)) unless both are ready:
-- `reconctl migrate` prepares them before this migration runs, outside any transaction and
-- without blocking writers (src/retention.rs: CREATE UNIQUE INDEX CONCURRENTLY on (id, at);
-- a CHECK (at < bound) added NOT VALID, then VALIDATEd; the bound is in the constraint's
-- name, `job_events_before_YYYYMM`). Here, under a short ACCESS EXCLUSIVE lock of the two
-- logs, only catalog changes remain: rename, create the parent, attach. Run alone (by
-- refinery without `reconctl migrate`) this migration is still correct: it adds and
-- validates what was not prepared itself, holding the lock for as long as that takes.
--
-- **No default partition.** A default partition would take an event whose month has no
-- partition; but then that month's partition can never be created (its rows would have to
-- move out of the default one, and the log refuses row DELETE): the log would be wedged.
-- Without one, such an event fails loudly and its move rolls back with it. Months are
-- created ahead instead: reconctl_ensure_event_partitions() below keeps the current month and
-- the next three ready, called by this migration, by every `reconctl migrate`, and by the
-- commands that write events (`sweep leases`, normally in cron every minute, `mark`,
-- `reconcile`, `destination pause|resume`, `jobs reserve`): a look at the catalog when
-- nothing is missing. A new partition is created beside the parent and ATTACHed (SHARE
-- UPDATE EXCLUSIVE on the parent: writers and readers of events do not wait).
--
-- job_event_destinations (V6: the destinations of events older than V6) is never written
-- again and is left as it is; its rows of a pruned month simply find no event any more.

-- ---------------------------------------------------------------------------------------
-- Months ahead
-- ---------------------------------------------------------------------------------------

-- The partitions of `parent` for the month of now() (UTC) and the `ahead` months after it,
-- those missing, each a table LIKE the parent attached with its range; months an existing
-- partition covers (the legacy one) are skipped. Returns how many it created. SECURITY
-- DEFINER (owned by the migrating user, who owns the logs): the operator and worker roles may
-- call it without the right to create tables.
DO $$
BEGIN
    EXECUTE format($f$
        CREATE FUNCTION reconctl_ensure_event_partitions(ahead integer DEFAULT 3) RETURNS integer
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = %1$I, pg_catalog AS $body$
        DECLARE
            parent text;
            m timestamp;
            m_first timestamp := date_trunc('month', now() AT TIME ZONE 'UTC');
            m_last timestamp := m_first + make_interval(months => ahead);
            part text;
            created integer := 0;
        BEGIN
            -- The cheap look: the furthest month of both logs is there.
            IF to_regclass(format('%1$I.job_events_y%%s', to_char(m_last, 'YYYY"m"MM'))) IS NOT NULL
               AND to_regclass(format('%1$I.destination_events_y%%s', to_char(m_last, 'YYYY"m"MM'))) IS NOT NULL THEN
                RETURN 0;
            END IF;
            FOREACH parent IN ARRAY ARRAY['job_events', 'destination_events'] LOOP
                m := m_first;
                WHILE m <= m_last LOOP
                    part := format('%%s_y%%s', parent, to_char(m, 'YYYY"m"MM'));
                    IF to_regclass(format('%1$I.%%I', part)) IS NULL
                       AND NOT EXISTS (
                           -- A partition (the legacy one) already covers this month.
                           SELECT 1 FROM pg_inherits i
                           JOIN pg_class c ON c.oid = i.inhrelid
                           WHERE i.inhparent = format('%1$I.%%I', parent)::regclass
                             AND pg_get_expr(c.relpartbound, c.oid) LIKE 'FOR VALUES FROM (MINVALUE) TO%%'
                             AND (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([^'']+)''\)'))[1]::timestamptz
                                 > (m AT TIME ZONE 'UTC'))
                    THEN
                        EXECUTE format('CREATE TABLE %1$I.%%I (LIKE %1$I.%%I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, parent);
                        EXECUTE format('ALTER TABLE %1$I.%%I ATTACH PARTITION %1$I.%%I FOR VALUES FROM (%%L) TO (%%L)',
                                       parent, part, (m AT TIME ZONE 'UTC'),
                                       ((m + interval '1 month') AT TIME ZONE 'UTC'));
                        -- Statement triggers are not inherited: TRUNCATE of the partition
                        -- itself is refused here (row triggers come from the parent).
                        EXECUTE format('CREATE TRIGGER %%I BEFORE TRUNCATE ON %1$I.%%I FOR EACH STATEMENT EXECUTE FUNCTION %1$I.job_events_append_only()',
                                       parent || '_no_truncate', part);
                        created := created + 1;
                    END IF;
                    m := m + interval '1 month';
                END LOOP;
            END LOOP;
            RETURN created;
        END;
        $body$
    $f$, current_schema());
END
$$;

REVOKE ALL ON FUNCTION reconctl_ensure_event_partitions(integer) FROM PUBLIC;

-- ---------------------------------------------------------------------------------------
-- The swap
-- ---------------------------------------------------------------------------------------

-- Both logs at once, in the order every writer takes them (job_events first): from here to
-- COMMIT, event writers wait. Prepared, what follows is catalog work (milliseconds).
-- Waiting for the lock queues writers behind it too: wait at most a second (or the session's
-- shorter limit); a busy migrate changes nothing and is run again.
SELECT set_config('lock_timeout', '1s', true)
WHERE current_setting('lock_timeout')::interval = interval '0'
   OR current_setting('lock_timeout')::interval > interval '1s';

LOCK TABLE job_events, destination_events IN ACCESS EXCLUSIVE MODE;

DO $$
DECLARE
    t text;
    bound timestamptz;
    prepared text;
    idx text;
    nonempty boolean;
BEGIN
    FOREACH t IN ARRAY ARRAY['job_events', 'destination_events'] LOOP
        -- The bound the preparation validated, from its constraint's name; else one made here
        -- (validated under the lock: a scan of the table).
        SELECT c.conname INTO prepared FROM pg_constraint c
        WHERE c.conrelid = t::regclass AND c.contype = 'c' AND c.convalidated
          AND c.conname ~ ('^' || t || '_before_[0-9]{6}$')
        ORDER BY c.conname DESC LIMIT 1;
        IF prepared IS NOT NULL THEN
            bound := (to_timestamp(right(prepared, 6), 'YYYYMM')::timestamp) AT TIME ZONE 'UTC';
        END IF;
        IF prepared IS NULL OR bound <= now() THEN
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I)', t) INTO nonempty;
            IF nonempty THEN
                -- Unprepared: a bound at least a day ahead, validated here (a scan).
                bound := (date_trunc('month', (now() + interval '1 day') AT TIME ZONE 'UTC')
                          + interval '1 month') AT TIME ZONE 'UTC';
            ELSE
                -- Nothing to keep (a new database): the old table takes only the past, and
                -- the current month gets a partition of its own.
                bound := date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
            END IF;
            prepared := t || '_before_' || to_char(bound AT TIME ZONE 'UTC', 'YYYYMM');
            EXECUTE format('ALTER TABLE %I DROP CONSTRAINT IF EXISTS %I', t, prepared);
            EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (at < %L)', t, prepared, bound);
        END IF;

        -- The unique (id, at) index the parent's primary key needs on the partition.
        idx := t || '_legacy_id_at';
        IF NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indexrelid = to_regclass(idx) AND i.indisvalid) THEN
            EXECUTE format('DROP INDEX IF EXISTS %I', idx);
            EXECUTE format('CREATE UNIQUE INDEX %I ON %I (id, at)', idx, t);
        END IF;

        -- The old table becomes the legacy partition: its name, its indexes' names, and its
        -- row triggers go (the parent's are cloned onto it when it is attached).
        EXECUTE format('ALTER TABLE %I RENAME TO %I', t, t || '_legacy');
        EXECUTE format('ALTER INDEX %I RENAME TO %I', t || '_pkey', t || '_legacy_pkey');
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I UNIQUE USING INDEX %I',
                       t || '_legacy', t || '_legacy_id_at_key', idx);
        FOR idx IN
            SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = (t || '_legacy')::regclass AND c.relname LIKE 'ix\_%'
        LOOP
            EXECUTE format('ALTER INDEX %I RENAME TO %I', idx, replace(idx, t, t || '_legacy'));
        END LOOP;
        EXECUTE format('DROP TRIGGER %I ON %I', t || '_no_update_delete', t || '_legacy');
        EXECUTE format('DROP TRIGGER %I ON %I', t || '_fill', t || '_legacy');
    END LOOP;
END
$$;

CREATE TABLE job_events (
    id           bigint      NOT NULL DEFAULT nextval('job_events_id_seq'),
    job_id       uuid        NOT NULL,
    at           timestamptz NOT NULL DEFAULT now(),
    actor        text        NOT NULL,
    action       text        NOT NULL,
    from_state   text,
    to_state     text        NOT NULL,
    from_version bigint,
    to_version   bigint      NOT NULL,
    reason       text,
    evidence     jsonb       NOT NULL DEFAULT '{}'::jsonb,
    destination  text,
    xid          xid8        DEFAULT pg_current_xact_id(),
    -- A primary key of a partitioned table includes the partition key; ids still come from
    -- one sequence, so an id is one event.
    CONSTRAINT job_events_pkey PRIMARY KEY (id, at),
    CONSTRAINT job_events_job_id_fkey FOREIGN KEY (job_id) REFERENCES publication_jobs (id),
    CONSTRAINT job_events_versions_check CHECK (from_version IS NULL OR to_version = from_version + 1)
) PARTITION BY RANGE (at);

-- If the legacy partition is ever dropped (pruned), the sequence must not go with it.
ALTER SEQUENCE job_events_id_seq OWNED BY job_events.id;

CREATE INDEX ix_job_events_job ON job_events (job_id, id);
CREATE INDEX ix_job_events_at ON job_events (at, id);
CREATE INDEX ix_job_events_actor ON job_events (actor, at, id);
CREATE INDEX ix_job_events_action ON job_events (action, at, id);
CREATE INDEX ix_job_events_destination ON job_events (destination, at, id)
    WHERE destination IS NOT NULL;
CREATE INDEX ix_job_events_xid ON job_events (xid) WHERE xid IS NOT NULL;

CREATE TRIGGER job_events_fill
    BEFORE INSERT ON job_events
    FOR EACH ROW EXECUTE FUNCTION job_events_fill();
CREATE TRIGGER job_events_no_update_delete
    BEFORE UPDATE OR DELETE ON job_events
    FOR EACH ROW EXECUTE FUNCTION job_events_append_only();
CREATE TRIGGER job_events_no_truncate
    BEFORE TRUNCATE ON job_events
    FOR EACH STATEMENT EXECUTE FUNCTION job_events_append_only();

CREATE TABLE destination_events (
    id          bigint      NOT NULL DEFAULT nextval('job_events_id_seq'),
    destination text        NOT NULL,
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text        NOT NULL,
    action      text        NOT NULL,
    reason      text,
    until       timestamptz,
    evidence    jsonb       NOT NULL DEFAULT '{}'::jsonb,
    xid         xid8        DEFAULT pg_current_xact_id(),
    CONSTRAINT destination_events_pkey PRIMARY KEY (id, at),
    CONSTRAINT destination_events_action_check CHECK (action IN ('pause', 'repause', 'resume', 'expire'))
) PARTITION BY RANGE (at);

CREATE INDEX ix_destination_events_destination ON destination_events (destination, id);
CREATE INDEX ix_destination_events_at ON destination_events (at, id);
CREATE INDEX ix_destination_events_xid ON destination_events (xid) WHERE xid IS NOT NULL;

CREATE TRIGGER destination_events_fill
    BEFORE INSERT ON destination_events
    FOR EACH ROW EXECUTE FUNCTION destination_events_fill();
CREATE TRIGGER destination_events_no_update_delete
    BEFORE UPDATE OR DELETE ON destination_events
    FOR EACH ROW EXECUTE FUNCTION job_events_append_only();
CREATE TRIGGER destination_events_no_truncate
    BEFORE TRUNCATE ON destination_events
    FOR EACH STATEMENT EXECUTE FUNCTION job_events_append_only();

-- Attach the old tables: their validated CHECK proves the range, their indexes (same
-- definitions) become the partitions of the parent's, their foreign key the parent's.
DO $$
DECLARE
    t text;
    bound text;
BEGIN
    FOREACH t IN ARRAY ARRAY['job_events', 'destination_events'] LOOP
        SELECT right(c.conname, 6) INTO bound FROM pg_constraint c
        WHERE c.conrelid = (t || '_legacy')::regclass AND c.contype = 'c' AND c.convalidated
          AND c.conname ~ ('^' || t || '_before_[0-9]{6}$')
        ORDER BY c.conname DESC LIMIT 1;
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)',
                       t, t || '_legacy',
                       (to_timestamp(bound, 'YYYYMM')::timestamp) AT TIME ZONE 'UTC');
    END LOOP;
END
$$;

SELECT reconctl_ensure_event_partitions();

-- ---------------------------------------------------------------------------------------
-- What left the database, and where it went
-- ---------------------------------------------------------------------------------------

-- One row per `events archive`: the file, its months and rows (per month and log, so that
-- prune can tell a month archived in full), its ids and checksum. Append-only.
CREATE TABLE event_archives (
    id          bigserial   PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text        NOT NULL,
    file_name   text        NOT NULL,
    -- Every event before this (the start of a UTC month) is in the file.
    before      timestamptz NOT NULL,
    months      text[]      NOT NULL,
    -- {"2026-08": {"job_events": n, "destination_events": m}, …}
    month_rows  jsonb       NOT NULL,
    rows        bigint      NOT NULL,
    first_id    bigint,
    last_id     bigint,
    sha256      text        NOT NULL CONSTRAINT event_archives_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$')
);

-- One row per `events prune`: the partitions it dropped and the archive that holds them.
CREATE TABLE event_prunes (
    id          bigserial   PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text        NOT NULL,
    before      timestamptz NOT NULL,
    months      text[]      NOT NULL,
    partitions  text[]      NOT NULL,
    rows        bigint      NOT NULL,
    archive_id  bigint      NOT NULL REFERENCES event_archives (id)
);

CREATE TRIGGER event_archives_no_update_delete
    BEFORE UPDATE OR DELETE ON event_archives
    FOR EACH ROW EXECUTE FUNCTION job_events_append_only();
CREATE TRIGGER event_archives_no_truncate
    BEFORE TRUNCATE ON event_archives
    FOR EACH STATEMENT EXECUTE FUNCTION job_events_append_only();
CREATE TRIGGER event_prunes_no_update_delete
    BEFORE UPDATE OR DELETE ON event_prunes
    FOR EACH ROW EXECUTE FUNCTION job_events_append_only();
CREATE TRIGGER event_prunes_no_truncate
    BEFORE TRUNCATE ON event_prunes
    FOR EACH STATEMENT EXECUTE FUNCTION job_events_append_only();

-- The parents are new tables: the grants of V2 and V5 again. Pruning (DROP TABLE of a
-- partition) needs the logs' owner, the user that runs `migrate`: no role here may prune.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_reader') THEN
        GRANT SELECT ON job_events, destination_events, event_archives, event_prunes TO reconctl_reader;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_operator') THEN
        GRANT SELECT, INSERT ON job_events, destination_events TO reconctl_operator;
        GRANT SELECT, INSERT ON event_archives TO reconctl_operator;
        GRANT SELECT ON event_prunes TO reconctl_operator;
        GRANT USAGE ON SEQUENCE event_archives_id_seq TO reconctl_operator;
        GRANT EXECUTE ON FUNCTION reconctl_ensure_event_partitions(integer) TO reconctl_operator;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_worker') THEN
        GRANT SELECT, INSERT ON job_events TO reconctl_worker;
        GRANT SELECT ON destination_events TO reconctl_worker;
        GRANT EXECUTE ON FUNCTION reconctl_ensure_event_partitions(integer) TO reconctl_worker;
    END IF;
END
$$;
