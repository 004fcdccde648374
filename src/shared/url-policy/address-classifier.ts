import { isIP } from 'node:net';
import * as ipaddr from 'ipaddr.js';

/**
 * Classifies an IP address for SSRF purposes.
 *
 * Returns `null` only for a public (globally routable) unicast address; anything
 * else gets a short human-readable reason ("loopback", "private", "link-local",
 * ...). The classification is done with ipaddr.js' range tables rather than
 * hand-written regexes, because regexes over textual addresses are exactly what
 * SSRF bypasses exploit (alternative notations, embedded IPv4, zero compression).
 *
 * The function fails closed: unknown or newly added special ranges, and input that
 * is not a canonical IP address, are reported as non-public.
 */
export function classifyAddress(ip: string): string | null {
  const addr = parseStrict(ip);
  if (addr === null) return 'invalid';
  return addr.kind() === 'ipv4' ? classifyIPv4(addr as ipaddr.IPv4) : classifyIPv6(addr as ipaddr.IPv6);
}

/**
 * Only canonical textual forms are accepted (what DNS resolvers and the WHATWG URL
 * serialiser produce). ipaddr.js on its own also accepts inet_aton-style forms such
 * as "0x7f.1" or "010.0.0.1"; different consumers disagree about what those mean
 * (octal or decimal?), and a parser differential is an SSRF bypass, so they are
 * rejected here instead of being guessed at.
 */
function parseStrict(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (typeof ip !== 'string') return null;
  // A zone index ("fe80::1%eth0") can appear in resolver output for link-local
  // addresses; it does not change which range the address belongs to.
  const percent = ip.indexOf('%');
  const bare = percent === -1 ? ip : ip.slice(0, percent);
  const family = isIP(bare);
  if (family === 0) return null;
  try {
    if (family === 4) return ipaddr.IPv4.parse(bare);
    // ipaddr.js reads the deprecated "::a.b.c.d" notation as "::ffff:a.b.c.d"
    // (IPv4-compatible silently becomes IPv4-mapped), which is not what the
    // address means. Re-serialising through the WHATWG host serialiser first
    // yields pure hex groups ("::808:808"), so ipaddr.js sees the real bits.
    const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
    return ipaddr.IPv6.parse(canonical);
  } catch {
    return null;
  }
}

/** ipaddr.js IPv4 range names -> reasons. */
const IPV4_REASONS: Readonly<Record<string, string>> = {
  unspecified: 'unspecified', // 0.0.0.0/8 ("this network"; 0.0.0.0 reaches the local host on Linux)
  broadcast: 'broadcast', // 255.255.255.255
  multicast: 'multicast', // 224.0.0.0/4
  linkLocal: 'link-local', // 169.254.0.0/16, incl. the cloud metadata endpoint 169.254.169.254
  loopback: 'loopback', // 127.0.0.0/8
  carrierGradeNat: 'carrier-grade NAT', // 100.64.0.0/10, often used for internal networks (k8s, Tailscale)
  private: 'private', // RFC 1918
  // 192.0.0.0/24, 192.0.2.0/24, 192.88.99.0/24, 198.18.0.0/15, 198.51.100.0/24,
  // 203.0.113.0/24, 240.0.0.0/4
  reserved: 'reserved',
};

function classifyIPv4(addr: ipaddr.IPv4): string | null {
  const range: string = addr.range();
  if (range === 'unicast') return null;
  // Any other named range (as112, amt, or one a future ipaddr.js adds) is an
  // anycast/special-purpose block that a screenshot customer has no reason to
  // reach; refusing it keeps the classifier fail-closed.
  return IPV4_REASONS[range] ?? 'special-purpose';
}

/** 2000::/3 is the only IPv6 block IANA allocates for global unicast. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
/** ::/96, the deprecated "IPv4-compatible" form (RFC 4291 section 2.5.5.1). */
const IPV4_COMPATIBLE_V6 = ipaddr.IPv6.parseCIDR('::/96');

function ipv4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 address in the last 32 bits (mapped, compatible, NAT64 /96, SIIT). */
function lowIPv4(addr: ipaddr.IPv6): ipaddr.IPv4 {
  return ipv4FromWords(addr.parts[6] ?? 0, addr.parts[7] ?? 0);
}

function classifyIPv6(addr: ipaddr.IPv6): string | null {
  // The typings list fewer names than the library returns (e.g. 'discard',
  // 'deprecatedSiteLocal'), so treat the result as a plain string.
  const range: string = addr.range();
  switch (range) {
    case 'unspecified': // ::
      return 'unspecified';
    case 'loopback': // ::1
      return 'loopback';
    case 'linkLocal': // fe80::/10
      return 'link-local';
    case 'multicast': // ff00::/8
      return 'multicast';
    case 'uniqueLocal': // fc00::/7, e.g. AWS' IPv6 metadata endpoint fd00:ec2::254
      return 'unique local';
    case 'deprecatedSiteLocal': // fec0::/10, still routed internally on some networks
      return 'site-local';

    case 'ipv4Mapped':
      // ::ffff:a.b.c.d — the kernel sends this as plain IPv4 to a.b.c.d, so the
      // embedded address is what is actually reached.
      return classifyIPv4(lowIPv4(addr));

    case 'rfc6052':
      // NAT64, 64:ff9b::/96 and the local-use 64:ff9b:1::/48: the translator
      // forwards to the embedded IPv4 address. A public embedded address is how
      // IPv6-only networks (DNS64) reach the IPv4 internet, so it is allowed.
      return classifyIPv4(lowIPv4(addr));

    case '6to4':
      // 2002:AABB:CCDD::/48 tunnels to the IPv4 address AA.BB.CC.DD (bits 16..48).
      return classifyIPv4(ipv4FromWords(addr.parts[1] ?? 0, addr.parts[2] ?? 0));

    case 'rfc6145':
      // ::ffff:0:a.b.c.d (SIIT "IPv4-translated"): not globally routable even when
      // the embedded address is public, so report the embedded class if there is
      // one and "reserved" otherwise.
      return classifyIPv4(lowIPv4(addr)) ?? 'reserved';

    case 'teredo':
      // 2001::/32: the real IPv4 destination is obfuscated (XORed) in the address
      // and reached through a relay; there is no legitimate reason to fetch via it.
      return 'reserved';

    case 'unicast':
      if (addr.match(GLOBAL_UNICAST_V6)) return null;
      if (addr.match(IPV4_COMPATIBLE_V6)) {
        // ::a.b.c.d (:: and ::1 were handled above). Deprecated and not routable;
        // report the embedded class when it is non-public so the reason is useful.
        return classifyIPv4(lowIPv4(addr)) ?? 'reserved';
      }
      // Outside 2000::/3 and not a known special block: unallocated space.
      return 'reserved';

    default:
      // 'reserved' (2001::/23, 2001:db8::/32, 3fff::/20), 'discard' (100::/64),
      // 'benchmarking', ORCHID, segment routing, anycast blocks, and anything a
      // future ipaddr.js version adds: all refused (fail closed).
      return 'reserved';
  }
}
