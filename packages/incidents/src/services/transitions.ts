import type { TIncidentStatus } from "@posture/db";

/** The contract's moves, and only those: anything else is 409 invalid_transition. */
export const INCIDENT_MOVES: Readonly<Record<TIncidentStatus, readonly TIncidentStatus[]>> = {
  OPEN: ["INVESTIGATING", "CLOSED"],
  INVESTIGATING: ["CONTAINED", "RESOLVED"],
  CONTAINED: ["RESOLVED"],
  RESOLVED: ["CLOSED", "INVESTIGATING"],
  CLOSED: [],
};

export function canMove(from: TIncidentStatus, to: TIncidentStatus): boolean {
  return INCIDENT_MOVES[from].includes(to);
}
