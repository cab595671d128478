/**
 * The catalog a process sees (`Object.keys(cyrnel.services)`): the services
 * of its key's allow-list only. Built once per catalog revision and
 * allow-list and frozen like the catalog, so every run with the same key
 * shares one object (environments reuse their serialisation of it).
 */
import type { ServiceCatalog } from "@cyrnel/sdk";
import type { Caller } from "./caller.js";

const filtered = new WeakMap<ServiceCatalog, Map<string, ServiceCatalog>>();

export function visibleCatalog(catalog: ServiceCatalog, caller: Pick<Caller, "services">): ServiceCatalog {
  const allowed = caller.services;
  if (allowed === null) return catalog;
  let byList = filtered.get(catalog);
  if (!byList) {
    byList = new Map();
    filtered.set(catalog, byList);
  }
  // Service ids are identifiers: no comma in them.
  const listKey = allowed.join(",");
  let visible = byList.get(listKey);
  if (!visible) {
    visible = Object.freeze(Object.fromEntries(Object.entries(catalog).filter(([id]) => allowed.includes(id))));
    byList.set(listKey, visible);
  }
  return visible;
}
