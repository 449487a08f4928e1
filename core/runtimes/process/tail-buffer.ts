/**
 * Keeps only the last `capacity` bytes of a stream. A runaway child can write gigabytes; an
 * operator needs the end of its output (where the error usually is), and the host must stay at
 * constant memory however much arrives.
 *
 * Chunks are kept as they come (no copying on the hot path) and whole chunks are dropped from
 * the front once they fall out of the window; the first kept chunk may be a view into a larger
 * one. Memory is bounded by `capacity` plus one pipe chunk (64 KiB).
 */
export const DEFAULT_CAPTURE_BYTES = 1024 * 1024;

export class TailBuffer {
  private chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;

  constructor(readonly capacity: number = DEFAULT_CAPTURE_BYTES) {
    if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError(`capacity must be a whole number, got ${capacity}`);
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (chunk.length >= this.capacity) {
      // One chunk larger than the window replaces everything: keep its tail only.
      this.dropped += this.kept + chunk.length - this.capacity;
      this.chunks = this.capacity === 0 ? [] : [chunk.subarray(chunk.length - this.capacity)];
      this.kept = this.capacity;
      return;
    }
    this.chunks.push(chunk);
    this.kept += chunk.length;
    let excess = this.kept - this.capacity;
    while (excess > 0) {
      const first = this.chunks[0] as Buffer;
      if (first.length <= excess) {
        this.chunks.shift();
        this.kept -= first.length;
        this.dropped += first.length;
        excess -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.kept -= excess;
        this.dropped += excess;
        excess = 0;
      }
    }
  }

  /** Bytes that fell out of the window. */
  get droppedBytes(): number {
    return this.dropped;
  }

  /** Bytes currently held (at most `capacity`). */
  get keptBytes(): number {
    return this.kept;
  }

  /**
   * The kept text, prefixed by a marker when anything was dropped. The cut may fall inside a
   * UTF-8 sequence: its orphaned continuation bytes are skipped (and counted as dropped) so
   * the text does not start with a replacement character.
   */
  toString(): string {
    let bytes = Buffer.concat(this.chunks, this.kept);
    let dropped = this.dropped;
    if (dropped > 0) {
      let skip = 0;
      while (skip < 3 && skip < bytes.length && ((bytes[skip] as number) & 0xc0) === 0x80) skip++;
      bytes = bytes.subarray(skip);
      dropped += skip;
    }
    const text = bytes.toString('utf8');
    return dropped > 0 ? `${truncationMarker(dropped)}${text}` : text;
  }
}

/** The line put in front of a truncated capture; also how readers recognise one. */
export function truncationMarker(droppedBytes: number): string {
  return `[… ${droppedBytes} bytes truncated …]\n`;
}

export const TRUNCATION_MARKER_PATTERN = /^\[… \d+ bytes truncated …\]\n/;
