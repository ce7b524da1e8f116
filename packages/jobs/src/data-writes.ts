import { ALL_ORGANIZATIONS, asDataWrite, type TDataWrites } from "@posture/platform";
import type { TJobDefinition, TJobRegistry } from "./types";

/**
 * The organizations a job writes, for the read caches (data-epochs.ts): the one its definition
 * names (`orgOf`), else its data's `orgId`, else every organization (a sweep).
 */
async function scopeOf(def: TJobDefinition, data: unknown): Promise<string[]> {
  const named = def.orgOf ? await def.orgOf(data) : null;
  if (named) return [named];
  const orgId = (data as { orgId?: unknown } | null)?.orgId;
  return [typeof orgId === "string" && orgId.length > 0 ? orgId : ALL_ORGANIZATIONS];
}

/**
 * Every handler of the registry run as a write of its organizations: marked before it starts,
 * marked again once it has finished (its transactions committed or rolled back), whatever queue
 * runs it and however long it takes (the mark is renewed while it runs).
 */
export function withDataWrites(registry: TJobRegistry, writes: TDataWrites): TJobRegistry {
  const wrapped: TJobRegistry = {};
  for (const [name, def] of Object.entries(registry)) {
    if (def.dataWrites === "none") {
      wrapped[name] = def;
      continue;
    }
    wrapped[name] = {
      ...def,
      handler: async (data, ctx) =>
        asDataWrite(writes, await scopeOf(def, data), () => def.handler(data, ctx)),
    };
  }
  return wrapped;
}
