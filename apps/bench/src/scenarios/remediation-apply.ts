import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { and, count, eq, isNotNull, ne } from "drizzle-orm";
import { createOrganization } from "@posture/account";
import { buildGoogleFixture, generateServiceAccount } from "@posture/fakes/google-fixture";
import { GOOGLE_WRITE_ACCESS } from "@posture/connectors";
import { ALL_CONNECTOR_SCOPES, startFakeGoogle } from "@posture/fakes/google";
import { connectors, remediationSteps, remediations } from "@posture/db";
import { createTestDb } from "@posture/db/testing";
import { encryptSecret, parseEncryptionKey } from "@posture/platform";
import type { TCheck, TScenario } from "../types";

const STEPS = Number(process.env.BENCH_APPLY_STEPS ?? "1000");
const LATENCY_MS = 20;
/** The fake source's write quota (Drive's is per user per 100 s; here per second, to be tight). */
const QUOTA_PER_SEC = 20;
/** Every this-many-th write is answered 429 whatever the rate: throttling the client cannot avoid. */
const SPRINKLE_EVERY = 40;
const KILL_AFTER = Math.floor(STEPS / 3);
const OWNER = "alice@acme.test";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * In front of the Google fake: every request waits LATENCY_MS; writes beyond QUOTA_PER_SEC in the
 * current second, and every SPRINKLE_EVERY-th write, are answered Google's 429 with Retry-After
 * instead of reaching the fake. Counts what it refused.
 */
async function startThrottlingProxy(target: string) {
  let windowStart = 0;
  let inWindow = 0;
  let writes = 0;
  const refused = { quota: 0, sprinkled: 0 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        await sleep(LATENCY_MS);
        const isWrite = req.method !== "GET";
        if (isWrite) {
          const now = Date.now();
          if (now - windowStart >= 1000) {
            windowStart = now;
            inWindow = 0;
          }
          writes++;
          const over = inWindow >= QUOTA_PER_SEC;
          const sprinkled = writes % SPRINKLE_EVERY === 0;
          if (over || sprinkled) {
            if (over) refused.quota++;
            else refused.sprinkled++;
            const message = "Rate Limit Exceeded";
            res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
            res.end(
              JSON.stringify({
                error: {
                  code: 429,
                  message,
                  errors: [{ message, domain: "usageLimits", reason: "rateLimitExceeded" }],
                  status: "RESOURCE_EXHAUSTED",
                },
              }),
            );
            return;
          }
          inWindow++;
        }
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === "string" && k !== "host" && k !== "content-length") headers.set(k, v);
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const upstream = await fetch(`${target}${req.url ?? ""}`, {
          method: req.method,
          headers,
          ...(body && req.method !== "GET" ? { body } : {}),
        });
        const text = await upstream.text();
        res.writeHead(upstream.status, {
          "content-type": upstream.headers.get("content-type") ?? "application/json",
        });
        res.end(text);
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, refused, close: () => new Promise<void>((r) => server.close(() => r())) };
}

function spawnApply(env: Record<string, string>): { child: ChildProcess; done: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("../children/remediation-apply.ts", import.meta.url))],
    {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  return { child, done: new Promise((r) => child.once("exit", (code) => r(code))) };
}

/**
 * 1,000 remediation steps (public links removed) applied against the Google fake behind a proxy
 * that answers in 20 ms, holds writes to 20 a second and sprinkles 429s: the apply job runs in a
 * process of its own, is killed (SIGKILL) a third of the way through, and a second process
 * resumes it. Checked at the fake: one change per step, never two, and never beyond the quota.
 */
export const remediationApply: TScenario = {
  name: "remediation-apply",
  title: `apply ${STEPS.toLocaleString("en")} remediation steps against a throttling source (${LATENCY_MS} ms, ${QUOTA_PER_SEC} writes/s, 429s sprinkled), killed mid-job and resumed`,
  run: async () => {
    const db = await createTestDb();
    const fixture = buildGoogleFixture();
    for (let i = 0; i < STEPS; i++)
      fixture.files.push({
        id: `f-bench-${i}`,
        name: `Bench ${i}.pdf`,
        mimeType: "application/pdf",
        owners: [{ emailAddress: OWNER }],
        modifiedTime: "2025-04-10T12:00:00.000Z",
        size: "1024",
        permissions: [
          { id: "p-alice", type: "user", role: "owner", emailAddress: OWNER },
          { id: "anyoneWithLink", type: "anyone", role: "reader" },
        ],
      });
    const sa = generateServiceAccount("admin@acme.test");
    const fake = await startFakeGoogle({
      fixture,
      serviceAccounts: [{ clientEmail: sa.credentials.clientEmail, publicKey: sa.publicKey }],
      authorizedScopes: [...ALL_CONNECTOR_SCOPES, ...GOOGLE_WRITE_ACCESS.map((r) => r.permission)],
    });
    const proxy = await startThrottlingProxy(fake.url);
    const keyHex = randomBytes(32).toString("hex");
    try {
      const org = await createOrganization(db.db, { name: "Bench apply", plan: "enterprise" });
      const [connector] = await db.db
        .insert(connectors)
        .values({
          orgId: org.id,
          type: "google_workspace",
          displayName: "Bench Google",
          mode: "real",
          writeAccess: true,
          config: { domain: "acme.test" },
          credentialsEnc: encryptSecret(parseEncryptionKey(keyHex), JSON.stringify(sa.credentials)),
        })
        .returning();
      if (!connector) throw new Error("connector insert failed");
      const actor = { kind: "system" as const, userId: null, email: "bench", orgId: org.id };
      const [rem] = await db.db
        .insert(remediations)
        .values({
          orgId: org.id,
          status: "APPLYING",
          request: { bench: true },
          predicted: {},
          plannedBy: actor,
          approvedBy: actor,
          approvedAt: new Date(),
          applyStartedAt: new Date(),
          stepTotal: STEPS,
          stepCounts: { PENDING: STEPS },
        })
        .returning();
      if (!rem) throw new Error("remediation insert failed");
      await db.db.insert(remediationSteps).values(
        Array.from({ length: STEPS }, (_, i) => ({
          remediationId: rem.id,
          orgId: org.id,
          connectorId: connector.id,
          seq: i,
          action: "remove_public_link" as const,
          resource: {
            kind: "permission" as const,
            fileId: `f-bench-${i}`,
            driveId: null,
            name: `Bench ${i}.pdf`,
            ownerEmail: OWNER,
            permissionId: "anyoneWithLink",
          },
          before: { type: "anyone", role: "reader", target: "anyone" },
          after: null,
          reversible: true,
        })),
      );
      // The APIs go through the proxy; the token endpoint does not (the JWT's audience is its URL).
      const endpoints = Object.fromEntries(
        Object.entries(fake.endpoints).map(([k, v]) => [
          k,
          k === "tokenUrl" ? v : v.replace(fake.url, proxy.url),
        ]),
      );
      const env = {
        BENCH_DATABASE_URL: db.url,
        BENCH_REMEDIATION_ID: rem.id,
        BENCH_ENCRYPTION_KEY: keyHex,
        BENCH_GOOGLE_ENDPOINTS: JSON.stringify(endpoints),
      };
      const decided = async () => {
        const [row] = await db.db
          .select({ n: count() })
          .from(remediationSteps)
          .where(and(eq(remediationSteps.remediationId, rem.id), ne(remediationSteps.status, "PENDING")));
        return row?.n ?? 0;
      };

      const started = performance.now();
      const first = spawnApply({ ...env, BENCH_ATTEMPT: "1" });
      while ((await decided()) < KILL_AFTER && first.child.exitCode === null) await sleep(50);
      first.child.kill("SIGKILL");
      await first.done;
      const atKill = await decided();
      const [inFlight] = await db.db
        .select({ n: count() })
        .from(remediationSteps)
        .where(
          and(
            eq(remediationSteps.remediationId, rem.id),
            eq(remediationSteps.status, "PENDING"),
            isNotNull(remediationSteps.startedAt),
          ),
        );
      const second = spawnApply({ ...env, BENCH_ATTEMPT: "2" });
      const code = await second.done;
      const ms = performance.now() - started;

      const [final] = await db.db.select().from(remediations).where(eq(remediations.id, rem.id));
      const deletes = fake.writes.filter((w) => w.method === "DELETE" && w.status < 300);
      const perPath = new Map<string, number>();
      for (const w of deletes) perPath.set(w.path, (perPath.get(w.path) ?? 0) + 1);
      const twice = [...perPath.values()].filter((n) => n > 1).length;
      const applied = final?.stepCounts ?? {};
      const quotaRefusals = proxy.refused.quota;
      const checks: TCheck[] = [
        {
          label: "every step decided, the remediation applied",
          ok: code === 0 && final?.status === "APPLIED",
          detail: `status ${final?.status ?? "missing"}, steps ${JSON.stringify(applied)}, second process exit ${code}`,
        },
        {
          label: "never more than one change per step",
          ok: twice === 0 && perPath.size === STEPS,
          detail: `${perPath.size.toLocaleString("en")} permissions deleted at the fake by ${deletes.length.toLocaleString("en")} successful DELETEs; ${twice} deleted twice`,
        },
        {
          label: "within the source's quota",
          ok: quotaRefusals <= STEPS / 100,
          detail: `${quotaRefusals} writes refused for the ${QUOTA_PER_SEC}/s quota, ${proxy.refused.sprinkled} sprinkled 429s ridden out`,
        },
        {
          label: "resumed after the worker was killed",
          ok: atKill >= KILL_AFTER && atKill < STEPS,
          detail: `killed with ${atKill.toLocaleString("en")} steps decided (${inFlight?.n ?? 0} started, undecided); the second process finished the rest`,
        },
      ];
      return {
        kind: "done",
        measurements: [],
        checks,
        notes: [
          `${STEPS.toLocaleString("en")} steps in ${(ms / 1000).toFixed(1)} s across the two processes (${((STEPS * 1000) / ms).toFixed(1)} steps/s; the executor's own bound is REMEDIATION_CHANGES_PER_SECOND, 10 by default)`,
        ],
      };
    } finally {
      await proxy.close();
      await fake.close();
      await db.drop();
    }
  },
};
