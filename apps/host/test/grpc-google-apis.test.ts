import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";
import { typeErrors } from "./support/typecheck.js";

/**
 * A breadth sample of Google's published API protos (`google-proto-files`)
 * installed through the host with the bundled grpc adapter: every one
 * installs and enables, and the declarations `GET /environment/types`
 * answers for all of them together compile with TypeScript, as process
 * code is checked against them. (The adapter's own suite calls every tool
 * of these on a real server: packages/grpc/test/google-apis.test.ts.)
 */
const APIS: Record<string, string> = {
  pubsub: "google/pubsub/v1/pubsub.proto",
  language: "google/cloud/language/v1/language_service.proto",
  vision: "google/cloud/vision/v1/image_annotator.proto",
  translate: "google/cloud/translate/v3/translation_service.proto",
  speech: "google/cloud/speech/v1/cloud_speech.proto",
  tasks: "google/cloud/tasks/v2/cloudtasks.proto",
  secrets: "google/cloud/secretmanager/v1/service.proto",
  kms: "google/cloud/kms/v1/service.proto",
  firestore: "google/firestore/v1/firestore.proto",
  datastore: "google/datastore/v1/datastore.proto",
  spanner: "google/spanner/v1/spanner.proto",
  bigtable: "google/bigtable/v2/bigtable.proto",
  logging: "google/logging/v2/logging.proto",
  monitoring: "google/monitoring/v3/metric_service.proto",
  operations: "google/longrunning/operations.proto",
  iam: "google/iam/v1/iam_policy.proto",
  projects: "google/cloud/resourcemanager/v3/projects.proto",
  workflows: "google/cloud/workflows/v1/workflows.proto",
  run: "google/cloud/run/v2/service.proto",
  storage: "google/storage/v2/storage.proto",
};

/** Google's protos, as the grpc adapter's own tests resolve them. */
const GOOGLE_PROTOS = dirname(
  createRequire(join(import.meta.dirname, "..", "..", "..", "packages", "grpc", "package.json")).resolve(
    "google-proto-files/package.json",
  ),
);

/** The definition text of `entry` with every file it imports (the well-known types are the adapter's own). */
function protosDefinition(entry: string, target: string): string {
  const protos: Record<string, string> = {};
  for (const queue = [entry]; queue.length > 0; ) {
    const path = queue.shift() as string;
    if (path in protos || path.startsWith("google/protobuf/")) continue;
    protos[path] = readFileSync(join(GOOGLE_PROTOS, path), "utf8");
    for (const match of protos[path].matchAll(/^\s*import\s+(?:public\s+)?"([^"]+)"\s*;/gm))
      queue.push(match[1] as string);
  }
  return JSON.stringify({ protos, target });
}

let host: TestHost;

beforeAll(async () => {
  // The whole declarations in one answer (by default a longer answer is an index meant for an LLM).
  host = await startHost({ env: { CYRNEL_AGENT_TEXT_LIMIT_CHARS: "100000000" } });
});
afterAll(() => host?.stop());

describe("Google's published APIs through the grpc adapter", () => {
  it(`installs ${Object.keys(APIS).length} of them, and their types compile with TypeScript`, async () => {
    for (const [id, proto] of Object.entries(APIS)) {
      const installed = await host.api("POST", "/services", {
        id,
        adapter: "grpc",
        definition: protosDefinition(proto, "127.0.0.1:1"),
        enabled: true,
      });
      expect(installed.status, `${id}: ${installed.text.slice(0, 500)}`).toBe(201);
      expect(installed.body.toolCount, id).toBeGreaterThan(0);
      expect(installed.body.enabled, id).toBe(true);
    }
    const types = await host.api("GET", "/environment/types");
    expect(types.status).toBe(200);
    for (const id of Object.keys(APIS)) expect(types.text).toMatch(new RegExp(`\\breadonly ${id}: CyrnelServices\\.`));
    // Code written against a few of them: a message with a oneof and maps (Firestore), 64-bit ints as strings
    // (Bigtable), a Timestamp and a Duration (Tasks), a streaming method's array (Firestore Listen is bidi: not a tool).
    const usage = `
      export async function use(): Promise<string[]> {
        const doc = await cyrnel.services.firestore.tools.GetDocument.invoke({ name: "projects/p/databases/d/documents/c/x" });
        const fields = Object.keys(doc.fields ?? {});
        const rows = await cyrnel.services.bigtable.tools.ReadRows.invoke({ tableName: "t", rowsLimit: "10" });
        const task = await cyrnel.services.tasks.tools.CreateTask.invoke({ parent: "q", task: { scheduleTime: "2026-11-29T00:00:00Z", dispatchDeadline: "1.5s" } });
        return [...fields, String(rows.length), task.name ?? ""];
      }
    `;
    expect(typeErrors({ "cyrnel.d.ts": types.text, "use.ts": usage })).toEqual([]);
  });
});
