// tsc does not copy non-TS files: ship the SQL migrations (both dialects) beside the compiled client, and the module-resolution
// hook (plain JavaScript, so that Node can load it on its loader thread also from the TypeScript sources).
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const target = join(root, "dist", "db", "migrations");
rmSync(target, { recursive: true, force: true });
cpSync(join(root, "src", "db", "migrations"), target, { recursive: true });
const pgTarget = join(root, "dist", "db", "migrations-pg");
rmSync(pgTarget, { recursive: true, force: true });
cpSync(join(root, "src", "db", "migrations-pg"), pgTarget, { recursive: true });
const hook = join("domain", "modules", "module-generation-hooks.mjs");
cpSync(join(root, "src", hook), join(root, "dist", hook));
