import { afterEach, expect } from "vitest";
import { type TGithubHttpOptions } from "@posture/connectors/wire";
import { buildGithubFixture, type generateGithubApp } from "./fake-github-fixture";
import { startFakeGithub, type TFakeGithub, type TFakeGithubOptions } from "./fake-github";

// What the GitHub tests share: a clock that the adapter's sleep advances (so a rate-limit reset
// or a token's hour passes at once, and each wait is recorded), and fake GitHubs that are closed
// after each test and fail it when they refused a request the test did not expect.

export type TTestClock = {
  now: () => number;
  /** Every wait the code under test asked for, in ms. */
  delays: number[];
  advance: (ms: number) => void;
  http: TGithubHttpOptions;
};

export function createTestClock(start = Date.UTC(2025, 5, 1, 12, 0, 0)): TTestClock {
  let t = start;
  const delays: number[] = [];
  const now = () => t;
  return {
    now,
    delays,
    advance: (ms) => {
      t += ms;
    },
    http: {
      now,
      // Back-off without jitter: each 5xx retry waits half its ceiling (250 ms, 500 ms…).
      random: () => 0,
      sleep: async (ms) => {
        delays.push(ms);
        t += ms;
      },
    },
  };
}

export type TStartedFakeGithub = TFakeGithub & {
  /** Lets this test end with refusals (a test of the refusals themselves). */
  expectRefusals: () => void;
};

export function useFakeGithub(
  app: ReturnType<typeof generateGithubApp>,
  clock: () => TTestClock,
): (opts?: Partial<TFakeGithubOptions>) => Promise<TStartedFakeGithub> {
  const started: Array<{ fake: TFakeGithub; allowRefusals: boolean }> = [];
  afterEach(async () => {
    const done = started.splice(0);
    await Promise.all(done.map(({ fake }) => fake.close()));
    for (const { fake, allowRefusals } of done) if (!allowRefusals) expect(fake.refused).toEqual([]);
  });
  return async (opts = {}) => {
    const fake = await startFakeGithub({
      fixture: buildGithubFixture(),
      apps: [{ appId: app.appId, publicKey: app.publicKey }],
      now: clock().now,
      ...opts,
    });
    const entry = { fake, allowRefusals: false };
    started.push(entry);
    return Object.assign(fake, { expectRefusals: () => void (entry.allowRefusals = true) });
  };
}
