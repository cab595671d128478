-- A service's policy may set how long its calls wait for an operator's decision (null: CYRNEL_APPROVAL_TIMEOUT_MS):
-- a run waiting for one holds no sandbox once evicted, so the wait may be days.
ALTER TABLE `service_policies` ADD `approval_timeout_ms` integer;