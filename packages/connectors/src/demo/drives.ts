import type { TPermissionRole, TSharedDrive } from "../types";
import { rngFor, STREAMS } from "./prng";
import { driveFileCount, externalTarget } from "./files";
import type { TDemoShape } from "./shape";
import { externalPersonEmail, userEmailAt } from "./users";
import { DRIVE_NAMES } from "./vocabulary";

/** The id comes first off the drive's PRNG so files can learn it without building the drive. */
export function driveIdAt(shape: TDemoShape, index: number): string {
  return shape.flavour.driveId(rngFor(shape.words, STREAMS.drive, index));
}

export function driveAt(shape: TDemoShape, index: number): TSharedDrive {
  const rng = rngFor(shape.words, STREAMS.drive, index);
  const id = shape.flavour.driveId(rng);
  const base = DRIVE_NAMES[index % DRIVE_NAMES.length] ?? "Team";
  const round = Math.floor(index / DRIVE_NAMES.length);
  const name = round === 0 ? base : `${base} ${round + 1}`;

  const members: TSharedDrive["members"] = [];
  const seen = new Set<string>();
  const internalCount = 3 + rng.int(10);
  for (let k = 0; k < internalCount; k++) {
    const email = userEmailAt(shape, rng.int(shape.userCount));
    if (seen.has(email)) continue;
    seen.add(email);
    const role: TPermissionRole = members.length === 0 ? "organizer" : rng.chance(0.5) ? "writer" : "reader";
    members.push({ email, role });
  }

  // Drive 0 always has outside members and no domain restriction, so every demo shows the case.
  const hasExternal = index === 0 || rng.chance(0.3);
  if (hasExternal) {
    const externalCount = 1 + rng.int(3);
    for (let k = 0; k < externalCount; k++) {
      const target = externalTarget(shape, rng);
      const email = target.emailAddress ?? externalPersonEmail(rng.int(1_000_000), target.domain, false);
      if (seen.has(email)) continue;
      seen.add(email);
      members.push({ email, role: rng.chance(0.3) ? "writer" : "reader" });
    }
  }
  const domainUsersOnly = index === 0 ? false : hasExternal ? rng.chance(0.25) : rng.chance(0.7);
  return {
    id,
    name,
    members,
    restrictions: {
      domainUsersOnly,
      driveMembersOnly: rng.chance(0.5),
      copyRequiresWriterPermission: rng.chance(0.3),
    },
    fileCount: driveFileCount(shape, index),
  };
}
