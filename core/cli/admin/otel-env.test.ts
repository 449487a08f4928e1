import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/index.js';
import type { CliIo } from '../io.js';
import { main } from '../main.js';

let dir: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-env-'));
});
afterEach(async () => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), stdout: process.stdout, env };
  const code = await main(args, io);
  return { code, out, err };
}

describe('hivewatch otel-env', () => {
  it('prints Claude Code settings with the database ingest token, the same on every call', async () => {
    const db = join(dir, 'hw.db');
    const first = await cli(['otel-env', '--db', db]);
    expect(first.code).toBe(0);
    const store = await openStore({ path: db, readonly: true });
    const token = await store.getSetting('otel.token');
    await store.close();
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(first.out).toBe(
      [
        '# Run in the shell that starts claude (eval "$(hivewatch otel-env)"):',
        'export CLAUDE_CODE_ENABLE_TELEMETRY=1',
        'export OTEL_LOGS_EXPORTER=otlp',
        'export OTEL_METRICS_EXPORTER=none',
        'export OTEL_TRACES_EXPORTER=otlp',
        'export CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1',
        'export OTEL_EXPORTER_OTLP_PROTOCOL=http/json',
        'export OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318',
        `export OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer ${token}"`,
        '',
      ].join('\n'),
    );
    expect((await cli(['otel-env', '--db', db])).out).toBe(first.out);
  });

  it('prints the Codex [otel] block, on the port HIVEWATCH_OTEL_PORT names', async () => {
    const db = join(dir, 'hw.db');
    const { code, out } = await cli(['otel-env', '--agent', 'codex-cli', '--db', db], { HIVEWATCH_OTEL_PORT: '14318' });
    expect(code).toBe(0);
    expect(out).toMatch(/^# Add to ~\/\.codex\/config\.toml/);
    expect(out).toContain('[otel]\n');
    expect(out).toMatch(
      /exporter = \{ otlp-http = \{ endpoint = "http:\/\/127\.0\.0\.1:14318\/v1\/logs", protocol = "json", headers = \{ "Authorization" = "Bearer [A-Za-z0-9_-]{32}" \} \} \}/,
    );
  });

  it('turns prompt storage on and off for the database', async () => {
    const db = join(dir, 'hw.db');
    const on = await cli(['otel-env', '--store-prompts', 'on', '--db', db]);
    expect(on.err).toBe(`prompt text from telemetry is now stored in ${db}\n`);
    const read = async (): Promise<string | null> => {
      const store = await openStore({ path: db, readonly: true });
      const value = await store.getSetting('otel.store_prompts');
      await store.close();
      return value;
    };
    expect(await read()).toBe('on');
    await cli(['otel-env', '--store-prompts', 'off', '--db', db]);
    expect(await read()).toBe('off');
    expect((await cli(['otel-env', '--store-prompts', 'yes', '--db', db])).code).toBe(64);
  });

  it('refuses an unknown agent and an unusable port', async () => {
    expect(await cli(['otel-env', '--agent', 'gemini', '--db', join(dir, 'x.db')])).toMatchObject({
      code: 64,
      err: 'hivewatch otel-env: --agent must be one of claude-code, codex-cli, got "gemini"\n',
    });
    expect((await cli(['otel-env', '--port', 'off', '--db', join(dir, 'x.db')])).err).toBe(
      'hivewatch otel-env: otel-env needs the fixed port the app listens on (not "off" or 0)\n',
    );
  });
});
