-- Durable runs (domain/processes/run-journal.ts): the journal of each run's tool calls and of the values its
-- environment recorded, written before a call reaches its adapter; an execution's attempts, journal size and why it
-- cannot be resumed; an approval's own question (whether to re-send a call that was in flight at a crash) and the
-- run and call that asked, so a resumed run finds its approval again.
CREATE TABLE `run_journal` (
	`execution_id` integer NOT NULL,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	`call_index` integer,
	`digest` text,
	`service_id` text,
	`tool_id` text,
	`state` text,
	`payload` text,
	PRIMARY KEY(`execution_id`, `seq`),
	FOREIGN KEY (`execution_id`) REFERENCES `executions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `run_journal_call_idx` ON `run_journal` (`execution_id`,`call_index`);--> statement-breakpoint
ALTER TABLE `approvals` ADD `question` text;--> statement-breakpoint
ALTER TABLE `approvals` ADD `execution_id` integer;--> statement-breakpoint
ALTER TABLE `approvals` ADD `call_index` integer;--> statement-breakpoint
ALTER TABLE `executions` ADD `attempts` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `executions` ADD `journal_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `executions` ADD `not_durable` text;