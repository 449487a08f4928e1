import { describe, expect, it } from 'vitest';
import { sessionName } from './session-name.js';

/**
 * A session's run is named after its CLI and its session id. Codex's conversation ids are UUID
 * version 7, whose first eight digits are the clock: six sessions started within a minute read
 * "Codex CLI session 01a2242e" six times. Their names must differ, and still show what the CLI
 * shows (the id's start).
 */

// Six conversation ids of Codex 0.171.0 runs started within the same minute (the shape of the recorded ones).
const CODEX_IDS = [
  '01a2242e-1d72-7cd0-a9ec-17c03742c123',
  '01a2242e-3b10-72aa-8a11-0c5e77d0a9f1',
  '01a2242e-4e05-7f31-b2c4-6d0e1f2a3b4c',
  '01a2242e-6f6e-7a02-9d3e-8e7f6a5b4c3d',
  '01a2242e-80aa-7bcd-a0b1-c2d3e4f5a6b7',
  '01a2242e-c123-7456-89ab-cdef01234567',
];

describe('session names', () => {
  it("Codex sessions started within a minute get distinct names that keep the id's start", () => {
    const names = CODEX_IDS.map((id) => sessionName('codex-cli', id));
    expect(new Set(names).size).toBe(CODEX_IDS.length);
    expect(names[0]).toBe('Codex CLI session 01a2242e…3742c123');
    for (const name of names) expect(name).toMatch(/^Codex CLI session 01a2242e…[0-9a-f]{8}$/);
  });

  it('a random (version 4) id, and any other, keeps its first eight characters', () => {
    expect(sessionName('claude-code', '7f3c9a2e-1b4d-4e8a-9c6f-2d5e8b1a0c33')).toBe('Claude Code session 7f3c9a2e');
    expect(sessionName('codex-cli', '0199a5e2-codex-conv-42')).toBe('Codex CLI session 0199a5e2');
    expect(sessionName('my-agent', 'abc')).toBe('my-agent session abc');
  });
});
