/**
 * Time limits every HTTP listener of Hivewatch applies (the browser shell, server/http.ts, and the
 * OTLP receiver, core/otel/receive/receiver.ts), whatever credential a request carries: a slow client
 * holds a connection at most this long. Node answers 408 and
 * closes the socket when one is passed.
 */

/** The request line and headers must arrive within this. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** The whole request (headers and body) must arrive within this. */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * How often Node checks the two limits (its default is 30 s, which would let a connection live up
 * to twice its limit): a quarter of the headers timeout.
 */
export function connectionsCheckingInterval(headersTimeoutMs: number): number {
  return Math.max(10, Math.min(30_000, Math.floor(headersTimeoutMs / 4)));
}
