import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SEVERITY_RANK, type TSeverity } from "@posture/db";
import { freePort } from "@posture/platform/testing";
import { serviceEnv, START_ARGS, startAgain } from "../../../../tooling/test/first-start.mjs";

// README's "A first session", run as written: its sh blocks are read from README.md at test time,
// the service is started the way `pnpm start` starts it (the app's bundle on plain Node, embedded
// PGlite in a fresh directory, the first-start demo seed and banner — the run's one first start,
// tooling/test/first-start.mjs — then started again on a copy of it with the section's
// environment), and the session's commands run in bash with the password and key the banner
// printed. Every curl call must answer 2xx
// with what the README's comment next to it promises; a call the walk has no promise for fails it.

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const APP_DIR = join(ROOT, "apps", "gateway");

type TJson = Record<string, unknown> & { [k: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The fenced sh blocks of one README section (up to the next `## ` heading). */
function shBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `README has no "## ${heading}" section`).toBeGreaterThanOrEqual(0);
  const rest = readme.slice(start + heading.length + 5);
  const end = rest.search(/\n## /);
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? "");
}

/** Replaces exactly one match: a README that drifts from what the walk substitutes fails loudly. */
function replaceOnce(text: string, pattern: RegExp, replacement: string): string {
  const global = new RegExp(
    pattern.source,
    pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`,
  );
  expect([...text.matchAll(global)].length, `README session: exactly one ${pattern}`).toBe(1);
  return text.replace(pattern, () => replacement);
}

type TCall = {
  status: number;
  method: string;
  path: string;
  search: URLSearchParams;
  body: TJson;
  seconds: number;
};

/**
 * What each comment in the README promises, by the call it stands next to. A call that matches
 * none of these fails the walk, so a command added to the README needs its promise here.
 */
// What the promises below carry from one call to the next: the AI readiness reads, the plans made.
const readiness: Array<{ score: number; delta: number }> = [];
const plans: string[] = [];
/** The connectors the session made, by id: their type (a GitHub scan is always full). */
const connectorTypes = new Map<string, string>();

const PROMISES: Array<{ call: RegExp; check: (c: TCall) => void }> = [
  {
    call: /^POST \/api\/auth\/sign-in$/,
    check: ({ body }) => expect(body.user).toMatchObject({ email: "owner@acme.example", role: "OWNER" }),
  },
  {
    // "The secret is shown once", subscribed to the two events the receiver should log.
    call: /^POST \/api\/webhooks$/,
    check: ({ body }) => {
      expect(body).toMatchObject({ status: "active", events: ["scan.completed", "alert.grouped"] });
      expect(body.secret).toMatch(/^whsec_/);
    },
  },
  {
    call: /^POST \/api\/connectors$/,
    check: ({ body }) => {
      expect(body).toMatchObject({ id: expect.stringMatching(/^con_/), mode: "demo" });
      connectorTypes.set(body.id as string, body.type as string);
    },
  },
  {
    // {scanId, status: COMPLETE, kind: "full", findingsNew, postureScore…}; after the sandbox moved
    // a day on, {kind: "incremental", findingsNew, findingsResolved…}
    call: /^POST \/api\/connectors\/con_\w+\/sync$/,
    check: ({ body, path }) => {
      expect(body).toMatchObject({ scanId: expect.stringMatching(/^scn_/), status: "COMPLETE" });
      expect(body.findingsNew).toBeGreaterThan(0);
      expect(body.postureScore).toEqual(expect.any(Number));
      expect(body.kind === "full" || body.kind === "incremental").toBe(true);
      if (body.kind === "incremental") expect(body.findingsResolved).toBeGreaterThan(0);
      // GitHub has no change feed (docs/sources/github.md): every scan of it is full.
      else
        expect(body.fullReason).toBe(
          connectorTypes.get(path.split("/")[3] ?? "") === "github" ? "no_feed" : "first",
        );
    },
  },
  {
    // most severe first, then newest (also: the first finding, taken for the ticket)
    call: /^GET \/api\/findings$/,
    check: ({ body, search }) => {
      const findings = body.findings as Array<{
        severity: string;
        detectedAt: string;
        category: string;
        connectorType: string;
      }>;
      expect(findings.length).toBe(Number(search.get("limit")));
      // The tenant's settings against the CIS benchmark: each finding names its recommendation
      // (the demo history's Microsoft 365 source has its tenant findings too).
      if (search.get("category") === "tenant_configuration")
        for (const f of findings)
          expect(f).toMatchObject({
            category: "tenant_configuration",
            benchmark: {
              name:
                f.connectorType === "microsoft_365"
                  ? "CIS Microsoft 365 Foundations"
                  : "CIS Google Workspace Foundations",
              version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
              id: expect.stringMatching(/^\d+(\.\d+)+$/),
            },
          });
      // Severity rank descending, then detectedAt descending: a key that sorts as the service does.
      const keys = findings.map((f) => `${SEVERITY_RANK[f.severity as TSeverity] ?? 0}|${f.detectedAt}`);
      expect(keys).toEqual([...keys].sort().reverse());
    },
  },
  {
    // score, grade, deductions by category, top improvements
    call: /^GET \/api\/posture\/breakdown$/,
    check: ({ body }) => {
      expect(body).toMatchObject({ score: expect.any(Number), grade: expect.stringMatching(/^[A-F]$/) });
      expect(body.categories.length).toBeGreaterThan(0);
      expect(body.categories[0]).toMatchObject({ deductionPoints: expect.any(Number) });
      // Only single fixes worth a point are listed (none, in a large demo tenant); quick wins are.
      expect(body.topImprovements.every((t: { scoreDelta: number }) => t.scoreDelta > 0)).toBe(true);
      expect(body.quickWins.length).toBeGreaterThan(0);
    },
  },
  {
    // one point per completed scan: the demo history's weekly scans, then the session's two
    call: /^GET \/api\/posture\/history$/,
    check: ({ body }) => expect(body.history.length).toBeGreaterThanOrEqual(10),
  },
  {
    // findings, scans, audit, OAuth grants, newest first
    call: /^GET \/api\/timeline$/,
    check: ({ body }) => {
      const items = body.items as Array<{ kind: string; at: string }>;
      expect(items.length).toBe(20);
      expect(items.map((i) => i.at)).toEqual(
        items
          .map((i) => i.at)
          .sort()
          .reverse(),
      );
      for (const i of items) expect(["finding", "scan", "audit", "oauth_grant", "anomaly"]).toContain(i.kind);
    },
  },
  {
    call: /^GET \/api\/inventory$/,
    check: ({ body, search }) => {
      if (search.get("type") === "repositories") {
        // the GitHub demo organization's repositories, most recently pushed first
        expect(body).toMatchObject({ type: "repositories", total: 40 });
        expect(body.rows.map((r: { name: string; visibility: string }) => [r.name, r.visibility])).toEqual([
          ["northwind-labs/payments-api", "private"],
          ["northwind-labs/website", "public"],
          ["northwind-labs/infra-credentials", "public"],
          ["northwind-labs/mobile-app", "private"],
          ["northwind-labs/deploy-scripts", "private"],
        ]);
        return;
      }
      expect(body.type).toBe("files");
      expect(body.rows.length).toBeGreaterThan(0);
      const label = search.get("label");
      if (label) for (const row of body.rows) expect(row.label.toLowerCase()).toBe(label.toLowerCase());
      else expect(body.rows[0].name).toMatch(/payroll/i);
    },
  },
  {
    // external shares, riskiest first; and the domain-wide ones the trusted domain is taken from
    call: /^GET \/api\/sharing\/items$/,
    check: ({ body, search }) => {
      const rows = body.rows as Array<{ riskRank: number; sharingType: string; targetCount: number }>;
      expect(rows.length).toBeGreaterThan(0);
      const ranks = rows.map((r) => r.riskRank);
      expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
      const type = search.get("type");
      if (type) {
        for (const r of rows) expect(r.sharingType).toBe(type);
        expect(rows.some((r) => r.targetCount === 1)).toBe(true);
      }
    },
  },
  {
    // re-rated at once: the demo really shares with the domain
    call: /^POST \/api\/sharing\/trusted-domains$/,
    check: ({ body }) => {
      expect(body.domain).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
      expect(body.rerated.items).toBeGreaterThan(0);
    },
  },
  {
    // users → files → outside domains, public links
    call: /^GET \/api\/flow-guard\/graph$/,
    check: ({ body }) => {
      const types = new Set((body.nodes as Array<{ type: string }>).map((n) => n.type));
      expect(types).toContain("external");
      expect(body.summary.publicLinks).toBeGreaterThan(0);
    },
  },
  {
    // AI agents and apps by reach and trust
    call: /^GET \/api\/agent-guard\/risk-matrix$/,
    check: ({ body }) => {
      const kinds = new Set((body.points as Array<{ kind: string }>).map((p) => p.kind));
      expect(kinds).toContain("ai_agent");
      expect(kinds).toContain("oauth_app");
    },
  },
  {
    // waited for until both tenants' mass deletions are in, then listed whole: every kind occurs
    call: /^GET \/api\/behavior\/anomalies$/,
    check: ({ body, search }) => {
      const anomalies = body.anomalies as Array<{ type: string }>;
      if (search.get("type")) for (const a of anomalies) expect(a.type).toBe(search.get("type"));
      else
        expect(new Set(anomalies.map((a) => a.type))).toEqual(
          new Set(["sharing_spike", "bulk_access", "dormant_reactivation", "oauth_burst", "mass_deletion"]),
        );
    },
  },
  {
    // controls evidenced by tenant checks, each naming its CIS recommendations
    call: /^GET \/api\/compliance\/dashboard$/,
    check: ({ body }) => {
      const frameworks = body.frameworks as Array<{
        id: string;
        evidencedByTenantChecks: number;
        tenantControls: Array<{ tenantChecks: Array<{ benchmark: { name: string } }> }>;
      }>;
      expect(frameworks.map((f) => f.id).sort()).toEqual(["gdpr", "hipaa", "iso27001", "nist_csf", "soc2"]);
      for (const f of frameworks) {
        expect(f.evidencedByTenantChecks).toBeGreaterThan(0);
        const names = new Set(f.tenantControls.flatMap((c) => c.tenantChecks.map((t) => t.benchmark.name)));
        expect(names).toEqual(new Set(["CIS Google Workspace Foundations", "CIS Microsoft 365 Foundations"]));
      }
    },
  },
  {
    // the AI readiness: both assistants and agents, and quick wins with their readiness; the
    // last read, after the quick win was applied, is higher than the first by its delta at most
    call: /^GET \/api\/exposure\/ai$/,
    check: ({ body }) => {
      expect(body).toMatchObject({ score: expect.any(Number), grade: expect.stringMatching(/^[A-F]$/) });
      expect(new Set(body.assistants.map((a: { kind: string }) => a.kind))).toEqual(
        new Set(["copilot", "gemini", "agent"]),
      );
      readiness.push({ score: body.score, delta: body.quickWins[0]?.readinessDelta ?? 0 });
      const [first] = readiness;
      if (readiness.length === 3 && first) expect(body.score).toBeGreaterThan(first.score);
    },
  },
  {
    // a quick win planned (the AI readiness one, then the public links'): each step's change,
    // the prediction, the controls
    call: /^POST \/api\/remediations$/,
    check: ({ status, body }) => {
      expect(status).toBe(201);
      expect(body).toMatchObject({ status: "PLANNED", predicted: { scoreDelta: expect.any(Number) } });
      expect(body.steps.length).toBeGreaterThan(0);
      const actions = new Set(body.steps.map((s: { action: string }) => s.action));
      expect(actions.size).toBe(1);
      plans.push([...actions][0] as string);
      if (plans.length === 1)
        expect(["remove_org_wide_link", "remove_everyone_grant", "remove_group_grant"]).toContain(plans[0]);
      else {
        expect(plans[1]).toBe("remove_public_link");
        expect(body.predicted.scoreDelta).toBeGreaterThan(0);
      }
    },
  },
  {
    call: /^POST \/api\/remediations\/rem_\w+\/approve$/,
    check: ({ body }) => expect(body).toMatchObject({ status: "APPROVED" }),
  },
  {
    call: /^POST \/api\/remediations\/rem_\w+\/apply$/,
    check: ({ status, body }) => {
      expect(status).toBe(202);
      expect(body).toMatchObject({ status: "APPLYING" });
    },
  },
  {
    // polled until the job is done: APPLIED, every step applied or already gone
    call: /^GET \/api\/remediations\/rem_\w+$/,
    check: ({ body }) => {
      expect(["APPLYING", "APPLIED"]).toContain(body.status);
      if (body.status === "APPLIED")
        for (const s of body.steps as Array<{ status: string }>)
          expect(["APPLIED", "ALREADY_GONE"]).toContain(s.status);
    },
  },
  {
    call: /^POST \/api\/remediations\/rem_\w+\/undo$/,
    check: ({ status, body }) => {
      expect(status).toBe(202);
      expect(body).toMatchObject({ status: "REVERTING" });
    },
  },
  {
    call: /^PUT \/api\/integrations\/ticketing$/,
    check: ({ body }) => expect(body).toMatchObject({ provider: "github", configured: true }),
  },
  {
    // {ticket: {externalId: "acme/security#1", url…}}
    call: /^POST \/api\/findings\/fnd_\w+\/ticket$/,
    check: ({ body }) =>
      expect(body.ticket).toMatchObject({
        provider: "github",
        externalId: "acme/security#1",
        status: "open",
      }),
  },
];

// Every curl of the session goes through this function: the response is printed as curl would,
// and its status, method, URL and body are logged, one line per call, for the checks above.
const PRELUDE = String.raw`set -euo pipefail
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
curl() {
  local out meta
  out=$(mktemp)
  meta=$(command curl --max-time 60 -o "$out" -w '%{http_code} %{method} %{url_effective} %{time_total}' "$@")
  printf '%s\t%s\n' "$meta" "$(tr -d '\n' < "$out")" >> "$WALK_LOG"
  cat "$out"
  rm -f "$out"
}
`;

let dir = "";
let service: ChildProcess | undefined;
let walker: ChildProcess | undefined;

afterAll(async () => {
  service?.kill("SIGKILL");
  // The session's shell leads its own process group, with the receiver it started in the background.
  if (walker?.pid !== undefined && walker.exitCode === null) {
    try {
      process.kill(-walker.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("README's first session", () => {
  it("runs as written against a freshly started service", async () => {
    for (const tool of ["bash", "curl"]) {
      const found = spawnSync(tool, ["--version"], { stdio: "ignore" }).error === undefined;
      expect(found, `the README walk runs the session in bash with curl: ${tool} on PATH`).toBe(true);
    }
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    const blocks = shBlocks(readme, "A first session");
    expect(blocks, "the section has the start command and the session").toHaveLength(2);
    const [startBlock = "", session = ""] = blocks;

    // The start command: `pnpm start` with the environment the section asks for.
    const startLine = /^((?:[A-Z_]+=\S+ )*)pnpm start\n$/.exec(startBlock);
    expect(startLine, `start block: ${startBlock}`).not.toBeNull();
    const readmeEnv = Object.fromEntries(
      (startLine?.[1] ?? "")
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map((kv) => kv.split("=") as [string, string]),
    );
    expect(readmeEnv).toEqual({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" });

    // What `pnpm start` runs: the root script → the gateway's start:all → `node … dist/main.js …`.
    const rootPkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as TJson;
    expect(rootPkg.scripts.start).toBe("pnpm --filter @posture/gateway start:all");
    const appPkg = JSON.parse(await readFile(join(APP_DIR, "package.json"), "utf8")) as TJson;
    const nodeArgs = /&& node (.+)$/.exec(appPkg.scripts["start:all"] as string)?.[1]?.split(" ") ?? [];
    expect(nodeArgs).toContain("dist/main.js");
    // The app's bundle, built (when stale) by the integration project's global set-up with
    // posture-build as start:all builds it (tooling/test/app-bundles.mjs). The run's one first
    // start (tooling/test/first-start.mjs) ran it as start:all does, in a fresh directory: it
    // migrated and seeded PGlite, printed the banner and stopped on SIGTERM. The section's start
    // command then starts it again ("stop a running `pnpm start` first; the demo data and the
    // password printed on the first start stay valid"), here on a copy of that directory.
    expect(nodeArgs).toEqual(START_ARGS);
    const started = await startAgain({ env: readmeEnv });
    service = started.proc;
    dir = started.dir;
    const { first } = started;
    expect(first.exitCode, "the first start stops cleanly on SIGTERM").toBe(0);
    // The banner the first start printed: the password and key the session is told to fill in.
    const banner = first.banner;
    expect(banner.url).toMatch(/^http:\/\/localhost:\d+$/);
    const port = new URL(started.url).port;

    // The session, with what the banner printed in place of the README's placeholders.
    const receiverPort = await freePort();
    let script = session;
    script = replaceOnce(script, /^U=http:\/\/localhost:3000(?= |$)/m, `U=http://localhost:${port}`);
    script = replaceOnce(script, /^PASSWORD=…(?= |$)/m, `PASSWORD=${banner.password}`);
    script = replaceOnce(script, /^KEY=svc_ak_…(?= |$)/m, `KEY=${banner.key}`);
    expect(script).toContain("127.0.0.1:8787");
    script = script.replaceAll("8787", String(receiverPort));

    const walkLog = join(dir, "walk.log");
    const bash = spawn("bash", ["-c", PRELUDE + script], {
      cwd: dir,
      env: { ...serviceEnv(), WALK_LOG: walkLog },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    walker = bash;
    let out = "";
    let err = "";
    bash.stdout.on("data", (d: Buffer) => (out += d.toString()));
    bash.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => bash.once("exit", resolve));
    const calls = (await readFile(walkLog, "utf8").catch(() => ""))
      .split("\n")
      .filter(Boolean)
      .map((line): TCall => {
        const [meta = "", text = ""] = line.split("\t");
        const [status = "", method = "", href = "", seconds = ""] = meta.split(" ");
        const url = new URL(href);
        let body: TJson;
        try {
          body = JSON.parse(text) as TJson;
        } catch {
          body = { unparsed: text };
        }
        return {
          status: Number(status),
          method,
          path: url.pathname,
          search: url.searchParams,
          body,
          seconds: Number(seconds),
        };
      });
    const trace = calls.map(
      (c) => `${c.status} ${c.method} ${c.path} (${c.seconds} s) ${JSON.stringify(c.body).slice(0, 300)}`,
    );
    expect(code, `the session failed:\n${err}\n${trace.join("\n")}`).toBe(0);

    expect(calls.length).toBeGreaterThan(PROMISES.length);
    const kept = new Set<(typeof PROMISES)[number]>();
    for (const c of calls) {
      const what = `${c.method} ${c.path}`;
      expect(c.status, `${what}: ${JSON.stringify(c.body)}`).toBeGreaterThanOrEqual(200);
      expect(c.status, `${what}: ${JSON.stringify(c.body)}`).toBeLessThan(300);
      const promise = PROMISES.find((p) => p.call.test(what));
      if (!promise) throw new Error(`${what} has no promise in this walk`);
      promise.check(c);
      kept.add(promise);
    }
    expect(kept.size, "every promise was walked").toBe(PROMISES.length);
    // The rescan after the sandbox moved on read the change feed, not the whole tenant.
    const kinds = calls.filter((c) => c.path.endsWith("/sync")).map((c) => c.body.kind);
    expect(kinds).toEqual(["full", "incremental", "full", "full"]);

    // `cat receiver.log`: the deliveries of the scan, then the issue request of the ticket.
    const received = await readFile(join(dir, "receiver.log"), "utf8");
    expect(out).toContain(received.trim());
    const lines = received.trim().split("\n");
    const hooks = lines.filter((l) => l.startsWith("POST /hooks "));
    expect(hooks.some((l) => l.includes('"event":"scan.completed"'))).toBe(true);
    expect(hooks.some((l) => l.includes('"event":"alert.grouped"'))).toBe(true);
    expect(lines.at(-1)).toMatch(/^POST \/repos\/acme\/security\/issues \{"title":/);

    started.proc.kill("SIGTERM");
  }, 420_000);
});
