import { isIPv4, isIPv6 } from "node:net";

/** The eight 16-bit groups of an IPv6 address (any valid textual form, zone id dropped). */
function ipv6Groups(address: string): number[] | null {
  const bare = address.split("%")[0] ?? "";
  let text = bare;
  // A trailing dotted quad (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) is two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const [a = 0, b = 0, c = 0, d = 0] = v4.split(".").map(Number);
    text = `${text.slice(0, -v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const groups = [...head, ...Array<string>(missing).fill("0"), ...tail].map((g) => parseInt(g, 16));
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/**
 * The key per-client limits are counted under. An IPv4 address is itself; an IPv4-mapped IPv6
 * address is its IPv4 address; any other IPv6 address is its /64 network, because a single
 * subscriber is normally given a whole /64 and can rotate through it freely: counting single
 * IPv6 addresses would let one client reset the anonymous and sign-in budgets at will.
 */
export function clientBucket(address: string | undefined): string {
  if (!address) return "unknown";
  if (isIPv4(address)) return address;
  if (!isIPv6(address.split("%")[0] ?? "")) return address;
  const g = ipv6Groups(address);
  if (!g) return address;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    return [g[6] ?? 0, g[7] ?? 0].flatMap((x) => [x >> 8, x & 0xff]).join(".");
  }
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(":")}::/64`;
}
