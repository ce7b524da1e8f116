import type { TRole } from "@posture/db";
import { AppError, type TActor } from "@posture/platform";

// Four eyes (issue 28): with `fourEyes` on, no single person changes a tenant or loosens a control
// alone, whatever their role. The one way for an organization to act alone again is an OWNER,
// signed in, turning four eyes off: a loosening only an OWNER's session may make, and an event
// (`remediation.settings.changed` with `weakened: true`) a receiver can alert on.

/** The caller as four eyes sees them: who (an API key is its creator), their role, the credential. */
export type TFourEyesScope = { orgId: string; actor: TActor; role: TRole };

/** A person as the events name them. */
export type TPerson = { email: string; role: TRole | null; credential: "session" | "api_key" | "system" };

export function personOf(scope: { actor: Pick<TActor, "kind" | "email">; role: TRole | null }): TPerson {
  return { email: scope.actor.email, role: scope.role, credential: scope.actor.kind };
}

/**
 * A loosening of a control while four eyes is on: only an OWNER, and in person (a session). An
 * API key is held by a program (a script, CI, an assistant reading tenant-controlled text through
 * MCP), not a person at the console: a leaked OWNER key must not be able to switch off the control
 * that exists so that one credential cannot act alone.
 */
export function requireOwnerInPerson(scope: TFourEyesScope, what: string): void {
  if (scope.role !== "OWNER")
    throw new AppError(
      "owner_required",
      `Four eyes is on: only an OWNER may ${what} (an ADMIN may tighten the settings, never loosen them)`,
    );
  if (scope.actor.kind !== "session")
    throw new AppError(
      "session_required",
      `Four eyes is on: an OWNER may ${what} signed in, not with an API key`,
    );
}
