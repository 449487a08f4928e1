import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '../../testing/property.js';
import { OutputTails } from '../process/process-output.js';
import { Redactor } from './secrets.js';
import { truncationMarker } from '../process/tail-buffer.js';

/** The private key is the longest pattern, so a stream's hold is measured by it. */
const SECRETS = {
  API_KEY: 'sk-😀-42',
  DB_PASSWORD: 'pässwörd',
  SIGNING_SECRET: '-x-',
  GH_TOKEN: 'ghp_0123456789abcdef',
  PRIVATE_KEY: `MII${'Ab9_'.repeat(40)}Z`,
};
const redactor = Redactor.ofAgents([{ env: SECRETS }]);

/** Splits bytes at the given offsets (any byte, also inside a UTF-8 sequence). */
function chunksOf(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, point));
    from = point;
  }
  return chunks;
}

function captured(chunks: readonly Buffer[], capacity = 1024 * 1024): ReturnType<OutputTails['finish']> {
  const tails = new OutputTails(capacity, redactor);
  for (const chunk of chunks) tails.push('stdout', chunk);
  return tails.finish();
}

/** Pieces that make secrets, their halves and glued look-alikes meet at every kind of boundary. */
const piece = fc.oneof(
  fc.constantFrom(...Object.values(SECRETS)),
  fc.constantFrom(...Object.values(SECRETS).map((secret) => [...secret])).chain((chars) => fc.nat(chars.length).map((n) => chars.slice(0, n).join(''))),
  fc.constantFrom(...Object.values(SECRETS).map((secret) => [...secret])).chain((chars) => fc.nat(chars.length).map((n) => chars.slice(n).join(''))),
  fc.constantFrom(' ', '\n', 'x', '_', '-', 'é', '😀', '𝒜', '[secret ', ']', '"', '\\'),
  // Longer than what a stream holds back, so pieces are handed on before the text ends.
  fc.constantFrom(' '.repeat(60), 'filler words '.repeat(12)),
);

describe('redaction as output arrives', () => {
  it('gives exactly what redacting the whole text gives, however the bytes are split (seeded)', async () => {
    await assertProperty(
      fc.property(fc.array(piece, { maxLength: 80 }), fc.array(fc.nat(), { maxLength: 16 }), (pieces, cuts) => {
        const text = pieces.join('');
        const out = captured(chunksOf(Buffer.from(text, 'utf8'), cuts));
        expect(out.stdout).toBe(redactor.text(text));
        expect(out.stdoutDroppedBytes).toBe(0);
      }),
      { seed: 3701, numRuns: 500 },
    );
  });

  it('hands text on as it comes, holding back only what a secret could still straddle', () => {
    const handed: string[] = [];
    const stream = redactor.stream((text) => handed.push(text));
    stream.write(`${'w '.repeat(500)}sk-😀`);
    const held = 1000 + 'sk-😀'.length - handed.join('').length;
    expect(held).toBe(redactor.longestMatch + 1);
    stream.write('-42 and on');
    stream.end();
    expect(handed.join('')).toBe(`${'w '.repeat(500)}[secret API_KEY] and on`);
  });

  it('passes one byte at a time through unchanged when nothing matches', () => {
    const text = 'plain words, ünïcode 😀 and no secret\n';
    expect(captured([...Buffer.from(text, 'utf8')].map((b) => Buffer.from([b]))).stdout).toBe(text);
  });

  it('keeps the bytes as written when there is nothing to redact', () => {
    const tails = new OutputTails(16, Redactor.none());
    tails.push('stdout', Buffer.from([0xff, 0x41]));
    expect(tails.finish()).toMatchObject({ stdout: '\uFFFDA', stdoutDroppedBytes: 0 });
  });

  it('redacts before the tail is cut: a secret straddling the cut leaves no part of itself', () => {
    const secret = SECRETS.GH_TOKEN;
    // The tail's capacity falls in the middle of the secret, with the secret split across chunks too.
    const before = `${'a'.repeat(99)} `;
    const after = ' end';
    const capacity = secret.length / 2 + after.length;
    const out = captured([Buffer.from(before + secret.slice(0, 7)), Buffer.from(secret.slice(7) + after)], capacity);
    const redactedLength = Buffer.byteLength(`${before}[secret GH_TOKEN]${after}`);
    expect(out.stdout).toBe(`${truncationMarker(redactedLength - capacity)}${'[secret GH_TOKEN] end'.slice(-capacity)}`);
    expect(out.stdout).not.toMatch(/0123|cdef|89ab/);
  });
});
