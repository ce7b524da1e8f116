import { afterEach } from "vitest";
import { type THttpOptions } from "@posture/connectors/wire";
import { type TSourceAdapter, type TSourceGroup } from "@posture/connectors/wire";
import { startFakeGoogle, type TFakeGoogle } from "./fake-google";
import { buildGoogleFixture, type generateServiceAccount } from "./google-fixture";

// What the adapter, client and demo tests share: draining a streamed listing, and a sleep that
// records each back-off delay instead of waiting it out.

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The adapter's directory groups listing; an adapter without one fails the test. */
export function groupsOf(adapter: TSourceAdapter): AsyncIterable<TSourceGroup> {
  if (!adapter.groups) throw new Error("the adapter reads no groups");
  return adapter.groups();
}

/** Transport options whose sleep records each back-off delay (in ms) and returns at once. */
export function recordingSleep(http: THttpOptions = {}): { delays: number[]; http: THttpOptions } {
  const delays: number[] = [];
  return { delays, http: { ...http, sleep: async (ms) => void delays.push(ms) } };
}

type TFakeGoogleOptions = Parameters<typeof startFakeGoogle>[0];

/**
 * Fake Google tenants for the tests that start them, each closed after its test: the returned
 * `start` serves the default fixture and trusts `account`'s key, with `defaults`, then its own
 * options, on top.
 */
export function useFakeGoogle(
  account: ReturnType<typeof generateServiceAccount>,
  defaults: Partial<TFakeGoogleOptions> = {},
): (opts?: Partial<TFakeGoogleOptions>) => Promise<TFakeGoogle> {
  const started: TFakeGoogle[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((fake) => fake.close()));
  });
  return async (opts = {}) => {
    const fake = await startFakeGoogle({
      fixture: buildGoogleFixture(),
      serviceAccounts: [{ clientEmail: account.credentials.clientEmail, publicKey: account.publicKey }],
      ...defaults,
      ...opts,
    });
    started.push(fake);
    return fake;
  };
}
