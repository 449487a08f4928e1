import type { DatabaseStatus } from '../../core/service/api.js';
import { formatPast } from '../lib/format.js';

/**
 * What the live badge says. The stream is `live`, or it dropped and the client is reconnecting
 * on its own (renderer/api/http-client.ts); after OFFLINE_AFTER_MS down it reads "Offline". Both
 * say how long ago the window last heard of an event, so a quiet-but-live window and a dead one
 * never look alike.
 */

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'catching-up';

/** Down for this long: "Offline" instead of "Reconnecting…" (it still retries every 2 s). */
export const OFFLINE_AFTER_MS = 10_000;

export interface ConnectionState {
  connection: Connection;
  /** Wall time the stream dropped at; null while live. */
  downSince: number | null;
  /** Wall time the last live event arrived at; null before the first one. */
  lastEventAt: number | null;
}

export interface ConnectionLabel {
  state: 'connecting' | 'live' | 'reconnecting' | 'catching-up' | 'offline';
  text: string;
  /** "last event 12s ago", while the stream is down. */
  detail: string | null;
  title: string;
}

/**
 * While the server cannot be reached, the window says so plainly, with the address it keeps
 * trying: "Hivewatch is not reachable at 127.0.0.1:4123 — retrying". Null while connected (or
 * catching up), and in the desktop window, whose service is in-process.
 */
export function unreachableMessage(s: ConnectionState, location: { protocol: string; host: string }): string | null {
  if (s.connection !== 'reconnecting') return null;
  if (location.protocol !== 'http:' && location.protocol !== 'https:') return null;
  return `Hivewatch is not reachable at ${location.host} — retrying`;
}

export function connectionLabel(s: ConnectionState, now: number): ConnectionLabel {
  if (s.connection === 'live') return { state: 'live', text: 'Live', detail: null, title: 'receiving live events' };
  if (s.connection === 'catching-up')
    return {
      state: 'catching-up',
      text: 'Reconnecting…',
      detail: 'catching up',
      title: 'connected again: re-reading what the window shows before it says Live',
    };
  if (s.connection === 'connecting') return { state: 'connecting', text: 'Connecting…', detail: null, title: 'connecting to the live stream…' };
  const detail = s.lastEventAt === null ? 'no events received yet' : `last event ${formatPast(s.lastEventAt, now)}`;
  const down = s.downSince === null ? 0 : now - s.downSince;
  if (down < OFFLINE_AFTER_MS) {
    return { state: 'reconnecting', text: 'Reconnecting…', detail, title: 'the live stream dropped: reconnecting on its own; what you see may be out of date' };
  }
  return {
    state: 'offline',
    text: 'Offline',
    detail,
    title: `the server has not answered for ${formatPast(s.downSince ?? now, now).replace(' ago', '')}: retrying every 2 s; what you see may be out of date`,
  };
}

/**
 * While the host cannot reach its database (a restart, a failover), one line under the top bar:
 * "Database unavailable for 42 s, 3 runs waiting". Runs wait through it (the journal's retry
 * window, docs/postgres.md); the window's reads fail meanwhile and need no message of their own.
 * `sinceAskedMs`: how long ago the host answered, so the count moves between two asks.
 */
export function databaseMessage(status: DatabaseStatus, sinceAskedMs: number): string | null {
  if (status.unavailableForMs === null) return null;
  const seconds = Math.floor((status.unavailableForMs + Math.max(0, sinceAskedMs)) / 1000);
  const length = seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const runs = status.waitingRuns === 0 ? 'retrying' : `${status.waitingRuns} ${status.waitingRuns === 1 ? 'run' : 'runs'} waiting`;
  return `Database unavailable for ${length}, ${runs}`;
}
