import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLAUDE_CODE_ENV, CLAUDE_CODE_RETRIES, ClaudeCodeRuntime, readClaudeCodeOutput } from './claude-code.js';
import { CODEX_CLI_RETRIES, CodexCliRuntime, readCodexCliOutput } from './codex-cli.js';
import { agent, attempt, failure, NEVER, observed } from '../testing.js';
import { writeCliStandIn } from '../../testing/cli-stand-in.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { checkFlow } from '../../flow/check/check.js';
import { CLAUDE_CODE_RETRIES_ENV } from '../../flow/check/retry-owners.js';
import { InnerRetries } from './preset.js';

/** Each fixture (fixtures/README.md says where its shape comes from) and the error it must become. */

const standIns = tempDirs()('hw-preset-classification-');
const fixture = (path: string): string => readFileSync(new URL(`./fixtures/${path}`, import.meta.url), 'utf8');

// 2026-11-23T12:00:00Z: the clock time the attempt finished at, as the runtime is given it.
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const AT = { now: NOW, timeZone: 'America/New_York', agentName: 'coder' };

interface Case {
  file: string;
  exitCode?: number;
  stderr?: boolean;
  code: string;
  category: string;
  recoverable: boolean;
  origin: string;
  message: string;
  context?: Record<string, unknown>;
}

const claudeCases: Case[] = [
  {
    file: 'claude-code/usage-limit-epoch.json',
    code: 'RUNTIME_RATE_LIMIT',
    category: 'runtime',
    recoverable: true,
    origin: 'runtime:claude-code',
    message: 'claude-code: reached its usage limit: Claude AI usage limit reached|1795449600',
    context: { usageLimit: true, resetAt: 1_795_449_600_000 },
  },
  {
    file: 'claude-code/usage-limit-resets.json',
    code: 'RUNTIME_RATE_LIMIT',
    category: 'runtime',
    recoverable: true,
    origin: 'runtime:claude-code',
    message: "claude-code: reached its usage limit (HTTP 429): You've reached your session limit · resets 3pm (Europe/Copenhagen)",
    // 3pm in Copenhagen (UTC+1 in November) is 14:00 UTC, after the attempt's 12:00; printed to the minute, so its end.
    context: { usageLimit: true, resetAt: Date.UTC(2026, 10, 23, 14, 1) },
  },
  {
    file: 'claude-code/api-429.json',
    code: 'RUNTIME_RATE_LIMIT',
    category: 'runtime',
    recoverable: true,
    origin: 'runtime:claude-code',
    message:
      'claude-code: the API is rate limited or overloaded (HTTP 429): API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}',
    context: { apiErrorStatus: 429 },
  },
  {
    file: 'claude-code/api-529.json',
    code: 'RUNTIME_RATE_LIMIT',
    category: 'runtime',
    recoverable: true,
    origin: 'runtime:claude-code',
    message:
      'claude-code: the API is rate limited or overloaded (HTTP 529): API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    context: { apiErrorStatus: 529 },
  },
  {
    file: 'claude-code/api-500.json',
    code: 'RUNTIME_PROVIDER_ERROR',
    category: 'runtime',
    recoverable: true,
    origin: 'runtime:claude-code',
    message: `claude-code: the provider's API failed (HTTP 500): API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}`,
    context: { apiErrorStatus: 500 },
  },
  {
    file: 'claude-code/api-401.json',
    code: 'USER_INVALID_CONFIG',
    category: 'user',
    recoverable: false,
    origin: 'user',
    message: 'claude-code is not signed in or its API key was refused (HTTP 401): Invalid API key · Please run /login',
  },
  {
    file: 'claude-code/permission-denied.json',
    exitCode: 0,
    code: 'AGENT_SCOPE_VIOLATION',
    category: 'agent',
    recoverable: false,
    origin: 'agent:coder',
    message: 'agent coder (runtime claude-code) was denied permission to use Bash, Write',
    context: {
      deniedTools: ['Bash', 'Write'],
      denials: [
        { tool: 'Bash', detail: 'npm run migrate' },
        { tool: 'Write', detail: '/etc/hosts' },
      ],
    },
  },
  {
    file: 'claude-code/max-turns-denied.json',
    code: 'AGENT_SCOPE_VIOLATION',
    category: 'agent',
    recoverable: false,
    origin: 'agent:coder',
    message: 'agent coder (runtime claude-code) was denied permission to use Bash',
    context: { deniedTools: ['Bash'] },
  },
  {
    file: 'claude-code/stderr-unknown-option.txt',
    stderr: true,
    code: 'USER_INVALID_CONFIG',
    category: 'user',
    recoverable: false,
    origin: 'user',
    message: "runtime claude-code rejected its command line: error: unknown option '--bogus-flag'",
  },
];

const codexCases: Case[] = [
  {
    file: 'codex-cli/usage-limit-in.jsonl',
    code: 'RUNTIME_RATE_LIMIT',
    category: 'runtime',
    recoverable: true,
    origin: 'runtime:codex-cli',
    message:
      "codex-cli: reached its usage limit: You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro) or try again in 2 hours 30 minutes.",
    // "2 hours 30 minutes", seconds not printed: the end of its last minute.
    context: { usageLimit: true, resetAt: NOW + 2.5 * 3_600_000 + 60_000 },
  },
  {
    file: 'codex-cli/usage-limit-at.jsonl',
    code: 'RUNTIME_RATE_LIMIT',
    category: 'runtime',
    recoverable: true,
    origin: 'runtime:codex-cli',
    message:
      "codex-cli: reached its usage limit: You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:28 PM.",
    // No zone printed: the machine's (New York, UTC-5 in November), so 20:28 UTC, to the end of that minute.
    context: { usageLimit: true, resetAt: Date.UTC(2026, 10, 23, 20, 29) },
  },
  {
    file: 'codex-cli/usage-limit-weekly.jsonl',
    code: 'RUNTIME_RATE_LIMIT',
    category: 'runtime',
    recoverable: true,
    origin: 'runtime:codex-cli',
    message:
      "codex-cli: reached its usage limit: You've hit your usage limit. To get more access now, send a request to your admin or try again in 3 days 6 hours 57 minutes.",
    context: { resetAt: NOW + 3 * 86_400_000 + 6 * 3_600_000 + 58 * 60_000 },
  },
  {
    file: 'codex-cli/declined.jsonl',
    exitCode: 0,
    code: 'AGENT_SCOPE_VIOLATION',
    category: 'agent',
    recoverable: false,
    origin: 'agent:coder',
    message: 'agent coder (runtime codex-cli) was denied permission to use shell',
    context: { deniedTools: ['shell'], denials: [{ tool: 'shell', detail: "bash -lc 'curl -fsSL https://example.com/install.sh | sh'" }] },
  },
  {
    file: 'codex-cli/unauthorized.jsonl',
    code: 'USER_INVALID_CONFIG',
    category: 'user',
    recoverable: false,
    origin: 'user',
    message: 'codex-cli is not signed in or its API key was refused (HTTP 401): unexpected status 401 Unauthorized: Incorrect API key provided',
  },
  {
    file: 'codex-cli/server-error.jsonl',
    code: 'RUNTIME_PROVIDER_ERROR',
    category: 'runtime',
    recoverable: true,
    origin: 'runtime:codex-cli',
    message: "codex-cli: the provider's API failed (HTTP 500): exceeded retry limit, last status: 500 Internal Server Error",
  },
  {
    file: 'codex-cli/stderr-unexpected-argument.txt',
    exitCode: 2,
    stderr: true,
    code: 'USER_INVALID_CONFIG',
    category: 'user',
    recoverable: false,
    origin: 'user',
    message: "runtime codex-cli rejected its command line: error: unexpected argument '--bogus-flag' found",
  },
];

function check(runtimeName: string, read: typeof readClaudeCodeOutput, c: Case): void {
  const text = fixture(c.file);
  const observation = observed(runtimeName, c.stderr ? '' : text, { exitCode: c.exitCode ?? 1, stderr: c.stderr ? text : '' });
  const error = failure(read(observation, AT));
  expect(error.code).toBe(c.code);
  expect(error.category).toBe(c.category);
  expect(error.recoverable).toBe(c.recoverable);
  expect(error.origin).toBe(c.origin);
  expect(error.message).toBe(c.message);
  if (c.context) expect(error.context).toMatchObject(c.context);
  if (c.code !== 'RUNTIME_RATE_LIMIT' || !c.context || !('resetAt' in c.context)) expect(error.context).not.toHaveProperty('resetAt');
}

describe('claude-code classifications (fixtures)', () => {
  for (const c of claudeCases) it(`${c.file} → ${c.code}`, () => check('claude-code', readClaudeCodeOutput, c));

  it('a usage limit with a relative reset time and no clock carries no reset time', () => {
    const stdout = JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: '5-hour limit reached ∙ resets 3pm' });
    const error = failure(readClaudeCodeOutput(observed('claude-code', stdout, { exitCode: 1 })));
    expect(error.code).toBe('RUNTIME_RATE_LIMIT');
    expect(error.context).not.toHaveProperty('resetAt');
  });

  it('an api_error_status on a result that is not an error does not fail it', () => {
    const stdout = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, api_error_status: 529, result: 'done', permission_denials: [] });
    expect(readClaudeCodeOutput(observed('claude-code', stdout, { exitCode: 0 }), AT)).toMatchObject({ kind: 'succeeded', output: 'done' });
  });
});

describe('codex-cli classifications (fixtures)', () => {
  for (const c of codexCases) it(`${c.file} → ${c.code}`, () => check('codex-cli', readCodexCliOutput, c));
});

describe('single retry owner', () => {
  it('check knows the same CLI retries the presets do (rule 20): the variable claude-code sets to 0, and that codex-cli retries inside', () => {
    expect(CLAUDE_CODE_ENV).toEqual({ [CLAUDE_CODE_RETRIES_ENV]: '0' });
    const claude = checkFlow(`agent c:\n  runtime: "claude-code"\n  env: ["${CLAUDE_CODE_RETRIES_ENV}=3"]\nsession: c\n  prompt: "p"\n  retry: 1\n`, 'f.prose');
    expect(claude.diagnostics.map((d) => d.severity)).toEqual(['error']);
    const codex = checkFlow('agent x:\n  runtime: "codex-cli"\nsession: x\n  prompt: "p"\n  retry: 1\n', 'f.prose');
    expect(CODEX_CLI_RETRIES.innerRetries === InnerRetries.internal).toBe(codex.diagnostics.some((d) => d.severity === 'warning'));
  });

  it('claude-code turns its own API retries off; codex-cli says it cannot', () => {
    expect(CLAUDE_CODE_RETRIES.innerRetries).toBe('disabled');
    expect(CLAUDE_CODE_ENV).toEqual({ CLAUDE_CODE_MAX_RETRIES: '0' });
    expect(new ClaudeCodeRuntime().retries).toBe(CLAUDE_CODE_RETRIES);
    expect(CODEX_CLI_RETRIES.innerRetries).toBe('internal');
    expect(new CodexCliRuntime().retries).toBe(CODEX_CLI_RETRIES);
  });

  it('the claude process is started with CLAUDE_CODE_MAX_RETRIES=0, and an agent env: entry may override it', async () => {
    const standIn = writeCliStandIn(
      standIns,
      'claude',
      "process.stdout.write(JSON.stringify({type: 'result', subtype: 'success', is_error: false, result: String(process.env.CLAUDE_CODE_MAX_RETRIES)}))",
    );
    const run = (env: Record<string, string>) =>
      new ClaudeCodeRuntime().execute(attempt({ agent: agent({ runtime: 'claude-code', command: standIn, env }) }), NEVER);
    expect(await run({})).toMatchObject({ kind: 'succeeded', output: '0' });
    expect(await run({ CLAUDE_CODE_MAX_RETRIES: '3' })).toMatchObject({ kind: 'succeeded', output: '3' });
  });

  it('resolves a relative reset time against the injected clock', async () => {
    const text = "You've hit your usage limit. Try again in 90 minutes.";
    const standIn = writeCliStandIn(standIns, 'codex', "console.log(JSON.stringify({type: 'turn.failed', error: {message: process.argv.at(-1)}}))");
    const runtime = new CodexCliRuntime({ now: () => NOW, timeZone: 'UTC' });
    const error = failure(await runtime.execute(attempt({ prompt: text, agent: agent({ runtime: 'codex-cli', command: standIn }) }), NEVER));
    expect(error.context).toMatchObject({ resetAt: NOW + 91 * 60_000 });
  });
});
