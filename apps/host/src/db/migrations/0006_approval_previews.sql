-- Lists and events of approvals show a preview of the parameters (the value when its JSON fits 2048 characters,
-- else the start of that JSON as a string, marked as cut) with the whole value's size and SHA-256; only
-- GET /approvals/:id reads the whole value. Rows written before are filled in here (sha256_hex is registered on the
-- connection in client.ts); their cut previews keep the first 1000 characters.
ALTER TABLE `approvals` ADD `parameters_preview` text NOT NULL DEFAULT 'null';--> statement-breakpoint
ALTER TABLE `approvals` ADD `parameters_bytes` integer NOT NULL DEFAULT 0;--> statement-breakpoint
ALTER TABLE `approvals` ADD `parameters_sha256` text NOT NULL DEFAULT '';--> statement-breakpoint
UPDATE `approvals` SET
  `parameters_preview` = CASE WHEN length(`parameters`) <= 2048 THEN `parameters`
    ELSE json_quote(substr(`parameters`, 1, 1000) || '… [cut: ' || printf('%,d', length(`parameters`) - 1000) || ' more characters]') END,
  `parameters_bytes` = length(CAST(`parameters` AS BLOB)),
  `parameters_sha256` = sha256_hex(`parameters`);
