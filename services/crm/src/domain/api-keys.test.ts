import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../repository/api-key.repository';
import { apiKeyView } from './api-keys';

const now = new Date('2026-11-28T12:00:00.000Z');
const key = (fields: Partial<ApiKeyRecord>): ApiKeyRecord => ({
  id: 'key_1',
  org_id: 'org_1',
  name: 'backend',
  hash: 'a'.repeat(64),
  prefix: 'sk_live_abcd',
  scopes: ['read:contacts'],
  created_at: new Date('2026-11-01T00:00:00.000Z'),
  expires_at: null,
  revoked_at: null,
  last_used_at: null,
  ...fields,
});

describe('an API key as the API shows it', () => {
  it('never carries the hash or the organization, and says whether the key still authenticates', () => {
    const view = apiKeyView(key({}), now);
    expect(view).toEqual({
      id: 'key_1',
      name: 'backend',
      prefix: 'sk_live_abcd',
      scopes: ['read:contacts'],
      created_at: '2026-11-01T00:00:00.000Z',
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
      status: 'active',
    });
    expect(apiKeyView(key({ expires_at: new Date('2026-12-01T00:00:00.000Z') }), now).status).toBe('active');
    expect(apiKeyView(key({ expires_at: now }), now).status).toBe('expired');
    const revoked = apiKeyView(key({ expires_at: now, revoked_at: new Date('2026-11-20T00:00:00.000Z') }), now);
    expect(revoked).toMatchObject({ status: 'revoked', revoked_at: '2026-11-20T00:00:00.000Z' });
  });
});
