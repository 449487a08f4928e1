import { describe, expect, it } from 'vitest';
import { TailBuffer, TRUNCATION_MARKER_PATTERN, truncationMarker } from './tail-buffer.js';

const push = (buffer: TailBuffer, ...chunks: string[]): TailBuffer => {
  for (const chunk of chunks) buffer.push(Buffer.from(chunk));
  return buffer;
};

describe('TailBuffer', () => {
  it('keeps everything while under capacity, without a marker', () => {
    const b = push(new TailBuffer(10), 'abc', 'def');
    expect(b.toString()).toBe('abcdef');
    expect(b.droppedBytes).toBe(0);
  });

  it('keeps exactly the last bytes across chunk boundaries and counts the rest', () => {
    const b = push(new TailBuffer(5), 'abc', 'def', 'gh');
    expect(b.keptBytes).toBe(5);
    expect(b.droppedBytes).toBe(3);
    expect(b.toString()).toBe(`${truncationMarker(3)}defgh`);
  });

  it('keeps the tail of one chunk larger than the capacity', () => {
    const b = push(new TailBuffer(4), 'xy', '0123456789');
    expect(b.toString()).toBe(`${truncationMarker(8)}6789`);
  });

  it('holds constant memory however much is pushed', () => {
    const b = new TailBuffer(1000);
    const chunk = Buffer.alloc(64 * 1024, 120);
    for (let i = 0; i < 200; i++) b.push(chunk);
    expect(b.keptBytes).toBe(1000);
    expect(b.droppedBytes).toBe(200 * 64 * 1024 - 1000);
  });

  it('does not start with half a UTF-8 character after a cut', () => {
    // "aé" + "bc" is 61 c3 a9 62 63: a 3-byte window starts inside "é" (at a9).
    const cut = push(new TailBuffer(3), 'aé', 'bc');
    expect(cut.toString()).toBe(`${truncationMarker(3)}bc`);
    const whole = push(new TailBuffer(4), 'aé', 'bc');
    expect(whole.toString()).toBe(`${truncationMarker(1)}ébc`);
  });

  it('writes a marker its readers can recognise', () => {
    expect(truncationMarker(12345)).toBe('[… 12345 bytes truncated …]\n');
    expect(TRUNCATION_MARKER_PATTERN.test(truncationMarker(1))).toBe(true);
  });

  it('with capacity 0 keeps nothing', () => {
    const b = push(new TailBuffer(0), 'abc');
    expect(b.toString()).toBe(truncationMarker(3));
  });
});
