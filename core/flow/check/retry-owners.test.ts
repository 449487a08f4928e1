import { describe, expect, it } from 'vitest';
import { checkFlow } from './check.js';
import { checkedForDefaultAgent, CLAUDE_CODE_RETRIES_ENV } from './retry-owners.js';

/** rule 20 (docs/semantics.md F10): at most one layer retries a given failure class. */

const CODER = `agent coder:
  runtime: "claude-code"
  env: ["CLAUDE_CODE_MAX_RETRIES=10"]
`;

const problems = (source: string): string[] => checkFlow(source, 'f.prose').diagnostics.map((d) => `${d.line}:${d.column} ${d.severity}: ${d.message}`);

describe('one retry owner, checked', () => {
  it("a session that retries while its agent turns Claude Code's own retries on is an error at its line:col naming both owners", () => {
    const result = checkFlow(`${CODER}session: coder\n  prompt: "fix it"\n  retry: 3\n`, 'f.prose');
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toEqual([
      {
        file: 'f.prose',
        line: 4,
        column: 1,
        severity: 'error',
        message:
          'two layers retry session #0: the engine (retry: 3) and Claude Code itself (agent "coder" sets CLAUDE_CODE_MAX_RETRIES=10 at 3:9); ' +
          'at most one layer may retry a given failure class. Remove that env entry (the claude-code preset sets it to 0), ' +
          "or turn the engine's retries off for this session with retry: 0",
      },
    ]);
  });

  it("one owner is fine: retry: 0 turns the engine's off, no retry leaves the CLI alone, =0 turns the CLI's off", () => {
    expect(problems(`${CODER}session: coder\n  prompt: "a"\n  retry: 0\n`)).toEqual([]);
    expect(problems(`${CODER}session: coder\n  prompt: "a"\n`)).toEqual([]);
    expect(problems(`agent coder:\n  runtime: "claude-code"\n  env: ["${CLAUDE_CODE_RETRIES_ENV}=0"]\nsession: coder\n  prompt: "a"\n  retry: 3\n`)).toEqual(
      [],
    );
    // The preset turns Claude Code's retries off by itself.
    expect(problems('agent coder:\n  runtime: "claude-code"\nsession: coder\n  prompt: "a"\n  retry: 3\n')).toEqual([]);
    expect(problems('session "a" (retry: 3)\n  agent: claude-code\n')).toEqual([]);
  });

  it('an agent whose own policy retries is reported once, at its declaration, however many sessions inherit it', () => {
    const source =
      `agent helper:\n  runtime: "command"\n  command: "claude -p"\n  retry: 2\n  env: ["FOO=1", "CLAUDE_CODE_MAX_RETRIES=5"]\n` +
      'session: helper\n  prompt: "a"\nsession: helper\n  prompt: "b"\nsession: helper\n  prompt: "c"\n  retry: 0\n';
    expect(problems(source)).toEqual([
      '1:1 error: two layers retry the sessions of agent "helper": the engine (the agent\'s retry: 2) and Claude Code itself ' +
        '(agent "helper" sets CLAUDE_CODE_MAX_RETRIES=5 at 5:18); at most one layer may retry a given failure class. ' +
        'Remove that env entry (the claude-code preset sets it to 0), or set retry: 0 on the agent or on its sessions',
    ]);
    // Every session turned the engine's retries off: one owner, nothing to say.
    expect(problems(source.replace('prompt: "a"', 'prompt: "a"\n  retry: 0').replace('prompt: "b"', 'prompt: "b"\n  retry: 0'))).toEqual([]);
  });

  it('codex-cli cannot be told not to retry: a session that retries on it is a warning, and the flow still checks', () => {
    const result = checkFlow(
      'agent codex:\n  runtime: "codex-cli"\nsession: codex\n  prompt: "a"\n  retry: 2\nsession "b" (retry: 1)\n  agent: codex-cli\n',
      'f.prose',
    );
    expect(result.ok).toBe(true);
    expect(result.diagnostics.map((d) => [d.line, d.column, d.severity])).toEqual([
      [3, 1, 'warning'],
      [6, 1, 'warning'],
    ]);
    expect(result.diagnostics[0]?.message).toBe(
      'two layers retry session #0: the engine (retry: 2) and codex-cli itself, which retries inside each attempt with the built-in openai provider ' +
        'and cannot be told not to there (Codex 0.171.0: 13 requests for one turn answered 429, 7 WebSocket tries then 6 over HTTPS); ' +
        "the preset turns a custom provider's retries off, but the check cannot see which provider config.toml selects: " +
        'one engine attempt may hide several requests (docs/presets.md, "Retries inside one attempt")',
    );
    expect(problems('agent codex:\n  runtime: "codex-cli"\nsession: codex\n  prompt: "a"\n')).toEqual([]);
  });

  it("sessions that name no agent are judged against the run's default agent when one is given", () => {
    const checked = checkFlow(`${CODER}session "a" (retry: 2)\nsession "b"\n`, 'f.prose');
    expect(checked.ok).toBe(true);
    const asCoder = checkedForDefaultAgent(checked, 'coder');
    expect(asCoder.ok).toBe(false);
    expect(asCoder.errorCount).toBe(1);
    expect(asCoder.diagnostics.map((d) => `${d.line}:${d.column} ${d.message.split(';')[0]}`)).toEqual([
      '4:1 two layers retry session #0 (run with default agent "coder"): the engine (retry: 2) and Claude Code itself (agent "coder" sets CLAUDE_CODE_MAX_RETRIES=10 at 3:9)',
    ]);
    expect(checkedForDefaultAgent(checked, 'claude-code')).toBe(checked);
    expect(checkedForDefaultAgent(checked, null)).toBe(checked);
    expect(checkedForDefaultAgent(checked, 'codex-cli')).toMatchObject({ ok: true, errorCount: 0, diagnostics: [{ severity: 'warning' }] });
  });
});
