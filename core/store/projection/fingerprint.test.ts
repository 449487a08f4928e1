import { describe, expect, it } from 'vitest';
import { fingerprintOf, normalizeMessage } from './fingerprint.js';

describe('normalizeMessage', () => {
  it.each([
    ['runtime fake exceeded its timeout of 30000ms', 'runtime fake exceeded its timeout of <n>ms'],
    ['retry in 1.5s (attempt 3/5)', 'retry in <n>s (attempt <n>/<n>)'],
    ['run 3f2b8c1e-9a4d-4e2f-8b1a-2c3d4e5f6a7b failed', 'run <uuid> failed'],
    ['segfault at 0x7ffee4b2c9a0', 'segfault at <hex>'],
    ['commit a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 rejected', 'commit <hex> rejected'],
    ['cannot read /home/ana/project/src/main.ts', 'cannot read <path>'],
    ['cannot read ./src/main.ts:12:5', 'cannot read <path>:<n>:<n>'],
    ['wrote src/app.ts outside the scope', 'wrote <path> outside the scope'],
    ['open C:\\Users\\ana\\notes.txt failed', 'open <path> failed'],
    ['GET https://api.example.com/v1/items?id=42 returned 503', 'GET <url> returned <n>'],
    ['request req_8f3a91 to worker-abc123 timed out', 'request <id> to <id> timed out'],
    ['token 9f8e7d6c5b4a3f2e1d0c expired', 'token <hex> expired'],
    ['session s1a2b3c4d5 lost', 'session <id> lost'],
    ['  many   spaces\n and lines  ', 'many spaces and lines'],
    ['429 Too Many Requests', '<n> Too Many Requests'],
  ])('%s', (message, template) => {
    expect(normalizeMessage(message)).toBe(template);
  });

  it('keeps words that merely contain digits-looking letters, and short version-like tokens', () => {
    expect(normalizeMessage('unknown channel "result" in deadbeef-free code')).toBe('unknown channel "result" in deadbeef-free code');
    expect(normalizeMessage('utf-8 decode failed')).toBe('utf-<n> decode failed');
  });

  it('caps long templates', () => {
    expect(normalizeMessage('x '.repeat(500)).length).toBeLessThanOrEqual(301);
  });
});

describe('fingerprintOf', () => {
  it('groups messages that differ only in volatile parts, and separates category, code and origin', () => {
    const a = fingerprintOf('runtime', 'RUNTIME_TIMEOUT', 'runtime:fake', 'timeout after 100ms in /tmp/a/b.log');
    const b = fingerprintOf('runtime', 'RUNTIME_TIMEOUT', 'runtime:fake', 'timeout after 250ms in /var/x.log');
    expect(a).toEqual(b);
    expect(a.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprintOf('runtime', 'RUNTIME_TIMEOUT', 'runtime:other', 'timeout after 100ms in /tmp/a/b.log').fingerprint).not.toBe(a.fingerprint);
    expect(fingerprintOf('runtime', 'RUNTIME_CRASHED', 'runtime:fake', 'timeout after 100ms in /tmp/a/b.log').fingerprint).not.toBe(a.fingerprint);
    expect(fingerprintOf('runtime', 'RUNTIME_TIMEOUT', 'runtime:fake', 'timed out after 100ms').fingerprint).not.toBe(a.fingerprint);
  });
});
