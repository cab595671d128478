import { readdirSync, readFileSync } from "node:fs";
import type { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { turnsDuring } from "../turns.test-data.js";
import { CheckerThread, ENCODE_CHARS, renderInThread, utf8Parts } from "./checker-thread.js";

/** The bytes of the parts, decoded as the render thread decodes them. */
const decoded = (parts: Uint8Array[]) => Buffer.concat(parts).toString("utf8");

/**
 * How a large service's tools' JSON reaches the render thread: encoded a
 * part per turn of the event loop and moved (see utf8Parts), from the one
 * string or the consecutive parts a host hands over.
 */
describe("the tools' JSON handed to a render thread", () => {
  it("encodes text of several parts' worth a part per turn of the event loop, splitting no surrogate pair", async () => {
    // An emoji (two UTF-16 units) across each boundary a part of ENCODE_CHARS would cut.
    const text = `${"a".repeat(ENCODE_CHARS - 1)}😀${"b".repeat(ENCODE_CHARS - 2)}🎉c`;
    const { result: parts, turns } = await turnsDuring(() => utf8Parts(text));
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(decoded(parts)).toBe(text);
    expect(decoded(parts)).not.toContain("\uFFFD");
  });

  it("joins the parts a host hands over, also when one ends half-way through a surrogate pair", async () => {
    const pair = "😀";
    const given = ['["x', pair[0] as string, `${pair[1] as string}y"`, ",", '"z"]'];
    expect(decoded(await utf8Parts(given))).toBe(`["x${pair}y","z"]`);
    expect(decoded(await utf8Parts([]))).toBe("");
  });

  it("renders a service's declarations from its JSON in parts as from one string", async () => {
    const tools = [
      {
        serviceId: "shop",
        toolId: "listPets",
        description: "Lists pets 🐈.",
        inputSchema: { type: "object", properties: { limit: { type: "integer" } } },
        outputSchema: { type: "array", items: { type: "string" } },
      },
      {
        serviceId: "shop",
        toolId: "getPet",
        description: "Reads one pet.",
        inputSchema: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
        outputSchema: { type: "object", properties: { name: { type: "string" } } },
      },
    ];
    const json = JSON.stringify(tools);
    const signal = new AbortController().signal;
    const whole = await renderInThread({ serviceId: "shop", toolsJson: json }, signal);
    const cut = json.indexOf("🐈") + 1;
    const inParts = await renderInThread(
      { serviceId: "shop", toolsJson: [json.slice(0, 10), json.slice(10, cut), json.slice(cut)] },
      signal,
    );
    expect([...whole.tools].sort()).toEqual(["getPet", "listPets"]);
    expect(inParts).toEqual(whole);
    expect(inParts.text).toContain("🐈");
  });
});

describe("a render nobody waits for", () => {
  /** The nice value of each thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
  const threadNices = (): number[] =>
    readdirSync("/proc/self/task").flatMap((tid) => {
      try {
        return [Number(readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[16])];
      } catch {
        return [];
      }
    });

  it.runIf(process.platform === "linux")(
    "runs its thread at a lower CPU priority; one a check waits for does not",
    async () => {
      const tools = Array.from({ length: 300 }, (_, index) => ({
        serviceId: "big",
        toolId: `op${index}`,
        description: `Operation ${index}.`,
        inputSchema: {
          type: "object",
          properties: Object.fromEntries(
            Array.from({ length: 40 }, (_, field) => [`f${field}`, { type: "string", description: "x".repeat(200) }]),
          ),
        },
        outputSchema: { type: "object" },
      }));
      const toolsJson = JSON.stringify(tools);
      const signal = new AbortController().signal;
      /** The nices seen while the render runs (polled between turns of this thread's event loop). */
      const watch = async (background: boolean) => {
        const seen = new Set<number>();
        let done = false;
        const render = renderInThread({ serviceId: "big", toolsJson, background }, signal).finally(() => {
          done = true;
        });
        while (!done) {
          for (const nice of threadNices()) seen.add(nice);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        expect((await render).tools).toHaveLength(300);
        return seen;
      };
      // This order: a render thread lives on for a moment after it answers.
      expect(await watch(false)).not.toContain(10);
      expect(await watch(true)).toContain(10);
    },
  );
});

describe("the checker thread", () => {
  it("ends on its own when closed after a check (not terminated mid-compile: that can abort the host)", async () => {
    const exits: Promise<number>[] = [];
    const onWorker = (worker: Worker) => exits.push(new Promise((resolve) => worker.once("exit", resolve)));
    process.on("worker", onWorker);
    try {
      const thread = new CheckerThread(512);
      const answer = await thread.request(
        { type: "check", programs: ["const n: number = 1; console.log(n);"], services: [] },
        120_000,
      );
      expect(answer).toEqual({ ok: true, errors: [[]] });
      await thread.close();
      expect(exits).toHaveLength(1);
      // 1 when terminated; 0 when it closed its port and its event loop ran out.
      expect(await exits[0]).toBe(0);
    } finally {
      process.off("worker", onWorker);
    }
  });
});
