-- GET /stats counts the processes whose run ended within a window, by exit state and whether the code started
-- (a run that timed out waiting in the queue never did), from this index alone: a range of finished_at, the other
-- two columns read from the index.
CREATE INDEX "processes_finished_idx" ON "processes" USING btree ("finished_at","exit_state","started_at");