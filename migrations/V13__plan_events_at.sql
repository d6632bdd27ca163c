-- reconctl schema, version 13: the plans applied recently, read by time (SPEC §8).
--
-- `status -v` names the plans applied, or being applied, in the last hour beside the moves it
-- counts. plan_events is append-only and never pruned, so without this index that read would
-- scan every plan's lifecycle ever recorded; with it, it reads the last hour's records only.
-- plan_events holds a few rows per plan: the build holds its lock for moments.
CREATE INDEX ix_plan_events_at ON plan_events (at);
