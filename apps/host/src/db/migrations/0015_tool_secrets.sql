-- The secrets a tool's call needs (ToolDefinition.secrets: alternatives of secret names), so that lists and types
-- can mark a tool none of whose alternatives is set. Null: it needs none. Existing rows get it at their next update.
ALTER TABLE `tools` ADD `secrets` text;
