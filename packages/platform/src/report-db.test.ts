import { describe, expect, it } from "vitest";
import type { Db } from "@posture/db";
import { ResponseControl, type TContext } from "./context";
import { procedure, router } from "./trpc";

// Which database a procedure sees: the request's (interactive bound) unless its meta says it reads
// long — a download (report, export, PDF) or `longReads` — when the factory swaps in reportDb.
const requestDb = { name: "request" } as unknown as Db;
const reportDb = { name: "report" } as unknown as Db;
const seen = (db: Db) => (db as unknown as { name: string }).name;

const probe = router({
  plain: procedure({ auth: "apiKey" }).query(({ ctx }) => seen(ctx.db)),
  download: procedure({ auth: "apiKey" })
    .meta({ download: { contentTypes: ["text/csv"] } })
    .query(({ ctx }) => seen(ctx.db)),
  long: procedure({ auth: "apiKey" })
    .meta({ longReads: true })
    .query(({ ctx }) => seen(ctx.db)),
});

function context(withReportDb: boolean): TContext {
  return {
    db: requestDb,
    ...(withReportDb ? { reportDb } : {}),
    principal: {
      kind: "api_key",
      credentialId: "k",
      userId: "u",
      userEmail: "u@example.test",
      role: "OWNER",
      org: { id: "o", name: "O", plan: "business", isPartner: false },
    },
    credentialFailure: null,
    ip: "127.0.0.1",
    requestId: "r",
    userAgent: undefined,
    response: new ResponseControl(false),
    limits: {} as TContext["limits"],
    jobs: {} as TContext["jobs"],
    runtime: {} as TContext["runtime"],
    log: { info() {}, warn() {}, error() {}, debug() {} },
    probes: {},
    publishCredentialChanges: async () => {},
  };
}

describe("the procedure factory's database", () => {
  it("is the request's for an ordinary procedure, reportDb for downloads and longReads", async () => {
    const caller = probe.createCaller(context(true));
    expect(await caller.plain()).toBe("request");
    expect(await caller.download()).toBe("report");
    expect(await caller.long()).toBe("report");
  });

  it("stays the request's when the context has no reportDb (callers outside the gateway)", async () => {
    const caller = probe.createCaller(context(false));
    expect(await caller.download()).toBe("request");
    expect(await caller.long()).toBe("request");
  });
});
