#!/usr/bin/env node
// A deterministic weather API for demos, tests and benchmarks. It serves its
// own OpenAPI 3.1 document at /openapi.json (with `servers` pointing at
// itself), so cyrnel can install it by URL. Plain node:http, no dependencies.
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";

const CITIES = {
  oslo: { name: "Oslo", country: "NO", baseC: 4 },
  lisbon: { name: "Lisbon", country: "PT", baseC: 17 },
  nairobi: { name: "Nairobi", country: "KE", baseC: 21 },
  tromso: { name: "Tromsø", country: "NO", baseC: -3 },
};
const SUMMARIES = ["sunny", "cloudy", "rain", "snow", "windy"];

export function openApiDocument(baseUrl) {
  const City = {
    type: "object",
    required: ["id", "name", "country"],
    properties: {
      id: { type: "string", description: "City id, e.g. oslo" },
      name: { type: "string" },
      country: { type: "string", description: "ISO 3166 country code" },
    },
  };
  const error = { description: "Problem", content: { "application/json": { schema: { type: "object" } } } };
  return {
    openapi: "3.1.0",
    info: { title: "Demo Weather", version: "1.0.0", description: "Deterministic forecasts for a few cities." },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { City },
    },
    paths: {
      "/cities": {
        get: {
          operationId: "listCities",
          summary: "List the cities with forecasts",
          parameters: [
            { name: "country", in: "query", schema: { type: "string" }, description: "Filter by country code" },
          ],
          responses: {
            200: {
              description: "Cities",
              content: {
                "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/City" } } },
              },
            },
          },
        },
      },
      "/forecast/{city}": {
        get: {
          operationId: "getForecast",
          summary: "Daily forecast for a city",
          parameters: [
            {
              name: "city",
              in: "path",
              required: true,
              schema: { type: "string" },
              description: "City id from listCities",
            },
            { name: "days", in: "query", schema: { type: "integer", minimum: 1, maximum: 7, default: 3 } },
          ],
          responses: {
            200: {
              description: "Forecast",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["city", "days"],
                    properties: {
                      city: { $ref: "#/components/schemas/City" },
                      days: {
                        type: "array",
                        items: {
                          type: "object",
                          required: ["day", "tempC", "summary"],
                          properties: {
                            day: { type: "integer" },
                            tempC: { type: "number" },
                            summary: { type: "string", enum: SUMMARIES },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
            404: error,
          },
        },
      },
      "/alerts": {
        post: {
          operationId: "createAlert",
          summary: "Subscribe to an alert (needs a bearer token)",
          security: [{ bearer: [] }],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["city", "belowC"],
                  properties: { city: { type: "string" }, belowC: { type: "number" } },
                },
              },
            },
          },
          responses: {
            201: {
              description: "Created",
              content: {
                "application/json": {
                  schema: { type: "object", properties: { id: { type: "string" }, city: { type: "string" } } },
                },
              },
            },
            401: error,
          },
        },
      },
    },
  };
}

function forecast(id, days) {
  const city = CITIES[id];
  return {
    city: { id, name: city.name, country: city.country },
    days: Array.from({ length: days }, (_, day) => ({
      day,
      tempC: city.baseC + ((day * 7 + id.length) % 5) - 2,
      summary: SUMMARIES[(day + id.length) % SUMMARIES.length],
    })),
  };
}

/** Starts the API; resolves with its base URL and a close function. `token` is the bearer token /alerts accepts. */
export function startDemoWeather({ port = 0, host = "127.0.0.1", token = "demo-token" } = {}) {
  let alerts = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    const send = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && url.pathname === "/openapi.json") return send(200, openApiDocument(baseUrl()));
    if (req.method === "GET" && url.pathname === "/cities") {
      const country = url.searchParams.get("country");
      const cities = Object.entries(CITIES)
        .filter(([, city]) => !country || city.country === country.toUpperCase())
        .map(([id, city]) => ({ id, name: city.name, country: city.country }));
      return send(200, cities);
    }
    const match = /^\/forecast\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && match) {
      const id = decodeURIComponent(match[1]).toLowerCase();
      if (!CITIES[id]) return send(404, { error: `unknown city ${id}` });
      const days = Math.min(7, Math.max(1, Number(url.searchParams.get("days") ?? 3) || 3));
      return send(200, forecast(id, days));
    }
    if (req.method === "POST" && url.pathname === "/alerts") {
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: "missing or wrong bearer token" });
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        try {
          const parsed = JSON.parse(body);
          send(201, { id: `alert-${++alerts}`, city: parsed.city, belowC: parsed.belowC });
        } catch {
          send(400, { error: "body must be JSON" });
        }
      });
      return;
    }
    send(404, { error: "not found" });
  });
  const baseUrl = () => `http://${host}:${server.address().port}`;
  return new Promise((resolve) => {
    server.listen(port, host, () =>
      resolve({ url: baseUrl(), close: () => new Promise((done) => server.close(() => done())), server }),
    );
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = Number(process.env.PORT ?? 4010);
  const { url } = await startDemoWeather({ port, token: process.env.DEMO_TOKEN ?? "demo-token" });
  console.log(`demo-weather listening on ${url} (OpenAPI document: ${url}/openapi.json)`);
}
