CREATE TABLE `approvals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`process_id` integer NOT NULL,
	`key_id` text,
	`service_id` text NOT NULL,
	`tool_id` text NOT NULL,
	`parameters` text NOT NULL,
	`state` text NOT NULL,
	`created_at` text NOT NULL,
	`decided_at` text,
	`decided_by` text,
	`reason` text
);
--> statement-breakpoint
CREATE INDEX `approvals_state_idx` ON `approvals` (`state`);--> statement-breakpoint
CREATE INDEX `approvals_process_idx` ON `approvals` (`process_id`);--> statement-breakpoint
CREATE TABLE `calls` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`process_id` integer,
	`execution_id` integer,
	`key_id` text,
	`service_id` text NOT NULL,
	`tool_id` text NOT NULL,
	`started_at` text NOT NULL,
	`duration_ms` integer NOT NULL,
	`outcome` text NOT NULL,
	`status` integer,
	`parameters` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `calls_process_idx` ON `calls` (`process_id`,`execution_id`);--> statement-breakpoint
CREATE INDEX `calls_started_idx` ON `calls` (`started_at`);--> statement-breakpoint
CREATE TABLE `service_policies` (
	`service_id` text PRIMARY KEY NOT NULL,
	`default_action` text NOT NULL,
	`rules` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`service_id`) REFERENCES `services`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `tools` ADD `annotations` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
-- Tools written before this migration get the openapi adapter's annotations from their routing data once,
-- here, as the adapter now sets them (packages/openapi/src/annotations.ts): GET, HEAD and OPTIONS read-only,
-- DELETE destructive, PUT and DELETE idempotent, every operation open-world. Other adapters' tools claim
-- nothing until their service is updated.
UPDATE `tools` SET `annotations` = json_object(
  'readOnly', json(CASE WHEN lower(json_extract(`adapter_domain`, '$.method')) IN ('get', 'head', 'options') THEN 'true' ELSE 'false' END),
  'destructive', json(CASE WHEN lower(json_extract(`adapter_domain`, '$.method')) = 'delete' THEN 'true' ELSE 'false' END),
  'idempotent', json(CASE WHEN lower(json_extract(`adapter_domain`, '$.method')) IN ('put', 'delete') THEN 'true' ELSE 'false' END),
  'openWorld', json('true'))
WHERE `service_id` IN (SELECT `id` FROM `services` WHERE `adapter` = 'openapi')
  AND json_valid(`adapter_domain`)
  AND json_type(`adapter_domain`, '$.method') = 'text';
