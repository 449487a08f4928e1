import type { AlertDeliveryChange, HivewatchEvent, LiveEvent, SubscribeOptions } from '../../core/service/api.js';
import { apiErrorFrom } from '../../core/common/api-errors.js';
import { SseParser } from './sse.js';

/**
 * The live stream of the HTTP client (http-client.ts): `GET /api/stream` read with fetch and a
 * ReadableStream, reconnecting on its own with `Last-Event-ID` (the last id it saw, instance
 * included), with a doubling delay; a connection silent for longer than `stallMs` (no event, no
 * heartbeat) is dropped and reconnected.
 */

/** What every subscription of one client shares. */
export interface LiveStreamEnv {
  url: string;
  auth: Record<string, string>;
  fetchImpl: typeof fetch;
  firstDelay: number;
  maxDelay: number;
  stallMs: number;
  /** The open subscriptions' stop functions (the client's close() stops them all). */
  closers: Set<() => void>;
  /** The server instance the last live id came from: afterId numbers are that instance's. */
  instance: string | null;
}

/** `<instance>.<id>` → parts; a bare number has no instance. */
function splitLiveId(text: string | undefined): { instance: string | null; id: number } | null {
  if (text === undefined) return null;
  const match = /^(?:([0-9a-z]+)\.)?(\d+)$/.exec(text);
  return match ? { instance: match[1] ?? null, id: Number(match[2]) } : null;
}

/** One subscription's state across its connections. */
interface Subscription {
  stopped: boolean;
  /** Whether the last connection reached `ready` (an outage is reported once, not per attempt). */
  connected: boolean;
  lastId: string | null;
  listener: (batch: LiveEvent[]) => void;
  options: SubscribeOptions;
}

/** An `alerts` word's data; a malformed one is taken as the widest change (read everything). */
function alertsWord(data: string): AlertDeliveryChange {
  try {
    const parsed = JSON.parse(data) as { desktop?: unknown };
    return { desktop: parsed.desktop !== false };
  } catch {
    return { desktop: true };
  }
}

/** Delivers one chunk's messages: events in one batch, `reset`, `ready` and `alerts` in their place. */
function deliver(env: LiveStreamEnv, sub: Subscription, messages: ReturnType<SseParser['push']>): void {
  let batch: LiveEvent[] = [];
  const flush = (): void => {
    if (batch.length > 0 && !sub.stopped) sub.listener(batch);
    batch = [];
  };
  for (const message of messages) {
    const id = splitLiveId(message.id);
    if (message.id !== undefined) sub.lastId = message.id;
    if (id?.instance) env.instance = id.instance;
    if (message.event === 'hw' && id) {
      batch.push({ id: id.id, event: JSON.parse(message.data) as HivewatchEvent });
    } else if (message.event === 'reset') {
      flush();
      if (!sub.stopped) sub.options.onReset?.();
    } else if (message.event === 'alerts') {
      if (!sub.stopped) sub.options.onAlertDeliveries?.({ desktop: alertsWord(message.data).desktop });
    } else if (message.event === 'ready') {
      flush();
      sub.connected = true;
      if (!sub.stopped) sub.options.onReady?.(id?.id ?? 0);
    }
  }
  flush();
}

/** Reads one connection until it ends, stalls or the subscription stops. */
async function consume(env: LiveStreamEnv, sub: Subscription, response: Response, connection: AbortController): Promise<void> {
  if (!response.body) throw new Error('the stream has no body');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  let stall: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    clearTimeout(stall);
    stall = setTimeout(() => {
      connection.abort();
      // Ends a read that is waiting on a body the abort does not reach (a proxied stream).
      reader.cancel().catch(() => undefined);
    }, env.stallMs);
  };
  arm();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || sub.stopped) return;
      arm();
      deliver(env, sub, parser.push(value));
    }
  } finally {
    clearTimeout(stall);
    reader.releaseLock();
  }
}

/** Connects, reads, and reconnects after a doubling delay, until stopped. */
async function run(env: LiveStreamEnv, sub: Subscription, stopSignal: AbortSignal): Promise<void> {
  let delay = env.firstDelay;
  let first = true;
  while (!sub.stopped) {
    const connection = new AbortController();
    const abort = (): void => connection.abort();
    stopSignal.addEventListener('abort', abort, { once: true });
    try {
      const response = await openStream(env, sub, connection);
      delay = env.firstDelay;
      await consume(env, sub, response, connection);
    } catch {
      // Dropped, refused, stalled or aborted: try again below unless stopped.
    } finally {
      stopSignal.removeEventListener('abort', abort);
    }
    if (sub.stopped) return;
    // Report the outage once: when a live connection ends, or when the very first attempt fails.
    if (sub.connected || first) {
      sub.connected = false;
      sub.options.onDisconnect?.();
    }
    first = false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delay);
      stopSignal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    delay = Math.min(delay * 2, env.maxDelay);
  }
}

/** Opens the stream (with the last id seen); throws the server's refusal. */
async function openStream(env: LiveStreamEnv, sub: Subscription, connection: AbortController): Promise<Response> {
  const headers: Record<string, string> = { ...env.auth, Accept: 'text/event-stream' };
  if (sub.lastId !== null) headers['Last-Event-ID'] = sub.lastId;
  const response = await env.fetchImpl(env.url, { headers, cache: 'no-store', signal: connection.signal });
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => undefined);
    throw apiErrorFrom(response.status, body, `GET /api/stream: HTTP ${response.status}`);
  }
  return response;
}

/** A live subscription: batches to `listener` until the returned function stops it. */
export function subscribeLive(env: LiveStreamEnv, listener: (batch: LiveEvent[]) => void, options: SubscribeOptions): () => void {
  const afterId = options.afterId ?? 0;
  const lastId = afterId > 0 ? (env.instance !== null ? `${env.instance}.${afterId}` : String(afterId)) : null;
  const sub: Subscription = { stopped: false, connected: false, lastId, listener, options };
  const controller = new AbortController();
  const stop = (): void => {
    if (sub.stopped) return;
    sub.stopped = true;
    controller.abort();
    env.closers.delete(stop);
  };
  env.closers.add(stop);
  void run(env, sub, controller.signal);
  return stop;
}
