-- Tool search (GET /tools?search=, MCP search_tools): BM25 over SQLite FTS5.
--
-- The first statement is drizzle-kit's (tools.endpoint, from schema.ts); the rest is written by hand, since
-- drizzle-kit knows nothing of virtual tables or triggers. Three FTS5 tables hold the words of each tool, one
-- row per tool with the tool's own rowid, so each group of fields gets its own word statistics (a word on
-- every long description must not count as common in titles):
--   tool_search              id (split), title (the name, or the description's first sentence), endpoint,
--                            service id and name
--   tool_search_descriptions the whole description, HTML stripped
--   tool_search_values       string enum values of the parameters
-- They are contentless (content=''): the text lives in tools; contentless_delete lets triggers drop a row.
-- Triggers keep them in step with tools and services whatever writes the rows (inserts, replaced definitions,
-- cascading deletes). The words come from the tool_search_* SQL functions the host registers before running
-- migrations (src/db/search-text.ts): SQL cannot split chat_postMessage or strip HTML by itself.
-- Tools written before this migration get their endpoint from the openapi adapter's routing data once, here
-- (adapters now give it as ToolDefinition.endpoint), and every existing tool is indexed.
ALTER TABLE `tools` ADD `endpoint` text;--> statement-breakpoint
UPDATE `tools` SET `endpoint` = upper(json_extract(`adapter_domain`, '$.method')) || ' ' || json_extract(`adapter_domain`, '$.path')
WHERE `service_id` IN (SELECT `id` FROM `services` WHERE `adapter` = 'openapi')
  AND json_valid(`adapter_domain`)
  AND json_type(`adapter_domain`, '$.method') = 'text'
  AND json_type(`adapter_domain`, '$.path') = 'text';--> statement-breakpoint
CREATE VIRTUAL TABLE `tool_search` USING fts5(
  `id_words`, `title`, `endpoint`, `service`,
  content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
);--> statement-breakpoint
CREATE VIRTUAL TABLE `tool_search_descriptions` USING fts5(
  `description`,
  content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
);--> statement-breakpoint
CREATE VIRTUAL TABLE `tool_search_values` USING fts5(
  `enum_values`,
  content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
);--> statement-breakpoint
INSERT INTO `tool_search` (`rowid`, `id_words`, `title`, `endpoint`, `service`)
SELECT `tools`.`rowid`, tool_search_text(`tools`.`id`), tool_search_title(`tools`.`name`, `tools`.`id`, `tools`.`description`),
  tool_search_text(`tools`.`endpoint`), tool_search_text(`services`.`id` || ' ' || `services`.`name`)
FROM `tools` JOIN `services` ON `services`.`id` = `tools`.`service_id`;--> statement-breakpoint
INSERT INTO `tool_search_descriptions` (`rowid`, `description`)
SELECT `rowid`, tool_search_text(`description`) FROM `tools`;--> statement-breakpoint
INSERT INTO `tool_search_values` (`rowid`, `enum_values`)
SELECT `rowid`, tool_search_enums(`input_schema`) FROM `tools`;--> statement-breakpoint
CREATE TRIGGER `tools_search_insert` AFTER INSERT ON `tools` BEGIN
  INSERT INTO `tool_search` (`rowid`, `id_words`, `title`, `endpoint`, `service`)
  SELECT new.`rowid`, tool_search_text(new.`id`), tool_search_title(new.`name`, new.`id`, new.`description`),
    tool_search_text(new.`endpoint`), tool_search_text(`services`.`id` || ' ' || `services`.`name`)
  FROM `services` WHERE `services`.`id` = new.`service_id`;
  INSERT INTO `tool_search_descriptions` (`rowid`, `description`) VALUES (new.`rowid`, tool_search_text(new.`description`));
  INSERT INTO `tool_search_values` (`rowid`, `enum_values`) VALUES (new.`rowid`, tool_search_enums(new.`input_schema`));
END;--> statement-breakpoint
CREATE TRIGGER `tools_search_delete` AFTER DELETE ON `tools` BEGIN
  DELETE FROM `tool_search` WHERE `rowid` = old.`rowid`;
  DELETE FROM `tool_search_descriptions` WHERE `rowid` = old.`rowid`;
  DELETE FROM `tool_search_values` WHERE `rowid` = old.`rowid`;
END;--> statement-breakpoint
-- An update re-indexes the row (contentless tables take whole rows), under its old and new rowid alike.
CREATE TRIGGER `tools_search_update` AFTER UPDATE OF `id`, `name`, `description`, `endpoint`, `input_schema`, `service_id` ON `tools` BEGIN
  DELETE FROM `tool_search` WHERE `rowid` = old.`rowid`;
  DELETE FROM `tool_search_descriptions` WHERE `rowid` = old.`rowid`;
  DELETE FROM `tool_search_values` WHERE `rowid` = old.`rowid`;
  INSERT INTO `tool_search` (`rowid`, `id_words`, `title`, `endpoint`, `service`)
  SELECT new.`rowid`, tool_search_text(new.`id`), tool_search_title(new.`name`, new.`id`, new.`description`),
    tool_search_text(new.`endpoint`), tool_search_text(`services`.`id` || ' ' || `services`.`name`)
  FROM `services` WHERE `services`.`id` = new.`service_id`;
  INSERT INTO `tool_search_descriptions` (`rowid`, `description`) VALUES (new.`rowid`, tool_search_text(new.`description`));
  INSERT INTO `tool_search_values` (`rowid`, `enum_values`) VALUES (new.`rowid`, tool_search_enums(new.`input_schema`));
END;--> statement-breakpoint
-- A renamed service (a regenerated definition may change its title) re-indexes its tools' service words.
CREATE TRIGGER `services_search_rename` AFTER UPDATE OF `name` ON `services` WHEN old.`name` IS NOT new.`name` BEGIN
  DELETE FROM `tool_search` WHERE `rowid` IN (SELECT `rowid` FROM `tools` WHERE `service_id` = new.`id`);
  INSERT INTO `tool_search` (`rowid`, `id_words`, `title`, `endpoint`, `service`)
  SELECT `tools`.`rowid`, tool_search_text(`tools`.`id`), tool_search_title(`tools`.`name`, `tools`.`id`, `tools`.`description`),
    tool_search_text(`tools`.`endpoint`), tool_search_text(new.`id` || ' ' || new.`name`)
  FROM `tools` WHERE `tools`.`service_id` = new.`id`;
END;
