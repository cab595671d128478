/**
 * "Not found" for a service or tool id, with the closest ids that exist
 * ("did you mean `findPetsByStatus`?"): an agent that misspells an id, or
 * writes Slack's `chat.postMessage` for the tool `chat_postMessage`, learns
 * the right one from the error instead of a second search.
 *
 * Suggestions come from what the viewer may see only: a service outside an
 * API key's allow-list is never named, and asking for it answers exactly
 * what asking for a service that does not exist answers.
 */
import { notFound } from "../../errors.js";
import { closestNames } from "../../lib/closest.js";
import { seesService, type Viewer } from "../governance/caller.js";
import type { ServiceStore } from "./service-store.js";

export function serviceNotFound(store: ServiceStore, serviceId: string, viewer: Viewer) {
  const visible = store.serviceIds().filter((id) => seesService(viewer, id));
  return notFound(`service "${serviceId}"`, closestNames(serviceId, visible));
}

/** A tool missing from a service that exists (else the service is what is not found). */
export function toolNotFound(store: ServiceStore, serviceId: string, toolId: string, viewer: Viewer) {
  if (!seesService(viewer, serviceId) || !store.get(serviceId)) return serviceNotFound(store, serviceId, viewer);
  return notFound(`tool "${toolId}" on service "${serviceId}"`, closestNames(toolId, store.toolIdsOf(serviceId)));
}
