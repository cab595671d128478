-- Connections (domain/connections/): a service's OAuth client (service_oauth), its connected accounts (connections;
-- their tokens are sealed in secrets), the authorization requests under way (connection_requests), the flow a
-- definition declares (services.authorization), and which connection a call used (calls.connection_id).
CREATE TABLE "connection_requests" (
	"state_hash" text COLLATE "C" PRIMARY KEY NOT NULL,
	"service_id" text COLLATE "C" NOT NULL,
	"owner" text COLLATE "C" NOT NULL,
	"verifier" text COLLATE "C" NOT NULL,
	"redirect_uri" text COLLATE "C" NOT NULL,
	"expires_at" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "connections" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"service_id" text COLLATE "C" NOT NULL,
	"owner" text COLLATE "C" NOT NULL,
	"scopes" json NOT NULL,
	"expires_at" text COLLATE "C",
	"refreshable" boolean NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"refreshed_at" text COLLATE "C"
);
--> statement-breakpoint
CREATE TABLE "service_oauth" (
	"service_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"client_id" text COLLATE "C" NOT NULL,
	"authorization_url" text COLLATE "C",
	"token_url" text COLLATE "C",
	"revocation_url" text COLLATE "C",
	"scopes" json,
	"authorization_params" json NOT NULL,
	"credentials" text COLLATE "C" NOT NULL,
	"updated_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "connection_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "services" ADD COLUMN "authorization" json;--> statement-breakpoint
ALTER TABLE "connection_requests" ADD CONSTRAINT "connection_requests_service_id_services_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."services"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_service_id_services_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."services"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "service_oauth" ADD CONSTRAINT "service_oauth_service_id_services_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."services"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "connection_requests_expiry_idx" ON "connection_requests" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "connections_owner_idx" ON "connections" USING btree ("service_id","owner");