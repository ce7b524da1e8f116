import type { TPrincipal } from "./principal";

/**
 * Who did something, as services see it: the audit trail, incident logs and events record this.
 * Services take `(db, {orgId, actor, ...})`; procedures build the actor from the principal once.
 */
export type TActor = {
  kind: "session" | "api_key" | "system";
  /** null for the system (scheduled jobs, sweeps). */
  userId: string | null;
  email: string;
  /** The program that acted for the credential, as it declared itself (TPrincipal.client). */
  client?: string;
};

export const SYSTEM_ACTOR: TActor = { kind: "system", userId: null, email: "system" };

export function actorOf(principal: TPrincipal): TActor {
  const actor: TActor = { kind: principal.kind, userId: principal.userId, email: principal.userEmail };
  if (principal.client !== undefined) actor.client = principal.client;
  return actor;
}

/** The `{orgId, actor}` every org-scoped service call starts from: `service(db, {...scope, ...input})`. */
export type TScope = { orgId: string; actor: TActor };

/** The scope of a principal's call. */
export function scopeOf(principal: TPrincipal): TScope {
  return { orgId: principal.org.id, actor: actorOf(principal) };
}
