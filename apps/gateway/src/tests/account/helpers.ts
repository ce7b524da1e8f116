import { randomBytes } from "node:crypto";
import { SESSION_COOKIE } from "@posture/platform";
import type { TRequestOptions, TTestGateway, TTestResponse } from "../../testing";

/** A client address of its own, so per-IP limits of one test never throttle another. */
export const freshIp = () => `198.18.${randomBytes(1)[0] ?? 0}.${randomBytes(1)[0] ?? 0}`;

/** Requests from a new address each time unless the test names one. */
export function requester(gw: TTestGateway) {
  return (method: string, path: string, o: TRequestOptions = {}): Promise<TTestResponse> =>
    gw.request(method, path, { ip: freshIp(), ...o });
}

export function sessionSetCookie(res: TTestResponse): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
}

/** The `name=value` pair of the session cookie a response set, ready for a Cookie header. */
export function sessionCookie(res: TTestResponse): string {
  const set = sessionSetCookie(res);
  const pair = set?.split(";")[0];
  if (!pair) throw new Error(`no session cookie in response (${res.status})`);
  return pair;
}

export function tokenOf(cookie: string): string {
  return cookie.slice(cookie.indexOf("=") + 1);
}

/**
 * An organization with five audited actions: its OWNER signs in once wrongly and once rightly,
 * creates a key, revokes it and signs out.
 */
export async function activeOrganization(gw: TTestGateway) {
  const req = requester(gw);
  const owner = await gw.createActor({ role: "OWNER" });
  await req("POST", "/api/auth/sign-in", { body: { email: owner.user.email, password: "wrong-password" } });
  const signedIn = await req("POST", "/api/auth/sign-in", {
    body: { email: owner.user.email, password: owner.user.password },
  });
  const cookie = sessionCookie(signedIn);
  const created = (await req("POST", "/api/keys", { cookie, body: { name: "audited" } })).body as {
    id: string;
  };
  await req("DELETE", `/api/keys/${created.id}`, { cookie });
  await req("POST", "/api/auth/sign-out", { cookie });
  return { ...owner, keyId: created.id };
}
