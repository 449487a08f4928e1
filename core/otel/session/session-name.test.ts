import { describe, expect, it } from 'vitest';
import { sessionName, subagentName } from './session-name.js';

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

  it('a subagent leads with what tells it from a session when a narrow column cuts it: its kind, or the word subagent', () => {
    const thread = { runId: 'ext-codex-cli-parent', agentId: '01a22859-3b10-72aa-8a11-0c5e1893d2fa', agentName: null };
    expect(subagentName('codex-cli', thread)).toBe('subagent 01a22859…1893d2fa · Codex CLI');
    const explore = { runId: 'ext-claude-code-s', agentId: 'afbf5f61-77aa-4e1b-9c2d-0a1b2c3d4e5f', agentName: 'general-purpose' };
    expect(subagentName('claude-code', explore)).toBe('general-purpose subagent afbf5f61');
    // Cut to the width a 900 px Runs column shows (about 14 characters), a thread still reads as a subagent.
    expect(subagentName('codex-cli', thread).slice(0, 14)).toBe('subagent 01a22');
    expect(subagentName('my-agent', { ...thread, agentId: 'abc' })).toBe('subagent abc · my-agent');
  });
});
