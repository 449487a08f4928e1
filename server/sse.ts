import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveEvent } from '../core/service/api.js';
import { formatLiveId, parseLiveId, type LiveSubscription } from '../core/service/live/hub.js';
import type { HivewatchService } from '../core/service/service.js';
import { SECURITY_HEADERS } from '../shell-common/content-policy.js';

/**
 * `GET /api/stream`: the live subscription as server-sent events.
 *
 *   event: ready   id: <instance>.<startId>   data: {"instance","startId"}   (on every connect)
 *   event: hw      id: <instance>.<id>        data: <HivewatchEvent JSON>
 *   event: reset   id: <instance>.<head>      data: {"instance","head"}      (Last-Event-ID not resumable)
 *   event: alerts                             data: {"desktop"}              (alert deliveries changed)
 *   : hb                                                                      (every 2 s)
 *
 * A reconnect with `Last-Event-ID` (or `?lastEventId=`) continues right after that id, with no
 * gap and no duplicate, as long as the id is in the service's live ring; an id of another
 * instance (a previous server), older than the ring, newer than the head or malformed gets
 * `reset`. Each batch of the service is one write, encoded once for every stream it goes to (the
 * hub hands streams at the same position the same batch): a thousand streams cost one
 * serialization and share one buffer. A stream whose socket buffer is full is paused: the hub
 * keeps only its position and, on `drain`, sends what it missed from the ring (or a `reset` once
 * that has left the ring), so a slow client holds no backlog of its own. A client whose queue
 * still passes 8 MiB is disconnected; it reconnects and resumes (or resets) like any other.
 *
 * `alerts` carries no id (the stream's position stays the last event's): it says only that this
 * host's alert engine stored deliveries or recorded a POST, so the window reads the delivery log
 * now, and the desktop feed when `desktop` (core/service/alerts/desktop-feed.ts). One missed in an
 * outage is found by the window's next read, which for the feed looks back past the one before.
 */

/** One encoding per batch array; the arrays are frozen and shared by every stream at the same position. */
const encoded = new WeakMap<readonly LiveEvent[], { instance: string; bytes: Buffer }>();

function encodeBatch(instance: string, batch: readonly LiveEvent[]): Buffer {
  const known = encoded.get(batch);
  if (known !== undefined && known.instance === instance) return known.bytes;
  let out = '';
  for (const live of batch) out += message('hw', formatLiveId(instance, live.id), JSON.stringify(live.event));
  const bytes = Buffer.from(out, 'utf8');
  if (Object.isFrozen(batch)) encoded.set(batch, { instance, bytes });
  return bytes;
}

export interface StreamOptions {
  heartbeatMs: number;
  maxQueuedBytes?: number;
}

export interface OpenStream {
  close(): void;
}

function message(event: string, id: string, data: string): string {
  return `event: ${event}\nid: ${id}\ndata: ${data}\n\n`;
}

export function openStream(req: IncomingMessage, res: ServerResponse, service: HivewatchService, query: URLSearchParams, options: StreamOptions): OpenStream {
  const header = req.headers['last-event-id'];
  const raw = (Array.isArray(header) ? header[0] : header) ?? query.get('lastEventId') ?? undefined;
  const given = raw === undefined || raw === '' ? undefined : raw;
  const parsed = parseLiveId(given);
  const maxQueued = options.maxQueuedBytes ?? 8 * 1024 * 1024;
  const instance = service.instance;
  let closed = false;

  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();

  let paused = false;
  // Assigned once the hub has the subscription; a batch cannot arrive before (delivery is scheduled).
  let subscription: LiveSubscription | null = null;
  const write = (chunk: string | Buffer): void => {
    if (closed) return;
    if (!res.write(chunk) && !paused) {
      paused = true;
      subscription?.pause();
      res.once('drain', () => {
        paused = false;
        subscription?.resume();
      });
    }
    if (res.writableLength > maxQueued) close();
  };

  subscription = service.subscribeLive({
    // A malformed id is an unknown one: ask for an impossible id so the hub resets.
    afterId: given === undefined ? undefined : parsed === null ? Number.MAX_SAFE_INTEGER : parsed.id,
    instance: parsed?.instance,
    onBatch: (batch: LiveEvent[]) => write(encodeBatch(instance, batch)),
    onReset: (head) => write(message('reset', formatLiveId(instance, head), JSON.stringify({ instance, head }))),
  });

  let preamble = 'retry: 2000\n\n';
  const started = subscription;
  if (started.reset) preamble += message('reset', formatLiveId(instance, started.startId), JSON.stringify({ instance, head: started.startId }));
  preamble += message('ready', formatLiveId(instance, started.startId), JSON.stringify({ instance, startId: started.startId }));
  write(preamble);

  const stopAlerts = service.onAlertDeliveries((change) => write(`event: alerts\ndata: ${JSON.stringify({ desktop: change.desktop })}\n\n`));
  const heartbeat = setInterval(() => write(': hb\n\n'), options.heartbeatMs);
  heartbeat.unref();

  function close(): void {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    started.unsubscribe();
    stopAlerts();
    res.end();
  }
  req.on('close', close);
  res.on('close', close);
  return { close };
}
