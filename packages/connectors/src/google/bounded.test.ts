import { describe, expect, it } from "vitest";
import { collect } from "../../../fakes/src/adapter-harness";
import { mergeBounded } from "./bounded";

async function* from<T>(items: T[]) {
  yield* items;
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("mergeBounded", () => {
  it("runs at most `concurrency` listings at once and yields every item", async () => {
    let running = 0;
    let peak = 0;
    const out = await collect(
      mergeBounded(from([1, 2, 3, 4, 5]), 2, async function* (n) {
        running++;
        peak = Math.max(peak, running);
        await pause(5);
        yield n;
        yield n * 10;
        running--;
      }),
    );
    expect(peak).toBe(2);
    expect(out.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 10, 20, 30, 40, 50]);
  });

  it("lets fast listings pass a slow one", async () => {
    const out = await collect(
      mergeBounded(from(["slow", "fast"]), 2, async function* (name) {
        await pause(name === "slow" ? 50 : 1);
        yield name;
      }),
    );
    expect(out).toEqual(["fast", "slow"]);
  });

  it("ends with the first listing's error and closes the others", async () => {
    let closed = false;
    const merged = mergeBounded(from(["ok", "bad"]), 2, async function* (name) {
      try {
        if (name === "bad") throw new Error("refused");
        await pause(20);
        yield name;
      } finally {
        if (name === "ok") closed = true;
      }
    });
    await expect(collect(merged)).rejects.toThrow("refused");
    expect(closed).toBe(true);
  });
});
