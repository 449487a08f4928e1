import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { eventFromRow, eventPayload } from './journal-codec.js';
import { randomJournals } from '../testing/journal-builder.js';

describe('eventPayload', () => {
  it('is exactly the event without run_id, seq, type and ts as JSON (envelopes included once)', () => {
    const events = randomJournals(3, 200).flat();
    expect(events.some((e) => 'error' in e)).toBe(true);
    for (const event of events) {
      const { runId: _r, seq: _s, type: _t, ts: _ts, ...body } = event;
      const payload = eventPayload(event);
      expect(payload).toBe(JSON.stringify(body));
      expect(eventFromRow({ run_id: event.runId, seq: event.seq, type: event.type, ts: event.ts, payload })).toEqual(event);
      expect(eventPayload(event)).toBe(payload); // the envelope's remembered JSON is the same text
    }
  });

  it('keeps an error that is not an object, and an error envelope nested elsewhere, as they are', () => {
    const odd = { runId: 'r', seq: 1, ts: 5, type: 'weird', error: 'text', nested: { error: { code: 'X' } } } as unknown as HivewatchEvent;
    expect(eventPayload(odd)).toBe('{"error":"text","nested":{"error":{"code":"X"}}}');
    const last = { runId: 'r', seq: 2, ts: 6, type: 'weird', a: [1, { error: 2 }], error: { code: 'Y', context: { error: 'z' } } } as unknown as HivewatchEvent;
    expect(eventPayload(last)).toBe('{"a":[1,{"error":2}],"error":{"code":"Y","context":{"error":"z"}}}');
  });
});
