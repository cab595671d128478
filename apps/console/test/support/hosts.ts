/**
 * The real host (`cyrnel start`, spawned the way the host's own suites do: test/support/host.ts in apps/host, reused
 * here) with an admin key, and the demo weather API as a real upstream serving its own OpenAPI document.
 */
import { startDemoWeather } from "../../../../examples/demo-weather/src/server.mjs";
import { serveRegistry } from "../../../../examples/registry/serve.mjs";
import { startHost, type TestHost } from "../../../host/test/support/host.js";

export const ADMIN_KEY = "console-e2e-admin-key-0123456789";
export const DEMO_TOKEN = "demo-token";

export interface Upstream {
  url: string;
  close(): Promise<void>;
}

export async function startConsoleHost(): Promise<TestHost> {
  return startHost({ env: { CYRNEL_API_KEY: ADMIN_KEY } });
}

export async function startWeather(): Promise<Upstream> {
  return (await startDemoWeather({ token: DEMO_TOKEN })) as Upstream;
}

/** The example registry (petstore and the json-http module, two versions each) as static files. */
export async function startRegistry(): Promise<Upstream> {
  return serveRegistry();
}

export type { TestHost };
