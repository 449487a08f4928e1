import type { Issue } from '../../core/service/api.js';
import { formatAbsolute, formatCount } from '../lib/format.js';

/**
 * The ignore's end as a time of day, with the date unless it is today: an ignore "for 24 hours"
 * ends at this time tomorrow, and "until 14:05" alone would read as today's.
 */
function endTime(at: number, now: number): string {
  const end = new Date(at);
  const time = end.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  if (end.toDateString() === new Date(now).toDateString()) return time;
  const sameYear = end.getFullYear() === new Date(now).getFullYear();
  return `${end.toLocaleDateString('en-GB', sameYear ? { day: 'numeric', month: 'short' } : { day: 'numeric', month: 'short', year: 'numeric' })} ${time}`;
}

/**
 * When an ignored issue comes back, said where its status is: "ignored until 14:05" (the date
 * too when not today), "ignored until 100 more occurrences", "ignored until it escalates";
 * plain "ignored" for an ignore with no end. The title says it whole, with the exact time. The
 * CLI's `issues` list says the same (core/cli/history/issues.ts).
 */
export function ignoreWords(ignore: Issue['ignore'], now: number): { label: string; title: string } {
  if (ignore === null) return { label: 'ignored', title: 'ignored until someone reopens it' };
  if (ignore.until !== null)
    return { label: `ignored until ${endTime(ignore.until, now)}`, title: `ignored until ${formatAbsolute(ignore.until)}, then unresolved again` };
  if (ignore.count !== null) {
    const more = `${formatCount(ignore.count)} more occurrence${ignore.count === 1 ? '' : 's'}`;
    return { label: `ignored until ${more}`, title: `ignored until ${more} after the ignore, then unresolved again` };
  }
  if (ignore.escalating)
    return { label: 'ignored until it escalates', title: 'ignored until it escalates (occurs much more often than before), then unresolved again' };
  return { label: 'ignored', title: 'ignored until someone reopens it' };
}
