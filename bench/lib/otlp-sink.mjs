// An OTLP/HTTP receiver that accepts every export and discards it, for benches with traces on:
// `node lib/otlp-sink.mjs` prints its URL (set it as OTEL_EXPORTER_OTLP_ENDPOINT), and on SIGINT/SIGTERM how
// many export requests and bytes it took.
import { createServer } from "node:http";

let requests = 0;
let bytes = 0;
const server = createServer((req, res) => {
  req.on("data", (chunk) => {
    bytes += chunk.length;
  });
  req.on("end", () => {
    requests++;
    res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
  });
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(`http://127.0.0.1:${server.address().port}`);
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    console.log(`${requests} export requests, ${bytes} bytes discarded`);
    process.exit(0);
  });
}
