import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { OpenApiAdapter } from "../src/adapter.js";
import { instantiate } from "../src/index.js";
import { aliasBomb, deepJson, deepYaml, refDoubling } from "./helpers/hostile-documents.js";

/**
 * Documents that cost far more to process than their size suggests: YAML
 * aliases and `$ref`s that double at every level (a 1.7 KB text that
 * expands to 2^25 schemas), and nesting thousands of levels deep. Each is
 * refused with an error naming the limit, and none of them blocks the
 * caller's event loop: the pipeline runs in a worker thread.
 */

const adapter = instantiate();
afterAll(() => adapter.teardown());

describe("definition limits", () => {
  it("refuses a YAML alias bomb (25 anchors, each aliasing the previous twice) naming the limit", async () => {
    const text = aliasBomb(25);
    expect(text.length).toBeLessThan(2000);
    await expect(adapter.generateDefinition(text)).rejects.toThrow(/more than 5,000,000 values/);
  });

  it("refuses $refs that double at every level, naming the limit", async () => {
    await expect(adapter.generateDefinition(refDoubling(25))).rejects.toThrow(/more than 5,000,000 values/);
  });

  it.each([
    ["JSON, 20,000 nested schemas", deepJson(20_000), /nested more than 256 levels deep/],
    ["JSON, 130 nested schemas", deepJson(130), /nested more than 256 levels deep/],
    // The YAML parser has a nesting limit of its own, met first.
    ["YAML, 20,000 nested schemas", deepYaml(20_000), /Invalid YAML: nesting exceeded maxDepth \(100\)/],
  ])("refuses a document nested too deeply (%s), naming the limit", async (_label, text, message) => {
    await expect(adapter.generateDefinition(text)).rejects.toThrow(message);
  });

  it("refuses a $ref chain that nests too deeply once followed", async () => {
    const schemas: Record<string, unknown> = { s0: { type: "string" } };
    for (let i = 1; i <= 300; i++) {
      schemas[`s${i}`] = { type: "object", properties: { next: { $ref: `#/components/schemas/s${i - 1}` } } };
    }
    const text = JSON.stringify({
      openapi: "3.0.3",
      info: { title: "Chain", version: "1" },
      paths: {},
      components: { schemas },
    });
    await expect(adapter.generateDefinition(text)).rejects.toThrow(/nested more than 256 levels deep/);
  });

  it("accepts documents within the limits, aliases, doubling $refs and nesting included", async () => {
    // 2^18 expansions of the same schema: the schemas of tools carry it once, in `$defs`.
    const doubled = await adapter.generateDefinition(refDoubling(19));
    expect(doubled.tools).toHaveLength(1);
    const aliased = await adapter.generateDefinition(aliasBomb(12));
    expect(aliased.name).toBe("Bomb");
    const nested = await adapter.generateDefinition(deepJson(100));
    expect(nested.name).toBe("Deep");
  });

  it("takes its limits from the module config: raised, a larger document passes; lowered, the message names it", async () => {
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    const configured = instantiate();
    try {
      // 2^21 expansions of one schema, ~25 million values in all: over the default, cheap to process all the same.
      await configured.setup({ config: { maxDefinitionValues: 50_000_000 }, secrets: {}, logger });
      await expect(configured.generateDefinition(refDoubling(22))).resolves.toMatchObject({ name: "Refs" });
      await configured.setup({ config: { maxDefinitionValues: 1_000 }, secrets: {}, logger });
      await expect(configured.generateDefinition(refDoubling(10))).rejects.toThrow(/more than 1,000 values/);
      await configured.setup({ config: { definitionTimeoutMs: 100 }, secrets: {}, logger });
      await expect(configured.generateDefinition(aliasBomb(19))).rejects.toThrow(/took longer than 100 ms/);
    } finally {
      await configured.teardown();
    }
    await expect(adapter.generateDefinition(refDoubling(22))).rejects.toThrow(/more than 5,000,000 values/);
  });

  it("does not block the event loop while a costly document is processed", async () => {
    let ticks = 0;
    let spinning = true;
    const spin = () => {
      ticks++;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    try {
      // 2^19 schemas once the aliases are expanded, ~4 million values: within the limits, but seconds of
      // validation (a YAML alias is the same object in every place, and the validation walks each place).
      const definition = await adapter.generateDefinition(aliasBomb(19));
      expect(definition.name).toBe("Bomb");
    } finally {
      spinning = false;
    }
    expect(ticks).toBeGreaterThan(10);
  });

  it("stops a definition that runs past its deadline, and replaces the stopped worker", async () => {
    const hurried = new OpenApiAdapter(Date.now, { timeoutMs: 50 });
    try {
      // Seconds of work each: the second call needs a new worker, since the first one was terminated.
      for (let round = 0; round < 2; round++) {
        await expect(hurried.generateDefinition(aliasBomb(19))).rejects.toThrow(/took longer than 50 ms to process/);
      }
    } finally {
      await hurried.teardown();
    }
  });

  it("fails a definition whose worker runs out of memory, naming the limit", async () => {
    // Near its heap limit V8 collects again and again before it gives up: on a loaded machine that can outlast the
    // default deadline, which is not under test here.
    const cramped = new OpenApiAdapter(Date.now, { heapMb: 8, timeoutMs: 55_000 });
    try {
      await expect(cramped.generateDefinition(aliasBomb(19))).rejects.toThrow(
        /needs more than 8 MB of memory to process \(the limit\)/,
      );
    } finally {
      await cramped.teardown();
    }
  });

  it("never keeps a process alive: standby and used workers are unref'd", async () => {
    const entry = fileURLToPath(new URL("../dist/index.js", import.meta.url));
    const script = `
      const { instantiate } = await import(${JSON.stringify(entry)});
      const adapter = instantiate();
      await adapter.setup({ config: {}, secrets: {}, logger: console });
      const definition = await adapter.generateDefinition(${JSON.stringify(JSON.stringify({ openapi: "3.0.3", info: { title: "Alive", version: "1" }, paths: {} }))});
      console.log(definition.name);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve(null);
      }, 30_000);
      child.once("exit", (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(output.trim()).toBe("Alive");
    expect(code).toBe(0);
  });
});

describe("ending the definition thread", () => {
  it("lets a thread that has worked end on its own at stop (not terminated mid-compile: that can abort the host)", async () => {
    const { DefinitionThread } = await import("../src/definition-thread.js");
    const exits: Promise<number>[] = [];
    const onWorker = (worker: import("node:worker_threads").Worker) =>
      exits.push(new Promise((resolve) => worker.once("exit", resolve)));
    process.on("worker", onWorker);
    try {
      const thread = new DefinitionThread();
      const text = JSON.stringify({ openapi: "3.0.3", info: { title: "Ends", version: "1" }, paths: {} });
      expect((await thread.generate(text)).name).toBe("Ends");
      await thread.stop();
      expect(exits).toHaveLength(1);
      // 1 when terminated; 0 when it closed its port and its event loop ran out.
      expect(await exits[0]).toBe(0);
    } finally {
      process.off("worker", onWorker);
    }
  });
});
