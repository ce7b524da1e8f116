/** How a report looks: the product's own style, or a partner's (white label). */
export type TTheme = {
  /** #RRGGBB: headings, table headers, chart bars. */
  accent: string;
  /** Shown in the header band of every page and on the cover ("Prepared by …"). */
  brandName: string;
  /** PNG or JPEG bytes, drawn on the cover and, small, in the page header. */
  logo?: Buffer | null;
};

export const DEFAULT_THEME: TTheme = { accent: "#1F4E79", brandName: "Security Posture" };

export const INK = "#1A1A1A";
export const MUTED = "#5F6B7A";
export const RULE = "#D5DAE1";
export const ZEBRA = "#F4F6F9";

export const SEVERITY_COLORS: Record<string, string> = {
  CRITICAL: "#B42318",
  HIGH: "#D9480F",
  MEDIUM: "#B08800",
  LOW: "#3B7DD8",
};

const HEX = /^#[0-9a-fA-F]{6}$/;

/** A theme from partner settings; anything malformed falls back to the default. */
export function themeOf(o: {
  accent?: string | null;
  brandName?: string | null;
  logo?: Buffer | null;
}): TTheme {
  return {
    accent: o.accent && HEX.test(o.accent) ? o.accent : DEFAULT_THEME.accent,
    brandName: o.brandName?.trim() ? o.brandName.trim() : DEFAULT_THEME.brandName,
    logo: o.logo ?? null,
  };
}

/** Mixes a colour with white: `t` = 0 is the colour, 1 is white. For tints of the accent. */
export function tint(hex: string, t: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const mix = (c: number) => Math.round(c + (255 - c) * t);
  const r = mix((n >> 16) & 255);
  const g = mix((n >> 8) & 255);
  const b = mix(n & 255);
  return `#${((r << 16) | (g << 8) | b).toString(16).padStart(6, "0")}`;
}

/**
 * The built-in Helvetica encodes WinAnsi only: characters outside it (emoji, CJK) would print as
 * wrong glyphs, so arrows become their ASCII look-alikes ("->"), anything else "?", and control
 * characters are dropped. User-supplied names pass here.
 */
export function safeText(s: string): string {
  let out = "";
  for (const ch of s.replace(/→/g, "->").replace(/←/g, "<-").replace(/⇒/g, "=>")) {
    const c = ch.codePointAt(0) ?? 0;
    if (c === 10 || c === 9) out += ch;
    else if (c < 32 || (c >= 127 && c < 160)) continue;
    else if (c <= 0xff || "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ".includes(ch)) out += ch;
    else out += "?";
  }
  return out;
}
