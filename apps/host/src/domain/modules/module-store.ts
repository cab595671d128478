/** The modules store: one row per module the host has seen, with the operator's flag, config and source. */
import type { ValidManifest } from "./manifest.js";

export interface ModuleRow {
  id: string;
  type: "adapter" | "environment";
  name: string;
  description: string;
  /** Last version seen on disk or in code. */
  version: string;
  builtin: boolean;
  enabled: boolean;
  /** Registry descriptor URL for registry installs, null otherwise. */
  source: string | null;
  config: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface ModuleStore {
  get(id: string): Promise<ModuleRow | undefined>;
  /** Ordered by id. */
  all(): Promise<ModuleRow[]>;
  /** Records what the manifest says; a new row starts enabled only for a built-in. */
  upsert(manifest: ValidManifest, builtin: boolean): Promise<void>;
  setEnabled(id: string, enabled: boolean): Promise<void>;
  setConfig(id: string, config: Record<string, unknown>): Promise<void>;
  /** The registry descriptor URL a module was installed from. */
  setSource(id: string, source: string | null): Promise<void>;
  /** The module's row and its secrets, in one transaction. */
  delete(id: string): Promise<void>;
}
