import type { TPermission, TPermissionRole, TSourceFile } from "../types";
import { hash01, mix32, rngFor, STREAMS, type TRng } from "./prng";
import { fileClock, fileGrowth, type TFileClock } from "./revisions";
import { DAY_MS, isoAt, type TDemoShape } from "./shape";
import { internalOversharing } from "./groups";
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

/** Every tenth block of ten files puts three in a shared drive: cheap to count per drive. */
export function driveIndexOfFile(shape: TDemoShape, index: number): number | null {
  return index % 10 < 3 ? Math.floor(index / 10) % shape.driveCount : null;
}

/** Files of a shared drive at revision 0 (later revisions count what exists: see index.ts). */
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

/**
 * File `index` as it is at the shape's revision: its original state (files appended by later
 * revisions are dated from the day they appeared), changed by its last touch when one is within
 * CHANGE_LIFETIME. The caller knows it exists (`fileClock`).
 */
export function fileAt(
  shape: TDemoShape,
  index: number,
  driveIds: readonly string[],
  clock: TFileClock = fileClock(shape, fileGrowth(shape), index, shape.revision),
): TSourceFile {
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
  // Drawn from their own hashes: the file's generator, and so every other field, is unchanged.
  permissions.push(...internalOversharing(shape, index, pid, stem.sensitive));

  const age = rng.next();
  const file: TSourceFile = {
    id,
    name,
    mimeType: shape.flavour.mimeType(kind),
    ownerEmail,
    driveId,
    permissions,
    modifiedAt: isoAt(
      clock.birth === 0
        ? shape.epochMs - Math.floor(age * age * 720 * DAY_MS)
        : revisionTime(shape, clock.birth, age),
    ),
    sizeBytes:
      kind === "image" || kind === "zip" ? 200_000 + rng.int(20_000_000) : 8_000 + rng.int(2_000_000),
    label: labelOf(shape, index, stem),
  };
  return clock.touch === 0 ? file : touched(shape, file, index, clock.touch, exposed, stem);
}

/** A moment during revision `revision`'s day (which ends at epoch + revision days), from a fraction. */
function revisionTime(shape: TDemoShape, revision: number, fraction: number): number {
  return shape.epochMs + revision * DAY_MS - 1 - Math.floor(fraction * (DAY_MS - 1));
}

/**
 * What a touch does to a file. An exposed one mostly gets fixed (links and outside grants
 * removed); a clean one rarely gets exposed: about as many exposures are fixed as appear, so the
 * share of exposed files stays level. The rest are the everyday changes of a tenant: internal
 * shares added or removed, roles changed, renames, labels applied or removed. Always modified then.
 */
function touched(
  shape: TDemoShape,
  file: TSourceFile,
  index: number,
  touch: number,
  exposed: boolean,
  stem: TStem,
): TSourceFile {
  const rng = rngFor(shape.words, STREAMS.mutation, (Math.imul(index, 0x9e3779b1) ^ mix32(touch)) | 0);
  const pid = index.toString(36);
  const next: TSourceFile = { ...file, modifiedAt: isoAt(revisionTime(shape, touch, rng.next())) };
  const isOutside = (p: TPermission) => p.type === "anyone" || p.id.startsWith(`${pid}-x`);
  const internal = file.permissions.filter(
    (p) => p.role !== "owner" && p.role !== "organizer" && !isOutside(p),
  );
  const k = rng.next();
  if (exposed && k < 0.55) {
    next.permissions = file.permissions.filter((p) => !isOutside(p));
  } else if (exposed && k < 0.7) {
    const target = file.permissions.find(isOutside);
    next.permissions = file.permissions.map((p) =>
      p === target ? { ...p, role: p.role === "writer" ? "reader" : "writer" } : p,
    );
  } else if (exposed && k < 0.8) {
    next.permissions = [
      ...file.permissions,
      { id: `${pid}-n`, role: externalRole(rng), ...externalTarget(shape, rng) },
    ];
  } else if (!exposed && k < 0.05) {
    next.permissions = [
      ...file.permissions,
      { id: `${pid}-a`, type: "anyone", role: rng.chance(0.85) ? "reader" : "writer" },
    ];
  } else if (!exposed && k < 0.1) {
    next.permissions = [
      ...file.permissions,
      { id: `${pid}-n`, role: externalRole(rng), ...externalTarget(shape, rng) },
    ];
  } else if (!exposed && k < 0.35) {
    next.permissions = [
      ...file.permissions,
      {
        id: `${pid}-n`,
        type: "user",
        role: rng.chance(0.6) ? "reader" : "writer",
        emailAddress: userEmailAt(shape, rng.int(shape.userCount)),
      },
    ];
  } else if (!exposed && k < 0.65 && internal.length > 0) {
    const target = rng.pick(internal);
    next.permissions =
      k < 0.5
        ? file.permissions.filter((p) => p !== target)
        : file.permissions.map((p) =>
            p === target ? { ...p, role: p.role === "reader" ? "writer" : "reader" } : p,
          );
  } else if (k < 0.88) {
    next.name = rng.pick(RENAME_PREFIXES) + file.name;
  } else {
    next.label = file.label ? null : LABEL_NAMES[shape.type][stem.level];
  }
  return next;
}

const RENAME_PREFIXES = ["Copy of ", "Final - ", "Archive - ", "[Draft] ", "OLD - "] as const;
