import { describe, expect, it } from 'vitest';
import { localTime, withinBusinessHours } from './business-hours';

describe('business hours', () => {
  // 2026-03-02 is a Monday.
  const mondayNoonUtc = new Date('2026-03-02T12:00:00Z');

  it('reads the wall-clock time in a timezone', () => {
    expect(localTime(mondayNoonUtc, 'UTC')).toEqual({ day: 'mon', time: '12:00' });
    expect(localTime(mondayNoonUtc, 'Asia/Tokyo')).toEqual({ day: 'mon', time: '21:00' });
    expect(localTime(new Date('2026-03-02T02:00:00Z'), 'America/Los_Angeles')).toEqual({ day: 'sun', time: '18:00' });
  });

  it('defaults to Monday–Friday 09:00–18:00 in the organization timezone', () => {
    expect(withinBusinessHours(null, 'UTC', mondayNoonUtc)).toBe(true);
    expect(withinBusinessHours(null, 'Asia/Tokyo', mondayNoonUtc)).toBe(false);
    expect(withinBusinessHours(null, 'UTC', new Date('2026-03-07T12:00:00Z'))).toBe(false);
    expect(withinBusinessHours(null, 'UTC', new Date('2026-03-02T18:00:00Z'))).toBe(false);
    expect(withinBusinessHours(null, 'UTC', new Date('2026-03-02T09:00:00Z'))).toBe(true);
  });

  it('uses the agent timezone and days when given; a missing day is closed', () => {
    const hours = { timezone: 'Asia/Tokyo', days: { mon: [['20:00', '22:00'] as [string, string]] } };
    expect(withinBusinessHours(hours, 'UTC', mondayNoonUtc)).toBe(true);
    expect(withinBusinessHours({ timezone: null, days: { sat: [['00:00', '24:00']] } }, 'UTC', mondayNoonUtc)).toBe(false);
    expect(withinBusinessHours({ timezone: null, days: {} }, 'UTC', mondayNoonUtc)).toBe(false);
  });
});
