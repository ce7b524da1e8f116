import { type TCoverageGap } from "../types";

const LISTED = 10;

/**
 * What a scan had to skip, grouped: one gap per feature, missing thing and reason, naming the users
 * or drives it cost (the first ten, then a count), so a tenant where a thousand users have Drive
 * turned off reports one gap, not a thousand.
 */
export function createGapBook() {
  const groups = new Map<string, { gap: Omit<TCoverageGap, "detail">; reason: string; items: string[] }>();
  return {
    add(feature: string, missing: string, reason: string, item?: string): void {
      const key = JSON.stringify([feature, missing, reason]);
      const group = groups.get(key) ?? { gap: { feature, missing }, reason, items: [] };
      groups.set(key, group);
      if (item !== undefined && !group.items.includes(item)) group.items.push(item);
    },
    list(): TCoverageGap[] {
      return [...groups.values()].map(({ gap, reason, items }) => {
        if (items.length === 0) return { ...gap, detail: reason };
        const shown = items.slice(0, LISTED).join(", ");
        const more = items.length > LISTED ? ` and ${items.length - LISTED} more` : "";
        return { ...gap, detail: `${reason} (${items.length}: ${shown}${more})` };
      });
    },
  };
}

export type TGapBook = ReturnType<typeof createGapBook>;
