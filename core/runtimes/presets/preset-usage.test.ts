import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RuntimeObservation } from '../../base/errors/classify.js';
import { usageProblem } from '../../base/usage-check.js';
import { parseClaudeCodeOutput, readClaudeCodeOutput } from './claude-code.js';
import { parseCodexEvents, readCodexCliOutput } from './codex-cli.js';
import { CLI_PINS } from '../../../agents-real/pins.js';

/** Tokens and cost read from the real CLIs' recorded output (agents-real/fixtures, versions in each run.json). */

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'agents-real', 'fixtures');

function recorded(cli: string, id: string): { stdout: string; cliVersion: string } {
  const dir = join(FIXTURES, cli, id);
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { cliVersion: string };
  return { stdout: readFileSync(join(dir, 'stdout.txt'), 'utf8'), cliVersion: run.cliVersion };
}

function observation(stdout: string, exitCode = 0): RuntimeObservation {
  return { runtimeName: 'test', exitCode, signal: null, timedOut: false, stdout, stderr: '', durationMs: 10 };
}

describe('claude-code result usage (recorded with the real CLI)', () => {
  it('reads total_cost_usd and the four token kinds of a stream-json success', () => {
    const { stdout, cliVersion } = recorded('claude-code', 'text.json-out.otlp-json.default-retries');
    expect(cliVersion).toMatch(/^2\.1\./);
    const result = readClaudeCodeOutput(observation(stdout));
    expect(result.kind).toBe('succeeded');
    expect(result.kind !== 'cancelled' && result.usage).toEqual({
      source: 'result',
      inputTokens: 12,
      outputTokens: 9,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0.000228,
    });
  });

  it("counts a subagent's tokens: modelUsage summed over its models, not the main conversation's usage; the cost is total_cost_usd", () => {
    const { stdout, cliVersion } = recorded('claude-code', 'subagent.result-json-out.otlp-json.default-retries');
    expect(cliVersion).toMatch(/^2\.1\./);
    const raw = JSON.parse(stdout) as { usage: { input_tokens: number; output_tokens: number }; subagent_stats: { spawned: number } };
    // The recording: one subagent; the result's `usage` is the main conversation's last call alone.
    expect([raw.subagent_stats.spawned, raw.usage.input_tokens, raw.usage.output_tokens]).toEqual([1, 12, 9]);
    const result = readClaudeCodeOutput(observation(stdout));
    expect(result.kind).toBe('succeeded');
    expect(result.kind !== 'cancelled' && result.usage).toEqual({
      source: 'result',
      inputTokens: 48,
      outputTokens: 36,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0.000912,
    });
  });

  it('sums modelUsage over several models (a subagent on another model)', () => {
    const model = (input: number, output: number, read: number, write: number): Record<string, number> => ({
      inputTokens: input,
      outputTokens: output,
      cacheReadInputTokens: read,
      cacheCreationInputTokens: write,
      costUSD: 0.5,
    });
    const stdout = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'ok',
      total_cost_usd: 1.25,
      usage: { input_tokens: 24, output_tokens: 16 },
      modelUsage: { 'claude-opus-5-5': model(24, 16, 100, 7), 'claude-haiku-5': model(12, 7, 0, 3) },
    });
    const parsed = parseClaudeCodeOutput(stdout);
    expect(parsed.ok && parsed.value.usage).toEqual({
      source: 'result',
      inputTokens: 36,
      outputTokens: 23,
      cacheReadTokens: 100,
      cacheWriteTokens: 10,
      costUsd: 1.25,
    });
  });

  it('keeps the usage of a result after retries that recovered (--output-format json)', () => {
    const { stdout } = recorded('claude-code', 'rate-limit-then-ok.result-json-out.otlp-json.default-retries');
    const parsed = parseClaudeCodeOutput(stdout);
    expect(parsed.ok && parsed.value.usage).toMatchObject({ costUsd: 0.000228, inputTokens: 12, outputTokens: 9 });
  });

  it('puts the usage on a failed attempt too: a failure has a cost (zero here, the API refused every request)', () => {
    const { stdout } = recorded('claude-code', 'rate-limit.result-json-out.otlp-json.retries-2');
    const result = readClaudeCodeOutput(observation(stdout, 1));
    expect(result.kind).toBe('failed');
    expect(result.kind === 'failed' && result.usage).toEqual({
      source: 'result',
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
    });
  });

  it('has no usage when the output cannot be read', () => {
    const result = readClaudeCodeOutput(observation('not json', 1));
    expect(result.kind === 'failed' && result.usage).toBeUndefined();
  });

  it('leaves the cost unknown when total_cost_usd is absent or not a number', () => {
    const line = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'ok',
      total_cost_usd: 'n/a',
      usage: { input_tokens: 5, output_tokens: 2 },
    });
    const parsed = parseClaudeCodeOutput(line);
    expect(parsed.ok && parsed.value.usage).toEqual({ source: 'result', inputTokens: 5, outputTokens: 2 });
  });
});

describe('codex-cli exec JSON usage (recorded with the real CLI)', () => {
  it('reads turn.completed usage: tokens, cost unknown', () => {
    const { stdout, cliVersion } = recorded('codex-cli', 'text.json-out.otlp-json.default-retries');
    expect(cliVersion).toBe(CLI_PINS['codex-cli'].version);
    const result = readCodexCliOutput(observation(stdout));
    expect(result.kind).toBe('succeeded');
    expect(result.kind !== 'cancelled' && result.usage).toEqual({
      source: 'result',
      inputTokens: 12,
      outputTokens: 9,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });

  it('reads usage after a stream retry the CLI recovered from', () => {
    const { stdout } = recorded('codex-cli', 'rate-limit-then-ok.json-out.otlp-json.default-retries');
    expect(parseCodexEvents(stdout).tokens).toMatchObject({ inputTokens: 12, outputTokens: 9 });
  });

  it('a failed turn reports no usage, so the attempt has none', () => {
    const { stdout } = recorded('codex-cli', 'unauthorized.json-out.otlp-json.default-retries');
    const result = readCodexCliOutput(observation(stdout, 1));
    expect(result.kind).toBe('failed');
    expect(result.kind === 'failed' && result.usage).toBeUndefined();
  });

  it('takes cached input out of input_tokens and adds up several turns', () => {
    const turn = (input: number, cached: number, output: number): string =>
      JSON.stringify({
        type: 'turn.completed',
        usage: { input_tokens: input, cached_input_tokens: cached, cache_write_input_tokens: 0, output_tokens: output, reasoning_output_tokens: 0 },
      });
    const stdout = [turn(100, 60, 10), turn(50, 50, 5)].join('\n');
    const tokens = parseCodexEvents(stdout).tokens;
    expect(tokens).toEqual({ source: 'result', inputTokens: 40, cacheReadTokens: 110, cacheWriteTokens: 0, outputTokens: 15 });
    expect(usageProblem(tokens)).toBeNull();
  });
});

describe('usageProblem: what the journal refuses', () => {
  it.each([
    [{ source: 'result', inputTokens: -1 }, 'usage.inputTokens must be a non-negative integer'],
    [{ source: 'result', outputTokens: 1.5 }, 'usage.outputTokens must be a non-negative integer'],
    [{ source: 'result', costUsd: Number.NaN }, 'usage.costUsd must be a non-negative number'],
    [{ source: 'guess', costUsd: 1 }, 'usage.source must be "telemetry" or "result"'],
    [null, 'usage must be an object'],
  ])('%j', (usage, message) => {
    expect(usageProblem(usage)).toBe(message);
  });

  it('accepts a cost with no tokens and tokens with no cost', () => {
    expect(usageProblem({ source: 'telemetry', costUsd: 0.1 })).toBeNull();
    expect(usageProblem({ source: 'telemetry', inputTokens: 3 })).toBeNull();
  });
});
