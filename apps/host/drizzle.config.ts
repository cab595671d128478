import { defineConfig } from "drizzle-kit";

// `pnpm --filter @cyrnel/host db:generate` writes a new SQL migration after a
// change to src/db/schema.ts. Migrations are applied at startup.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./src/db/migrations",
});
