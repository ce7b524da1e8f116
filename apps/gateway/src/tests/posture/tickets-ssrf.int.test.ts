import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tickets } from "@posture/db";
import type { TResolver } from "@posture/platform";
import { startFakeGithub, type TFakeGithub } from "@posture/fakes/trackers";
import { useTestGateway } from "../../testing";
import { seedFinding } from "./seed-finding";

// A gateway as deployed: private targets refused. Only DNS is stubbed (through the runtime's
// resolver); connections are real.
const gw = useTestGateway();
let fake: TFakeGithub;
let answers: string[] = [];
let lookups = 0;
const resolver: TResolver = async () => {
  const address = answers[Math.min(lookups, answers.length - 1)] ?? "";
  lookups++;
  return [{ address, family: 4 }];
};
beforeAll(async () => {
  gw.gateway.deps.runtime.outboundResolver = resolver;
  fake = await startFakeGithub();
});
afterAll(async () => {
  await fake.close();
});

describe("issue trackers behind the outbound guard", () => {
  it("refuses a tracker name that was public when saved and rebinds to loopback: nothing reaches it", async () => {
    const a = await gw.createActor({ plan: "business" });
    const finding = await seedFinding(gw.db.db, a.orgId);
    const port = new URL(fake.url).port;
    answers = ["93.184.216.34", "127.0.0.1"];
    lookups = 0;
    const saved = await gw.request("PUT", "/api/integrations/ticketing", {
      cookie: a.cookie,
      body: {
        provider: "github",
        baseUrl: `http://tracker.rebind.test:${port}`,
        project: fake.repo,
        token: fake.token,
      },
    });
    expect(saved.status).toBe(200);
    expect(lookups).toBe(1);

    const res = await gw.request("POST", `/api/findings/${finding.id}/ticket`, { key: a.key });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: "invalid_input",
      message: "Tracker URL refused: host tracker.rebind.test does not resolve to a public address",
    });
    expect(res.text).not.toMatch(/127\.0\.0\.1|loopback/);
    expect(fake.requests).toHaveLength(0);
    expect(lookups).toBe(2);
    // Nothing was recorded: the finding can be ticketed once the tracker is fixed.
    expect((await gw.db.db.select().from(tickets)).filter((t) => t.findingId === finding.id)).toHaveLength(0);
  });

  it("refuses a tracker URL that resolves to a private address when it is saved, naming no address", async () => {
    const a = await gw.createActor({ plan: "business" });
    answers = ["10.0.0.7"];
    lookups = 0;
    const res = await gw.request("PUT", "/api/integrations/ticketing", {
      cookie: a.cookie,
      body: {
        provider: "github",
        baseUrl: "https://jira.internal.example",
        project: "o/r",
        token: "tok-123456",
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "invalid_input" });
    expect(res.text).not.toMatch(/10\.0\.0\.7|private/);
  });
});
