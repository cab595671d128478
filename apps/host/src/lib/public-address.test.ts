import { describe, expect, it } from "vitest";
import { isLoopbackListenAddress, nonPublicKind } from "./public-address.js";

describe("nonPublicKind", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "shared (carrier-grade NAT)"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["198.18.0.1", "benchmarking"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["fd12:3456::1", "unique local (private)"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["::ffff:10.0.0.1", "private"],
    ["64:ff9b::7f00:1", "loopback"],
    ["2002:c0a8:0101::1", "private"],
    ["::127.0.0.1", "loopback"],
  ])("%s is %s", (address, kind) => {
    expect(nonPublicKind(address)).toBe(kind);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:0808:0808::1",
  ])("%s is public", (address) => {
    expect(nonPublicKind(address)).toBeNull();
  });
});

describe("isLoopbackListenAddress", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["LOCALHOST", true],
    ["::1", true],
    ["[::1]", true],
    ["::ffff:127.0.0.1", true],
    ["0.0.0.0", false],
    ["::", false],
    ["192.168.1.10", false],
    ["example.com", false],
    ["localhost.example.com", false],
  ])("%s → %s", (host, loopback) => {
    expect(isLoopbackListenAddress(host)).toBe(loopback);
  });
});
