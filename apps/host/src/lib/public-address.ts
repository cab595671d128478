/**
 * Which IP addresses count as public, for CYRNEL_DOWNLOAD_DENY_PRIVATE.
 * Everything in the IANA special-purpose registries that does not reach the
 * public internet is refused: loopback, private (RFC 1918, unique local),
 * link-local (cloud metadata services live there), carrier-grade NAT,
 * unspecified, documentation, benchmarking, multicast and reserved ranges.
 * IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-compatible, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by
 * the IPv4 address inside them.
 */
import { isIPv4, isIPv6 } from "node:net";

const IPV4_RANGES: [string, number, string][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (carrier-grade NAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignment"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4 relay"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

/** IPv6 ranges that are not public (those that embed IPv4 are handled first). */
const IPV6_RANGES: [string, number, string][] = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["100::", 64, "discard-only"],
  ["2001::", 23, "IETF protocol assignment"],
  ["2001:db8::", 32, "documentation"],
  ["fc00::", 7, "unique local (private)"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
];

/** Why `address` is not public (e.g. "loopback"), or null when it is a public address. */
export function nonPublicKind(address: string): string | null {
  if (isIPv4(address)) return ipv4Kind(ipv4ToNumber(address));
  if (!isIPv6(address)) return "not an IP address";
  const value = ipv6ToBigInt(address);
  const embedded = embeddedIpv4(value);
  if (embedded !== null) return ipv4Kind(embedded);
  for (const [base, bits, kind] of IPV6_RANGES) {
    if (inPrefix(value, ipv6ToBigInt(base), bits, 128)) return kind;
  }
  return null;
}

function ipv4Kind(value: number): string | null {
  for (const [base, bits, kind] of IPV4_RANGES) {
    if (inPrefix(BigInt(value), BigInt(ipv4ToNumber(base)), bits, 32)) return kind;
  }
  return null;
}

/** The IPv4 address inside an IPv4-mapped, IPv4-compatible, NAT64 or 6to4 IPv6 address, else null. */
function embeddedIpv4(value: bigint): number | null {
  const low32 = Number(value & 0xffffffffn);
  if (value >> 32n === 0xffffn) return low32; // ::ffff:a.b.c.d
  if (value >> 32n === 0n && value > 1n) return low32; // ::a.b.c.d (deprecated IPv4-compatible)
  if (value >> 32n === 0x64ff9b0000000000000000n) return low32; // 64:ff9b::/96 (NAT64)
  if (value >> 112n === 0x2002n) return Number((value >> 80n) & 0xffffffffn); // 2002:a.b.c.d::/48 (6to4)
  return null;
}

function inPrefix(value: bigint, base: bigint, bits: number, width: number): boolean {
  const shift = BigInt(width - bits);
  return value >> shift === base >> shift;
}

function ipv4ToNumber(address: string): number {
  return address.split(".").reduce((total, part) => total * 256 + Number(part), 0);
}

/** Parses any valid IPv6 text (`::` shorthand, a trailing dotted IPv4, a zone id) into its 128-bit value. */
function ipv6ToBigInt(address: string): bigint {
  let text = address.split("%")[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4ToNumber(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(missing).fill("0"), ...tailGroups];
  return groups.reduce((total, group) => (total << 16n) + BigInt(Number.parseInt(group || "0", 16)), 0n);
}

/**
 * Whether a listen address (`CYRNEL_HOST`) only accepts connections from this
 * machine: `localhost` or a loopback IP, bracketed or not. Any other name may
 * resolve to an address others reach.
 */
export function isLoopbackListenAddress(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  return bare === "localhost" || nonPublicKind(bare) === "loopback";
}
