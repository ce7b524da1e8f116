import { seedDemoIfEmpty, type TDemoSeed } from "@posture/account";
import { seedDemoHistory, type TDemoHistory, type TDemoHistoryDeps } from "./history";

/**
 * Into an empty database only: the demo organizations, users and key (account's part), then
 * their eight weeks of history. Null, and nothing written, when any organization exists, so a
 * restart adds nothing.
 */
export async function seedDemo(
  deps: TDemoHistoryDeps,
): Promise<{ seed: TDemoSeed; history: TDemoHistory } | null> {
  const seed = await seedDemoIfEmpty(deps.db);
  if (!seed) return null;
  const history = await seedDemoHistory(deps);
  return { seed, history };
}
