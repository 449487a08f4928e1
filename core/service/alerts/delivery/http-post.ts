import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/**
 * One webhook POST on a connection of its own (docs/triage.md, "Deliveries"). No agent pool is
 * shared between receivers, so a receiver that holds its connections open cannot use up a pool
 * another receiver's deliveries wait on. One deadline covers everything: name lookup, connect,
 * TLS, sending, the status line and headers, and the bounded read of the body; when it passes
 * the socket is destroyed. Of the body at most ANSWER_BYTES are read, then the socket is
 * destroyed too: a receiver that answers with an endless body costs a few kilobytes.
 */

/**
 * A receiver's answer: its status code and, when it asks to be retried later, its `Retry-After`
 * and `Date` headers; or why there was none (a timeout, a refused connection). The body is not
 * kept: receivers echo the request's path ("Cannot POST /services/…"), and the path of a webhook
 * URL is often its secret.
 */
export type PostResult = { status: number; retryAfter?: string; date?: string } | { error: string };

export type WebhookPost = (url: string, body: string, headers: Record<string, string>, timeoutMs: number) => Promise<PostResult>;

/** How much of an answer's body is read before the connection is closed. */
export const ANSWER_BYTES = 4_096;
/** Node's default, named so that a `--max-http-header-size` flag cannot raise it for webhooks. */
const MAX_HEADER_BYTES = 16_384;

/** Errors name what went wrong, never the URL (its path, query and credentials stay out of logs). */
export const postWebhook: WebhookPost = (url, body, headers, timeoutMs) =>
  new Promise<PostResult>((resolve) => {
    const target = targetOf(url);
    if ('error' in target) {
      resolve(target);
      return;
    }
    const payload = Buffer.from(body, 'utf8');
    let request: ClientRequest;
    try {
      request = target.send(target.url, {
        method: 'POST',
        // A connection of this POST's own, closed when it ends: no pool, no keep-alive.
        agent: false,
        maxHeaderSize: MAX_HEADER_BYTES,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Hivewatch-Alerts',
          ...headers,
          ...target.authorization,
          'content-length': String(payload.length),
          connection: 'close',
        },
      });
    } catch (error) {
      // Node refuses some requests before any socket (a header it will not send): an outcome, not a throw.
      const code = (error as { code?: string }).code;
      resolve({ error: code ? `the request could not be made (${code})` : 'the request could not be made' });
      return;
    }
    let settled = false;
    const finish = (result: PostResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      // Whatever the answer still holds is not read: the socket goes now.
      request.destroy();
      resolve(result);
    };
    const deadline = setTimeout(() => finish({ error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    request.on('response', (response) => readBounded(response, () => finish(answerOf(response))));
    request.on('error', (error: Error & { code?: string }) => finish({ error: error.code ? `connection failed (${error.code})` : 'connection failed' }));
    request.end(payload);
  });

type Sender = typeof httpRequest;

/** Where to send: the URL without credentials, its Authorization header, and the client of its scheme. */
function targetOf(url: string): { url: URL; authorization: Record<string, string>; send: Sender } | { error: string } {
  let parts: ReturnType<typeof withoutCredentials>;
  try {
    parts = withoutCredentials(url);
  } catch {
    return { error: 'the webhook URL is not a valid URL' };
  }
  const target = new URL(parts.url);
  if (target.protocol === 'https:') return { url: target, authorization: parts.authorization, send: httpsRequest as Sender };
  if (target.protocol === 'http:') return { url: target, authorization: parts.authorization, send: httpRequest };
  return { error: `the webhook URL is not http or https (${target.protocol})` };
}

/** Calls `done` once the body ended, broke off, or passed ANSWER_BYTES, whichever comes first. */
function readBounded(response: IncomingMessage, done: () => void): void {
  let read = 0;
  response.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read >= ANSWER_BYTES) done();
  });
  // A body cut off after the status line still told the status.
  response.on('error', done);
  response.on('end', done);
  response.on('close', done);
}

function answerOf(response: IncomingMessage): PostResult {
  const result: { status: number; retryAfter?: string; date?: string } = { status: response.statusCode ?? 0 };
  const retryAfter = response.headers['retry-after'];
  if (typeof retryAfter !== 'string') return result;
  result.retryAfter = retryAfter;
  // The answer's own clock, which a Retry-After date is measured from.
  if (typeof response.headers.date === 'string') result.date = response.headers.date;
  return result;
}

/**
 * A webhook URL may carry `user:pass@` (a receiver behind HTTP Basic authentication). The
 * credentials go where RFC 7617 puts them, `Authorization: Basic base64(user:pass)`, decoded from
 * the URL's percent-encoding first, and the request goes to the URL without them (the Fetch
 * standard forbids credentials in a request's URL; this keeps them out of the request line too).
 */
export function withoutCredentials(text: string): { url: string; authorization: Record<string, string> } {
  const url = new URL(text);
  if (url.username === '' && url.password === '') return { url: text, authorization: {} };
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return { url: url.href, authorization: { authorization: `Basic ${Buffer.from(pair, 'utf8').toString('base64')}` } };
}
