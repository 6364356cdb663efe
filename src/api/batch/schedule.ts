// CronJob schedules, read with the maintained `cron-parser` (standard five fields and the
// @yearly/@monthly/@weekly/@daily/@hourly descriptors, as robfig/cron's ParseStandard), in
// the CronJob's time zone, or the controller's local one when it names none (as upstream).
// Shared by the API server's validation and the CronJob controller.
import { CronExpressionParser } from 'cron-parser';

const descriptors = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** Why a schedule is refused, or null. TZ/CRON_TZ prefixes are refused as upstream does. */
export function scheduleError(schedule: string): string | null {
  const s = schedule.trim();
  if (/^(CRON_)?TZ=/.test(s)) return 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead';
  if (s.startsWith('@') && !descriptors.has(s)) return `unrecognized descriptor: ${s}`;
  if (!s.startsWith('@') && s.split(/\s+/).length !== 5) return `expected exactly 5 fields, found ${s.split(/\s+/).length}: ${s}`;
  try {
    CronExpressionParser.parse(s, { currentDate: new Date(0), tz: 'UTC' });
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Whether `tz` names an IANA time zone this runtime knows. */
export function isTimeZone(tz: string): boolean {
  if (tz === '' || tz.toLowerCase() === 'local') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Scheduled times after `after` (exclusive) up to `until` (inclusive), at most `max` (the earliest ones). */
export function timesBetween(schedule: string, tz: string | undefined, after: number, until: number, max: number): number[] {
  const it = CronExpressionParser.parse(schedule.trim(), { currentDate: new Date(after), endDate: new Date(until + 1), ...(tz ? { tz } : {}) });
  const out: number[] = [];
  while (out.length < max && it.hasNext()) {
    const t = it.next().getTime();
    if (t > until) break;
    out.push(t);
  }
  return out;
}

/** The first scheduled time after `after`. */
export function nextTime(schedule: string, tz: string | undefined, after: number): number {
  return CronExpressionParser.parse(schedule.trim(), { currentDate: new Date(after), ...(tz ? { tz } : {}) }).next().getTime();
}

/** The latest scheduled time at or before `at`. */
export function lastTimeAtOrBefore(schedule: string, tz: string | undefined, at: number): number {
  return CronExpressionParser.parse(schedule.trim(), { currentDate: new Date(at + 1), ...(tz ? { tz } : {}) }).prev().getTime();
}
