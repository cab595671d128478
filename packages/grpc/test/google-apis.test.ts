import type { AdapterModule, ServiceDefinition } from "@cyrnel/sdk";
import * as grpc from "@grpc/grpc-js";
import AjvModule from "ajv";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { instantiate } from "../src/index.js";
import { bytesService } from "./helpers/bytes-server.js";
import { Oracle } from "./helpers/oracle.js";
import { protoSet } from "./helpers/protos.js";
import { sample } from "./helpers/samples.js";
import { startServer } from "./helpers/server.js";

/**
 * A breadth sample of Google's published API protos (`google-proto-files`):
 * each installs from its proto set (with every import it names), every
 * tool's schemas compile with ajv, and every tool is called on a real
 * server that decodes the request and encodes a response with protobuf-es
 * over buf-compiled descriptors: the request the adapter sends is what
 * the schema-shaped sample means, and the result is what the answer means.
 */

const APIS = [
  "google/pubsub/v1/pubsub.proto",
  "google/cloud/language/v1/language_service.proto",
  "google/cloud/vision/v1/image_annotator.proto",
  "google/cloud/translate/v3/translation_service.proto",
  "google/cloud/speech/v1/cloud_speech.proto",
  "google/cloud/texttospeech/v1/cloud_tts.proto",
  "google/cloud/tasks/v2/cloudtasks.proto",
  "google/cloud/scheduler/v1/cloudscheduler.proto",
  "google/cloud/secretmanager/v1/service.proto",
  "google/cloud/kms/v1/service.proto",
  "google/cloud/redis/v1/cloud_redis.proto",
  "google/cloud/functions/v1/functions.proto",
  "google/cloud/dialogflow/v2/session.proto",
  "google/cloud/bigquery/storage/v1/storage.proto",
  "google/firestore/v1/firestore.proto",
  "google/datastore/v1/datastore.proto",
  "google/spanner/v1/spanner.proto",
  "google/bigtable/v2/bigtable.proto",
  "google/logging/v2/logging.proto",
  "google/monitoring/v3/metric_service.proto",
  "google/longrunning/operations.proto",
  "google/iam/v1/iam_policy.proto",
  "google/cloud/resourcemanager/v3/projects.proto",
  "google/cloud/aiplatform/v1/prediction_service.proto",
  "google/devtools/cloudtrace/v2/tracing.proto",
  "google/cloud/workflows/v1/workflows.proto",
  "google/cloud/run/v2/service.proto",
  "google/cloud/securitycenter/v1/securitycenter_service.proto",
  "google/cloud/dataproc/v1/clusters.proto",
  "google/cloud/documentai/v1/document_processor_service.proto",
  "google/cloud/videointelligence/v1/video_intelligence.proto",
  "google/cloud/talent/v4/job_service.proto",
  "google/cloud/billing/v1/cloud_billing.proto",
  "google/cloud/asset/v1/asset_service.proto",
  "google/storage/v2/storage.proto",
  "google/cloud/osconfig/v1/osconfig_service.proto",
];

const Ajv = AjvModule as unknown as typeof AjvModule.default;
const addFormats = addFormatsModule as unknown as (ajv: InstanceType<typeof Ajv>) => void;

interface Domain {
  path: string;
  request: string;
  response: string;
  serverStreaming: boolean;
}

describe.each(APIS)("%s", (entry) => {
  it("installs, its schemas compile, and every tool round-trips on a real server", async () => {
    const files = protoSet([entry]);
    const adapter: AdapterModule = instantiate();
    const definition: ServiceDefinition = await adapter.generateDefinition(JSON.stringify({ protos: files }));
    expect(definition.tools.length).toBeGreaterThan(0);
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const oracle = Oracle.of(files);

    // The server: every method of every service, decoding and answering with protobuf-es.
    const tools = definition.tools.map((tool) => ({
      tool,
      domain: tool.adapterDomain as unknown as Domain,
      input: sample(tool.inputSchema),
      output: sample(
        tool.outputSchema.type === "array"
          ? { ...(tool.outputSchema.items as object), $defs: tool.outputSchema.$defs }
          : tool.outputSchema,
      ),
    }));
    const received = new Map<string, unknown>();
    const server = await startServer((s) => {
      const byService = new Map<string, typeof tools>();
      for (const entry of tools) {
        const service = entry.domain.path.slice(1, entry.domain.path.lastIndexOf("/"));
        byService.set(service, [...(byService.get(service) ?? []), entry]);
      }
      for (const [service, entries] of byService) {
        const methods = Object.fromEntries(
          entries.map((e) => [
            e.domain.path.slice(e.domain.path.lastIndexOf("/") + 1),
            { serverStreaming: e.domain.serverStreaming },
          ]),
        );
        const handlers = Object.fromEntries(
          entries.map((e) => [
            e.domain.path.slice(e.domain.path.lastIndexOf("/") + 1),
            (
              call: grpc.ServerUnaryCall<Buffer, Buffer> & grpc.ServerWritableStream<Buffer, Buffer>,
              done?: grpc.sendUnaryData<Buffer>,
            ) => {
              let answer: Buffer;
              try {
                received.set(e.tool.id, oracle.decode(e.domain.request.slice(1), call.request));
                answer = Buffer.from(oracle.encode(e.domain.response.slice(1), e.output));
              } catch (error) {
                // The test fails on this message: the server could not read the request or encode the answer.
                const status = { code: grpc.status.INTERNAL, details: `test server: ${(error as Error).message}` };
                if (done) return done(status);
                return call.destroy(Object.assign(new Error(status.details), status));
              }
              if (done) return done(null, answer);
              call.write(answer);
              call.write(answer);
              call.end();
            },
          ]),
        );
        s.addService(bytesService(service, methods), handlers);
      }
    });
    try {
      await adapter.hydrateService({
        id: "api",
        adapterDomain: definition.adapterDomain,
        tools: Object.fromEntries(definition.tools.map((t) => [t.id, { adapterDomain: t.adapterDomain }])),
        config: { target: server.address, timeoutMs: 30_000, maxStreamMessages: 10, maxResponseBytes: 10_000_000 },
        secrets: {},
      });
      for (const { tool, domain, input, output } of tools) {
        const validateInput = ajv.compile(tool.inputSchema);
        const validateOutput = ajv.compile(tool.outputSchema);
        expect(validateInput(input), `${tool.id} input: ${ajv.errorsText(validateInput.errors)}`).toBe(true);
        const result = await adapter.invoke({
          serviceId: "api",
          toolId: tool.id,
          parameters: input as Record<string, unknown>,
        });
        expect(received.get(tool.id), `${tool.id} request`).toEqual(oracle.normalise(domain.request.slice(1), input));
        const expected = oracle.normalise(domain.response.slice(1), output);
        expect(result, `${tool.id} result`).toEqual(domain.serverStreaming ? [expected, expected] : expected);
        expect(validateOutput(result), `${tool.id} output: ${ajv.errorsText(validateOutput.errors)}`).toBe(true);
      }
    } finally {
      await adapter.teardown();
      await server.stop();
    }
  });
});
