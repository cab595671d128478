/**
 * "Not found" for a service or tool id, with the closest ids that exist
 * ("did you mean `findPetsByStatus`?"): an agent that misspells an id, or
 * writes Slack's `chat.postMessage` for the tool `chat_postMessage`, learns
 * the right one from the error instead of a second search.
 */
import { notFound } from "../../errors.js";
import { closestNames } from "../../lib/closest.js";
import type { ServiceStore } from "./service-store.js";

export function serviceNotFound(store: ServiceStore, serviceId: string) {
  return notFound(`service "${serviceId}"`, closestNames(serviceId, store.serviceIds()));
}

/** A tool missing from a service that exists (else the service is what is not found). */
export function toolNotFound(store: ServiceStore, serviceId: string, toolId: string) {
  if (!store.get(serviceId)) return serviceNotFound(store, serviceId);
  return notFound(`tool "${toolId}" on service "${serviceId}"`, closestNames(toolId, store.toolIdsOf(serviceId)));
}
