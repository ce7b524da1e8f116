import { ALL_ORGANIZATIONS, type TDataWrites } from "@posture/platform";
import { describe, expect, it } from "vitest";
import { withDataWrites } from "./data-writes";

/** Records each write's marks in order: begin with its organizations, then end. */
function recorder() {
  const log: string[] = [];
  const writes: TDataWrites = {
    begin: async (orgIds) => {
      log.push(`begin ${orgIds.join(",")}`);
      return { end: async () => void log.push(`end ${orgIds.join(",")}`) };
    },
    beginUnnamed: async () => {
      throw new Error("a job always names its organizations");
    },
  };
  return { log, writes };
}

describe("withDataWrites", () => {
  it("marks the organization a job names, else its data's orgId, else every organization; a job that writes nothing, nothing", async () => {
    const { log, writes } = recorder();
    const registry = withDataWrites(
      {
        named: {
          attempts: 1,
          backoffMs: 0,
          orgOf: () => "org_named",
          handler: async () => log.push("run named"),
        },
        data: { attempts: 1, backoffMs: 0, handler: async () => log.push("run data") },
        sweep: { attempts: 1, backoffMs: 0, orgOf: () => null, handler: async () => log.push("run sweep") },
        requeue: {
          attempts: 1,
          backoffMs: 0,
          dataWrites: "none",
          handler: async () => log.push("run requeue"),
        },
      },
      writes,
    );
    const ctx = { jobId: "j", attempt: 1 };
    await registry.named?.handler({ orgId: "org_other" }, ctx);
    await registry.data?.handler({ orgId: "org_data" }, ctx);
    await registry.sweep?.handler({}, ctx);
    await registry.requeue?.handler({}, ctx);
    expect(log).toEqual([
      "begin org_named",
      "run named",
      "end org_named",
      "begin org_data",
      "run data",
      "end org_data",
      `begin ${ALL_ORGANIZATIONS}`,
      "run sweep",
      `end ${ALL_ORGANIZATIONS}`,
      "run requeue",
    ]);
  });

  it("ends the mark when the handler fails, and the failure still reaches the queue", async () => {
    const { log, writes } = recorder();
    const registry = withDataWrites(
      {
        failing: {
          attempts: 1,
          backoffMs: 0,
          handler: async () => {
            throw new Error("source down");
          },
        },
      },
      writes,
    );
    await expect(registry.failing?.handler({ orgId: "org_a" }, { jobId: "j", attempt: 1 })).rejects.toThrow(
      "source down",
    );
    expect(log).toEqual(["begin org_a", "end org_a"]);
  });
});
