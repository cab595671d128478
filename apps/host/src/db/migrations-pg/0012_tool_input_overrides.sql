-- An operator's override of a tool's input constraints (a JSON Merge Patch over the schema the adapter made from
-- the API's document, which is kept to restore it): the document is sometimes wrong (Petstore caps orderId at 10).
CREATE TABLE "tool_input_overrides" (
	"service_id" text COLLATE "C" NOT NULL,
	"tool_id" text COLLATE "C" NOT NULL,
	"patch" json NOT NULL,
	"original" json NOT NULL,
	"reason" text COLLATE "C" NOT NULL,
	"set_by" text COLLATE "C" NOT NULL,
	"set_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "tool_input_overrides_service_id_tool_id_pk" PRIMARY KEY("service_id","tool_id")
);
--> statement-breakpoint
ALTER TABLE "tool_input_overrides" ADD CONSTRAINT "tool_input_overrides_service_id_services_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."services"("id") ON DELETE cascade ON UPDATE no action;