import { decideRetry, type RetryPolicy } from '../../../base/errors/retry.js';
import { DeliveryStatus, type DeliveryOutcome } from '../alert-queries.js';
import type { PostResult } from './http-post.js';
import { retryAfterMs, retryWait } from './retry-after.js';

/** Deliveries are retried as the engine retries a transient failure: exponential from 10 s, capped at 30 min, 8 tries in all. */
const DELIVERY_RETRY: RetryPolicy = Object.freeze({ retries: 7, backoff: 'exponential', baseDelayMs: 10_000, maxDelayMs: 30 * 60_000 });

/** The answers whose `Retry-After` is honoured: too many requests (RFC 6585 §4) and unavailable (RFC 9110 §15.6.4). */
const ASKS_TO_WAIT: ReadonlySet<number> = new Set([429, 503]);

/**
 * What an attempt's answer makes of a delivery. 2xx: sent. A 4xx other than 408 and 429 will not
 * get better: given up. Anything else is retried on the policy's schedule, and a 429 or 503 no
 * earlier than its `Retry-After` asks (within the policy's longest delay).
 */
export function outcomeOf(attempts: number, result: PostResult, now: number): DeliveryOutcome {
  const code = 'status' in result ? result.status : null;
  if (code !== null && code >= 200 && code < 300) return { status: DeliveryStatus.sent, responseCode: code, error: null, nextAttemptAt: now };
  let error = 'error' in result ? result.error : `the receiver answered ${code}`;
  const permanent = code !== null && code >= 400 && code < 500 && code !== 408 && code !== 429;
  const decision = decideRetry(DELIVERY_RETRY, { code: 'WEBHOOK_DELIVERY_FAILED', recoverable: !permanent }, attempts);
  if (!decision.retry) return { status: DeliveryStatus.givenUp, responseCode: code, error, nextAttemptAt: now };
  const asked = 'status' in result && ASKS_TO_WAIT.has(result.status) ? retryAfterMs(result.retryAfter, result.date, now) : null;
  const wait = retryWait(decision.delayMs, asked, DELIVERY_RETRY.maxDelayMs ?? decision.delayMs);
  if (wait.note !== null) error += ` and ${wait.note}`;
  return { status: DeliveryStatus.failed, responseCode: code, error, nextAttemptAt: now + wait.delayMs };
}
