CREATE TABLE `modules` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`version` text NOT NULL,
	`builtin` integer NOT NULL,
	`enabled` integer NOT NULL,
	`source` text,
	`config` text DEFAULT '{}' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `secrets` (
	`owner_type` text NOT NULL,
	`owner_id` text NOT NULL,
	`name` text NOT NULL,
	`key_id` text NOT NULL,
	`iv` blob NOT NULL,
	`ciphertext` blob NOT NULL,
	`tag` blob NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`owner_type`, `owner_id`, `name`)
);
--> statement-breakpoint
CREATE TABLE `services` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`adapter` text NOT NULL,
	`source` text,
	`version` text,
	`hash` text NOT NULL,
	`definition` text NOT NULL,
	`adapter_domain` text NOT NULL,
	`config_schema` text NOT NULL,
	`secrets_schema` text NOT NULL,
	`config` text DEFAULT '{}' NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`stale` integer DEFAULT false NOT NULL,
	`stale_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `services_adapter_idx` ON `services` (`adapter`);--> statement-breakpoint
CREATE TABLE `tools` (
	`service_id` text NOT NULL,
	`id` text NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`input_schema` text NOT NULL,
	`output_schema` text NOT NULL,
	`adapter_domain` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	PRIMARY KEY(`service_id`, `id`),
	FOREIGN KEY (`service_id`) REFERENCES `services`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tools_service_position_idx` ON `tools` (`service_id`,`position`);