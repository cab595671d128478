export interface CatalogueItem {
  id: string;
  name: string;
  description: string;
  kind: string;
  latestVersion: string;
  /** version → source path relative to the registry folder */
  versions: Record<string, string>;
}

export const CATALOGUE: {
  id: string;
  name: string;
  definitions: { pageSize: number; items: CatalogueItem[] };
  modules: { pageSize: number; items: CatalogueItem[] };
};

/** Builds the registry into `outDir` (default: public/), replacing what is there; returns the paths written, sorted. */
export function buildRegistry(outDir?: string): string[];
