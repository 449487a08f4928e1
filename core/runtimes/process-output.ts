import type { Redactor } from './secrets.js';
import { TailBuffer } from './tail-buffer.js';

/**
 * What an attempt's process printed: the last `capacity` bytes of stdout and of stderr each
 * (TailBuffer: constant memory however much the child writes), shown to an observer as it
 * arrives and handed out only redacted (issue #25 part 5).
 */

export type OutputStream = 'stdout' | 'stderr';

export interface CapturedOutput {
  stdout: string;
  stderr: string;
  stdoutDroppedBytes: number;
  stderrDroppedBytes: number;
}

export class OutputTails {
  private readonly tails: Record<OutputStream, TailBuffer>;

  constructor(
    capacity: number,
    /** Sees every chunk as it arrives, raw; it must not be able to break the capture. */
    private readonly observer?: ((stream: OutputStream, chunk: Buffer) => void) | undefined,
  ) {
    this.tails = { stdout: new TailBuffer(capacity), stderr: new TailBuffer(capacity) };
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

  /** The tails as text, with the secrets taken out before anyone reads them. */
  redacted(redactor: Redactor): CapturedOutput {
    return {
      stdout: redactor.text(this.tails.stdout.toString()),
      stderr: redactor.text(this.tails.stderr.toString()),
      stdoutDroppedBytes: this.tails.stdout.droppedBytes,
      stderrDroppedBytes: this.tails.stderr.droppedBytes,
    };
  }
}
