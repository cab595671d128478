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
import { type CyrnelError, notFound } from "../../errors.js";
import { closestNames } from "../../lib/closest.js";
import { seesService, type Viewer } from "../governance/caller.js";
import type { ServiceStore } from "./service-store.js";

export async function serviceNotFound(
  store: Pick<ServiceStore, "serviceIds">,
  serviceId: string,
  viewer: Viewer,
): Promise<CyrnelError> {
  const visible = (await store.serviceIds()).filter((id) => seesService(viewer, id));
  return notFound(`service "${serviceId}"`, closestNames(serviceId, visible));
}

/** A tool missing from a service that exists (else the service is what is not found). */
export async function toolNotFound(
  store: ServiceStore,
  serviceId: string,
  toolId: string,
  viewer: Viewer,
): Promise<CyrnelError> {
  if (!seesService(viewer, serviceId) || !(await store.get(serviceId)))
    return serviceNotFound(store, serviceId, viewer);
  return notFound(`tool "${toolId}" on service "${serviceId}"`, closestNames(toolId, await store.toolIdsOf(serviceId)));
}
