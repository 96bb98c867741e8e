import { describe, expect, it } from 'vitest';
import { parseAllowList } from './address-guard';
import { vettedAddressCached } from './target-cache';

describe('vettedAddressCached', () => {
  it('answers an IP literal and a refused host name from memory after the first verdict', async () => {
    const loopback = parseAllowList('127.0.0.1');
    expect(await vettedAddressCached('127.0.0.1', loopback)).toMatchObject({ ok: true, address: '127.0.0.1' });
    expect(vettedAddressCached('127.0.0.1', loopback)).toMatchObject({ ok: true, address: '127.0.0.1' });
    // Another allow-list gets its own verdict.
    expect(await vettedAddressCached('127.0.0.1', parseAllowList(''))).toMatchObject({ ok: false, code: 'blocked_address' });
    expect(await vettedAddressCached('metadata.google.internal', loopback)).toMatchObject({ ok: false });
    expect(vettedAddressCached('metadata.google.internal', loopback)).toMatchObject({ ok: false });
  });

  it('remembers a resolved host name for as long as its DNS answer', async () => {
    const allowList = parseAllowList('localhost');
    const first = vettedAddressCached('localhost', allowList);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ ok: true });
    expect(vettedAddressCached('localhost', allowList)).toMatchObject({ ok: true });
  });
});
