import { createHash, randomFillSync } from 'node:crypto';

/** Id prefixes of every record (catalogue §4.2). Clients treat ids as opaque; the server checks the prefix. */
export const ID_PREFIXES = {
  contact: 'ct',
  company: 'co',
  deal: 'dl',
  note: 'nt',
  funnel: 'fn',
  stage: 'st',
  task: 'tk',
  conversation: 'cv',
  message: 'msg',
  chatInstance: 'ci',
  template: 'tpl',
  broadcast: 'bc',
  aiAgent: 'ag',
  agentRun: 'run',
  webhook: 'wh',
  delivery: 'dlv',
  event: 'evt',
  member: 'mb',
  customField: 'cf',
  apiKey: 'key',
  organization: 'org',
  request: 'req',
  replay: 'rpl',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 22;
const BODY_PATTERN = `[0-9A-Za-z]{${BODY_LENGTH}}`;

/**
 * Bytes from the CSPRNG drawn a block at a time, as Node's randomUUID does: one call per ~100 ids instead of one per
 * id (each call cost the gateway a few microseconds per request id, 4 % of its CPU under a flood of refusals).
 */
const pool = Buffer.alloc(4_096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++] ?? 0;
}

/** 22 base62 characters: about 131 bits of randomness. */
export function randomToken(length = BODY_LENGTH): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    // 248 = 62 * 4: rejecting larger bytes keeps every character equally likely.
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomToken()}`;
}

/**
 * An id derived from `seed` (22 base62 characters of its SHA-256): writers that race to create the record for the
 * same seed (an organization and a natural key) insert one document, and the losers read the winner's.
 */
export function derivedId(kind: IdKind, seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  let body = '';
  for (let i = 0; body.length < BODY_LENGTH; i++) body += ALPHABET[(digest[i % digest.length] ?? 0) % 62];
  return `${ID_PREFIXES[kind]}_${body}`;
}

/** The pattern of a well-formed id of one kind, e.g. ^ct_[0-9A-Za-z]{22}$. */
export const idPattern = (kind: IdKind): string => `^${ID_PREFIXES[kind]}_${BODY_PATTERN}$`;

const patterns = new Map<IdKind, RegExp>();

export function isId(kind: IdKind, value: unknown): value is string {
  let pattern = patterns.get(kind);
  if (!pattern) {
    pattern = new RegExp(idPattern(kind));
    patterns.set(kind, pattern);
  }
  return typeof value === 'string' && pattern.test(value);
}
