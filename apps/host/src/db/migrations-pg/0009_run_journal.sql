-- Durable runs (domain/processes/run-journal.ts): the journal of each run's tool calls and of the values its
-- environment recorded, written before a call reaches its adapter; an execution's attempts, journal size and why it
-- cannot be resumed; an approval's own question (whether to re-send a call that was in flight at a crash) and the
-- run and call that asked, so a resumed run finds its approval again.
CREATE TABLE "run_journal" (
	"execution_id" integer NOT NULL,
	"seq" integer NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"call_index" integer,
	"digest" text COLLATE "C",
	"service_id" text COLLATE "C",
	"tool_id" text COLLATE "C",
	"state" text COLLATE "C",
	"payload" text COLLATE "C",
	CONSTRAINT "run_journal_execution_id_seq_pk" PRIMARY KEY("execution_id","seq")
);
--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "question" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "execution_id" integer;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "call_index" integer;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "attempts" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "journal_bytes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "not_durable" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "run_journal" ADD CONSTRAINT "run_journal_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "run_journal_call_idx" ON "run_journal" USING btree ("execution_id","call_index");