-- Revoking a key keeps its row (api-keys.ts): revoked_at and who revoked it, so GET /keys lists it as revoked and
-- the key ids on processes and call records keep a name. Rows from before were live (revoking deleted them);
-- every lookup that authenticates or counts keys skips a row with revoked_at set.
ALTER TABLE "api_keys" ADD COLUMN "revoked_at" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "revoked_by" text COLLATE "C";