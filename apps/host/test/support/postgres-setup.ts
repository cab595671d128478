/**
 * vitest globalSetup of the PostgreSQL run: one throw-away server for the
 * whole run, its admin URL handed to the test files (`inject`).
 */
import type { TestProject } from "vitest/node";
import { startThrowawayPostgres } from "./postgres.js";

declare module "vitest" {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await startThrowawayPostgres();
  project.provide("postgresAdminUrl", server.adminUrl);
  return () => server.stop();
}
