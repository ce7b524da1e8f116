import type { TAppGrant } from "../types";
import type { TCatalogApp } from "./flavour";
import { pickAt, rngFor, STREAMS } from "./prng";
import { birthOf, endOf, GRANT_TOUCH_RATE, grantGrowth, lastTouch } from "./revisions";
import { DAY_MS, isoAt, type TDemoShape } from "./shape";
import { userEmailAt } from "./users";
import { AI_NOUNS, APP_ADJECTIVES, APP_NOUNS } from "./vocabulary";

export type TDemoApp = TCatalogApp & { clientId: string };

/** Grants at the end of the list are the scripted OAuth burst of one user. */
export const OAUTH_BURST_SIZE = 8;
export const OAUTH_BURST_AGE_MS = 4 * DAY_MS;
const OAUTH_BURST_SPACING_MS = 180_000;

/** The catalog plus a seed-specific long tail of small unknown apps: built once per adapter. */
export function appsOf(shape: TDemoShape): TDemoApp[] {
  const fixed = shape.catalog.map((app) => ({ ...app, clientId: shape.flavour.clientId(app.key) }));
  const tail: TDemoApp[] = [];
  for (let k = 0; k < shape.longTailAppCount; k++) {
    const rng = rngFor(shape.words, STREAMS.app, k);
    const ai = rng.chance(0.25);
    const adjective = pickAt(APP_ADJECTIVES, (k * 3 + shape.words[2]) % APP_ADJECTIVES.length);
    const nouns = ai ? AI_NOUNS : APP_NOUNS;
    const noun = pickAt(nouns, (k + Math.floor(k / APP_ADJECTIVES.length)) % nouns.length);
    const round = Math.floor(k / (APP_ADJECTIVES.length * nouns.length));
    const label = `${adjective} ${noun}${round > 0 ? ` ${round + 1}` : ""}`;
    const broad = rng.chance(0.3);
    const pool = broad ? shape.flavour.broadScopes : shape.flavour.narrowScopes;
    const scopes = [...new Set([rng.pick(pool), rng.pick(pool)])];
    const key = `tail-${k}`;
    tail.push({
      key,
      label,
      kind: ai ? "ai_agent" : "oauth_app",
      access: "delegated",
      ...(ai ? { agentSource: shape.flavour.tailAgentSource } : {}),
      publisher: `${adjective}${noun.replace(/ /g, "")}.app`.toLowerCase(),
      isKnownPublisher: rng.chance(0.25),
      scopes,
      clientId: shape.flavour.clientId(key, rng),
    });
  }
  return [...fixed, ...tail];
}

/**
 * The revisions a grant was given and is revoked at. The original grants that make the catalog
 * (every app granted once) and the scripted OAuth burst stay; the others are revoked over time,
 * and new ones granted, about as many.
 */
export function grantLife(shape: TDemoShape, apps: readonly TDemoApp[], index: number) {
  const growth = grantGrowth(shape, shape.grantCount - apps.length - OAUTH_BURST_SIZE);
  const birth = birthOf(growth, index);
  const kept = birth === 0 && (index < apps.length || index >= shape.grantCount - OAUTH_BURST_SIZE);
  return {
    birth,
    end: kept ? Infinity : endOf(shape.words, STREAMS.grantTouch, index, birth, growth.removalRate),
  };
}

export function grantAt(shape: TDemoShape, apps: readonly TDemoApp[], index: number): TAppGrant {
  const rng = rngFor(shape.words, STREAMS.grant, index);
  const fixedCount = shape.catalog.length;
  const tailCount = apps.length - fixedCount;
  const burstStart = shape.grantCount - OAUTH_BURST_SIZE;
  const birth = birthOf(grantGrowth(shape), index);

  let app: TDemoApp;
  let userIndex = rng.int(shape.userCount);
  let grantedMs = shape.epochMs - Math.floor(rng.next() * 700 * DAY_MS) - DAY_MS;
  if (birth > 0) {
    // Granted during its revision's day, popular apps first as below.
    grantedMs = shape.epochMs + birth * DAY_MS - 1 - rng.int(DAY_MS);
    const r = rng.next();
    app = rng.chance(0.75)
      ? pickAt(apps, Math.floor(r * r * (fixedCount - 3)))
      : pickAt(apps, fixedCount + rng.int(tailCount));
  } else if (index >= burstStart) {
    app = pickAt(apps, fixedCount + ((index - burstStart) % tailCount));
    userIndex = shape.scripted.oauthBurst;
    grantedMs = shape.epochMs - OAUTH_BURST_AGE_MS + (index - burstStart) * OAUTH_BURST_SPACING_MS;
  } else if (index < apps.length) {
    // Every app is granted at least once.
    app = pickAt(apps, index);
  } else if (rng.chance(0.75)) {
    // Popular catalog apps first; service accounts are granted once, by an administrator.
    const r = rng.next();
    app = pickAt(apps, Math.floor(r * r * (fixedCount - 3)));
  } else {
    app = pickAt(apps, fixedCount + rng.int(tailCount));
  }
  if (app.kind === "service_account") userIndex = 0;

  // A touch, for CHANGE_LIFETIME revisions: the app asks for, and is granted, one broad scope more.
  const touch = lastTouch(shape.words, STREAMS.grantTouch, index, shape.revision, GRANT_TOUCH_RATE, birth);
  const extra =
    touch === 0 ? [] : [pickAt(shape.flavour.broadScopes, touch % shape.flavour.broadScopes.length)];
  return {
    id: `grant-${index.toString(36)}`,
    clientId: app.clientId,
    label: app.label,
    kind: app.kind,
    access: app.access ?? "delegated",
    ...(app.agentSource ? { agentSource: app.agentSource } : {}),
    publisher: app.publisher,
    isKnownPublisher: app.isKnownPublisher,
    scopes:
      extra.length === 0 || app.scopes.includes(extra[0] ?? "") ? app.scopes : [...app.scopes, ...extra],
    userEmail: userEmailAt(shape, userIndex),
    grantedAt: isoAt(grantedMs),
  };
}
