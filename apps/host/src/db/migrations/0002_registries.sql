CREATE TABLE `registries` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`definitions_url` text,
	`modules_url` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
