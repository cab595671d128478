-- Lists and events of approvals show a preview of the parameters (the value when its JSON fits 2048 characters,
-- else the start of that JSON as a string, marked as cut) with the whole value's size and SHA-256; only
-- GET /approvals/:id reads the whole value. Rows written before are filled in here; their cut previews keep the first
-- 1000 characters. (`json` keeps the text as written, so these are the size and digest of what the host wrote.)
ALTER TABLE "approvals" ADD COLUMN "parameters_preview" json DEFAULT 'null' NOT NULL;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "parameters_bytes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "parameters_sha256" text COLLATE "C" DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE "approvals" SET
  "parameters_preview" = CASE WHEN length("parameters"::text) <= 2048 THEN "parameters"
    ELSE to_json(left("parameters"::text, 1000) || '… [cut: ' || to_char(length("parameters"::text) - 1000, 'FM999,999,999,990') || ' more characters]') END,
  "parameters_bytes" = octet_length("parameters"::text),
  "parameters_sha256" = encode(sha256(convert_to("parameters"::text, 'UTF8')), 'hex');
