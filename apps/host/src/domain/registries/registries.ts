/**
 * The registries an operator has added (format: examples/registry/README.md): add (fetch and
 * validate the well-known document), list, remove, and browse their
 * definition and module indexes. Indexes are read live on every browse (no
 * cache), so a registry's changes show up at once.
 */
import type { IndexItem, RegistryRecord } from "../../contract/registries.js";
import { CyrnelError, notFound } from "../../errors.js";
import { casefold as fold } from "../../lib/casefold.js";
import { isUniqueViolation } from "../../lib/unique-violation.js";
import type { HostLogger } from "../../log.js";
import { MODULE_ID } from "../modules/manifest.js";
import type { RegistryClient } from "./registry-client.js";
import type { RegistryRow, RegistryStore } from "./registry-store.js";

/** Registry ids follow the module id rule: lowercase letters, digits, `.`, `_`, `-`; 1–64 characters. */
export const REGISTRY_ID = MODULE_ID;

export type IndexKind = "definitions" | "modules";

export class Registries {
  constructor(private readonly options: { store: RegistryStore; client: RegistryClient; logger: HostLogger }) {}

  async add(input: { url: string; id?: string }): Promise<RegistryRecord> {
    if (input.id !== undefined) this.checkId(input.id, "registry id");
    if (input.id !== undefined && (await this.options.store.get(input.id))) throw conflict(input.id);
    const { base, document } = await this.options.client.wellKnown(input.url);
    const id = input.id ?? document.id;
    if (input.id === undefined) this.checkId(id, `the registry's own id (pass "id" to choose another)`);
    try {
      const row = await this.options.store.insert({
        id,
        name: document.name,
        url: base,
        definitionsUrl: document.definitionsUrl,
        modulesUrl: document.modulesUrl,
      });
      this.options.logger.info("registry added", { registry: id, url: base });
      return record(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(id);
      throw error;
    }
  }

  async get(id: string): Promise<RegistryRecord> {
    return record(await this.row(id));
  }

  async list(filter: { after?: string; limit: number }): Promise<RegistryRecord[]> {
    return (await this.options.store.list(filter)).map(record);
  }

  /** Forgets the registry. Services and modules installed from it keep their descriptor URL and still update. */
  async remove(id: string): Promise<void> {
    if (!(await this.options.store.delete(id))) throw notFound(`registry "${id}"`);
    this.options.logger.info("registry removed", { registry: id });
  }

  /**
   * Items of the registry's definitions or modules index (every page), in
   * the registry's order, filtered by a case-insensitive substring of id,
   * name or description. A registry without that index has no items.
   */
  async browse(id: string, kind: IndexKind, query?: string): Promise<IndexItem[]> {
    const row = await this.row(id);
    const start = kind === "definitions" ? row.definitionsUrl : row.modulesUrl;
    if (start === null) return [];
    const items = await this.options.client.index(start, `${kind} index of registry "${id}"`);
    if (query === undefined || query === "") return items;
    const needle = fold(query);
    return items.filter((item) => [item.id, item.name, item.description].some((field) => fold(field).includes(needle)));
  }

  private async row(id: string): Promise<RegistryRow> {
    const row = await this.options.store.get(id);
    if (!row) throw notFound(`registry "${id}"`);
    return row;
  }

  private checkId(id: string, what: string): void {
    if (!REGISTRY_ID.test(id)) {
      throw new CyrnelError(
        "bad_request",
        `${what} "${id}" is not a valid registry id: use 1–64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit`,
      );
    }
  }
}

const conflict = (id: string) => new CyrnelError("conflict", `registry "${id}" already exists`);

function record(row: RegistryRow): RegistryRecord {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    definitionsUrl: row.definitionsUrl,
    modulesUrl: row.modulesUrl,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
