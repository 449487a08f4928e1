import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveEvent } from '../core/service/api.js';
import { formatLiveId, parseLiveId } from '../core/service/live.js';
import type { HivewatchService } from '../core/service/service.js';
import { SECURITY_HEADERS } from '../shell-common/content-policy.js';

/**
 * `GET /api/stream`: the live subscription as server-sent events.
 *
 *   event: ready   id: <instance>.<startId>   data: {"instance","startId"}   (on every connect)
 *   event: hw      id: <instance>.<id>        data: <HivewatchEvent JSON>
 *   event: reset   id: <instance>.<head>      data: {"instance","head"}      (Last-Event-ID not resumable)
 *   : hb                                                                      (every 2 s)
 *
 * A reconnect with `Last-Event-ID` (or `?lastEventId=`) continues right after that id, with no
 * gap and no duplicate, as long as the id is in the service's live ring; an id of another
 * instance (a previous server), older than the ring, newer than the head or malformed gets
 * `reset`. Each batch of the service is one write. A client that stops reading is disconnected
 * once 8 MiB are queued for it; it reconnects and resumes (or resets) like any other.
 */

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

export function openStream(
  req: IncomingMessage,
  res: ServerResponse,
  service: HivewatchService,
  query: URLSearchParams,
  options: StreamOptions,
): OpenStream {
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

  const write = (chunk: string): void => {
    if (closed) return;
    res.write(chunk);
    if (res.writableLength > maxQueued) close();
  };

  const subscription = service.subscribeLive({
    // A malformed id is an unknown one: ask for an impossible id so the hub resets.
    afterId: given === undefined ? undefined : parsed === null ? Number.MAX_SAFE_INTEGER : parsed.id,
    instance: parsed?.instance,
    onBatch: (batch: LiveEvent[]) => {
      let out = '';
      for (const live of batch) out += message('hw', formatLiveId(instance, live.id), JSON.stringify(live.event));
      write(out);
    },
    onReset: (head) => write(message('reset', formatLiveId(instance, head), JSON.stringify({ instance, head }))),
  });

  let preamble = 'retry: 2000\n\n';
  if (subscription.reset) preamble += message('reset', formatLiveId(instance, subscription.startId), JSON.stringify({ instance, head: subscription.startId }));
  preamble += message('ready', formatLiveId(instance, subscription.startId), JSON.stringify({ instance, startId: subscription.startId }));
  write(preamble);

  const heartbeat = setInterval(() => write(': hb\n\n'), options.heartbeatMs);
  heartbeat.unref();

  function close(): void {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    subscription.unsubscribe();
    res.end();
  }
  req.on('close', close);
  res.on('close', close);
  return { close };
}
