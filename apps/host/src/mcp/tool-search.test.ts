import { describe, expect, it } from "vitest";
import type { ToolRecord } from "../contract/tools.js";
import type { ToolFilter } from "./host-access.js";
import { rankTools, searchTools } from "./tool-search.js";

const tool = (id: string, name: string, description = ""): ToolRecord => ({
  serviceId: "weather",
  id,
  name,
  description,
  enabled: true,
  effectivelyEnabled: true,
});

const TOOLS = [
  tool("listCities", "List the cities with forecasts"),
  tool("getForecast", "Daily forecast for a city"),
  tool("createAlert", "Subscribe to an alert", "Needs a bearer token"),
];

/** Stands in for the host's filter: one case-insensitive substring of name or description. */
const access = {
  queries: [] as (string | undefined)[],
  async listTools(filter: ToolFilter) {
    this.queries.push(filter.query);
    const needle = filter.query?.toLowerCase();
    return TOOLS.filter(
      (t) => needle === undefined || `${t.name} ${t.description}`.toLowerCase().includes(needle),
    ).slice(0, filter.limit);
  },
};

describe("searchTools", () => {
  it.each([
    ["one word (the tool with it in its id first)", "forecast", ["getForecast", "listCities"]],
    ["words in another order than the text", "city daily", ["getForecast"]],
    ["the tools with more of the words first", "cities forecast", ["listCities", "getForecast"]],
    ["the exact phrase first", "daily forecast", ["getForecast", "listCities"]],
    ["words no tool has", "submarine torpedo", []],
    ["an empty query (everything)", "  ", ["listCities", "getForecast", "createAlert"]],
  ])("finds tools for %s", async (_label, query, ids) => {
    const found = await searchTools(access, { query, limit: 10 });
    expect(found.map((t) => t.id)).toEqual(ids);
  });

  it("asks the host once for a single word, and for the phrase and each word otherwise", async () => {
    access.queries = [];
    await searchTools(access, { query: "Forecast", limit: 5 });
    expect(access.queries).toEqual(["Forecast"]);
    access.queries = [];
    await searchTools(access, { query: "alert  token alert", limit: 5 });
    expect(access.queries).toEqual(["alert  token alert", "alert", "token"]);
  });

  it("cuts to the limit after ranking", async () => {
    const found = await searchTools(access, { query: "city forecast", limit: 1 });
    expect(found.map((t) => t.id)).toEqual(["getForecast"]);
  });
});

describe("rankTools", () => {
  it("keeps the order of equally good matches", () => {
    const ranked = rankTools(TOOLS, "qq zz", ["qq", "zz"]);
    expect(ranked.map((t) => t.id)).toEqual(["listCities", "getForecast", "createAlert"]);
  });

  it("matches the tool id too", () => {
    expect(rankTools(TOOLS, "createalert bearer", ["createalert", "bearer"])[0]!.id).toBe("createAlert");
  });
});
