import { describe, expect, it } from "vitest";
import { clientBucket } from "./client-address";

describe("clientBucket", () => {
  it("keeps IPv4 addresses as they are", () => {
    expect(clientBucket("203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts an IPv6 client by its /64, whatever the textual form", () => {
    const a = clientBucket("2001:db8:1:2::1");
    expect(a).toBe("2001:db8:1:2::/64");
    expect(clientBucket("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe(a);
    expect(clientBucket("2001:db8:1:2:abcd::9")).toBe(a);
    expect(clientBucket("2001:DB8:1:2::1%eth0")).toBe(a);
    expect(clientBucket("2001:db8:1:3::1")).not.toBe(a);
    expect(clientBucket("::1")).toBe("0:0:0:0::/64");
  });

  it("treats an IPv4-mapped IPv6 address as its IPv4 address", () => {
    expect(clientBucket("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientBucket("::ffff:cb00:7107")).toBe("203.0.113.7");
  });

  it("passes anything else through and names a missing address", () => {
    expect(clientBucket(undefined)).toBe("unknown");
    expect(clientBucket("not-an-ip")).toBe("not-an-ip");
  });
});
