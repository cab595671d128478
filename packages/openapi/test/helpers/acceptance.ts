import { request as httpRequest } from "node:http";
import type { ServiceDefinition } from "@cyrnel/sdk";
import { instantiate } from "../../src/index.js";
import { FakeHost } from "./host.js";
import { startPrism } from "./prism.js";
import { sampleParameters } from "./sample.js";
import { type Recorded, startServer } from "./server.js";

/**
 * The Prism acceptance run: every operation of a real document is invoked
 * through the adapter with parameters generated from its tool's
 * `inputSchema`, with `baseUrl` pointed at a recording proxy in front of
 * Prism. A request counts as accepted when Prism reports no request
 * violation (`sl-violations` header or a 422 problem with `validation`)
 * and no routing, security or content-type error.
 */

/** Prism problem types that are about the response Prism would produce, not about the request. */
const RESPONSE_PROBLEMS = ["NO_RESPONSE_DEFINED", "SCHEMA_TOO_COMPLEX", "NO_COMPLEX_OBJECT_TEXT"];

export interface Outcome {
  toolId: string;
  /** `METHOD /target` as it reached Prism, or `null` when nothing was sent. */
  sent: string | null;
  /** Why Prism (or the adapter, before sending) refused it; empty when accepted. */
  problems: string[];
}

export interface AcceptanceReport {
  document: string;
  tools: number;
  outcomes: Outcome[];
  /** Tools for which no valid parameters could be generated (not invoked). */
  unsampled: string[];
}

interface Verdict {
  status: number;
  problems: string[];
}

function violations(header: string | string[] | undefined): string[] {
  if (typeof header !== "string") return [];
  try {
    const list = JSON.parse(header) as { location?: string[]; severity?: string; message?: string }[];
    return list
      .filter((item) => item.location?.[0] === "request" && item.severity === "Error")
      .map((item) => item.message ?? JSON.stringify(item));
  } catch {
    return [`unreadable sl-violations header: ${header}`];
  }
}

function problemsOf(status: number, headers: Record<string, string | string[] | undefined>, body: Buffer): string[] {
  const found = violations(headers["sl-violations"]);
  if (!String(headers["content-type"] ?? "").includes("problem+json")) return found;
  try {
    const problem = JSON.parse(body.toString("utf8")) as {
      type?: string;
      title?: string;
      detail?: string;
      validation?: { message?: string; location?: string[] }[];
    };
    if (RESPONSE_PROBLEMS.some((name) => problem.type?.endsWith(`#${name}`))) return found;
    if (problem.validation?.length) {
      return [...found, ...problem.validation.map((item) => item.message ?? JSON.stringify(item))];
    }
    return [...found, `${status} ${problem.title ?? ""}: ${problem.detail ?? ""}`];
  } catch {
    return found;
  }
}

/** Forward one recorded request to Prism, verbatim, and judge Prism's answer. */
function forward(
  prismUrl: string,
  recorded: Recorded,
): Promise<Verdict & { headers: Record<string, string>; body: Buffer }> {
  const target = new URL(prismUrl);
  return new Promise((resolve, reject) => {
    const headers = { ...recorded.headers, host: target.host };
    const outgoing = httpRequest(
      { host: target.hostname, port: target.port, method: recorded.method, path: recorded.target, headers },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("end", () => {
          const body = Buffer.concat(chunks);
          const status = incoming.statusCode ?? 0;
          const passed: Record<string, string> = {};
          for (const name of ["content-type"]) {
            const value = incoming.headers[name];
            if (typeof value === "string") passed[name] = value;
          }
          resolve({ status, problems: problemsOf(status, incoming.headers, body), headers: passed, body });
        });
        incoming.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(recorded.body);
  });
}

/** Secrets for every security scheme the adapter offers (Prism only checks that credentials are present). */
function secretsFor(definition: ServiceDefinition): Record<string, unknown> {
  const schemes = (definition.adapterDomain as { securitySchemes: Record<string, { type: string }> }).securitySchemes;
  const secrets: Record<string, unknown> = {};
  for (const [name, scheme] of Object.entries(schemes)) {
    if (scheme.type === "basic") secrets[name] = { username: "prism-user", password: "prism-password" };
    else if (scheme.type === "oauth2" || scheme.type === "openIdConnect")
      secrets[name] = { accessToken: "prism-token" };
    else secrets[name] = "prism-secret";
  }
  return secrets;
}

export async function acceptance(documentPath: string, text: string, label = documentPath): Promise<AcceptanceReport> {
  const prism = await startPrism(documentPath);
  const verdicts: (Verdict | null)[] = [];
  const proxy = await startServer((recorded, response) => {
    forward(prism.url, recorded).then(
      (verdict) => {
        verdicts.push(verdict);
        response.writeHead(verdict.status, verdict.headers);
        response.end(verdict.body);
      },
      (error: Error) => {
        verdicts.push({ status: 0, problems: [`proxy could not reach Prism: ${error.message}`] });
        response.writeHead(502);
        response.end();
      },
    );
  });
  try {
    const host = new FakeHost(instantiate());
    const probe = await host.adapter.generateDefinition(text);
    const definition = await host.install("prism", text, { baseUrl: proxy.url, timeoutMs: 120_000 }, secretsFor(probe));
    const outcomes: Outcome[] = [];
    const unsampled: string[] = [];
    for (const tool of definition.tools) {
      const parameters = sampleParameters(tool.inputSchema);
      if (parameters === undefined) {
        unsampled.push(tool.id);
        continue;
      }
      const before = proxy.requests.length;
      let failure: string | undefined;
      try {
        await host.invoke("prism", tool.id, parameters);
      } catch (error) {
        failure = (error as Error).message;
      }
      const sent = proxy.requests.slice(before);
      if (sent.length === 0) {
        outcomes.push({ toolId: tool.id, sent: null, problems: [`not sent: ${failure}`] });
        continue;
      }
      // Wait for the proxy's verdict on every request of this call (it is pushed after Prism answered).
      while (verdicts.length < proxy.requests.length) await new Promise((resolve) => setTimeout(resolve, 5));
      const problems = verdicts.slice(before).flatMap((verdict) => verdict?.problems ?? []);
      const first = sent[0]!;
      outcomes.push({ toolId: tool.id, sent: `${first.method} ${first.target}`, problems });
    }
    return { document: label, tools: definition.tools.length, outcomes, unsampled };
  } finally {
    await proxy.close();
    await prism.stop();
  }
}

/** One line per refused request, for failure messages and the sweep's report. */
export function describeRefusals(report: AcceptanceReport): string[] {
  return report.outcomes
    .filter((outcome) => outcome.problems.length > 0)
    .map(
      (outcome) =>
        `${report.document} ${outcome.toolId} (${outcome.sent ?? "not sent"}): ${outcome.problems.join("; ")}`,
    );
}
