// What isolated-vm alone needs for N programs at once, each in a fresh
// isolate of its own and awaiting one answer from this process after
// `waitMs`: a new isolate and context, the program compiled and run, the
// answer delivered into it, the isolate disposed. No HTTP, no persistence,
// no sandbox process: the floor under cyrnel's figure on the same machine.
import ivm from "isolated-vm";

const PROGRAM = "(async function () { await new Promise((resolve) => { globalThis.wake = resolve; }); return 'ok'; })";

export async function isolateFloor(count, waitMs) {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, async () => {
      const isolate = new ivm.Isolate({ memoryLimit: 128 });
      const context = isolate.createContextSync();
      const fn = await context.eval(PROGRAM, { reference: true });
      const result = fn.apply(undefined, [], { result: { promise: true, copy: true } });
      const wake = await context.global.get("wake", { reference: true });
      setTimeout(() => wake.apply(undefined, []), waitMs);
      if ((await result) !== "ok") throw new Error("isolate floor: the program did not finish");
      isolate.dispose();
    }),
  );
  return performance.now() - started;
}
