// A local HTTP API with an OpenAPI document whose one operation answers after
// a delay: what a tool call that waits on the network looks like to cyrnel.
import { createServer } from "node:http";

export async function startSlowApi() {
  let inFlight = 0;
  let peakInFlight = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    const send = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/openapi.json") return send(200, document(`http://127.0.0.1:${server.address().port}`));
    if (url.pathname !== "/wait") return send(404, { error: "no such path" });
    const ms = Math.min(60_000, Math.max(0, Number(url.searchParams.get("ms")) || 0));
    inFlight++;
    peakInFlight = Math.max(peakInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      send(200, { waitedMs: ms });
    }, ms);
  });
  // A burst opens one connection per concurrent call.
  server.maxConnections = 100_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    peakInFlight: () => peakInFlight,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

function document(baseUrl) {
  return {
    openapi: "3.1.0",
    info: { title: "Slow", version: "1.0.0" },
    servers: [{ url: baseUrl }],
    paths: {
      "/wait": {
        get: {
          operationId: "wait",
          summary: "Answers after `ms` milliseconds",
          parameters: [{ name: "ms", in: "query", required: true, schema: { type: "integer", minimum: 0 } }],
          responses: {
            200: {
              description: "Done waiting",
              content: {
                "application/json": {
                  schema: { type: "object", required: ["waitedMs"], properties: { waitedMs: { type: "integer" } } },
                },
              },
            },
          },
        },
      },
    },
  };
}
