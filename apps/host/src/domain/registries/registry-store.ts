/** The registries store. */
import type { registries } from "../../db/schema.js";

export type RegistryRow = typeof registries.$inferSelect;

export interface RegistryStore {
  get(id: string): Promise<RegistryRow | undefined>;
  /** Ordered by id; `limit + 1` rows so the caller can tell whether there is a next page. */
  list(filter: { after?: string; limit: number }): Promise<RegistryRow[]>;
  /** A registry with that id already there is a unique violation (`isUniqueViolation`). */
  insert(row: Omit<RegistryRow, "createdAt" | "updatedAt">): Promise<RegistryRow>;
  /** Whether there was such a registry. */
  delete(id: string): Promise<boolean>;
}
