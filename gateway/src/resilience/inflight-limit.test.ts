import { describe, expect, it } from 'vitest';
import { InflightRequests } from './inflight-limit';

const request = () => ({});

describe('open requests per organization and per process', () => {
  it("refuses an organization over its own cap with 429 while another organization's requests still enter", () => {
    const inflight = new InflightRequests({ max: 10, perOrg: 2 });
    const [a1, a2] = [request(), request()];
    expect(inflight.enter(a1, 'org_a')).toBeUndefined();
    expect(inflight.enter(a2, 'org_a')).toBeUndefined();
    expect(inflight.enter(request(), 'org_a')).toMatchObject({
      code: 'RATE_LIMITED',
      details: { policy: 'inflight', limit: 2, retry_after_seconds: 1 },
    });
    expect(inflight.enter(request(), 'org_b')).toBeUndefined();
    // One ends: the organization has a place again.
    inflight.leave(a1);
    expect(inflight.enter(request(), 'org_a')).toBeUndefined();
  });

  it('keeps the process-wide cap as the last guard: 503 when several organizations together reach it', () => {
    const inflight = new InflightRequests({ max: 3, perOrg: 2 });
    for (const org of ['org_a', 'org_a', 'org_b']) expect(inflight.enter(request(), org)).toBeUndefined();
    expect(inflight.enter(request(), 'org_c')).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      details: { retry_after_seconds: 1 },
    });
  });

  it('counts requests whose key is not yet known together, and moves each to its organization once it is', () => {
    const inflight = new InflightRequests({ max: 10, perOrg: 2 });
    const [u1, u2] = [request(), request()];
    expect(inflight.enter(u1, undefined)).toBeUndefined();
    expect(inflight.enter(u2, undefined)).toBeUndefined();
    // Unattributed requests at their cap: the platform's refusal, 503 (nobody to charge a 429 to).
    expect(inflight.enter(request(), undefined)).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(inflight.attribute(u1, 'org_a')).toBeUndefined();
    expect(inflight.countOf('org_a')).toBe(1);
    expect(inflight.enter(request(), undefined)).toBeUndefined();
    // An organization already at its cap refuses the request it would take over.
    expect(inflight.enter(request(), 'org_a')).toBeUndefined();
    expect(inflight.attribute(u2, 'org_a')).toMatchObject({ code: 'RATE_LIMITED', details: { policy: 'inflight' } });
    inflight.leave(u2);
    inflight.leave(u1);
    expect(inflight.countOf('org_a')).toBe(1);
  });

  it('turns each cap off with 0', () => {
    const inflight = new InflightRequests({ max: 0, perOrg: 0 });
    for (let i = 0; i < 100; i++) expect(inflight.enter(request(), 'org_a')).toBeUndefined();
  });
});
