-- reconctl schema, version 5: pausing a destination (SPEC §6).
--
-- destination_pauses holds one row per paused destination: who paused it, why, since when
-- and until when (NULL: until resumed). A pause whose `until` has passed is over by the
-- predicate alone; the row stays until the first command that notices records the expiry.
-- Workers outside this crate skip paused destinations with exactly this predicate:
--
--   NOT EXISTS (SELECT 1 FROM destination_pauses p
--               WHERE p.destination = j.destination AND (p.until IS NULL OR p.until > now()))
--
-- destination_events is the append-only record of every pause, change of a pause, resume and
-- expiry, like job_events (triggers reject UPDATE, DELETE and TRUNCATE). Its ids come from
-- job_events' sequence, so the two logs share one id space: `reconctl events` shows them as
-- one stream in one order.

CREATE TABLE destination_pauses (
    destination text        PRIMARY KEY,
    reason      text        NOT NULL,
    actor       text        NOT NULL,
    since       timestamptz NOT NULL DEFAULT now(),
    until       timestamptz,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT destination_pauses_reason_check CHECK (btrim(reason) <> ''),
    CONSTRAINT destination_pauses_until_check CHECK (until IS NULL OR until > since)
);

CREATE TABLE destination_events (
    id          bigint      PRIMARY KEY DEFAULT nextval('job_events_id_seq'),
    destination text        NOT NULL,
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text        NOT NULL,
    action      text        NOT NULL,
    reason      text,
    -- The pause as it is after this event (NULL after a resume or an expiry).
    until       timestamptz,
    evidence    jsonb       NOT NULL DEFAULT '{}'::jsonb,
    CONSTRAINT destination_events_action_check CHECK (action IN ('pause', 'repause', 'resume', 'expire'))
);

CREATE INDEX ix_destination_events_destination ON destination_events (destination, id);

CREATE TRIGGER destination_events_no_update_delete
    BEFORE UPDATE OR DELETE ON destination_events
    FOR EACH ROW EXECUTE FUNCTION job_events_append_only();

CREATE TRIGGER destination_events_no_truncate
    BEFORE TRUNCATE ON destination_events
    FOR EACH STATEMENT EXECUTE FUNCTION job_events_append_only();

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_reader') THEN
        GRANT SELECT ON destination_pauses, destination_events TO reconctl_reader;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_operator') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON destination_pauses TO reconctl_operator;
        GRANT SELECT, INSERT ON destination_events TO reconctl_operator;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_worker') THEN
        -- Workers read pauses (their claims skip paused destinations); they do not pause,
        -- resume or record an expiry.
        GRANT SELECT ON destination_pauses, destination_events TO reconctl_worker;
    END IF;
END
$$;
