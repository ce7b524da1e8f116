import { describe, expect, it } from "vitest";
import { classifyAddress, isPublicAddress } from "./ip-ranges";

describe("classifyAddress: IPv4", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["169.254.0.1", "link-local"],
    ["100.64.0.1", "shared"],
    ["100.127.255.255", "shared"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    ["192.0.2.10", "documentation"],
    ["198.51.100.1", "documentation"],
    ["203.0.113.7", "documentation"],
    ["198.18.0.1", "reserved"],
    ["192.0.0.8", "reserved"],
  ])("%s is %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "172.15.255.255",
    "172.32.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "11.0.0.1",
    "223.255.255.255",
    "169.253.255.255",
  ])("%s is public", (ip) => {
    expect(classifyAddress(ip)).toBe("public");
  });
});

describe("classifyAddress: IPv6", () => {
  it.each([
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["fc00::1", "unique-local"],
    ["fd12:3456:789a::1", "unique-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["2001::1", "reserved"],
    ["fec0::1", "reserved"],
    ["100::1", "reserved"],
    ["64:ff9b:1::1", "reserved"],
  ])("%s is %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it.each([
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.1.2.3", "private"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["::ffff:192.168.0.1", "private"],
    ["::ffff:0.0.0.0", "unspecified"],
    ["::127.0.0.1", "loopback"],
    ["::10.0.0.1", "private"],
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["2002:7f00:1::1", "loopback"],
    ["2002:c0a8:101::1", "private"],
  ])("IPv4 embedded in %s is judged as IPv4: %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it.each([
    "2606:4700:4700::1111",
    "2a00:1450:4001:82b::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("%s is public", (ip) => {
    expect(classifyAddress(ip)).toBe("public");
  });
});

describe("classifyAddress: not an address", () => {
  it.each(["localhost", "", "1.2.3", "256.1.1.1", "::g", "127.0.0.1.nip.io", "01.2.3.4"])(
    "%j is invalid",
    (s) => {
      expect(classifyAddress(s)).toBe("invalid");
      expect(isPublicAddress(s)).toBe(false);
    },
  );
});
