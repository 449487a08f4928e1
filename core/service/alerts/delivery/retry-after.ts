/**
 * A receiver's `Retry-After` (RFC 9110 §10.2.3: delay-seconds, or an HTTP-date), as the wait it
 * asks for. Slack sends it in seconds with a 429 (https://api.slack.com/apis/rate-limits); a
 * server in maintenance may send a date with a 503. A date is measured from the answer's own
 * `Date` header when it has a valid one, so a receiver whose clock is off by minutes still gets
 * the wait it meant; from this host's clock otherwise.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** The three forms a recipient must accept (RFC 9110 §5.6.7): IMF-fixdate, then the obsolete RFC 850 and asctime forms. */
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC_850 = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

function utc(year: number, month: string, day: number, hour: number, minute: number, second: number): number | null {
  if (day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
  const at = Date.UTC(year, MONTHS.indexOf(month), day, hour, minute, Math.min(second, 59));
  // Date.UTC rolls 31 Feb over into March; a date that does not exist is not a date.
  return new Date(at).getUTCDate() === day ? at : null;
}

/** An HTTP-date in any of its three forms as epoch ms, or null. `now` places RFC 850's two-digit year. */
export function parseHttpDate(text: string, now: number): number | null {
  const value = text.trim();
  let match = IMF_FIXDATE.exec(value);
  if (match) return utc(Number(match[3]), match[2]!, Number(match[1]), Number(match[4]), Number(match[5]), Number(match[6]));
  match = RFC_850.exec(value);
  if (match) {
    // RFC 9110: a two-digit year more than 50 years ahead is the most recent past year with those digits.
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(match[3]);
    if (year > thisYear + 50) year -= 100;
    return utc(year, match[2]!, Number(match[1]), Number(match[4]), Number(match[5]), Number(match[6]));
  }
  match = ASCTIME.exec(value);
  if (match) return utc(Number(match[6]), match[1]!, Number(match[2]!.trim()), Number(match[3]), Number(match[4]), Number(match[5]));
  return null;
}

/**
 * The wait a `Retry-After` value asks for, in ms from the answer; null when there is none or it is
 * neither form (then the retry schedule alone decides). A date in the past asks for no wait.
 */
export function retryAfterMs(value: string | undefined, responseDate: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  const at = parseHttpDate(text, now);
  if (at === null) return null;
  const answeredAt = responseDate === undefined ? null : parseHttpDate(responseDate, now);
  return Math.max(0, at - (answeredAt ?? now));
}

export interface RetryWait {
  delayMs: number;
  /** What the receiver asked for, for the delivery's error ("asked to wait 30 s"); null when it asked nothing. */
  note: string | null;
}

/**
 * The wait before the next attempt: at least the schedule's `backoffMs` and at least what the
 * receiver asked for, never more than `capMs` (the retry policy's longest delay). A receiver
 * cannot park a delivery for days; if it still refuses after the cap, the next attempt is one
 * more of the policy's tries and reads its answer again.
 */
export function retryWait(backoffMs: number, askedMs: number | null, capMs: number): RetryWait {
  if (askedMs === null) return { delayMs: backoffMs, note: null };
  const asked = Number.isFinite(askedMs) ? `asked to wait ${formatSeconds(askedMs)}` : `asked to wait more than ${formatSeconds(capMs)}`;
  if (askedMs > capMs) return { delayMs: Math.max(backoffMs, capMs), note: `${asked}; waiting the ${formatSeconds(capMs)} cap` };
  return { delayMs: Math.max(backoffMs, askedMs), note: asked };
}

function formatSeconds(ms: number): string {
  return `${Math.ceil(ms / 1_000)} s`;
}
