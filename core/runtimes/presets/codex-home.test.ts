import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CodexCliRuntime, readCodexCliOutput } from './codex-cli.js';
import { CODEX_ARGV_ECHO, writeCliStandIn } from '../../testing/cli-stand-in.js';
import { agent, attempt, NEVER } from '../testing.js';
import { codexHomeOf, configuredProvider, providerRetryOverrides, refusedCommands } from './codex-home.js';

const made: string[] = [];
function codexHome(config: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'hw-codex-home-'));
  made.push(dir);
  if (config !== null) writeFileSync(join(dir, 'config.toml'), config);
  return dir;
}
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const THREAD = '01a21677-2197-7443-9feb-1cffadef155f';
// The two rollout lines Codex 0.169.0 wrote for a refused `exec_command` (fields it does not read trimmed).
const ROLLOUT = [
  { type: 'session_meta', payload: { id: THREAD } },
  {
    type: 'response_item',
    payload: {
      type: 'function_call',
      name: 'exec_command',
      call_id: 'call_1',
      arguments: JSON.stringify({ cmd: 'touch /srv/x', sandbox_permissions: 'require_escalated' }),
    },
  },
  {
    type: 'response_item',
    payload: {
      type: 'function_call_output',
      call_id: 'call_1',
      output: 'approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never',
    },
  },
  { type: 'response_item', payload: { type: 'function_call', name: 'exec_command', call_id: 'call_2', arguments: '{"cmd":"echo ok"}' } },
  { type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_2', output: 'Process exited with code 0\nOutput:\nok\n' } },
]
  .map((line) => JSON.stringify(line))
  .join('\n');

describe('the Codex home the codex-cli preset reads', () => {
  it('is $CODEX_HOME, else ~/.codex of the HOME the CLI gets', () => {
    expect(codexHomeOf({ CODEX_HOME: '/etc/cx', HOME: '/home/a' })).toBe('/etc/cx');
    expect(codexHomeOf({ HOME: '/home/a' })).toBe('/home/a/.codex');
  });

  it('reads the top-level model_provider (not a table key, not a commented line)', () => {
    expect(configuredProvider(codexHome('# mine\nmodel_provider = "corp-proxy" # comment\n[model_providers.corp-proxy]\nbase_url = "x"\n'))).toBe('corp-proxy');
    expect(configuredProvider(codexHome('[profiles.a]\nmodel_provider = "other"\n'))).toBeNull();
    expect(configuredProvider(codexHome('# model_provider = "x"\nmodel = "m"\n'))).toBeNull();
    expect(configuredProvider(codexHome(null))).toBeNull();
  });

  it('reads it in either TOML quote style, and from the active profile, as Codex does', () => {
    expect(configuredProvider(codexHome("model_provider = 'stub'\n[model_providers.stub]\nbase_url = 'http://127.0.0.1:9/v1'\n"))).toBe('stub');
    expect(configuredProvider(codexHome('model_provider = "stub"\n'))).toBe('stub');
    expect(configuredProvider(codexHome('model_provider="stub"#no spaces\n'))).toBe('stub');
    expect(configuredProvider(codexHome("model_provider = '''stub'''\n"))).toBe('stub');
    expect(configuredProvider(codexHome('profile = "work"\nmodel_provider = "home"\n[profiles.work]\nmodel_provider = \'corp\'\n'))).toBe('corp');
    expect(configuredProvider(codexHome('profile = "none-such"\nmodel_provider = "home"\n'))).toBe('home');
  });

  it.each([
    ['double', 'model_provider = "stub"'],
    ['single', "model_provider = 'stub'"],
  ])('through the preset, a %s-quoted provider gets its own retries turned off with -c before exec', async (_style, line) => {
    const home = codexHome(`${line}\n[model_providers.stub]\nbase_url = 'http://127.0.0.1:9/v1'\n`);
    const standIn = writeCliStandIn(home, 'codex', CODEX_ARGV_ECHO);
    const env = { CODEX_HOME: home };
    const result = await new CodexCliRuntime().execute(attempt({ prompt: 'p', agent: agent({ runtime: 'codex-cli', command: standIn, env }) }), NEVER);
    expect(result.kind).toBe('succeeded');
    const argv = JSON.parse(result.kind === 'succeeded' ? result.output : '[]') as string[];
    expect(argv.slice(0, argv.indexOf('exec'))).toEqual([
      '-c',
      'model_providers.stub.request_max_retries=0',
      '-c',
      'model_providers.stub.stream_max_retries=0',
    ]);
  });

  it('reads none from a config that is not TOML (Codex refuses to start with it)', () => {
    expect(configuredProvider(codexHome('model_provider = "stub\n'))).toBeNull();
    expect(configuredProvider(codexHome('model_provider = stub\n'))).toBeNull();
  });

  it("turns a custom provider's retries off with -c; a built-in provider's or none cannot be", () => {
    expect(providerRetryOverrides('corp-proxy')).toEqual([
      '-c',
      'model_providers.corp-proxy.request_max_retries=0',
      '-c',
      'model_providers.corp-proxy.stream_max_retries=0',
    ]);
    expect(providerRetryOverrides('openai')).toEqual([]);
    expect(providerRetryOverrides(null)).toEqual([]);
    // A quoted TOML key may hold a dot or a space; a `-c` key path cannot name it.
    expect(providerRetryOverrides('corp.gateway')).toEqual([]);
    expect(providerRetryOverrides('corp gateway')).toEqual([]);
  });

  it("finds the commands a thread's approval policy refused in its rollout, with the command asked for", () => {
    const home = codexHome(null);
    const day = join(home, 'sessions', '2026', '11', '26');
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, `rollout-2026-11-26T06-07-15-${THREAD}.jsonl`), ROLLOUT);
    expect(refusedCommands(home, THREAD)).toEqual([{ tool: 'exec_command', detail: 'touch /srv/x', toolUseId: 'call_1' }]);
    expect(refusedCommands(home, 'another-thread')).toEqual([]);
  });
});

describe('readCodexCliOutput: a refused command is AGENT_SCOPE_VIOLATION even when the turn completed', () => {
  const stdout = [
    { type: 'thread.started', thread_id: THREAD },
    { type: 'turn.started' },
    { type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text: 'done' } },
    { type: 'turn.completed', usage: {} },
  ]
    .map((l) => JSON.stringify(l))
    .join('\n');
  const observation = (stderr: string) => ({ runtimeName: 'codex-cli', stdout, stderr, exitCode: 0, signal: null, timedOut: false, durationMs: 1 });

  it('names the command from the rollout', () => {
    const result = readCodexCliOutput(observation(''), { agentName: 'coder' }, () => [{ tool: 'exec_command', detail: 'touch /srv/x' }]);
    expect(result.kind).toBe('failed');
    if (result.kind !== 'failed') return;
    expect(result.error.code).toBe('AGENT_SCOPE_VIOLATION');
    expect(result.error.context).toMatchObject({ deniedTools: ['exec_command'], denials: [{ tool: 'exec_command', detail: 'touch /srv/x' }] });
  });

  it('without a rollout, from the refusal Codex logs on stderr', () => {
    const stderr =
      'ERROR codex_core::tools::router: error=approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never';
    const result = readCodexCliOutput(observation(stderr), { agentName: 'coder' });
    expect(result.kind === 'failed' && result.error.code).toBe('AGENT_SCOPE_VIOLATION');
    expect(readCodexCliOutput(observation('Reading additional input from stdin...')).kind).toBe('succeeded');
  });
});
