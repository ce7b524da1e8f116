import {
  createApiKeyFor,
  createOrganization,
  createUser,
  setOrganizationManager,
  setOrganizationPlan,
  verifyAudit,
} from "@posture/account";
import { PLAN_IDS, ROLES, type Db } from "@posture/db";
import { seedDemo } from "@posture/demo";
import { API_KEY_SCOPES, AppError } from "@posture/platform";
// The sub-path alone: the CLI starts without the scan pipeline the sandbox package orchestrates.
import { createSandboxOrganization } from "@posture/sandbox/organizations";
import { z } from "zod";
import { demoLog, demoRuntime } from "./demo-runtime";
import { readCliEnv } from "./env";

export type TResult = Record<string, unknown>;
/** What a check found wrong: its result is still printed, and the CLI exits 3. */
type TFault = { code: string; message: string };

type TCommand<S extends z.ZodType, R extends TResult> = {
  usage: string;
  options: S;
  run: (db: Db, opts: z.infer<S>) => Promise<R>;
  fault?: (result: R) => TFault | null;
  /** Writes nothing (no audit row): runs even when the audit key does not match. */
  readOnly?: boolean;
};

/** Validates the options first, so a bad command line never opens the database. */
const command = <S extends z.ZodType, R extends TResult>(c: TCommand<S, R>) => ({
  usage: c.usage,
  prepare: (raw: Record<string, unknown>) => {
    const options = c.options.parse(raw);
    return (db: Db) => c.run(db, options);
  },
  fault: (result: TResult) => c.fault?.(result as R) ?? null,
  readOnly: c.readOnly ?? false,
});

const id = z.string().trim().min(1);

// Option names are the command line's (kebab-case); strict objects refuse options a command does not take.
export const COMMANDS = {
  "org:create": command({
    usage: "org:create --name N --plan P [--partner] [--managed-by ORG_ID] [--sandbox]",
    options: z.strictObject({
      name: z.string().trim().min(1).max(200),
      plan: z.enum(PLAN_IDS),
      partner: z.boolean().default(false),
      "managed-by": id.optional(),
      // A sandbox: demo sources only, scenario triggers and a reset (docs/sandbox.md).
      sandbox: z.boolean().default(false),
    }),
    run: async (db, o) => {
      const input = { name: o.name, plan: o.plan, isPartner: o.partner, managedByOrgId: o["managed-by"] };
      return o.sandbox ? createSandboxOrganization(db, input) : createOrganization(db, input);
    },
  }),
  "org:set-manager": command({
    usage: "org:set-manager --org ID (--managed-by PARTNER_ID | --unmanaged)",
    options: z
      .strictObject({ org: id, "managed-by": id.optional(), unmanaged: z.boolean().default(false) })
      .refine((o) => (o["managed-by"] === undefined) === o.unmanaged, {
        message: "give either --managed-by PARTNER_ID or --unmanaged",
        path: ["managed-by"],
      }),
    // The consent stays the client's: a withdrawn access stays withdrawn (docs/partner.md).
    run: (db, o) => setOrganizationManager(db, { orgId: o.org, managedByOrgId: o["managed-by"] ?? null }),
  }),
  "org:set-plan": command({
    usage: "org:set-plan --org ID --plan P",
    options: z.strictObject({ org: id, plan: z.enum(PLAN_IDS) }),
    run: (db, o) => setOrganizationPlan(db, { orgId: o.org, plan: o.plan }),
  }),
  "user:create": command({
    usage: "user:create --org ID --email E --password P --role OWNER|ADMIN|member",
    options: z.strictObject({
      org: id,
      email: z.email(),
      password: z.string().min(8).max(1024),
      role: z.enum(ROLES),
    }),
    run: (db, o) => createUser(db, { orgId: o.org, email: o.email, password: o.password, role: o.role }),
  }),
  "key:create": command({
    usage: "key:create --org ID --user USER_ID --name N [--expires-in-days D] [--scopes read[,write]]",
    options: z.strictObject({
      org: id,
      user: id,
      name: z.string().trim().min(1).max(80),
      "expires-in-days": z.coerce.number().int().min(1).max(3650).optional(),
      // `--scopes read`: a read-only key; omitted, the key has its owner's full role.
      scopes: z
        .string()
        .transform((s) => s.split(",").map((x) => x.trim()))
        .pipe(z.array(z.enum(API_KEY_SCOPES)).min(1))
        .optional(),
    }),
    run: async (db, o) => {
      const k = await createApiKeyFor(db, {
        orgId: o.org,
        userId: o.user,
        name: o.name,
        expiresInDays: o["expires-in-days"],
        scopes: o.scopes,
      });
      return {
        key: k.key,
        id: k.id,
        keyPrefix: k.keyPrefix,
        name: k.name,
        expiresAt: k.expiresAt,
        scopes: k.scopes,
      };
    },
  }),
  "demo:seed": command({
    usage: "demo:seed",
    options: z.strictObject({}),
    // The same as a first `pnpm start`: the organizations, users and key, then their history.
    run: async (db) => {
      const seeded = await seedDemo({ db, runtime: demoRuntime(readCliEnv()), log: demoLog() });
      if (!seeded)
        throw new AppError(
          "conflict",
          "The database already holds organizations; demo data is only seeded into an empty one",
        );
      return seeded.seed;
    },
  }),
  "audit:verify": command({
    usage: "audit:verify [--org ID]",
    readOnly: true,
    options: z.strictObject({ org: id.optional() }),
    run: async (db, o) => {
      const orgs = await db.query.organizations.findMany({
        columns: { id: true, name: true },
        where: o.org === undefined ? undefined : (org, { eq }) => eq(org.id, o.org ?? ""),
        orderBy: (org, { asc }) => [asc(org.createdAt), asc(org.id)],
      });
      if (o.org !== undefined && orgs.length === 0) throw new AppError("not_found", "Organization not found");
      const results = [];
      for (const org of orgs) {
        const { verifiedAt: _at, ...check } = await verifyAudit(db, { orgId: org.id });
        results.push({ id: org.id, name: org.name, ...check });
      }
      return {
        ok: results.every((r) => r.ok),
        organizations: results,
        verifiedAt: new Date().toISOString(),
      };
    },
    fault: (r) => {
      const broken = r.organizations.filter((o) => !o.ok);
      if (broken.length === 0) return null;
      const named = broken.map((o) => `${o.id} at entry ${o.brokenAt?.seq} (${o.brokenAt?.reason})`);
      // Every non-empty chain failing its MAC check looks more like a wrong key than tampering.
      const allMacs =
        broken.length === r.organizations.filter((o) => o.entries > 0).length &&
        broken.every((o) => o.brokenAt?.reason === "MAC does not match");
      const hint = allMacs ? " Every chain fails its MAC check: is the audit key the server's?" : "";
      return { code: "audit_chain_broken", message: `Audit chain broken: ${named.join("; ")}.${hint}` };
    },
  }),
};

export type TCommandName = keyof typeof COMMANDS;

export function isCommandName(name: string): name is TCommandName {
  return Object.hasOwn(COMMANDS, name);
}
