-- Connections (domain/connections/): a service's OAuth client (service_oauth), its connected accounts (connections;
-- their tokens are sealed in secrets), the authorization requests under way (connection_requests), the flow a
-- definition declares (services.authorization), and which connection a call used (calls.connection_id).
CREATE TABLE `connection_requests` (
	`state_hash` text PRIMARY KEY NOT NULL,
	`service_id` text NOT NULL,
	`owner` text NOT NULL,
	`verifier` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`expires_at` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`service_id`) REFERENCES `services`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `connection_requests_expiry_idx` ON `connection_requests` (`expires_at`);--> statement-breakpoint
CREATE TABLE `connections` (
	`id` text PRIMARY KEY NOT NULL,
	`service_id` text NOT NULL,
	`owner` text NOT NULL,
	`scopes` text NOT NULL,
	`expires_at` text,
	`refreshable` integer NOT NULL,
	`created_at` text NOT NULL,
	`refreshed_at` text,
	FOREIGN KEY (`service_id`) REFERENCES `services`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `connections_owner_idx` ON `connections` (`service_id`,`owner`);--> statement-breakpoint
CREATE TABLE `service_oauth` (
	`service_id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`authorization_url` text,
	`token_url` text,
	`revocation_url` text,
	`scopes` text,
	`authorization_params` text NOT NULL,
	`credentials` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`service_id`) REFERENCES `services`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `calls` ADD `connection_id` text;--> statement-breakpoint
ALTER TABLE `services` ADD `authorization` text;