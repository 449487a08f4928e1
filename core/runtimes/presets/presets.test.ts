import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeCodeRuntime, claudeCodeArgv, parseClaudeCodeOutput, readClaudeCodeOutput } from './claude-code.js';
import { CodexCliRuntime, codexCliArgv, insideGitRepository, parseCodexEvents, readCodexCliOutput } from './codex-cli.js';
import { CLAUDE_ARGV_ECHO, CODEX_ARGV_ECHO, writeCliStandIn } from '../../testing/cli-stand-in.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { mentionsRateLimit } from './preset.js';
import type { AttemptResult } from '../runtime.js';
import { agent, attempt, failure, NEVER, observed } from '../testing.js';

const standIns = tempDirs()('hw-presets-');

// Shapes as `claude -p ... --output-format json` prints them.
const CLAUDE_OK = JSON.stringify({
  type: 'result',
  subtype: 'success',
  is_error: false,
  duration_ms: 5234,
  duration_api_ms: 4800,
  num_turns: 3,
  result: 'Implemented the plan.\n',
  session_id: '3f1c9a52-8b1e-4c1e-9a8f-2b7d1e0c4a11',
  total_cost_usd: 0.0421,
  usage: { input_tokens: 1200, output_tokens: 340 },
});
const CLAUDE_RATE_LIMITED = JSON.stringify({
  type: 'result',
  subtype: 'success',
  is_error: true,
  num_turns: 1,
  result: 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your rate limit"}}',
  session_id: 's-2',
});
const CLAUDE_OVERLOADED = JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: 'API Error: Overloaded', session_id: 's-3' });
const CLAUDE_MAX_TURNS = JSON.stringify({ type: 'result', subtype: 'error_max_turns', is_error: false, num_turns: 10, session_id: 's-4' });

describe('claude-code preset', () => {
  it('builds `claude -p --output-format json [--model M] -- <prompt>`: the prompt last, after --, whatever it looks like', () => {
    expect(claudeCodeArgv(agent({ runtime: 'claude-code' }), 'do it')).toEqual(['claude', '-p', '--output-format', 'json', '--', 'do it']);
    expect(claudeCodeArgv(agent({ runtime: 'claude-code', model: 'opus' }), 'do it')).toEqual([
      'claude',
      '-p',
      '--output-format',
      'json',
      '--model',
      'opus',
      '--',
      'do it',
    ]);
    expect(claudeCodeArgv(agent({ runtime: 'claude-code' }), '--settings={"hooks":{}}')).toEqual([
      'claude',
      '-p',
      '--output-format',
      'json',
      '--',
      '--settings={"hooks":{}}',
    ]);
    expect(claudeCodeArgv(agent({ runtime: 'claude-code' }), 'update')).toEqual(['claude', '-p', '--output-format', 'json', '--', 'update']);
  });

  it('lets command: name the executable, or be a whole shell: true script', () => {
    expect(claudeCodeArgv(agent({ runtime: 'claude-code', command: '/opt/claude/bin/claude' }), 'x')).toEqual([
      '/opt/claude/bin/claude',
      '-p',
      '--output-format',
      'json',
      '--',
      'x',
    ]);
    const script = 'claude -p --output-format json --verbose -- "$HIVEWATCH_PROMPT"';
    expect(claudeCodeArgv(agent({ runtime: 'claude-code', command: script, shell: true }), 'x')).toEqual(['/bin/sh', '-c', script]);
  });

  it('refuses any other command:, starting nothing', () => {
    expect(failure(claudeCodeArgv(agent({ runtime: 'claude-code', command: 'claude --print {prompt}' }), 'x') as AttemptResult).code).toBe(
      'USER_INVALID_CONFIG',
    );
    expect(failure(claudeCodeArgv(agent({ runtime: 'claude-code', command: 'bash -c' }), 'x') as AttemptResult).message).toMatch(
      /names the claude executable alone/,
    );
  });

  it('reads the result text of a successful run', () => {
    expect(readClaudeCodeOutput(observed('claude-code', CLAUDE_OK))).toEqual({
      kind: 'succeeded',
      output: 'Implemented the plan.',
      meta: { sessionId: '3f1c9a52-8b1e-4c1e-9a8f-2b7d1e0c4a11', costUsd: 0.0421, numTurns: 3 },
      usage: { source: 'result', inputTokens: 1200, outputTokens: 340, costUsd: 0.0421 },
    });
  });

  it('finds the result object after other lines', () => {
    const parsed = parseClaudeCodeOutput(`warning: something\n${CLAUDE_OK}\n`);
    expect(parsed.ok && parsed.value.result).toBe('Implemented the plan.\n');
  });

  it('turns a rate-limit or overloaded error result into RUNTIME_RATE_LIMIT from runtime:claude-code', () => {
    for (const stdout of [CLAUDE_RATE_LIMITED, CLAUDE_OVERLOADED]) {
      const error = failure(readClaudeCodeOutput(observed('claude-code', stdout, { exitCode: 1 })));
      expect(error.code).toBe('RUNTIME_RATE_LIMIT');
      expect(error.origin).toBe('runtime:claude-code');
    }
    expect(failure(readClaudeCodeOutput(observed('claude-code', CLAUDE_OVERLOADED))).message).toBe(
      'claude-code: the API is rate limited or overloaded: API Error: Overloaded',
    );
  });

  it('turns another error result into RUNTIME_UNKNOWN naming its subtype', () => {
    const error = failure(readClaudeCodeOutput(observed('claude-code', CLAUDE_MAX_TURNS)));
    expect(error.code).toBe('RUNTIME_UNKNOWN');
    expect(error.message).toBe('runtime claude-code reported an error: error result (error_max_turns)');
    expect(error.context).toMatchObject({ subtype: 'error_max_turns', sessionId: 's-4' });
  });

  it('reports unparsable output of a successful exit as RUNTIME_OUTPUT_MALFORMED', () => {
    for (const stdout of ['Hello, plain text', '', '[1,2]', '{"type":"assistant"}', '{"type":"result","is_error":false}']) {
      const error = failure(readClaudeCodeOutput(observed('claude-code', stdout)));
      expect(error.code).toBe('RUNTIME_OUTPUT_MALFORMED');
      expect(error.origin).toBe('runtime:claude-code');
    }
  });

  it('lets a failed process explain unparsable output', () => {
    const error = failure(readClaudeCodeOutput(observed('claude-code', '', { exitCode: 1, stderr: 'segfault in worker' })));
    expect(error.code).toBe('RUNTIME_CRASHED');
    expect(error.message).toBe('runtime claude-code exited with code 1: segfault in worker');
  });

  it("reads an invalid API key on stderr as the user's error, not a crash", () => {
    const error = failure(readClaudeCodeOutput(observed('claude-code', '', { exitCode: 1, stderr: 'Invalid API key' })));
    expect(error.code).toBe('USER_INVALID_CONFIG');
    expect(error.message).toBe('claude-code is not signed in or its API key was refused: Invalid API key');
  });

  it('runs the preset end to end with command: pointing at a stand-in executable', async () => {
    // The stand-in answers like claude, with its own argv as the result: the preset's arguments are visible.
    const standIn = writeCliStandIn(standIns, 'claude', CLAUDE_ARGV_ECHO);
    const runtime = new ClaudeCodeRuntime();
    const result = await runtime.execute(
      attempt({ prompt: 'say "hi"; $(x)', agent: agent({ runtime: 'claude-code', command: standIn, model: 'sonnet' }) }),
      NEVER,
    );
    expect(result.kind).toBe('succeeded');
    expect(JSON.parse((result as { output: string }).output)).toEqual(['-p', '--output-format', 'json', '--model', 'sonnet', '--', 'say "hi"; $(x)']);
  });
});

// Shapes as `codex exec --json` prints them.
const CODEX_OK = [
  '{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}',
  '{"type":"turn.started"}',
  '{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Planning the change**"}}',
  '{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}',
  '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"README.md\\n","exit_code":0,"status":"completed"}}',
  '{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"Looking at the repo first."}}',
  '{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Done: added the plan to README.md."}}',
  '{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}',
].join('\n');
const CODEX_RATE_LIMITED = [
  '{"type":"thread.started","thread_id":"t-2"}',
  '{"type":"turn.started"}',
  '{"type":"error","message":"stream error: exceeded retry limit, last status: 429 Too Many Requests"}',
  '{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}',
].join('\n');

describe('codex-cli preset', () => {
  it('builds `codex exec --json [--model M] -- <prompt>`: after --, a prompt such as help or resume is not a subcommand', () => {
    expect(codexCliArgv(agent({ runtime: 'codex-cli' }), 'do it')).toEqual(['codex', 'exec', '--json', '--', 'do it']);
    expect(codexCliArgv(agent({ runtime: 'codex-cli', model: 'o3' }), 'do it')).toEqual(['codex', 'exec', '--json', '--model', 'o3', '--', 'do it']);
    expect(codexCliArgv(agent({ runtime: 'codex-cli' }), '-x')).toEqual(['codex', 'exec', '--json', '--', '-x']);
    expect(codexCliArgv(agent({ runtime: 'codex-cli' }), 'resume')).toEqual(['codex', 'exec', '--json', '--', 'resume']);
    expect(codexCliArgv(agent({ runtime: 'codex-cli' }), 'do it', true)).toEqual(['codex', 'exec', '--json', '--skip-git-repo-check', '--', 'do it']);
  });

  it('reads the last agent message of a completed turn', () => {
    expect(readCodexCliOutput(observed('codex-cli', CODEX_OK))).toEqual({
      kind: 'succeeded',
      output: 'Done: added the plan to README.md.',
      meta: {
        threadId: '0199a213-81c0-7800-8aa1-bbab2a035a53',
        usage: { input_tokens: 24763, cached_input_tokens: 24448, output_tokens: 122 },
      },
      // OpenAI's input_tokens include the cached ones: 24763 - 24448 were read afresh.
      usage: { source: 'result', inputTokens: 315, cacheReadTokens: 24448, outputTokens: 122 },
    });
  });

  it('turns a failed turn mentioning 429 into RUNTIME_RATE_LIMIT from runtime:codex-cli', () => {
    const error = failure(readCodexCliOutput(observed('codex-cli', CODEX_RATE_LIMITED, { exitCode: 1 })));
    expect(error.code).toBe('RUNTIME_RATE_LIMIT');
    expect(error.origin).toBe('runtime:codex-cli');
    expect(error.message).toBe('codex-cli: the API is rate limited or overloaded (HTTP 429): exceeded retry limit, last status: 429 Too Many Requests');
  });

  it('turns another failed turn into RUNTIME_UNKNOWN', () => {
    const stdout = '{"type":"turn.started"}\n{"type":"turn.failed","error":{"message":"model not found"}}';
    const error = failure(readCodexCliOutput(observed('codex-cli', stdout, { exitCode: 1 })));
    expect(error.code).toBe('RUNTIME_UNKNOWN');
    expect(error.message).toBe('runtime codex-cli reported an error: model not found');
  });

  it('treats an error followed by a completed turn as recovered', () => {
    const stdout =
      '{"type":"error","message":"Reconnecting... 1/5"}\n{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"ok"}}\n{"type":"turn.completed","usage":{}}';
    expect(readCodexCliOutput(observed('codex-cli', stdout))).toMatchObject({ kind: 'succeeded', output: 'ok' });
  });

  it('skips lines that are not JSON events (a truncation marker, stray text)', () => {
    const run = parseCodexEvents(`[… 99 bytes truncated …]\nnot json\n${CODEX_OK}`);
    expect(run).toMatchObject({ events: 8, outcome: 'completed', message: 'Done: added the plan to README.md.' });
  });

  it('reads the older `msg` event format', () => {
    const stdout =
      '{"id":"0","msg":{"type":"agent_message","message":"legacy answer"}}\n{"id":"0","msg":{"type":"task_complete","last_agent_message":"legacy answer"}}';
    expect(readCodexCliOutput(observed('codex-cli', stdout))).toMatchObject({ kind: 'succeeded', output: 'legacy answer' });
  });

  it('reports output without an agent message as RUNTIME_OUTPUT_MALFORMED', () => {
    const none = failure(readCodexCliOutput(observed('codex-cli', 'plain text answer')));
    expect(none.code).toBe('RUNTIME_OUTPUT_MALFORMED');
    expect(none.message).toBe('runtime codex-cli produced output that could not be parsed: no JSON events on stdout');
    const noMessage = failure(readCodexCliOutput(observed('codex-cli', '{"type":"turn.started"}\n{"type":"turn.completed"}')));
    expect(noMessage.message).toBe('runtime codex-cli produced output that could not be parsed: no agent message among 2 events');
  });

  it('classifies a failed process without events from its exit', () => {
    const error = failure(readCodexCliOutput(observed('codex-cli', '', { exitCode: null, signal: 'SIGSEGV' })));
    expect(error.code).toBe('RUNTIME_CRASHED');
  });

  it('runs end to end with command: naming a stand-in executable, and with a shell: true script', async () => {
    const standIn = writeCliStandIn(standIns, 'codex', CODEX_ARGV_ECHO);
    const named = await new CodexCliRuntime().execute(attempt({ prompt: 'the prompt', agent: agent({ runtime: 'codex-cli', command: standIn }) }), NEVER);
    expect(named.kind === 'succeeded' && (JSON.parse(named.output) as string[]).slice(-2)).toEqual(['--', 'the prompt']);
    // The script is run as written: the preset adds no arguments (no -c overrides) to it.
    const script = agent({ runtime: 'codex-cli', command: `${standIn} exec --json -- "$HIVEWATCH_PROMPT"`, shell: true });
    const scripted = await new CodexCliRuntime().execute(attempt({ prompt: 'the prompt', agent: script }), NEVER);
    expect(scripted.kind === 'succeeded' && JSON.parse(scripted.output)).toEqual(['exec', '--json', '--', 'the prompt']);
  });

  it('reports a missing codex as RUNTIME_CONNECTION_FAILED from runtime:codex-cli', async () => {
    const result = await new CodexCliRuntime().execute(attempt({ agent: agent({ runtime: 'codex-cli', command: '/hivewatch-no-such-dir/codex' }) }), NEVER);
    const error = failure(result);
    expect(error.code).toBe('RUNTIME_CONNECTION_FAILED');
    expect(error.message).toBe('could not start runtime codex-cli: command not found: "/hivewatch-no-such-dir/codex" (ENOENT)');
  });
});

describe('mentionsRateLimit', () => {
  it('agrees with the classifier', () => {
    expect(mentionsRateLimit('429 Too Many Requests')).toBe(true);
    expect(mentionsRateLimit('Overloaded')).toBe(true);
    expect(mentionsRateLimit('rate_limit_error')).toBe(true);
    expect(mentionsRateLimit('Invalid API key')).toBe(false);
  });
});

describe('codex-cli outside a git repository', () => {
  it('is told --skip-git-repo-check only where no folder up from the attempt holds .git', () => {
    const root = mkdtempSync(join(tmpdir(), 'hw-codex-git-'));
    try {
      mkdirSync(join(root, 'repo', '.git'), { recursive: true });
      mkdirSync(join(root, 'repo', 'src'));
      mkdirSync(join(root, 'plain'));
      expect(insideGitRepository(join(root, 'repo', 'src'))).toBe(true);
      // A worktree's .git is a file.
      mkdirSync(join(root, 'worktree'));
      writeFileSync(join(root, 'worktree', '.git'), 'gitdir: /elsewhere\n');
      expect(insideGitRepository(join(root, 'worktree'))).toBe(true);
      expect(insideGitRepository(join(root, 'plain'))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
