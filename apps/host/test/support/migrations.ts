/** Earlier schemas in tests: a copy of a dialect's migrations folder cut before a migration. */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";

/** A copy of `migrationsFolder` whose journal stops right before the migration `tag`: the schema of an earlier host. */
export function migrationsBefore(migrationsFolder: string, tag: string): string {
  const folder = mkdtempSync(join(tmpdir(), "cyrnel-migrations-"));
  cpSync(migrationsFolder, folder, { recursive: true });
  const journalFile = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8"));
  const index = journal.entries.findIndex((entry: { tag: string }) => entry.tag === tag);
  expect(index).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, index);
  writeFileSync(journalFile, JSON.stringify(journal));
  return folder;
}
