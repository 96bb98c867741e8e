import { AppError } from '@crm/shared/core';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface CursorPosition {
  value: unknown;
  id: string;
}

interface CursorPayload {
  /** position */
  p: CursorPosition;
  /** fingerprint of the route, organization and filters the cursor belongs to */
  f: string;
  /** expiry, unix ms */
  e: number;
}

/** The shape of an issued cursor, as the OpenAPI document states it: base64url of the payload, a dot, 32 of the MAC. */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{32}$';

/**
 * Opaque cursors: base64url(JSON) + "." + HMAC. Tamper-evident (any change breaks the MAC), short-lived (they
 * expire), and bound to the list they came from (other filters or another organization → INVALID_CURSOR).
 */
export class CursorCodec {
  private readonly secret: Buffer;
  /** Verifies only: the secret a rotation replaced, so cursors issued before it keep working until they expire. */
  private readonly previous: Buffer | null;

  constructor(
    secret: string | undefined,
    private readonly ttlSeconds: number,
    previousSecret?: string,
  ) {
    this.secret = secret ? Buffer.from(secret, 'utf8') : randomBytes(32);
    this.previous = previousSecret ? Buffer.from(previousSecret, 'utf8') : null;
  }

  encode(position: CursorPosition, fingerprint: string, now = Date.now()): string {
    const payload: CursorPayload = { p: position, f: fingerprint, e: now + this.ttlSeconds * 1000 };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  decode(cursor: string, fingerprint: string, now = Date.now()): CursorPosition {
    const [body, mac, extra] = cursor.split('.');
    if (!body || !mac || extra !== undefined) throw invalidCursor('is malformed');
    const given = Buffer.from(mac);
    const signedBy = (secret: Buffer) => {
      const expected = Buffer.from(this.mac(body, secret));
      return expected.length === given.length && timingSafeEqual(expected, given);
    };
    if (!signedBy(this.secret) && !(this.previous && signedBy(this.previous))) throw invalidCursor('is malformed or was altered');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorPayload;
    if (payload.e < now) throw invalidCursor('has expired; start again from the first page');
    if (payload.f !== fingerprint) throw invalidCursor('belongs to other filters; keep the same filters with a cursor');
    return payload.p;
  }

  private mac(body: string, secret = this.secret): string {
    return createHmac('sha256', secret).update(body).digest('base64url').slice(0, 32);
  }
}

const invalidCursor = (why: string) => new AppError('INVALID_CURSOR', `The cursor ${why}.`);

/** Route + organization + every query value except the cursor and the page size. */
export function listFingerprint(route: string, orgId: string, query: Record<string, unknown>): string {
  const filters = Object.entries(query)
    .filter(([key, value]) => key !== 'cursor' && key !== 'limit' && value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256')
    .update(JSON.stringify([route, orgId, filters]))
    .digest('base64url')
    .slice(0, 22);
}
