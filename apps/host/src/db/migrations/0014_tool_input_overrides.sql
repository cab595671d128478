-- An operator's override of a tool's input constraints (a JSON Merge Patch over the schema the adapter made from
-- the API's document, which is kept to restore it): the document is sometimes wrong (Petstore caps orderId at 10).
CREATE TABLE `tool_input_overrides` (
	`service_id` text NOT NULL,
	`tool_id` text NOT NULL,
	`patch` text NOT NULL,
	`original` text NOT NULL,
	`reason` text NOT NULL,
	`set_by` text NOT NULL,
	`set_at` text NOT NULL,
	PRIMARY KEY(`service_id`, `tool_id`),
	FOREIGN KEY (`service_id`) REFERENCES `services`(`id`) ON UPDATE no action ON DELETE cascade
);
