import { WEEKDAYS, type Weekday } from '@crm/shared/schemas';
import type { BusinessHoursRecord } from '../repository/agent.repository';

/** Without `behavior.businessHours`: Monday to Friday, 09:00–18:00, in the organization's timezone. */
export const DEFAULT_DAYS: Partial<Record<Weekday, Array<[string, string]>>> = {
  mon: [['09:00', '18:00']],
  tue: [['09:00', '18:00']],
  wed: [['09:00', '18:00']],
  thu: [['09:00', '18:00']],
  fri: [['09:00', '18:00']],
};

const SHORT_DAYS: Record<string, Weekday> = { Mon: 'mon', Tue: 'tue', Wed: 'wed', Thu: 'thu', Fri: 'fri', Sat: 'sat', Sun: 'sun' };

/** The weekday and "HH:MM" wall-clock time of `at` in `timezone`. */
export function localTime(at: Date, timezone: string): { day: Weekday; time: string } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { day: SHORT_DAYS[part('weekday')] ?? WEEKDAYS[0], time: `${part('hour')}:${part('minute')}` };
}

/** True when `at` falls in one of the day's [from, to) intervals, in the hours' timezone or the organization's. */
export function withinBusinessHours(hours: BusinessHoursRecord | null, organizationTimezone: string, at: Date): boolean {
  const timezone = hours?.timezone ?? (organizationTimezone || 'UTC');
  const days = hours?.days ?? DEFAULT_DAYS;
  const { day, time } = localTime(at, timezone);
  return (days[day] ?? []).some(([from, to]) => time >= from && time < to);
}
