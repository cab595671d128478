import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InProcessHost, startInProcess } from "../support/in-process.js";
import { enableRecorder, installRecorded } from "../support/recorder.js";

/** An environment module whose documentation hooks throw: each request answers an error naming the module and its message. */
let host: InProcessHost;

beforeAll(async () => {
  host = await startInProcess({ modules: ["throw-docs", "recorder"] });
  expect((await host.api("POST", "/modules/throw-docs/enabled", { enabled: true })).status).toBe(200);
  await enableRecorder(host);
  await installRecorded(host, "shelf", [{ id: "list" }], { enabled: true });
});
afterAll(() => host?.stop());

describe("documentation hooks of the environment that throw", () => {
  it.each([
    ["/environment/docs", "generateDocs"],
    ["/environment/types", "generateTypes"],
    ["/tools/shelf/list/docs", "generateToolDocs"],
  ])("%s answers 502 naming the module and what it said", async (path, hook) => {
    const response = await host.api("GET", path);
    expect(response.status).toBe(502);
    expect(response.body.code).toBe("adapter_error");
    expect(response.body.error).toContain(
      `${hook} of module "throw-docs" failed: ${hook} broke: the template is missing`,
    );
  });
});
