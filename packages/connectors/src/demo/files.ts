import type { TPermission, TPermissionRole, TSourceFile } from "../types";
import { hash01, rngFor, STREAMS, type TRng } from "./prng";
import { DAY_MS, isoAt, type TDemoShape } from "./shape";
import { externalPersonEmail, userEmailAt } from "./users";
import { FILE_STEMS, FILE_SUFFIXES, LABEL_LEVELS, LABEL_NAMES, type TLabelLevel } from "./vocabulary";

const SENSITIVE_STEMS = FILE_STEMS.filter((s) => s.sensitive);
const ORDINARY_STEMS = FILE_STEMS.filter((s) => !s.sensitive);

export const PUBLIC_LINK_RATE = 0.04;
export const EXTERNAL_SHARE_RATE = 0.125;

/**
 * Sensitivity labels: most sensitively named files carry one, fewer ordinary files do (so the
 * data-classification evidence is partial, as in most tenants), and one labelled file in ten is
 * labelled a level below what it deserves. Drawn from their own hash of (seed, index), not the
 * file's generator, so adding labels changed no other field of any file; not touched by revisions.
 */
export const SENSITIVE_LABEL_RATE = 0.7;
export const ORDINARY_LABEL_RATE = 0.2;
const UNDER_LABEL_RATE = 0.1;
/** hash01 draws of the label, apart from the file's own generator stream. */
const LABEL_DRAW = { labelled: 0x1abe1, level: 0x1abe2 } as const;

/**
 * A rescan at revision R sees each file flipped (exposure removed, or a new one added) once per
 * revision in the last REVISION_WINDOW whose hash falls under the file's flip rate; an odd number
 * of flips means changed. Exposed files flip more often than clean ones so that, over revisions,
 * roughly as many exposures are fixed as appear and the workspace keeps its proportions.
 */
const REVISION_WINDOW = 6;
const FLIP_RATE_EXPOSED = 0.08;
const FLIP_RATE_CLEAN = 0.012;

/** Every tenth block of ten files puts three in a shared drive: cheap to count per drive. */
export function driveIndexOfFile(shape: TDemoShape, index: number): number | null {
  return index % 10 < 3 ? Math.floor(index / 10) % shape.driveCount : null;
}

export function driveFileCount(shape: TDemoShape, drive: number): number {
  let count = 0;
  for (let block = drive; block * 10 < shape.fileCount; block += shape.driveCount) {
    count += Math.min(3, shape.fileCount - block * 10);
  }
  return count;
}

type TExternalTarget = { type: "user" | "domain"; emailAddress?: string; domain: string };

export function externalTarget(shape: TDemoShape, rng: TRng): TExternalTarget {
  const r = rng.next();
  const n = rng.int(1_000_000);
  if (r < 0.4) {
    const domain = rng.pick(shape.personalDomains);
    return { type: "user", domain, emailAddress: externalPersonEmail(n, domain, true) };
  }
  const domain =
    r < 0.7
      ? rng.pick(shape.trustedPartnerDomains)
      : r < 0.85
        ? rng.pick(shape.untrustedDomains.slice(0, 3))
        : rng.pick(shape.startupDomains);
  if (rng.chance(0.15)) return { type: "domain", domain };
  return { type: "user", domain, emailAddress: externalPersonEmail(n, domain, false) };
}

function externalRole(rng: TRng): TPermissionRole {
  const r = rng.next();
  return r < 0.2 ? "writer" : r < 0.3 ? "commenter" : "reader";
}

type TStem = (typeof FILE_STEMS)[number];

function fileName(shape: TDemoShape, rng: TRng): { name: string; stem: TStem } {
  const entry = rng.chance(0.1) ? rng.pick(SENSITIVE_STEMS) : rng.pick(ORDINARY_STEMS);
  let name: string = entry.stem;
  if (name.includes("{")) {
    name = name
      .replace("{q}", String(1 + rng.int(4)))
      .replace("{y}", String(2021 + rng.int(5)))
      .replace("{m}", String(1 + rng.int(12)).padStart(2, "0"))
      .replace(
        "{d}",
        `${2024 + rng.int(2)}-${String(1 + rng.int(12)).padStart(2, "0")}-${String(1 + rng.int(28)).padStart(2, "0")}`,
      )
      .replace("{v}", `v${1 + rng.int(5)}.${rng.int(10)}`)
      .replace("{n}", `INV-${10000 + rng.int(90000)}`);
  }
  return { name: name + rng.pick(FILE_SUFFIXES) + shape.flavour.extension(entry.kind), stem: entry };
}

/** The file's sensitivity label in the tenant's taxonomy, or null. */
export function labelOf(shape: TDemoShape, index: number, stem: TStem): string | null {
  const rate = stem.sensitive ? SENSITIVE_LABEL_RATE : ORDINARY_LABEL_RATE;
  if (hash01(shape.words, STREAMS.file, index, LABEL_DRAW.labelled) >= rate) return null;
  let level: TLabelLevel = stem.level;
  if (hash01(shape.words, STREAMS.file, index, LABEL_DRAW.level) < UNDER_LABEL_RATE) {
    level = LABEL_LEVELS[Math.max(0, LABEL_LEVELS.indexOf(level) - 1)] ?? level;
  }
  return LABEL_NAMES[shape.type][level];
}

function isFlipped(shape: TDemoShape, index: number, exposed: boolean): boolean {
  const rate = exposed ? FLIP_RATE_EXPOSED : FLIP_RATE_CLEAN;
  let flipped = false;
  for (let r = Math.max(1, shape.revision - REVISION_WINDOW + 1); r <= shape.revision; r++) {
    if (hash01(shape.words, STREAMS.revision, r, index) < rate) flipped = !flipped;
  }
  return flipped;
}

export function fileAt(shape: TDemoShape, index: number, driveIds: readonly string[]): TSourceFile {
  const rng = rngFor(shape.words, STREAMS.file, index);
  const id = shape.flavour.fileId(rng);
  const { name, stem } = fileName(shape, rng);
  const kind = stem.kind;
  const r = rng.next();
  const ownerEmail = userEmailAt(shape, Math.floor(shape.userCount * r * Math.sqrt(r)));
  const driveIndex = driveIndexOfFile(shape, index);
  const driveId = driveIndex === null ? null : (driveIds[driveIndex] ?? null);
  const pid = index.toString(36);

  const permissions: TPermission[] = [
    {
      id: `${pid}-0`,
      type: "user",
      role: driveId === null ? "owner" : "organizer",
      emailAddress: ownerEmail,
    },
  ];
  const internalShares = rng.chance(0.55) ? 1 + rng.int(3) : 0;
  for (let k = 1; k <= internalShares; k++) {
    const role: TPermissionRole = rng.chance(0.6) ? "reader" : rng.chance(0.7) ? "writer" : "commenter";
    permissions.push({
      id: `${pid}-${k}`,
      type: "user",
      role,
      emailAddress: userEmailAt(shape, rng.int(shape.userCount)),
    });
  }
  if (rng.chance(0.08))
    permissions.push({ id: `${pid}-d`, type: "domain", role: "reader", domain: shape.domain });

  let exposed = false;
  if (rng.chance(PUBLIC_LINK_RATE)) {
    const p = rng.next();
    permissions.push({
      id: `${pid}-a`,
      type: "anyone",
      role: p < 0.8 ? "reader" : p < 0.88 ? "commenter" : "writer",
    });
    exposed = true;
  }
  if (rng.chance(EXTERNAL_SHARE_RATE)) {
    const count = rng.chance(0.3) ? 2 + rng.int(2) : 1;
    for (let k = 0; k < count; k++) {
      permissions.push({ id: `${pid}-x${k}`, role: externalRole(rng), ...externalTarget(shape, rng) });
    }
    exposed = true;
  }

  const age = rng.next();
  const file: TSourceFile = {
    id,
    name,
    mimeType: shape.flavour.mimeType(kind),
    ownerEmail,
    driveId,
    permissions,
    modifiedAt: isoAt(shape.nowMs - Math.floor(age * age * 720 * DAY_MS)),
    sizeBytes:
      kind === "image" || kind === "zip" ? 200_000 + rng.int(20_000_000) : 8_000 + rng.int(2_000_000),
    label: labelOf(shape, index, stem),
  };
  return isFlipped(shape, index, exposed) ? flip(shape, file, index, exposed) : file;
}

/** An exposed file gets its exposure removed; a clean one gets a new public link or external share. */
function flip(shape: TDemoShape, file: TSourceFile, index: number, exposed: boolean): TSourceFile {
  if (exposed) {
    const externalPrefix = `${index.toString(36)}-x`;
    return {
      ...file,
      permissions: file.permissions.filter((p) => p.type !== "anyone" && !p.id.startsWith(externalPrefix)),
    };
  }
  const rng = rngFor(shape.words, STREAMS.mutation, index);
  const pid = index.toString(36);
  const added: TPermission = rng.chance(0.35)
    ? { id: `${pid}-a`, type: "anyone", role: rng.chance(0.85) ? "reader" : "writer" }
    : { id: `${pid}-x0`, role: externalRole(rng), ...externalTarget(shape, rng) };
  return { ...file, permissions: [...file.permissions, added] };
}
