// tsc does not copy non-TS files: ship the SQL migrations beside the compiled client.
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const target = join(root, "dist", "db", "migrations");
rmSync(target, { recursive: true, force: true });
cpSync(join(root, "src", "db", "migrations"), target, { recursive: true });
