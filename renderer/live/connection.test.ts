import { describe, expect, it } from 'vitest';
import { connectionLabel, databaseMessage, OFFLINE_AFTER_MS, unreachableMessage } from './connection.js';

const NOW = Date.UTC(2026, 0, 1, 12);

describe('connectionLabel', () => {
  it('says live, reconnecting, then offline, with the time since the last event while down', () => {
    expect(connectionLabel({ connection: 'live', downSince: null, lastEventAt: NOW - 60_000 }, NOW)).toMatchObject({
      state: 'live',
      text: 'Live',
      detail: null,
    });
    expect(connectionLabel({ connection: 'connecting', downSince: null, lastEventAt: null }, NOW).text).toBe('Connecting…');
    const down = { connection: 'reconnecting', downSince: NOW - 2_000, lastEventAt: NOW - 12_000 } as const;
    expect(connectionLabel(down, NOW)).toMatchObject({ state: 'reconnecting', text: 'Reconnecting…', detail: 'last event 12s ago' });
    expect(connectionLabel(down, NOW - 2_000 + OFFLINE_AFTER_MS)).toMatchObject({ state: 'offline', text: 'Offline', detail: 'last event 20s ago' });
    expect(connectionLabel({ ...down, lastEventAt: null }, NOW).detail).toBe('no events received yet');
  });

  it('says "Reconnecting…" while it catches up, never "Live" before the data is current', () => {
    const back = { connection: 'catching-up', downSince: NOW - 30_000, lastEventAt: NOW - 40_000 } as const;
    expect(connectionLabel(back, NOW)).toMatchObject({ state: 'catching-up', text: 'Reconnecting…', detail: 'catching up' });
  });

  it('names the address it cannot reach while down, and nothing otherwise', () => {
    const http = { protocol: 'http:', host: '127.0.0.1:4123' };
    const down = { connection: 'reconnecting', downSince: NOW, lastEventAt: null } as const;
    expect(unreachableMessage(down, http)).toBe('Hivewatch is not reachable at 127.0.0.1:4123 — retrying');
    expect(unreachableMessage({ ...down, connection: 'catching-up' }, http)).toBeNull();
    expect(unreachableMessage({ ...down, connection: 'live' }, http)).toBeNull();
    expect(unreachableMessage(down, { protocol: 'file:', host: '' })).toBeNull();
  });
});

describe('databaseMessage', () => {
  it('says how long the database has been away and how many runs wait, counting on from the last answer; nothing while it answers', () => {
    expect(databaseMessage({ unavailableForMs: null, waitingRuns: 0 }, 5_000)).toBeNull();
    expect(databaseMessage({ unavailableForMs: 41_200, waitingRuns: 3 }, 900)).toBe('Database unavailable for 42 s, 3 runs waiting');
    expect(databaseMessage({ unavailableForMs: 2_000, waitingRuns: 1 }, 0)).toBe('Database unavailable for 2 s, 1 run waiting');
    expect(databaseMessage({ unavailableForMs: 125_000, waitingRuns: 0 }, 0)).toBe('Database unavailable for 2 min 5 s, retrying');
  });
});
