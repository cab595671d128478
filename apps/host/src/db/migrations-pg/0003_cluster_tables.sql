-- The cluster's tables join the migrations. Hosts of earlier versions created cluster_hosts and
-- cluster_module_archives themselves at every start (the same columns, check and index as below), so on such a
-- database these statements find them and keep them and their rows as they are. Such a host that starts while this
-- runs creates them under advisory lock "clst" (0x636c7374): taken here too, so the two take turns.
SELECT pg_advisory_xact_lock(1668051828);--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "cluster_hosts" (
	"id" text PRIMARY KEY NOT NULL,
	"role" text NOT NULL,
	"address" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "cluster_hosts_role_check" CHECK ("cluster_hosts"."role" IN ('all', 'api', 'worker'))
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "cluster_module_archives" (
	"module_id" text PRIMARY KEY NOT NULL,
	"version" text NOT NULL,
	"archive" "bytea" NOT NULL,
	"archive_sha256" text NOT NULL,
	"folder_digest" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "cluster_hosts_lease_expires_at" ON "cluster_hosts" USING btree ("lease_expires_at");--> statement-breakpoint
-- Which host took which run is on the executions table (0001_process_queue). Hosts of earlier versions also created
-- this table, which only the cluster's own tests ever wrote.
DROP TABLE IF EXISTS "cluster_run_claims";
