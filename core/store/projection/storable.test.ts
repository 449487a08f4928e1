import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '../../testing/property.js';
import type { HivewatchEvent } from '../../base/events.js';
import { IDENTIFIER_MAX_BYTES, storableBatch, storableEvent, storableInteger, storableKey, storableText, type StorageChange } from './storable.js';
import { hostileJournal } from '../testing/hostile-journal.js';
import { JournalBuilder } from '../testing/journal-builder.js';

/** Any UTF-16 code units, NUL and unpaired surrogates included (what a lossy decode or a cut string gives). */
const anyUnits = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0, 0xd800, 0xdbff, 0xdc00, 0xdfff)), { maxLength: 60 })
  .map((codes) => String.fromCharCode(...codes));
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

describe('storable text and keys', () => {
  it('text: no NUL, well-formed, one U+FFFD per unstorable unit, unchanged when storable, idempotent', async () => {
    await assertProperty(
      fc.property(anyUnits, (text) => {
        const stored = storableText(text);
        expect(stored.includes('\0')).toBe(false);
        expect(isWellFormed(stored)).toBe(true);
        expect(stored.length).toBe(text.length);
        if (!text.includes('\0') && isWellFormed(text)) expect(stored).toBe(text);
        expect(storableText(stored)).toBe(stored);
      }),
      { seed: 25001, numRuns: 300 },
    );
  });

  it('keys: within the byte bound, deterministic, idempotent, and long keys that differ stay different', async () => {
    await assertProperty(
      fc.property(anyUnits, fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 0x10ffff }), (head, padding, point) => {
        const text = `${head}${String.fromCodePoint(point).repeat(padding)}`;
        const key = storableKey(text);
        expect(Buffer.byteLength(key)).toBeLessThanOrEqual(IDENTIFIER_MAX_BYTES);
        expect(isWellFormed(key) && !key.includes('\0')).toBe(true);
        expect(storableKey(text)).toBe(key);
        expect(storableKey(key)).toBe(key);
        if (Buffer.byteLength(storableText(text)) > IDENTIFIER_MAX_BYTES) {
          expect(key).toMatch(/\.sha256-[0-9a-f]{32}$/);
          expect(storableKey(`${text}x`)).not.toBe(key);
        } else expect(key).toBe(storableText(text));
      }),
      { seed: 25002, numRuns: 300 },
    );
  });

  it('integers: rounded, clamped to ±(2^53 − 1), NaN is null, −0 is 0', () => {
    expect([1e308, -1e308, Number('1'.repeat(40)), Infinity, -Infinity].map(storableInteger)).toEqual([
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
    ]);
    expect([1.5, 2.4, -0, -0.4, Number.NaN].map(storableInteger)).toEqual([2, 2, 0, 0, null]);
    expect(Object.is(storableInteger(-0.4), -0)).toBe(false);
  });
});

describe('storableEvent', () => {
  it('returns the very event (and batch) when nothing needs changing', () => {
    const events = new JournalBuilder('plain')
      .start()
      .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake' }, 'ok'] }])
      .complete().events;
    for (const event of events) expect(storableEvent(event)).toBe(event);
    expect(storableBatch(events)).toBe(events);
  });

  it('changes only what no column holds, never its input, records every change with the original, and is idempotent', () => {
    const hostile = hostileJournal('h');
    const given = deepFreeze(hostile.events);
    const stored = storableBatch(given);
    const changes = stored.flatMap((e) =>
      ((e as unknown as { storageChanges?: StorageChange[] }).storageChanges ?? []).map((c) => `${e.type} ${c.path} ${c.rule}`),
    );
    expect(changes).toEqual([
      'runStarted flow identifier',
      'runStarted flowName text',
      'taskStarted agent identifier',
      'taskStarted maxAttempts integer',
      'attemptFailed durationMs integer',
      'attemptFailed error.message text',
      'attemptFailed error.origin identifier',
      'attemptFailed error.correlation.flow identifier',
      'errorOccurred error.message text',
      'errorOccurred error.origin identifier',
      'errorOccurred error.timestamp integer',
      'errorOccurred error.correlation.flow identifier',
      'retryScheduled delayMs integer',
      'retryScheduled nextAttemptAt integer',
      'attemptSucceeded durationMs integer',
      'taskSucceeded output text',
    ]);
    const [first] = (stored[0] as unknown as { storageChanges: StorageChange[] }).storageChanges;
    expect(first).toEqual({ path: 'flow', rule: 'identifier', original: hostile.longFlow });
    // Free-form parts are journaled as JSON, as given.
    const error = stored.find((e) => e.type === 'errorOccurred') as Extract<HivewatchEvent, { type: 'errorOccurred' }>;
    expect(error.error.context).toEqual({ ratio: Number.NaN, raw: hostile.output });
    expect(stored.find((e) => e.type === 'taskSucceeded')).toMatchObject({ ordinal: 0 });
    // Stored again (a history copied to another database), nothing changes twice.
    expect(storableBatch(stored)).toBe(stored);
  });

  it('keeps the changes an event already records and adds its own', () => {
    const event = {
      runId: 'r',
      seq: 2,
      ts: 1,
      type: 'taskSucceeded',
      step: 1,
      ordinal: 0,
      taskId: '1:0',
      attempts: 1,
      output: 'a\0b',
      storageChanges: [{ path: 'earlier', rule: 'text', original: 'x' }],
    } as unknown as HivewatchEvent;
    expect((storableEvent(event) as unknown as { storageChanges: StorageChange[] }).storageChanges).toEqual([
      { path: 'earlier', rule: 'text', original: 'x' },
      { path: 'output', rule: 'text', original: 'a\0b' },
    ]);
  });
});
