import { describe, it, expect } from 'vitest';
import {
  blockedAddressReason,
  checkTargetUrl,
  checkTargetUrlResolved,
  EMPTY_ALLOW_LIST,
  isBlockedAddress,
  parseAllowList,
  resolveVettedAddress,
  type Resolver,
} from './address-guard';

/** Fake DNS: answers from a table, so tests never depend on real DNS. */
function fakeResolver(table: Record<string, string[]>): Resolver {
  return (hostname) => {
    const addresses = table[hostname];
    if (addresses === undefined)
      return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
}

describe('isBlockedAddress', () => {
  it.each([
    // IPv4
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'this network'],
    ['10.0.0.1', '10.0.0.0/8'],
    ['10.255.255.255', '10.0.0.0/8'],
    ['100.64.0.1', 'carrier-grade'],
    ['100.127.255.255', 'carrier-grade'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['172.16.0.1', '172.16.0.0/12'],
    ['172.31.255.255', '172.16.0.0/12'],
    ['192.168.1.1', '192.168.0.0/16'],
    ['192.0.0.170', 'IETF'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    // IPv4 embedded in IPv6
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:7f00:1', 'IPv4-mapped'],
    ['::ffff:10.1.2.3', 'IPv4-mapped'],
    ['::ffff:169.254.169.254', 'IPv4-mapped'],
    ['::ffff:192.168.0.1', 'IPv4-mapped'],
    ['::ffff:0.0.0.0', 'IPv4-mapped'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['64:ff9b::a9fe:a9fe', 'NAT64'],
    ['64:ff9b::10.0.0.1', 'NAT64'],
    ['2002:7f00:1::', '6to4'],
    ['2002:a9fe:a9fe::1', '6to4'],
    // Issue 22: every IPv4-mapped or -translated form, Teredo and the documentation ranges.
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['::ffff:0:808:808', 'IPv4-translated'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001::1', 'Teredo'],
    ['2001:db8::1', 'documentation'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.200', 'documentation'],
  ])('blocks %s (%s)', (ip, expectedReason) => {
    expect(isBlockedAddress(ip)).toBe(true);
    expect(blockedAddressReason(ip)).toContain(expectedReason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '223.255.255.255',
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '2001:1::1',
    '2001:db9::1',
    '192.0.3.1',
    '203.0.114.1',
    '64:ff9b::808:808',
    '2002:808:808::1',
    'fbff:ffff::1',
    'fe7f::1',
  ])('allows public address %s', (ip) => {
    expect(isBlockedAddress(ip)).toBe(false);
  });

  it('fails closed on anything that is not an IP', () => {
    for (const value of ['', 'localhost', '256.0.0.1', '1.2.3', '::g', 'example.com']) {
      expect(isBlockedAddress(value)).toBe(true);
    }
  });
});

describe('parseAllowList', () => {
  it('returns an empty list for unset/blank values', () => {
    expect(parseAllowList(undefined)).toBe(EMPTY_ALLOW_LIST);
    expect(parseAllowList('  ')).toBe(EMPTY_ALLOW_LIST);
  });

  it('parses hostnames, IPs and CIDRs (comma-separated, whitespace tolerant)', () => {
    const list = parseAllowList(' localhost , 127.0.0.1,10.0.0.0/8,::1, fd00::/8 , Receiver.Test. ,,');
    expect([...list.hostnames].sort()).toEqual(['localhost', 'receiver.test']);
    expect(list.networks).toHaveLength(4);
  });

  it.each(['10.0.0.0/33', '::1/129', 'not a host', 'http://example.com', '1.2.3.4/x', 'a..b'])('rejects invalid entry %s', (entry) => {
    expect(() => parseAllowList(entry)).toThrow(/allow-list/);
  });
});

describe('checkTargetUrl', () => {
  it('accepts a public https URL', () => {
    const result = checkTargetUrl('https://hooks.example.com:8443/crm?x=1', EMPTY_ALLOW_LIST);
    expect(result).toMatchObject({ ok: true, hostname: 'hooks.example.com', port: 8443, allowListed: false });
  });

  it.each([
    ['not a url', 'invalid_url'],
    ['/relative', 'invalid_url'],
    ['', 'invalid_url'],
    [`https://example.com/${'a'.repeat(2100)}`, 'invalid_url'],
    ['ftp://example.com/', 'unsupported_scheme'],
    ['file:///etc/passwd', 'unsupported_scheme'],
    ['http://example.com/', 'https_required'],
    ['https://user:pass@example.com/', 'credentials_in_url'],
    ['https://user@example.com/', 'credentials_in_url'],
    ['https://example.com:0/', 'invalid_port'],
    ['https://example.com:65536/', 'invalid_url'],
    ['https://127.0.0.1/', 'blocked_address'],
    ['https://2130706433/', 'blocked_address'], // WHATWG URL normalises to 127.0.0.1
    ['https://0x7f.1/', 'blocked_address'],
    ['https://[::1]/', 'blocked_address'],
    ['https://[::ffff:127.0.0.1]/', 'blocked_address'],
    ['https://[fe80::1]/', 'blocked_address'],
    ['https://169.254.169.254/latest/meta-data/', 'blocked_address'],
    ['https://10.0.0.5/', 'blocked_address'],
    ['https://100.64.1.1/', 'blocked_address'],
    ['https://0.0.0.0/', 'blocked_address'],
    ['https://localhost/', 'blocked_hostname'],
    ['https://LOCALHOST./', 'blocked_hostname'],
    ['https://api.localhost/', 'blocked_hostname'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'blocked_hostname'],
    ['https://db.internal/', 'blocked_hostname'],
    ['https://printer.local/', 'blocked_hostname'],
    ['https://intranet/', 'blocked_hostname'],
    ['https://api.default.svc/', 'blocked_hostname'],
    ['https://crm-gateway.prod.svc.cluster.local/', 'blocked_hostname'],
    ['https://vault.corp.internal/', 'blocked_hostname'],
    ['https://[2001:db8::5]/', 'blocked_address'],
    ['https://[::ffff:8.8.8.8]/', 'blocked_address'],
  ])('refuses %s with %s', (url, code) => {
    const result = checkTargetUrl(url, EMPTY_ALLOW_LIST);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.code).toBe(code);
      expect(result.reason.length).toBeGreaterThan(0);
    }
  });

  it('lets allow-listed hosts through, including over http', () => {
    const list = parseAllowList('localhost,127.0.0.0/8,::1,receiver');
    expect(checkTargetUrl('http://localhost:3000/hook', list)).toMatchObject({ ok: true, allowListed: true, port: 3000 });
    expect(checkTargetUrl('http://127.0.0.5:8080/', list)).toMatchObject({ ok: true, allowListed: true });
    expect(checkTargetUrl('http://[::1]:8080/', list)).toMatchObject({ ok: true, hostname: '::1', allowListed: true });
    expect(checkTargetUrl('http://[::ffff:127.0.0.1]:8080/', list)).toMatchObject({ ok: true, allowListed: true });
    expect(checkTargetUrl('http://receiver/', list)).toMatchObject({ ok: true, allowListed: true, port: 80 });
    // Allow-listing does not permit credentials or other schemes.
    expect(checkTargetUrl('http://u:p@localhost/', list)).toMatchObject({ ok: false, code: 'credentials_in_url' });
    expect(checkTargetUrl('ftp://localhost/', list)).toMatchObject({ ok: false, code: 'unsupported_scheme' });
    // Only what is listed: 10/8 and other names stay blocked, http stays refused for public hosts.
    expect(checkTargetUrl('http://10.0.0.1/', list)).toMatchObject({ ok: false, code: 'https_required' });
    expect(checkTargetUrl('https://10.0.0.1/', list)).toMatchObject({ ok: false, code: 'blocked_address' });
    expect(checkTargetUrl('https://api.localhost/', list)).toMatchObject({ ok: false, code: 'blocked_hostname' });
    expect(checkTargetUrl('http://example.com/', list)).toMatchObject({ ok: false, code: 'https_required' });
  });
});

describe('resolveVettedAddress', () => {
  const dns = fakeResolver({
    'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'rebind.example': ['93.184.216.34', '10.0.0.7'],
    'metadata.example': ['169.254.169.254'],
    'mapped.example': ['::ffff:127.0.0.1'],
    'v6loop.example': ['::1'],
    'empty.example': [],
    localhost: ['127.0.0.1', '::1'],
    'receiver.test': ['127.0.0.1'],
  });

  it('returns the first address when every address is public', async () => {
    expect(await resolveVettedAddress('public.example', EMPTY_ALLOW_LIST, dns)).toEqual({ ok: true, address: '93.184.216.34', family: 4 });
  });

  it('refuses when ANY resolved address is blocked (rebinding / mixed answers)', async () => {
    const result = await resolveVettedAddress('rebind.example', EMPTY_ALLOW_LIST, dns);
    expect(result).toMatchObject({ ok: false, code: 'blocked_address' });
    if (!result.ok) expect(result.reason).toContain('10.0.0.7');
  });

  it.each(['metadata.example', 'mapped.example', 'v6loop.example'])('refuses %s', async (host) => {
    expect(await resolveVettedAddress(host, EMPTY_ALLOW_LIST, dns)).toMatchObject({ ok: false, code: 'blocked_address' });
  });

  it('reports unresolvable hosts', async () => {
    expect(await resolveVettedAddress('nxdomain.example', EMPTY_ALLOW_LIST, dns)).toMatchObject({ ok: false, code: 'unresolvable' });
    expect(await resolveVettedAddress('empty.example', EMPTY_ALLOW_LIST, dns)).toMatchObject({ ok: false, code: 'unresolvable' });
  });

  it('refuses blocked hostnames without asking DNS', async () => {
    const throwing: Resolver = () => Promise.reject(new Error('DNS must not be queried'));
    expect(await resolveVettedAddress('localhost', EMPTY_ALLOW_LIST, throwing)).toMatchObject({ ok: false, code: 'blocked_hostname' });
  });

  it('handles IP literals without DNS', async () => {
    const throwing: Resolver = () => Promise.reject(new Error('DNS must not be queried'));
    expect(await resolveVettedAddress('8.8.8.8', EMPTY_ALLOW_LIST, throwing)).toEqual({ ok: true, address: '8.8.8.8', family: 4 });
    expect(await resolveVettedAddress('[2001:4860:4860::8888]', EMPTY_ALLOW_LIST, throwing)).toEqual({
      ok: true,
      address: '2001:4860:4860::8888',
      family: 6,
    });
    expect(await resolveVettedAddress('127.0.0.1', EMPTY_ALLOW_LIST, throwing)).toMatchObject({ ok: false, code: 'blocked_address' });
    expect(await resolveVettedAddress('127.0.0.1', parseAllowList('127.0.0.1'), throwing)).toEqual({
      ok: true,
      address: '127.0.0.1',
      family: 4,
    });
  });

  it('trusts whatever an allow-listed hostname resolves to', async () => {
    expect(await resolveVettedAddress('localhost', parseAllowList('localhost'), dns)).toEqual({
      ok: true,
      address: '127.0.0.1',
      family: 4,
    });
    expect(await resolveVettedAddress('receiver.test', parseAllowList('receiver.test'), dns)).toMatchObject({ ok: true });
  });

  it('permits blocked addresses only inside allow-listed networks', async () => {
    expect(await resolveVettedAddress('rebind.example', parseAllowList('10.0.0.0/24'), dns)).toMatchObject({
      ok: true,
      address: '93.184.216.34',
    });
    expect(await resolveVettedAddress('rebind.example', parseAllowList('10.0.1.0/24'), dns)).toMatchObject({
      ok: false,
      code: 'blocked_address',
    });
    // An IPv4 allow-list entry also covers the IPv4-mapped spelling of that address.
    expect(await resolveVettedAddress('mapped.example', parseAllowList('127.0.0.1'), dns)).toMatchObject({ ok: true });
  });

  it('uses real DNS by default (localhost is refused unless allow-listed)', async () => {
    expect(await resolveVettedAddress('localhost')).toMatchObject({ ok: false, code: 'blocked_hostname' });
    const allowed = await resolveVettedAddress('localhost', parseAllowList('localhost'));
    expect(allowed.ok).toBe(true);
  });
});

describe('checkTargetUrlResolved', () => {
  const dns = fakeResolver({ 'hooks.example.com': ['93.184.216.34'], 'evil.example.com': ['127.0.0.1'] });
  it('combines URL and DNS checks', async () => {
    expect(await checkTargetUrlResolved('https://hooks.example.com/x', EMPTY_ALLOW_LIST, dns)).toMatchObject({ ok: true });
    expect(await checkTargetUrlResolved('https://evil.example.com/x', EMPTY_ALLOW_LIST, dns)).toMatchObject({
      ok: false,
      code: 'blocked_address',
    });
    expect(await checkTargetUrlResolved('http://hooks.example.com/x', EMPTY_ALLOW_LIST, dns)).toMatchObject({
      ok: false,
      code: 'https_required',
    });
  });
});
