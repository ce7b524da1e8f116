import { describe, expect, it } from "vitest";
import { stageClock } from "./stage-clock";

describe("stageClock", () => {
  it("gives each stage the time since the previous mark, adding a stage marked twice", () => {
    const times = [1_000, 1_250, 1_600, 1_700, 2_400];
    const clock = stageClock(() => times.shift() ?? 0);
    clock.mark("users");
    clock.mark("files");
    clock.mark("users");
    clock.mark("commit");
    expect(clock.read()).toEqual({ users: 350, files: 350, commit: 700, total: 1_400 });
    // The scan row's form: the stages in the order they first ended, the wait for a worker.
    expect(clock.timing(-5)).toEqual({
      queuedMs: 0,
      totalMs: 1_400,
      stages: [
        { stage: "users", ms: 350 },
        { stage: "files", ms: 350 },
        { stage: "commit", ms: 700 },
      ],
    });
    expect(clock.timing(12.6).queuedMs).toBe(13);
  });
});
