-- A durable run that waits only on a long timer is let go of while it sleeps (it holds no sandbox) and resumed
-- by replay when it is due: when that is.
ALTER TABLE `executions` ADD `wake_at` text;
