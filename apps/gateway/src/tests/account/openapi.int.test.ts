import { describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { freshIp } from "./helpers";

const gw = useTestGateway();

type TDoc = {
  paths: Record<string, Record<string, { security?: unknown[]; "x-access"?: Record<string, string> }>>;
};

describe("account operations in GET /api/openapi.json", () => {
  it("documents every account path with its access rules", async () => {
    const res = await gw.request("GET", "/api/openapi.json", { ip: freshIp() });
    expect(res.status).toBe(200);
    const { paths } = res.body as TDoc;
    expect(paths["/auth/sign-in"]?.post?.["x-access"]).toEqual({ auth: "public" });
    expect(paths["/auth/sign-out"]?.post?.["x-access"]).toEqual({ auth: "session" });
    expect(paths["/auth/session"]?.get?.["x-access"]).toEqual({ auth: "session" });
    expect(paths["/keys"]?.get?.["x-access"]).toEqual({
      auth: "apiKey",
      feature: "apiAccess",
      role: "ADMIN",
    });
    expect(paths["/keys"]?.post?.["x-access"]).toEqual({
      auth: "session",
      feature: "apiAccess",
      role: "OWNER",
    });
    expect(paths["/keys/{id}"]?.delete?.["x-access"]).toEqual({
      auth: "session",
      feature: "apiAccess",
      role: "OWNER",
    });
    expect(paths["/usage"]?.get?.["x-access"]).toEqual({ auth: "apiKey" });
    expect(paths["/audit"]?.get?.["x-access"]).toEqual({ auth: "apiKey", role: "ADMIN" });
  });
});
