import { describe, expect, it } from "vitest";
import { classifyAgent } from "./classify-agent";
import { grant } from "./test-fixtures";

const G = "https://www.googleapis.com/auth/";

describe("classifyAgent", () => {
  it("places grants by publisher trust and scope breadth", () => {
    const quadrant = (isKnownPublisher: boolean, scopes: string[]) =>
      classifyAgent(grant("g", { isKnownPublisher, scopes })).quadrant;
    expect(quadrant(true, [`${G}drive.file`])).toBe("trusted_limited");
    expect(quadrant(true, [`${G}drive.readonly`])).toBe("trusted_broad");
    expect(quadrant(false, ["User.Read", "offline_access"])).toBe("unknown_limited");
    expect(quadrant(false, ["Sites.ReadWrite.All"])).toBe("unknown_broad");
    expect(quadrant(false, [])).toBe("unknown_limited");
  });

  it("scores risk from the quadrant, extra broad scopes and agent kind, within 0–100", () => {
    const low = classifyAgent(grant("a", { isKnownPublisher: true, scopes: ["openid"] }));
    expect(low).toEqual({ quadrant: "trusted_limited", riskBand: "low", riskScore: 5 });

    const unknownNarrowAgent = classifyAgent(
      grant("b", { isKnownPublisher: false, scopes: ["openid"], kind: "ai_agent" }),
    );
    expect(unknownNarrowAgent).toEqual({ quadrant: "unknown_limited", riskBand: "medium", riskScore: 40 });

    const trustedBroad = classifyAgent(
      grant("c", { isKnownPublisher: true, scopes: ["Files.Read.All", "Mail.Read"] }),
    );
    expect(trustedBroad).toEqual({ quadrant: "trusted_broad", riskBand: "high", riskScore: 50 });

    const everything = classifyAgent(
      grant("d", {
        isKnownPublisher: false,
        kind: "ai_agent",
        scopes: [
          "Files.ReadWrite.All",
          "Mail.ReadWrite",
          "Directory.ReadWrite.All",
          "Sites.FullControl.All",
          "Chat.Read",
        ],
      }),
    );
    expect(everything).toEqual({ quadrant: "unknown_broad", riskBand: "critical", riskScore: 95 });
  });

  it("always rates an unknown-publisher AI agent with broad scopes critical", () => {
    const result = classifyAgent(
      grant("e", { isKnownPublisher: false, kind: "ai_agent", scopes: [`${G}gmail.readonly`] }),
    );
    expect(result.riskBand).toBe("critical");
    const service = classifyAgent(
      grant("f", { isKnownPublisher: false, kind: "service_account", scopes: [`${G}drive`] }),
    );
    expect(service).toEqual({ quadrant: "unknown_broad", riskBand: "high", riskScore: 70 });
  });
});
