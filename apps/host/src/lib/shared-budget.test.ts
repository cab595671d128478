import { describe, expect, it } from "vitest";
import { SharedBudget } from "./shared-budget.js";

describe("SharedBudget", () => {
  it("lets requests through while they fit, then in order as amounts are given back", async () => {
    const budget = new SharedBudget(10);
    const order: string[] = [];
    const a = await budget.acquire(6);
    const granted = (name: string) => (release: () => void) => {
      order.push(name);
      return release;
    };
    const b = budget.acquire(6).then(granted("b"));
    const c = budget.acquire(1).then(granted("c"));
    await Promise.resolve();
    expect(order).toEqual([]);
    a();
    a();
    (await b)();
    (await c)();
    expect(order).toEqual(["b", "c"]);
  });

  it("lets a request larger than the whole through alone", async () => {
    const budget = new SharedBudget(10);
    const release = await budget.acquire(50);
    let second = false;
    const next = budget.acquire(1).then((r) => {
      second = true;
      return r;
    });
    await Promise.resolve();
    expect(second).toBe(false);
    release();
    (await next)();
    expect(second).toBe(true);
  });
});
