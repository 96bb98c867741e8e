import { promises as dnsPromises } from 'node:dns';
import { isIP } from 'node:net';

/**
 * SSRF protection for webhook targets. A subscriber controls the URL, so without these checks a
 * webhook could be used to reach our own network (databases, admin ports, the cloud metadata
 * service at 169.254.169.254). Checked when the subscription is created (syntax and literal
 * hosts) and again right before each delivery (DNS answers can change: "DNS rebinding").
 */

type Family = 4 | 6;

interface ParsedIp {
  family: Family;
  /** The address as an unsigned integer (32 or 128 bits). */
  value: bigint;
}

interface Cidr {
  family: Family;
  base: bigint;
  prefix: number;
}

export interface AllowList {
  /** Lower-case hostnames without trailing dot; matched exactly (no implicit subdomains). */
  readonly hostnames: ReadonlySet<string>;
  readonly networks: readonly Cidr[];
}

export const EMPTY_ALLOW_LIST: AllowList = Object.freeze({ hostnames: new Set<string>(), networks: [] });

export type GuardFailureCode =
  | 'invalid_url'
  | 'unsupported_scheme'
  | 'https_required'
  | 'credentials_in_url'
  | 'invalid_port'
  | 'blocked_hostname'
  | 'blocked_address'
  | 'unresolvable';

export interface GuardFailure {
  ok: false;
  code: GuardFailureCode;
  /** Human-readable, safe to show to the API caller (VALIDATION_ERROR details). */
  reason: string;
}

export interface TargetUrlOk {
  ok: true;
  url: URL;
  /** Host without IPv6 brackets or trailing dot, lower case. */
  hostname: string;
  port: number;
  /** True when the host itself is on the allow-list (lifts the https and address rules). */
  allowListed: boolean;
}

export interface VettedAddress {
  ok: true;
  address: string;
  family: Family;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** DNS resolver signature; injectable so tests can simulate hostile DNS answers. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const defaultResolver: Resolver = (hostname) => dnsPromises.lookup(hostname, { all: true });

/** Bound on the URL length so a subscription cannot store arbitrarily large values. */
const MAX_URL_LENGTH = 2048;

// ---------------------------------------------------------------------------------------------
// IP parsing

function parseIPv4(text: string): bigint | null {
  if (isIP(text) !== 4) return null;
  let value = 0n;
  for (const part of text.split('.')) value = (value << 8n) | BigInt(Number(part));
  return value;
}

function parseIPv6(text: string): bigint | null {
  // Zone ids ("fe80::1%eth0") do not change which address it is.
  let address = text.split('%', 1)[0] ?? '';
  if (isIP(address) !== 6) return null;
  // Rewrite an embedded dotted IPv4 tail (::ffff:127.0.0.1) as two hex groups (::ffff:7f00:1).
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (v4 === null) return null;
    address = `${address.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = address.split('::');
  const parseGroups = (s: string | undefined): number[] => (s === undefined || s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const head = parseGroups(halves[0]);
  const rest = halves.length > 1 ? parseGroups(halves[1]) : [];
  const zeros = halves.length > 1 ? 8 - head.length - rest.length : 0;
  const groups = [...head, ...new Array<number>(Math.max(0, zeros)).fill(0), ...rest];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  let value = 0n;
  for (const group of groups) value = (value << 16n) | BigInt(group);
  return value;
}

function parseIp(text: string): ParsedIp | null {
  const unbracketed = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v4 = parseIPv4(unbracketed);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = parseIPv6(unbracketed);
  if (v6 !== null) return { family: 6, value: v6 };
  return null;
}

function bits(family: Family): bigint {
  return family === 4 ? 32n : 128n;
}

function parseCidr(text: string): Cidr | null {
  const [addressText, prefixText, extra] = text.split('/');
  if (addressText === undefined || extra !== undefined) return null;
  const ip = parseIp(addressText);
  if (ip === null) return null;
  const maxPrefix = Number(bits(ip.family));
  if (prefixText === undefined) return { family: ip.family, base: ip.value, prefix: maxPrefix };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > maxPrefix) return null;
  // Host bits are masked off so "127.0.0.1/8" means 127.0.0.0/8, as people usually intend.
  const shift = bits(ip.family) - BigInt(prefix);
  return { family: ip.family, base: (ip.value >> shift) << shift, prefix };
}

function cidrContains(cidr: Cidr, ip: ParsedIp): boolean {
  if (cidr.family !== ip.family) return false;
  const shift = bits(ip.family) - BigInt(cidr.prefix);
  return ip.value >> shift === cidr.base >> shift;
}

function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (parsed === null) throw new Error(`Bad built-in CIDR ${text}`);
  return parsed;
}

// ---------------------------------------------------------------------------------------------
// Blocked ranges

const BLOCKED_V4: ReadonlyArray<readonly [Cidr, string]> = [
  [cidr('0.0.0.0/8'), 'unspecified/"this network" address (0.0.0.0/8)'],
  [cidr('10.0.0.0/8'), 'private address (10.0.0.0/8)'],
  [cidr('100.64.0.0/10'), 'carrier-grade NAT address (100.64.0.0/10)'],
  [cidr('127.0.0.0/8'), 'loopback address (127.0.0.0/8)'],
  [cidr('169.254.0.0/16'), 'link-local address (169.254.0.0/16, includes cloud metadata 169.254.169.254)'],
  [cidr('172.16.0.0/12'), 'private address (172.16.0.0/12)'],
  [cidr('192.0.0.0/24'), 'IETF protocol assignment address (192.0.0.0/24)'],
  [cidr('192.0.2.0/24'), 'documentation address (192.0.2.0/24)'],
  [cidr('198.51.100.0/24'), 'documentation address (198.51.100.0/24)'],
  [cidr('203.0.113.0/24'), 'documentation address (203.0.113.0/24)'],
  [cidr('192.168.0.0/16'), 'private address (192.168.0.0/16)'],
  [cidr('198.18.0.0/15'), 'benchmarking address (198.18.0.0/15)'],
  [cidr('224.0.0.0/4'), 'multicast address (224.0.0.0/4)'],
  // Reserved "future use" space and the limited broadcast address 255.255.255.255.
  [cidr('240.0.0.0/4'), 'reserved/broadcast address (240.0.0.0/4)'],
];

const BLOCKED_V6: ReadonlyArray<readonly [Cidr, string]> = [
  [cidr('::/128'), 'unspecified address (::)'],
  [cidr('::1/128'), 'loopback address (::1)'],
  [cidr('100::/64'), 'discard-only address (100::/64)'],
  // Tunnels and translations that reach an IPv4 host some other way than its own address: refused outright.
  [cidr('::ffff:0:0/96'), 'IPv4-mapped address (::ffff:0:0/96); use the IPv4 address itself'],
  [cidr('::ffff:0:0:0/96'), 'IPv4-translated address (::ffff:0:0:0/96)'],
  [cidr('2001::/32'), 'Teredo tunnel address (2001::/32)'],
  [cidr('2001:db8::/32'), 'documentation address (2001:db8::/32)'],
  [cidr('fc00::/7'), 'unique local (private) address (fc00::/7)'],
  [cidr('fe80::/10'), 'link-local address (fe80::/10)'],
  [cidr('fec0::/10'), 'site-local address (fec0::/10)'],
  [cidr('ff00::/8'), 'multicast address (ff00::/8)'],
];

/**
 * IPv6 ranges that embed an IPv4 address which the network may translate to: an internal IPv4
 * must not be reachable by spelling it as IPv6 (e.g. ::ffff:127.0.0.1 connects to 127.0.0.1).
 * `shift` extracts the IPv4 value from the 128-bit address.
 */
const V4_EMBEDDING_V6: ReadonlyArray<{ range: Cidr; shift: bigint; label: string }> = [
  // Always blocked (BLOCKED_V6); listed so that an allow-listed IPv4 also covers its mapped spelling.
  { range: cidr('::ffff:0:0/96'), shift: 0n, label: 'IPv4-mapped' },
  { range: cidr('::/96'), shift: 0n, label: 'IPv4-compatible' },
  { range: cidr('64:ff9b::/96'), shift: 0n, label: 'NAT64' },
  { range: cidr('64:ff9b:1::/48'), shift: 0n, label: 'NAT64 (local-use)' },
  { range: cidr('2002::/16'), shift: 80n, label: '6to4' },
];

function embeddedIPv4(ip: ParsedIp): { v4: ParsedIp; label: string } | null {
  if (ip.family !== 6) return null;
  for (const { range, shift, label } of V4_EMBEDDING_V6) {
    if (cidrContains(range, ip)) return { v4: { family: 4, value: (ip.value >> shift) & 0xffffffffn }, label };
  }
  return null;
}

function blockReasonFor(ip: ParsedIp): string | null {
  const table = ip.family === 4 ? BLOCKED_V4 : BLOCKED_V6;
  for (const [range, reason] of table) if (cidrContains(range, ip)) return reason;
  const embedded = embeddedIPv4(ip);
  if (embedded !== null) {
    const inner = blockReasonFor(embedded.v4);
    if (inner !== null) return `${embedded.label} IPv6 form of a ${inner}`;
  }
  return null;
}

/**
 * Why `ip` must not be contacted, or null when it is a public address. Anything that is not a
 * valid IP literal is reported as blocked: fail closed.
 */
export function blockedAddressReason(ip: string): string | null {
  const parsed = parseIp(ip);
  if (parsed === null) return 'not a valid IP address';
  return blockReasonFor(parsed);
}

export function isBlockedAddress(ip: string): boolean {
  return blockedAddressReason(ip) !== null;
}

// ---------------------------------------------------------------------------------------------
// Hostnames

function normaliseHostname(hostname: string): string {
  let host = hostname.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  // "localhost." is the same name as "localhost".
  while (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

/**
 * Names that point at the local machine or internal infrastructure regardless of what DNS says,
 * or that are resolved via search domains to internal hosts (single-label names).
 */
function blockedHostnameReason(host: string): string | null {
  if (host === 'localhost' || host.endsWith('.localhost')) return 'localhost names are not allowed';
  if (host === 'metadata.google.internal' || host === 'metadata') return 'cloud metadata hostnames are not allowed';
  // .svc and .cluster.local: Kubernetes service names (`<svc>.<namespace>.svc[.cluster.local]`).
  const internalSuffixes = ['.internal', '.local', '.localdomain', '.home.arpa', '.svc', '.cluster.local'];
  if (internalSuffixes.some((suffix) => host.endsWith(suffix))) {
    return 'internal/local-network hostnames are not allowed';
  }
  if (!host.includes('.')) return 'single-label hostnames are not allowed (use a fully qualified domain name)';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Allow-list

const HOSTNAME_RE = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/**
 * Parses the comma-separated allow-list setting, e.g. "127.0.0.1, localhost, 10.0.0.0/8, ::1".
 * Entries are hostnames (exact match), IPs or CIDRs. Invalid entries throw: this runs at startup
 * and a typo should stop the service rather than silently allow or block something else.
 */
export function parseAllowList(value: string | undefined): AllowList {
  if (value === undefined || value.trim() === '') return EMPTY_ALLOW_LIST;
  const hostnames = new Set<string>();
  const networks: Cidr[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const network = parseCidr(entry);
    if (network !== null) {
      networks.push(network);
      continue;
    }
    const host = normaliseHostname(entry);
    if (entry.includes('/') || isIP(host) !== 0 || !HOSTNAME_RE.test(host)) {
      throw new Error(`Invalid webhook allow-list entry "${entry}": expected a hostname, an IP or a CIDR`);
    }
    hostnames.add(host);
  }
  return { hostnames, networks };
}

function ipAllowListed(ip: ParsedIp, allowList: AllowList): boolean {
  if (allowList.networks.some((network) => cidrContains(network, ip))) return true;
  // ::ffff:127.0.0.1 is the same endpoint as 127.0.0.1, so an IPv4 entry covers its mapped form.
  const embedded = embeddedIPv4(ip);
  return embedded !== null && embedded.label === 'IPv4-mapped' && allowList.networks.some((network) => cidrContains(network, embedded.v4));
}

function hostAllowListed(host: string, allowList: AllowList): boolean {
  const ip = parseIp(host);
  return ip === null ? allowList.hostnames.has(host) : ipAllowListed(ip, allowList);
}

// ---------------------------------------------------------------------------------------------
// Checks

function fail(code: GuardFailureCode, reason: string): GuardFailure {
  return { ok: false, code, reason };
}

/**
 * Synchronous URL check used when a subscription is created or updated (the caller maps a
 * failure to VALIDATION_ERROR) and again before each delivery. It does not resolve DNS; see
 * checkTargetUrlResolved / resolveVettedAddress for that.
 */
export function checkTargetUrl(url: string, allowList: AllowList = EMPTY_ALLOW_LIST): TargetUrlOk | GuardFailure {
  if (typeof url !== 'string' || url.length === 0) return fail('invalid_url', 'URL is required');
  if (url.length > MAX_URL_LENGTH) return fail('invalid_url', `URL must be at most ${String(MAX_URL_LENGTH)} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail('invalid_url', 'URL is not a valid absolute URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return fail('unsupported_scheme', 'URL scheme must be https');
  }
  // Credentials in the URL would be stored and logged in plain text with the subscription.
  if (parsed.username !== '' || parsed.password !== '') {
    return fail('credentials_in_url', 'URL must not contain credentials (user:password@)');
  }
  const hostname = normaliseHostname(parsed.hostname);
  if (hostname === '') return fail('invalid_url', 'URL must have a host');
  // URL parsing already rejects ports above 65535; port 0 is not connectable.
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return fail('invalid_port', 'URL port must be between 1 and 65535');

  const allowListed = hostAllowListed(hostname, allowList);
  // Plain http only for allow-listed hosts (local development, internal test receivers): the
  // payload and signature would otherwise travel unencrypted over the internet.
  if (parsed.protocol === 'http:' && !allowListed) return fail('https_required', 'URL scheme must be https');

  if (!allowListed) {
    if (isIP(hostname) !== 0) {
      const reason = blockedAddressReason(hostname);
      if (reason !== null) return fail('blocked_address', `URL host is a ${reason}`);
    } else {
      const reason = blockedHostnameReason(hostname);
      if (reason !== null) return fail('blocked_hostname', `URL host "${hostname}": ${reason}`);
    }
  }
  return { ok: true, url: parsed, hostname, port, allowListed };
}

function toFamily(family: number, address: string): Family {
  if (family === 4 || family === 6) return family;
  return isIP(address) === 6 ? 6 : 4;
}

/**
 * Resolves `hostname` and returns the address to connect to, after checking EVERY address DNS
 * returned: if any is blocked the target is refused, because the OS or a later retry might pick
 * that one. The caller must connect to the returned address (not resolve again), otherwise a
 * rebinding DNS server could answer differently the second time.
 *
 * Allow-list semantics: an allow-listed hostname is trusted with whatever it resolves to (that is
 * the point of listing e.g. "localhost"); otherwise each address must be public or inside an
 * allow-listed IP/CIDR.
 */
export async function resolveVettedAddress(
  hostname: string,
  allowList: AllowList = EMPTY_ALLOW_LIST,
  resolver: Resolver = defaultResolver,
): Promise<VettedAddress | GuardFailure> {
  const host = normaliseHostname(hostname);
  const literal = parseIp(host);
  if (literal !== null) {
    // IP literals need no DNS; the literal itself is what will be connected to.
    if (!ipAllowListed(literal, allowList)) {
      const reason = blockReasonFor(literal);
      if (reason !== null) return fail('blocked_address', `Target address ${host} is a ${reason}`);
    }
    return { ok: true, address: host, family: literal.family };
  }

  const hostnameAllowListed = allowList.hostnames.has(host);
  if (!hostnameAllowListed) {
    const reason = blockedHostnameReason(host);
    if (reason !== null) return fail('blocked_hostname', `Target host "${host}": ${reason}`);
  }

  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await resolver(host);
  } catch {
    return fail('unresolvable', `Target host "${host}" could not be resolved`);
  }
  const first = addresses[0];
  if (first === undefined) return fail('unresolvable', `Target host "${host}" has no addresses`);

  if (!hostnameAllowListed) {
    for (const { address } of addresses) {
      const ip = parseIp(address);
      if (ip === null) return fail('blocked_address', `Target host "${host}" resolved to an invalid address`);
      if (ipAllowListed(ip, allowList)) continue;
      const reason = blockReasonFor(ip);
      if (reason !== null) return fail('blocked_address', `Target host "${host}" resolves to ${address}, a ${reason}`);
    }
  }
  return { ok: true, address: first.address, family: toFamily(first.family, first.address) };
}

/**
 * checkTargetUrl plus DNS resolution, for callers that want to refuse a subscription whose host
 * currently resolves to an internal address (delivery-time checks still run).
 */
export async function checkTargetUrlResolved(
  url: string,
  allowList: AllowList = EMPTY_ALLOW_LIST,
  resolver: Resolver = defaultResolver,
): Promise<TargetUrlOk | GuardFailure> {
  const target = checkTargetUrl(url, allowList);
  if (!target.ok) return target;
  const vetted = await resolveVettedAddress(target.hostname, allowList, resolver);
  return vetted.ok ? target : vetted;
}
