import { isIPv4, isIPv6 } from "node:net";

/** Why an address may not receive webhooks; `public` is the only class that may. */
export type TAddressClass =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "shared"
  | "link-local"
  | "unique-local"
  | "multicast"
  | "documentation"
  | "reserved"
  | "invalid";

type TRange4 = { base: number; bits: number; cls: Exclude<TAddressClass, "public"> };

const range4 = (cidr: string, cls: TRange4["cls"]): TRange4 => {
  const [addr = "", bits = "32"] = cidr.split("/");
  const base = parseIPv4(addr);
  if (base === null) throw new Error(`bad range ${cidr}`);
  return { base, bits: Number(bits), cls };
};

// IANA IPv4 special-purpose registry, minus the few entries that are globally reachable
// anycast services; anything here is never a legitimate webhook receiver.
const IPV4_BLOCKED: TRange4[] = [
  range4("0.0.0.0/8", "unspecified"),
  range4("10.0.0.0/8", "private"),
  range4("100.64.0.0/10", "shared"),
  range4("127.0.0.0/8", "loopback"),
  range4("169.254.0.0/16", "link-local"),
  range4("172.16.0.0/12", "private"),
  range4("192.0.0.0/24", "reserved"),
  range4("192.0.2.0/24", "documentation"),
  range4("192.88.99.0/24", "reserved"),
  range4("192.168.0.0/16", "private"),
  range4("198.18.0.0/15", "reserved"),
  range4("198.51.100.0/24", "documentation"),
  range4("203.0.113.0/24", "documentation"),
  range4("224.0.0.0/4", "multicast"),
  range4("240.0.0.0/4", "reserved"),
];

/** Dotted quad to an unsigned 32-bit number; null unless it is a canonical IPv4 address. */
function parseIPv4(s: string): number | null {
  if (!isIPv4(s)) return null;
  return s.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);
}

/** An IPv6 address as eight 16-bit groups (zone id dropped, embedded dotted IPv4 expanded). */
function parseIPv6(raw: string): number[] | null {
  const s = raw.replace(/%.*$/, "");
  if (!isIPv6(s)) return null;
  let text = s;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = parseIPv4(dotted[1]);
    if (v4 === null) return null;
    text = `${text.slice(0, dotted.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((h) => parseInt(h, 16)));
  const h = parse(head);
  const t = tail === undefined ? [] : parse(tail);
  const groups = tail === undefined ? h : [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
  return groups.length === 8 ? groups : null;
}

function classify4(n: number): TAddressClass {
  for (const r of IPV4_BLOCKED) {
    const mask = r.bits === 0 ? 0 : (0xffffffff << (32 - r.bits)) >>> 0;
    if ((n & mask) >>> 0 === (r.base & mask) >>> 0) return r.cls;
  }
  return "public";
}

const v4From = (hi: number, lo: number) => ((hi << 16) >>> 0) + lo;

function classify6(g: number[]): TAddressClass {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 0) return "unspecified";
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) reach the IPv4 address itself.
  if (upperZero && (g5 === 0xffff || g5 === 0)) return classify4(v4From(g6, g7));
  // NAT64 well-known prefix: a translator would connect to the embedded IPv4 address.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return classify4(v4From(g6, g7));
  }
  // 6to4 embeds the IPv4 address of the relay endpoint in the second and third groups.
  if (g0 === 0x2002) return classify4(v4From(g1, g2));
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  if (g0 === 0x2001 && g1 === 0x0db8) return "documentation";
  if (g0 === 0x3fff && (g1 & 0xf000) === 0) return "documentation";
  // 2001::/23 holds Teredo (an obfuscated IPv4 endpoint), ORCHID and benchmarking space.
  if (g0 === 0x2001 && g1 < 0x0200) return "reserved";
  // Everything outside global unicast 2000::/3 (64:ff9b:1::/48, 100::/64, fec0::/10, …).
  if ((g0 & 0xe000) !== 0x2000) return "reserved";
  return "public";
}

/** Classifies a literal IPv4 or IPv6 address (brackets and zone ids allowed). */
export function classifyAddress(address: string): TAddressClass {
  const s = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const v4 = parseIPv4(s);
  if (v4 !== null) return classify4(v4);
  const v6 = parseIPv6(s);
  if (v6 !== null) return classify6(v6);
  return "invalid";
}

export const isPublicAddress = (address: string): boolean => classifyAddress(address) === "public";
