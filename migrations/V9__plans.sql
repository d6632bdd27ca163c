-- reconctl schema, version 9: plans, bulk moves reviewed before they run (SPEC §8).
--
-- plans        one row per plan: who made it, when it expires, the move, why, the filter or
--              job list that selected its jobs, and whether its lookups were skipped. Never
--              changed once written (triggers reject UPDATE, DELETE and TRUNCATE).
-- plan_items   one row per selected job: the state and version seen, the target state and
--              action, the plan-time lookup (evidence), and its status. An item is written
--              'planned' or 'refused'; a 'planned' item is settled once (moved, skipped or
--              refused, with the event of its move) and never changed again: a trigger
--              rejects any other UPDATE, and every DELETE and TRUNCATE.
-- plan_events  the append-only lifecycle of each plan (created, approved, apply, applied,
--              discarded), who and why, like job_events.
--
-- Readers may read all three; only the operator role writes them (README §Roles).

CREATE TABLE plans (
    id          text        PRIMARY KEY,
    actor       text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    move        text        NOT NULL,
    reason      text        NOT NULL,
    filter      jsonb       NOT NULL,
    no_lookup   boolean     NOT NULL DEFAULT false,
    CONSTRAINT plans_id_check CHECK (id ~ '^p[0-9a-f]{8,}$'),
    CONSTRAINT plans_move_check CHECK (move IN ('accepted', 'safe_to_retry', 'failed')),
    CONSTRAINT plans_reason_check CHECK (btrim(reason) <> ''),
    CONSTRAINT plans_expires_check CHECK (expires_at > created_at)
);

CREATE INDEX ix_plans_created ON plans (created_at, id);

CREATE TABLE plan_items (
    plan_id     text        NOT NULL REFERENCES plans (id),
    seq         integer     NOT NULL,
    job_id      uuid        NOT NULL,
    external_ref text       NOT NULL,
    destination text        NOT NULL,
    from_state  text        NOT NULL,
    version     bigint      NOT NULL,
    to_state    text        NOT NULL,
    action      text        NOT NULL,
    status      text        NOT NULL,
    reason      text,
    evidence    jsonb,
    event_id    bigint,
    settled_at  timestamptz,
    PRIMARY KEY (plan_id, seq),
    CONSTRAINT plan_items_job_unique UNIQUE (plan_id, job_id),
    CONSTRAINT plan_items_status_check CHECK (status IN ('planned', 'moved', 'skipped', 'refused'))
);

-- `plan apply` walks a plan's open items in order.
CREATE INDEX ix_plan_items_open ON plan_items (plan_id, seq) WHERE status = 'planned';

CREATE TABLE plan_events (
    id          bigserial   PRIMARY KEY,
    plan_id     text        NOT NULL REFERENCES plans (id),
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text        NOT NULL,
    action      text        NOT NULL,
    reason      text,
    evidence    jsonb       NOT NULL DEFAULT '{}'::jsonb,
    CONSTRAINT plan_events_action_check
        CHECK (action IN ('created', 'approved', 'apply', 'applied', 'discarded'))
);

CREATE INDEX ix_plan_events_plan ON plan_events (plan_id, id);

CREATE FUNCTION plan_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER plans_no_update_delete
    BEFORE UPDATE OR DELETE ON plans
    FOR EACH ROW EXECUTE FUNCTION plan_records_append_only();
CREATE TRIGGER plans_no_truncate
    BEFORE TRUNCATE ON plans
    FOR EACH STATEMENT EXECUTE FUNCTION plan_records_append_only();
CREATE TRIGGER plan_events_no_update_delete
    BEFORE UPDATE OR DELETE ON plan_events
    FOR EACH ROW EXECUTE FUNCTION plan_records_append_only();
CREATE TRIGGER plan_events_no_truncate
    BEFORE TRUNCATE ON plan_events
    FOR EACH STATEMENT EXECUTE FUNCTION plan_records_append_only();

-- An item is settled once: from 'planned' to its outcome, nothing else about it changes.
CREATE FUNCTION plan_items_settle_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'UPDATE' THEN
        RAISE EXCEPTION 'plan_items: % is not allowed (an item is settled once, never removed)', TG_OP
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF OLD.status <> 'planned' OR NEW.status = 'planned'
       OR (NEW.plan_id, NEW.seq, NEW.job_id, NEW.external_ref, NEW.destination, NEW.from_state,
           NEW.version, NEW.to_state, NEW.action)
          IS DISTINCT FROM
          (OLD.plan_id, OLD.seq, OLD.job_id, OLD.external_ref, OLD.destination, OLD.from_state,
           OLD.version, OLD.to_state, OLD.action) THEN
        RAISE EXCEPTION 'plan_items: item % of plan % is % and may only be settled once from planned',
            OLD.seq, OLD.plan_id, OLD.status
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER plan_items_settle_once
    BEFORE UPDATE OR DELETE ON plan_items
    FOR EACH ROW EXECUTE FUNCTION plan_items_settle_once();
CREATE TRIGGER plan_items_no_truncate
    BEFORE TRUNCATE ON plan_items
    FOR EACH STATEMENT EXECUTE FUNCTION plan_records_append_only();

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_reader') THEN
        GRANT SELECT ON plans, plan_items, plan_events TO reconctl_reader;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_operator') THEN
        GRANT SELECT, INSERT ON plans, plan_items, plan_events TO reconctl_operator;
        GRANT UPDATE (status, reason, event_id, settled_at) ON plan_items TO reconctl_operator;
        GRANT USAGE ON SEQUENCE plan_events_id_seq TO reconctl_operator;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_worker') THEN
        GRANT SELECT ON plans, plan_items, plan_events TO reconctl_worker;
    END IF;
END
$$;
