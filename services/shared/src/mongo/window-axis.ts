import type { PageOrder } from './list-page';

/**
 * Distances along a sort key, for sizing the windows of a windowed page (list-window.ts): how far apart two values
 * are, and the value a distance away. Estimates only — a window of any size gives the right rows, a good size only
 * makes it cheap — so a string is measured roughly, by its code points grouped in 64 ordered buckets.
 */
export interface WindowAxis {
  /** |a − b| in the axis's unit. */
  distance(a: unknown, b: unknown): number;
  /** The value `delta` away from `value` in `direction`; undefined past the end of the axis (no bound then). */
  offset(value: unknown, delta: number, direction: 1 | -1): unknown;
  /** The smallest step worth taking, and the first window's size when nothing was learned yet. */
  unit: number;
  initial: number;
}

const MAX_DATE_MS = 8.64e15;

const dateAxis: WindowAxis = {
  distance: (a, b) => Math.abs(asTime(a) - asTime(b)),
  offset(value, delta, direction) {
    const at = asTime(value) + direction * delta;
    return Number.isFinite(at) && Math.abs(at) <= MAX_DATE_MS ? new Date(at) : undefined;
  },
  unit: 1,
  initial: 3_600_000,
};

const numberAxis: WindowAxis = {
  distance: (a, b) => Math.abs(Number(a) - Number(b)),
  offset(value, delta, direction) {
    const at = Number(value) + direction * delta;
    return Number.isFinite(at) ? at : undefined;
  },
  unit: 1,
  initial: 32,
};

// Where each of the 64 buckets starts: controls and punctuation, each digit, `:`…`` ` `` (upper case), each
// lower-case letter, then ever wider blocks of Unicode. Ordered like the code points, as the store orders strings.
const BUCKET_STARTS: number[] = [
  0x0,
  ...range(0x30, 0x3a),
  0x3a,
  ...range(0x61, 0x7b),
  0x7b,
  0xc0,
  0x100,
  0x250,
  0x370,
  0x400,
  0x530,
  0x600,
  0x700,
  0x1000,
  0x2000,
  0x3000,
  ...range(0, 8).map((part) => 0x4e00 + part * 2624),
  0xa000,
  0xac00,
  0xd7a4,
  0xe000,
  0x10000,
  0x20000,
];
const BASE = BigInt(BUCKET_STARTS.length);
/** Characters measured: more than any common prefix of the values of one list. */
const DIGITS = 32;
const SPAN = BASE ** BigInt(DIGITS);

const stringAxis: WindowAxis = {
  distance(a, b) {
    const difference = toNumber(String(a)) - toNumber(String(b));
    return Number(difference < 0n ? -difference : difference);
  },
  offset(value, delta, direction) {
    const at = toNumber(String(value)) + BigInt(direction) * BigInt(Math.round(delta));
    return at < 0n || at >= SPAN ? undefined : fromNumber(at, String(value));
  },
  unit: 1,
  // About one step of the third character.
  initial: Number(BASE ** BigInt(DIGITS - 3)),
};

export function axisOf(type: PageOrder['type']): WindowAxis {
  return type === 'date' ? dateAxis : type === 'number' ? numberAxis : stringAxis;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

function asTime(value: unknown): number {
  return value instanceof Date ? value.getTime() : new Date(String(value)).getTime();
}

function bucketOf(codePoint: number): number {
  let low = 0;
  let high = BUCKET_STARTS.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((BUCKET_STARTS[middle] ?? 0) <= codePoint) low = middle;
    else high = middle - 1;
  }
  return low;
}

const codePoints = (value: string): number[] => Array.from(value.slice(0, DIGITS * 2), (character) => character.codePointAt(0) ?? 0);

function toNumber(value: string): bigint {
  const points = codePoints(value);
  let number = 0n;
  for (let i = 0; i < DIGITS; i++) number = number * BASE + BigInt(i < points.length ? bucketOf(points[i] ?? 0) : 0);
  return number;
}

/**
 * The string of `number`: `from`'s own characters as far as their digits are unchanged, then the start of each
 * digit's bucket (bucket 0, below `0`, as a space, never a NUL) — so a step up from `from` never lands below it.
 */
function fromNumber(number: bigint, from: string): string {
  const digits: number[] = [];
  for (let i = 0, rest = number; i < DIGITS; i++, rest /= BASE) digits.unshift(Number(rest % BASE));
  const points = codePoints(from);
  let same = 0;
  while (same < digits.length && same < points.length && digits[same] === bucketOf(points[same] ?? 0)) same++;
  if (same === DIGITS) return from;
  const tail = digits.slice(same);
  while (tail.length > 0 && tail[tail.length - 1] === 0) tail.pop();
  return String.fromCodePoint(...points.slice(0, same), ...tail.map((digit) => (digit === 0 ? 0x20 : (BUCKET_STARTS[digit] ?? 0x20))));
}
