CREATE TABLE `executions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`process_id` integer NOT NULL,
	`environment` text NOT NULL,
	`exit_state` text,
	`created_at` text NOT NULL,
	`finished_at` text,
	FOREIGN KEY (`process_id`) REFERENCES `processes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `processes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ref` text,
	`state` text NOT NULL,
	`exit_state` text,
	`error` text,
	`timeout_ms` integer,
	`code` text NOT NULL,
	`output` text,
	`stdout` text DEFAULT '' NOT NULL,
	`stderr` text DEFAULT '' NOT NULL,
	`runs` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `processes_state_idx` ON `processes` (`state`);--> statement-breakpoint
CREATE INDEX `processes_ref_idx` ON `processes` (`ref`);