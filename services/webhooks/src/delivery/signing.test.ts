import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { generateSecret } from './secrets';
import { signPayload, verifySignature, verifyStandardSignature } from './signing';

// Published Standard Webhooks test vector.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  standardSignature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  // Our own scheme for the same input (also cross-checked with `openssl dgst -sha256 -hmac`).
  legacySignature: 'sha256=2e37df5d4a028c51a7f3133d64ae1e300d2c2c900f1b1d49d4369ad2530f8964',
};
// Rotation vector: the "new" secret is whsec_ + base64 of bytes 0x01..0x20, the old one is VECTOR.secret.
const ROTATION = {
  newSecret: 'whsec_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=',
  legacySignature:
    'sha256=de1e1d5b22907df2e526a9ab7968f00b7d4e798a4f28c5e6d8b9b1fd42cc6003,sha256=2e37df5d4a028c51a7f3133d64ae1e300d2c2c900f1b1d49d4369ad2530f8964',
  standardSignature: 'v1,frM35V2Z51bxs4v81I6TpLnscXkhXtKLP/7WPYVyj3A= v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

/** Independent re-implementations, straight from the spec text. */
function expectedLegacy(secret: string, ts: number, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');
}
function expectedStandard(secret: string, id: string, ts: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');
}

describe('signPayload', () => {
  it('matches the published Standard Webhooks test vector', () => {
    const headers = signPayload({ eventId: VECTOR.id, body: VECTOR.body, timestampSeconds: VECTOR.timestamp, secrets: [VECTOR.secret] });
    expect(headers['webhook-signature']).toBe(VECTOR.standardSignature);
    expect(headers['X-Webhook-Signature']).toBe(VECTOR.legacySignature);
  });

  it('produces every header', () => {
    const headers = signPayload({ eventId: VECTOR.id, body: VECTOR.body, timestampSeconds: VECTOR.timestamp, secrets: [VECTOR.secret] });
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': 'crm-webhooks/1',
      'X-Webhook-Signature': VECTOR.legacySignature,
      'X-Webhook-Timestamp': '1614265330',
      'webhook-id': VECTOR.id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': VECTOR.standardSignature,
    });
  });

  it('matches independently computed HMACs for random secrets and unicode bodies', () => {
    for (let i = 0; i < 20; i += 1) {
      const secret = generateSecret();
      const body = JSON.stringify({ i, name: 'Zoë — 日本語 🚀', nested: { a: [1, 2, 3] } });
      const ts = 1_700_000_000 + i;
      const headers = signPayload({ eventId: `evt_${i}`, body, timestampSeconds: ts, secrets: [secret] });
      expect(headers['X-Webhook-Signature']).toBe(expectedLegacy(secret, ts, body));
      expect(headers['webhook-signature']).toBe(expectedStandard(secret, `evt_${i}`, ts, body));
    }
  });

  it('uses the full secret string for X-Webhook-Signature but the decoded key for Standard Webhooks', () => {
    const secret = generateSecret();
    const headers = signPayload({ eventId: 'evt_1', body: '{}', timestampSeconds: 1, secrets: [secret] });
    const decodedKeyHex = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update('1.{}')
      .digest('hex');
    expect(headers['X-Webhook-Signature']).not.toBe(`sha256=${decodedKeyHex}`);
  });

  it('signs with both secrets during rotation, newest first', () => {
    const headers = signPayload({
      eventId: VECTOR.id,
      body: VECTOR.body,
      timestampSeconds: VECTOR.timestamp,
      secrets: [ROTATION.newSecret, VECTOR.secret],
    });
    expect(headers['X-Webhook-Signature']).toBe(ROTATION.legacySignature);
    expect(headers['webhook-signature']).toBe(ROTATION.standardSignature);
    expect(headers['X-Webhook-Signature']).toBe(
      `${expectedLegacy(ROTATION.newSecret, VECTOR.timestamp, VECTOR.body)},${expectedLegacy(VECTOR.secret, VECTOR.timestamp, VECTOR.body)}`,
    );
  });

  it('rejects bad input', () => {
    const base = { eventId: 'evt_1', body: '{}', timestampSeconds: 1, secrets: [VECTOR.secret] };
    expect(() => signPayload({ ...base, secrets: [] })).toThrow();
    expect(() => signPayload({ ...base, secrets: ['plain-secret'] })).toThrow();
    expect(() => signPayload({ ...base, timestampSeconds: 1.5 })).toThrow();
    expect(() => signPayload({ ...base, eventId: 'has space' })).toThrow();
  });
});

describe('verifySignature (X-Webhook-Signature)', () => {
  const now = VECTOR.timestamp + 10;
  const base = {
    body: VECTOR.body,
    timestampSeconds: String(VECTOR.timestamp),
    signatureHeader: VECTOR.legacySignature,
    secret: VECTOR.secret,
    nowSeconds: now,
  };

  it('accepts a valid signature within tolerance', () => {
    expect(verifySignature(base)).toEqual({ ok: true });
    expect(verifySignature({ ...base, timestampSeconds: VECTOR.timestamp })).toEqual({ ok: true });
  });

  it('accepts either signature during rotation (receiver holds old or new secret)', () => {
    expect(verifySignature({ ...base, signatureHeader: ROTATION.legacySignature })).toEqual({ ok: true });
    expect(verifySignature({ ...base, signatureHeader: ROTATION.legacySignature, secret: ROTATION.newSecret })).toEqual({ ok: true });
    expect(verifySignature({ ...base, signatureHeader: ROTATION.legacySignature, secret: generateSecret() })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('rejects a tampered body, a wrong secret and a changed timestamp', () => {
    expect(verifySignature({ ...base, body: '{"test": 2432232315}' }).ok).toBe(false);
    expect(verifySignature({ ...base, secret: generateSecret() }).ok).toBe(false);
    expect(verifySignature({ ...base, timestampSeconds: String(VECTOR.timestamp + 1) })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('rejects replays outside the 5-minute tolerance, in the past and the future', () => {
    expect(verifySignature({ ...base, nowSeconds: VECTOR.timestamp + 300 }).ok).toBe(true);
    expect(verifySignature({ ...base, nowSeconds: VECTOR.timestamp + 301 })).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
    expect(verifySignature({ ...base, nowSeconds: VECTOR.timestamp - 301 })).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
    expect(verifySignature({ ...base, nowSeconds: VECTOR.timestamp + 1000, toleranceSeconds: 1000 }).ok).toBe(true);
  });

  it('defaults the clock to now', () => {
    const ts = Math.floor(Date.now() / 1000);
    const headers = signPayload({ eventId: 'evt_1', body: '{}', timestampSeconds: ts, secrets: [VECTOR.secret] });
    const withoutClock = {
      body: base.body,
      timestampSeconds: base.timestampSeconds,
      signatureHeader: base.signatureHeader,
      secret: base.secret,
    };
    expect(
      verifySignature({
        ...withoutClock,
        body: '{}',
        timestampSeconds: headers['X-Webhook-Timestamp'],
        signatureHeader: headers['X-Webhook-Signature'],
      }).ok,
    ).toBe(true);
    expect(verifySignature({ ...withoutClock }).ok).toBe(false);
  });

  it('rejects malformed headers and timestamps', () => {
    expect(verifySignature({ ...base, signatureHeader: '' })).toEqual({ ok: false, reason: 'malformed_signature_header' });
    expect(verifySignature({ ...base, signatureHeader: 'sha256=abc' })).toEqual({ ok: false, reason: 'malformed_signature_header' });
    expect(verifySignature({ ...base, signatureHeader: VECTOR.legacySignature.replace('sha256=', 'sha1=') })).toEqual({
      ok: false,
      reason: 'malformed_signature_header',
    });
    expect(verifySignature({ ...base, timestampSeconds: '1.6e9' })).toEqual({ ok: false, reason: 'malformed_timestamp' });
    expect(verifySignature({ ...base, timestampSeconds: '' })).toEqual({ ok: false, reason: 'malformed_timestamp' });
  });

  it('ignores unknown schemes next to a valid sha256 entry', () => {
    expect(verifySignature({ ...base, signatureHeader: `sha512=deadbeef, ${VECTOR.legacySignature}` }).ok).toBe(true);
  });
});

describe('verifyStandardSignature (webhook-signature)', () => {
  const base = {
    eventId: VECTOR.id,
    body: VECTOR.body,
    timestampSeconds: String(VECTOR.timestamp),
    signatureHeader: VECTOR.standardSignature,
    secret: VECTOR.secret,
    nowSeconds: VECTOR.timestamp,
  };

  it('verifies the published vector and both rotation signatures', () => {
    expect(verifyStandardSignature(base)).toEqual({ ok: true });
    expect(verifyStandardSignature({ ...base, signatureHeader: ROTATION.standardSignature })).toEqual({ ok: true });
    expect(verifyStandardSignature({ ...base, signatureHeader: ROTATION.standardSignature, secret: ROTATION.newSecret })).toEqual({
      ok: true,
    });
  });

  it('rejects a different id, body, stale timestamp or malformed header', () => {
    expect(verifyStandardSignature({ ...base, eventId: 'msg_other' }).ok).toBe(false);
    expect(verifyStandardSignature({ ...base, body: '{}' }).ok).toBe(false);
    expect(verifyStandardSignature({ ...base, nowSeconds: VECTOR.timestamp + 301 })).toEqual({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
    expect(verifyStandardSignature({ ...base, signatureHeader: 'v2,abc' })).toEqual({ ok: false, reason: 'malformed_signature_header' });
  });
});

describe('README test vectors', () => {
  it('lists exactly the values the code produces', () => {
    const readme = readFileSync(join(__dirname, 'README.md'), 'utf8');
    for (const value of [
      VECTOR.secret,
      VECTOR.id,
      String(VECTOR.timestamp),
      VECTOR.body,
      VECTOR.legacySignature,
      VECTOR.standardSignature,
      ROTATION.newSecret,
      ROTATION.legacySignature,
      ROTATION.standardSignature,
    ]) {
      expect(readme).toContain(value);
    }
  });
});
