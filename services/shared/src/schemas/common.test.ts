import { describe, expect, it } from 'vitest';
import { isoDateTimeSchema } from './common';

describe('date-times in requests', () => {
  it('are taken with any offset and kept in UTC with milliseconds', () => {
    expect(isoDateTimeSchema.parse('2026-01-01T00:00:00-05:00')).toBe('2026-01-01T05:00:00.000Z');
    expect(isoDateTimeSchema.parse('0656-02-11T19:08:44-19:09')).toBe('0656-02-12T14:17:44.000Z');
    expect(isoDateTimeSchema.parse('2026-03-01T09:00:03.89Z')).toBe('2026-03-01T09:00:03.890Z');
  });

  it('are refused when the offset carries them outside the years 0000 to 9999 in UTC', () => {
    expect(isoDateTimeSchema.safeParse('9999-12-31T23:00:00-05:00').success).toBe(false);
    expect(isoDateTimeSchema.safeParse('0000-01-01T00:30:00+01:00').success).toBe(false);
    expect(isoDateTimeSchema.safeParse('not a date').success).toBe(false);
  });
});
