-- OAuth subjects (oauth:<sub>): the grants and expiry of the latest access token seen of each, read again at each
-- tool call of a process the subject created (there is no key row to read for them; no token is stored).
CREATE TABLE `oauth_subjects` (
	`id` text PRIMARY KEY NOT NULL,
	`role` text NOT NULL,
	`services` text,
	`expires_at` text NOT NULL,
	`seen_at` text NOT NULL
);
