import { StringDecoder } from 'node:string_decoder';
import type { RedactionStream } from '../secrets/redaction-stream.js';
import type { Redactor } from '../secrets/secrets.js';
import { TailBuffer } from './tail-buffer.js';

/**
 * What an attempt's process printed: the last `capacity` bytes of stdout and of stderr each
 * (TailBuffer: constant memory however much the child writes), redacted as it arrives — before
 * the tail is cut, so a secret straddling the cut cannot leave its second half in the kept text
 * (redaction-stream.ts) — and shown raw to an observer as it arrives.
 *
 * The kept bytes and the dropped count are of the redacted text (UTF-8); with nothing to redact
 * the bytes are kept exactly as the child wrote them.
 */

export type OutputStream = 'stdout' | 'stderr';

export interface CapturedOutput {
  stdout: string;
  stderr: string;
  stdoutDroppedBytes: number;
  stderrDroppedBytes: number;
}

/** One stream: bytes → text → redacted text → the tail. */
class RedactedTail {
  readonly tail: TailBuffer;
  private readonly decoder: StringDecoder | null;
  private readonly redaction: RedactionStream | null;
  private ended = false;

  constructor(capacity: number, redactor: Redactor) {
    this.tail = new TailBuffer(capacity);
    this.decoder = redactor.empty ? null : new StringDecoder('utf8');
    this.redaction = redactor.empty ? null : redactor.stream((text) => this.tail.push(Buffer.from(text, 'utf8')));
  }

  push(chunk: Buffer): void {
    if (this.ended) return;
    if (this.decoder === null || this.redaction === null) this.tail.push(chunk);
    else this.redaction.write(this.decoder.write(chunk));
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.decoder === null || this.redaction === null) return;
    this.redaction.write(this.decoder.end());
    this.redaction.end();
  }
}

export class OutputTails {
  private readonly tails: Record<OutputStream, RedactedTail>;

  constructor(
    capacity: number,
    /** The secrets taken out of what the child printed, before anyone reads it or any of it is dropped. */
    redactor: Redactor,
    /** Sees every chunk as it arrives, raw; it must not be able to break the capture. */
    private readonly observer?: ((stream: OutputStream, chunk: Buffer) => void) | undefined,
  ) {
    this.tails = { stdout: new RedactedTail(capacity, redactor), stderr: new RedactedTail(capacity, redactor) };
  }

  push(stream: OutputStream, chunk: Buffer): void {
    this.tails[stream].push(chunk);
    if (!this.observer) return;
    try {
      this.observer(stream, chunk);
    } catch {
      // An observer must not be able to break the capture or crash the host.
    }
  }

  /** The tails as text, once the child's output has ended (what arrives later is not kept). */
  finish(): CapturedOutput {
    this.tails.stdout.end();
    this.tails.stderr.end();
    return {
      stdout: this.tails.stdout.tail.toString(),
      stderr: this.tails.stderr.tail.toString(),
      stdoutDroppedBytes: this.tails.stdout.tail.droppedBytes,
      stderrDroppedBytes: this.tails.stderr.tail.droppedBytes,
    };
  }
}
