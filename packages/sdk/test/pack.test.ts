/**
 * Proves a third party can build a module against the published SDK alone:
 * pack it, install the tarball into an empty project outside the workspace,
 * type-check an adapter written against it and import it at run time.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const sdkDir = join(import.meta.dirname, "..");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

const adapterSource = `
import type { AdapterModule, InvokeInput, ModuleSetupContext, ServiceDefinition, ServiceState } from "@cyrnel/sdk";
import { AdapterError, EXECUTION_EXIT_STATES, isValidIdentifier } from "@cyrnel/sdk";

class PingAdapter implements AdapterModule {
  private state = new Map<string, ServiceState>();
  async setup(_context: ModuleSetupContext) {}
  async teardown() { this.state.clear(); }
  async generateDefinition(input: string): Promise<ServiceDefinition> {
    const id = input.trim();
    if (!isValidIdentifier(id)) throw new Error("bad id");
    return {
      name: id,
      description: "pings",
      configSchema: { type: "object", properties: {} },
      secretsSchema: { type: "object", properties: {} },
      adapterDomain: {},
      tools: [{ id, name: id, description: "Health check", inputSchema: { type: "object" }, outputSchema: { type: "object" }, adapterDomain: {} }],
    };
  }
  async hydrateService(state: ServiceState) { this.state.set(state.id, state); }
  async dehydrateService(id: string) { this.state.delete(id); }
  async invoke(input: InvokeInput): Promise<unknown> {
    const svc = this.state.get(input.serviceId);
    if (!svc) throw new Error("unknown service " + input.serviceId);
    if (input.toolId === "missing") throw new AdapterError("upstream answered 404", { status: 404, body: { error: "gone" } });
    return { ok: true, exits: EXECUTION_EXIT_STATES.length };
  }
}

export function instantiate(): AdapterModule {
  return new PingAdapter();
}
`;

// A module that breaks the contract: must NOT type-check, which proves the
// published declarations are real types rather than \`any\`.
const brokenSource = `
import type { AdapterModule } from "@cyrnel/sdk";
export const broken: AdapterModule = {
  async setup() {}, async teardown() {},
  async generateDefinition(input: string) { return { name: input }; },
  async hydrateService() {}, async dehydrateService() {},
  async invoke() { return null; },
};
`;

const tsconfig = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
  },
};

let project: string;

beforeAll(() => {
  const root = mkdtempSync(join(tmpdir(), "cyrnel-sdk-pack-"));
  const packDir = join(root, "pack");
  mkdirSync(packDir);
  execFileSync("npm", ["pack", "--silent", "--pack-destination", packDir], { cwd: sdkDir, stdio: "pipe" });
  const tarball = readdirSync(packDir).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack produced no tarball");

  project = join(root, "consumer");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", join(packDir, tarball)], {
    cwd: project,
    stdio: "pipe",
  });
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ ...tsconfig, include: ["adapter.ts"] }));
  writeFileSync(join(project, "tsconfig.broken.json"), JSON.stringify({ ...tsconfig, include: ["broken.ts"] }));
  writeFileSync(join(project, "adapter.ts"), adapterSource);
  writeFileSync(join(project, "broken.ts"), brokenSource);
}, 120_000);

afterAll(() => {
  if (project) rmSync(join(project, ".."), { recursive: true, force: true });
});

function typecheck(config: string) {
  return spawnSync(process.execPath, [tsc, "-p", config], { cwd: project, encoding: "utf8" });
}

describe("@cyrnel/sdk as a published package", () => {
  it("type-checks an adapter module written against the tarball alone", () => {
    const result = typecheck("tsconfig.json");
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("rejects a module that breaks the AdapterModule contract", () => {
    const result = typecheck("tsconfig.broken.json");
    expect(result.status).not.toBe(0);
    expect(result.stdout).toMatch(/broken\.ts.*(description|configSchema|tools)/s);
  });

  it("points every entry of exports, main and types at a file in the tarball", () => {
    const installed = join(project, "node_modules", "@cyrnel", "sdk");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    const targets: string[] = [manifest.main, manifest.types];
    const collect = (entry: unknown): void => {
      if (typeof entry === "string") targets.push(entry);
      else if (entry && typeof entry === "object") Object.values(entry).forEach(collect);
    };
    collect(manifest.exports);
    expect(targets.length).toBeGreaterThan(3);
    for (const target of targets) expect(existsSync(join(installed, target)), target).toBe(true);
  });

  it("exposes the runtime helpers through the exports map", () => {
    const script = `import("@cyrnel/sdk").then((m) => console.log(JSON.stringify([m.isValidIdentifier("ok"), m.isValidIdentifier("class"), m.EXECUTION_STATES, m.adapterErrorDetails(new m.AdapterError("x", { status: 404 }))])))`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: project,
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual([true, false, ["queued", "running"], { status: 404 }]);
  });
});
