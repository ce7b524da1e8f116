import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { createApiKeyFor, createOrganization, createUser } from "@posture/account";
import { eq } from "drizzle-orm";
import { connectors, scans, sessions } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { generateSessionToken, SESSION_ABSOLUTE_MS, SESSION_COOKIE } from "@posture/platform";

// What the SIGTERM tests (shutdown.int.test.ts, shutdown-handoff.int.test.ts) share: the real
// entry point started in its own process against the file's database, and fixtures.

export let db: TestDb;
let child: ChildProcess | undefined;
export const cleanups: (() => Promise<unknown>)[] = [];

/** The file's database, and the gateway process and clean-ups it leaves, dropped after its tests. */
export function useShutdownDb() {
  beforeAll(async () => {
    db = await createTestDb();
  });
  afterAll(async () => {
    child?.kill("SIGKILL");
    for (const clean of cleanups.splice(0).reverse()) await clean().catch(() => {});
    await db.drop();
  });
}

export type TLogLine = { msg?: string; url?: string; scanId?: string; scans?: string[] };

export function startGatewayProcess(
  extraEnv: Record<string, string> = {},
): Promise<{ url: string; proc: ChildProcess; lines: TLogLine[] }> {
  // No REDIS_URL: limits and jobs run in-process, as in the embedded default.
  const { REDIS_URL: _redis, ...inherited } = process.env;
  // The app's bundle on plain Node, as `pnpm start` runs it, built (when stale) by the integration
  // project's global set-up (tooling/test/app-bundles.mjs): it starts in a second or two, where
  // `tsx` compiled the sources for ten or more on a busy machine.
  const proc = spawn(
    process.execPath,
    ["--enable-source-maps", fileURLToPath(new URL("../../dist/main.js", import.meta.url))],
    {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: {
        ...inherited,
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_URL: db.url,
        ENCRYPTION_KEY: randomBytes(32).toString("hex"),
        COOKIE_SECURE: "false",
        LOG_LEVEL: "info",
        ...extraEnv,
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  child = proc;
  const lines: TLogLine[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("gateway did not start")), 60_000);
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      try {
        const entry = JSON.parse(line) as TLogLine;
        lines.push(entry);
        if (entry.msg === "gateway listening" && entry.url) {
          clearTimeout(timer);
          resolve({ url: entry.url, proc, lines });
        }
      } catch {
        // not a log line
      }
    });
    proc.on("exit", (code) => reject(new Error(`gateway exited early with ${code}`)));
  });
}

export async function fixture(name: string, fileCount = 10_000) {
  const org = await createOrganization(db.db, { name, plan: "business" });
  const user = await createUser(db.db, {
    orgId: org.id,
    email: `owner@${name.toLowerCase()}.test`,
    password: "long-enough-pw",
    role: "OWNER",
  });
  const { key } = await createApiKeyFor(db.db, { orgId: org.id, userId: user.id, name: "k" });
  const s = generateSessionToken();
  await db.db.insert(sessions).values({
    tokenHash: s.tokenHash,
    userId: user.id,
    orgId: org.id,
    expiresAt: new Date(Date.now() + SESSION_ABSOLUTE_MS),
  });
  const [connector] = await db.db
    .insert(connectors)
    .values({
      orgId: org.id,
      type: "google_workspace",
      displayName: "Big",
      mode: "demo",
      config: { fileCount },
    })
    .returning();
  return { orgId: org.id, key, cookie: `${SESSION_COOKIE}=${s.token}`, connectorId: connector?.id ?? "" };
}

/** The response, or an error once `ms` have passed: a test of a bound fails at the bound, not at its timeout. */
export function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    work,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms),
    ),
  ]);
}

export async function scanStatus(scanId: string): Promise<string | undefined> {
  const [row] = await db.db.select({ status: scans.status }).from(scans).where(eq(scans.id, scanId));
  return row?.status;
}

export async function untilStatus(scanId: string, wanted: string[], ms: number): Promise<string | undefined> {
  const deadline = Date.now() + ms;
  let status = await scanStatus(scanId);
  while (!wanted.includes(status ?? "") && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    status = await scanStatus(scanId);
  }
  return status;
}
