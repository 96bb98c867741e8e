import { describe, expect, it } from 'vitest';
import { rawApi } from '../support/api';
import { createTestOrg } from '../support/orgs';

/** Issue 22 finding 5: API answers hold one organization's data and must be neither cached nor content-sniffed. */
describe('security headers on API answers', () => {
  it('sends Cache-Control: no-store and X-Content-Type-Options: nosniff on successes and errors alike', async () => {
    const org = await createTestOrg();
    const answers = [
      await org.raw.get('/v1/contacts'),
      await org.raw.post('/v1/contacts', { name: '' }),
      await rawApi().get('/v1/contacts'),
      await org.raw.get('/v1/no-such-route'),
      await rawApi().get('/healthz'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 422, 401, 404, 200]);
    for (const answer of answers) {
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('leaves the docs page its own caching and content security policy', async () => {
    const page = await rawApi().get('/api/docs');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});
