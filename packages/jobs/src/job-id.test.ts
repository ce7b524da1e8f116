import { describe, expect, it } from "vitest";
import { decodeJobId, encodeJobId } from "./job-id";

describe("job ids", () => {
  it.each(["scan:conn-1:2024-05-01", "a%3Ab", "%I12", "100%", "plain-uuid-like", "42", ":::"])(
    "round-trips %s without colons or a bare integer",
    (id) => {
      const encoded = encodeJobId(id);
      expect(encoded).not.toContain(":");
      expect(encoded).not.toMatch(/^\d+$/);
      expect(decodeJobId(encoded)).toBe(id);
    },
  );

  it("keeps ids BullMQ accepts as they are", () => {
    expect(encodeJobId("webhook-delivery-7f3a")).toBe("webhook-delivery-7f3a");
  });

  it("passes BullMQ's own generated ids through", () => {
    expect(decodeJobId("17")).toBe("17");
    expect(decodeJobId(`repeat:${encodeJobId("daily:c1")}:1700000000000`)).toBe(
      "repeat:daily:c1:1700000000000",
    );
  });
});
