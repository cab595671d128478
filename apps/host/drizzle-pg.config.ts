import { defineConfig } from "drizzle-kit";

// The PostgreSQL dialect's migrations (src/db/schema-pg.ts), applied at startup when CYRNEL_DATABASE_URL is set.
// `pnpm --filter @cyrnel/host db:generate` writes the migrations of both dialects.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema-pg.ts",
  out: "./src/db/migrations-pg",
});
