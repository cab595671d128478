ALTER TABLE "executions" ADD COLUMN "typecheck" boolean;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "enqueued_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "claimed_by" text;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "claimed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "kill_requested" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "executions_waiting_idx" ON "executions" USING btree ("id") WHERE "executions"."claimed_by" is null and "executions"."finished_at" is null;--> statement-breakpoint
CREATE INDEX "executions_claimed_idx" ON "executions" USING btree ("claimed_by") WHERE "executions"."claimed_by" is not null and "executions"."finished_at" is null;--> statement-breakpoint
-- Runs left unfinished by a host of an earlier version were executing when it stopped: ended here as that host's own
-- start would have ended them, so the queue's sweep never takes them for runs that still wait.
UPDATE "executions" SET "exit_state" = 'failed', "finished_at" = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') WHERE "finished_at" IS NULL;--> statement-breakpoint
UPDATE "processes" SET "state" = 'idle', "exit_state" = 'failed', "error" = 'interrupted: host restarted', "finished_at" = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') WHERE "state" <> 'idle';
