-- A status board drawn from the store and a run's summary read the run's checks (step-evaluated events) and its
-- planner fallbacks, not its whole event log (decision 030, session 16). This index holds only those rows, so
-- the read finds them without walking the run's other events, and appends of other types never write to it.
CREATE INDEX "events_checks_idx" ON "events" USING btree ("run_id","seq") WHERE "type" in ('step-evaluated', 'planner-fallback');
