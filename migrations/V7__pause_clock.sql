-- reconctl schema, version 7: a pause reaches claims made in any isolation level (SPEC §6).
--
-- A claim inside a REPEATABLE READ or SERIALIZABLE transaction reads destination_pauses in
-- the snapshot its transaction took at its first statement: a pause that committed after that
-- is invisible to it, and the claim would hand out a job of a destination the operator was
-- told is paused. PostgreSQL offers such a transaction one way to learn of a change it cannot
-- see: it refuses to lock a row that was updated after its snapshot ("could not serialize
-- access due to concurrent update", SQLSTATE 40001).
--
-- So every pause and change of a pause also updates the one row of destination_pause_clock
-- (in the pause's transaction, after its lock on destination_pauses), and the library's claim,
-- when its transaction is not READ COMMITTED, locks that row FOR SHARE in the claim's own
-- statement. A claim whose snapshot predates a committed pause is refused with 40001 (the
-- worker rolls back and claims again; its new snapshot sees the pause); one that meets a pause
-- in progress waits for it, then is refused the same way. READ COMMITTED claims do not touch
-- the row (each statement takes a new snapshot after waiting for the pause's table lock), so
-- the usual claim pays nothing. Workers outside this crate that claim in REPEATABLE READ or
-- SERIALIZABLE add the same lock to their claim:
--
--   AND (SELECT count(*) FROM (SELECT 1 FROM destination_pause_clock FOR SHARE) k) > 0

CREATE TABLE destination_pause_clock (
    one        boolean     PRIMARY KEY DEFAULT true CONSTRAINT destination_pause_clock_one CHECK (one),
    -- Pauses and changes of a pause so far (for people; the lock is what matters).
    pauses     bigint      NOT NULL DEFAULT 0,
    changed_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO destination_pause_clock DEFAULT VALUES;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_reader') THEN
        GRANT SELECT ON destination_pause_clock TO reconctl_reader;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_operator') THEN
        GRANT SELECT, UPDATE ON destination_pause_clock TO reconctl_operator;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reconctl_worker') THEN
        -- FOR SHARE needs an UPDATE grant; on this column only (the lock changes nothing).
        GRANT SELECT, UPDATE (changed_at) ON destination_pause_clock TO reconctl_worker;
    END IF;
END
$$;
