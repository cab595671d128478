/** The registries store. */

export interface RegistryRow {
  id: string;
  name: string;
  /** Base URL the well-known document was fetched from. */
  url: string;
  definitionsUrl: string | null;
  modulesUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface RegistryStore {
  get(id: string): Promise<RegistryRow | undefined>;
  /** Ordered by id; `limit + 1` rows so the caller can tell whether there is a next page. */
  list(filter: { after?: string; limit: number }): Promise<RegistryRow[]>;
  /** A registry with that id already there is a unique violation (`isUniqueViolation`). */
  insert(row: Omit<RegistryRow, "createdAt" | "updatedAt">): Promise<RegistryRow>;
  /** Whether there was such a registry. */
  delete(id: string): Promise<boolean>;
}
