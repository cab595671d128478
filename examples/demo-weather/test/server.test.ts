import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoWeather } from "../src/server.mjs";

let api: Awaited<ReturnType<typeof startDemoWeather>>;
beforeAll(async () => {
  api = await startDemoWeather({ token: "t0ken" });
});
afterAll(() => api?.close());

describe("demo-weather", () => {
  it("serves an OpenAPI document that points at itself", async () => {
    const document = await (await fetch(`${api.url}/openapi.json`)).json();
    expect(document.servers).toEqual([{ url: api.url }]);
    expect(Object.keys(document.paths)).toEqual(["/cities", "/forecast/{city}", "/alerts"]);
  });

  it("answers deterministically", async () => {
    const first = await (await fetch(`${api.url}/forecast/oslo?days=2`)).json();
    const second = await (await fetch(`${api.url}/forecast/oslo?days=2`)).json();
    expect(first).toEqual(second);
    expect(first.days).toHaveLength(2);
    expect((await fetch(`${api.url}/forecast/atlantis`)).status).toBe(404);
    expect(await (await fetch(`${api.url}/cities?country=no`)).json()).toHaveLength(2);
  });

  it("requires the bearer token for alerts", async () => {
    const post = (authorization?: string) =>
      fetch(`${api.url}/alerts`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(authorization && { authorization }) },
        body: JSON.stringify({ city: "oslo", belowC: -5 }),
      });
    expect((await post()).status).toBe(401);
    const created = await post("Bearer t0ken");
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ city: "oslo", belowC: -5 });
  });
});
