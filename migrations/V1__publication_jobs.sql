-- reconctl schema, version 1: the job table, its audit log, and the indexes the operator
-- commands need on a table where almost every row is `accepted`.

CREATE TABLE publication_jobs (
    id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id        text        NOT NULL,
    article_id       text        NOT NULL,
    revision_id      text        NOT NULL,
    destination      text        NOT NULL,
    external_ref     text        NOT NULL,
    payload_hash     text        NOT NULL,
    state            text        NOT NULL DEFAULT 'pending',
    version          bigint      NOT NULL DEFAULT 1,
    attempts         integer     NOT NULL DEFAULT 0,
    lease_owner      text,
    lease_expires_at timestamptz,
    sent_at          timestamptz,
    remote_id        text,
    last_error       text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    state_changed_at timestamptz NOT NULL DEFAULT now(),

    CONSTRAINT publication_jobs_state_check CHECK (state IN
        ('pending', 'in_flight', 'uncertain', 'accepted', 'safe_to_retry', 'failed', 'conflict')),
    CONSTRAINT publication_jobs_version_check CHECK (version >= 1),
    CONSTRAINT publication_jobs_attempts_check CHECK (attempts >= 0),
    CONSTRAINT publication_jobs_payload_hash_check CHECK (payload_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT publication_jobs_external_ref_check CHECK (external_ref ~ '^pub_[0-9a-f]{64}$'),
    -- A lease exists exactly while the job is in flight.
    CONSTRAINT publication_jobs_lease_check CHECK (
        (state = 'in_flight') = (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)
        AND (lease_owner IS NULL) = (lease_expires_at IS NULL)),
    -- An accepted job says where the destination keeps it.
    CONSTRAINT publication_jobs_accepted_remote_id_check CHECK (state <> 'accepted' OR remote_id IS NOT NULL)
);

-- The business key of one publishing intent.
CREATE UNIQUE INDEX ux_publication_jobs_identity
    ON publication_jobs (tenant_id, article_id, revision_id, destination);

-- The stable reference sent to destinations; `jobs show REF`, `remote lookup`.
CREATE UNIQUE INDEX ux_publication_jobs_external_ref ON publication_jobs (external_ref);

-- `jobs list` without a state filter: keyset order (created_at, id).
CREATE INDEX ix_publication_jobs_created ON publication_jobs (created_at, id);

-- `jobs list --destination`: keyset order within one destination.
CREATE INDEX ix_publication_jobs_destination_created
    ON publication_jobs (destination, created_at, id);

-- Everything that is not `accepted` (a few percent of the table): `jobs list --state`,
-- `jobs uncertain`, `reconcile` (keyset within a state), claims.
CREATE INDEX ix_publication_jobs_open_created
    ON publication_jobs (state, created_at, id)
    WHERE state <> 'accepted';

-- `status`, `check`, `metrics`, `jobs stuck`: count and oldest age per state and destination,
-- answered from this small index instead of a scan of millions of accepted rows.
CREATE INDEX ix_publication_jobs_open_state_age
    ON publication_jobs (state, destination, state_changed_at)
    WHERE state <> 'accepted';

-- `sweep leases`, `jobs stuck`: in-flight jobs in lease-expiry order.
CREATE INDEX ix_publication_jobs_lease
    ON publication_jobs (lease_expires_at)
    WHERE state = 'in_flight';

CREATE TABLE job_events (
    id           bigserial   PRIMARY KEY,
    job_id       uuid        NOT NULL REFERENCES publication_jobs (id),
    at           timestamptz NOT NULL DEFAULT now(),
    actor        text        NOT NULL,
    action       text        NOT NULL,
    from_state   text,
    to_state     text        NOT NULL,
    from_version bigint,
    to_version   bigint      NOT NULL,
    reason       text,
    evidence     jsonb       NOT NULL DEFAULT '{}'::jsonb,
    CONSTRAINT job_events_versions_check CHECK (from_version IS NULL OR to_version = from_version + 1)
);

-- `jobs show`: a job's history in order.
CREATE INDEX ix_job_events_job ON job_events (job_id, id);

-- The audit log is append-only: no UPDATE, DELETE or TRUNCATE, whoever asks.
CREATE FUNCTION job_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'job_events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER job_events_no_update_delete
    BEFORE UPDATE OR DELETE ON job_events
    FOR EACH ROW EXECUTE FUNCTION job_events_append_only();

CREATE TRIGGER job_events_no_truncate
    BEFORE TRUNCATE ON job_events
    FOR EACH STATEMENT EXECUTE FUNCTION job_events_append_only();
