import { SCOPES } from '@crm/shared/core';
import { EVENT_KINDS } from '@crm/shared/events';
import { describe, expect, it } from 'vitest';
import { readableKinds, requireKindScopes } from './kind-scopes';

const principal = (scopes: readonly string[]) => ({ orgId: 'org_1', keyId: 'key_1', scopes: [...scopes], plan: 'pro' });

describe('kind scopes', () => {
  it('lists the kinds a key may read: none without their scopes, a family with its scope, undefined (no filter) with all', () => {
    expect(readableKinds(principal(['read:events']))).toEqual([]);
    const deals = readableKinds(principal(['read:events', 'read:deals']));
    expect(deals).toEqual(EVENT_KINDS.filter((kind) => kind.type.startsWith('deal.')).map((kind) => kind.type));
    expect(readableKinds(principal(SCOPES))).toBeUndefined();
  });

  it('refuses naming a kind whose read scope the key lacks, with the missing scope', () => {
    expect(() => requireKindScopes(principal(['read:events', 'read:deals']), 'read:events', ['deal.created'])).not.toThrow();
    expect(() => requireKindScopes(principal(['read:events', 'read:deals']), 'read:events', ['contact.created'])).toThrow(
      expect.objectContaining({ code: 'INSUFFICIENT_SCOPES', details: expect.objectContaining({ missing_scopes: ['read:contacts'] }) }),
    );
  });
});
