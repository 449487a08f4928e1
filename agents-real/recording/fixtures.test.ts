import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeOtlp } from '../../core/otel/receive/decode.js';
import { containsSecret, FIXTURES_DIR, fixtureIds, readFixture } from './fixtures-io.js';
import { MATRIX } from '../matrix.js';
import { CLI_PINS, type CliName } from '../pins.js';
import { missingFrom, TIMED_EVENTS } from '../otlp/shape.js';
import { runId } from '../specs.js';
import { logEntries, logName } from '../otlp/telemetry.js';

/**
 * The recorded fixtures, read without running anything: one per run of the matrix, made by the
 * pinned version, free of the made-up secrets, and readable — by the receiver's own decoder
 * (core/otel/receive/decode.ts) too, whatever the encoding.
 */

const CLIS = Object.keys(CLI_PINS) as CliName[];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('the recorded CLI fixtures', () => {
  it.each(CLIS)('%s: every run of the matrix is recorded, by the pinned version (bump the pin, then npm run record-cli-fixtures)', (cli) => {
    const recorded = new Set(fixtureIds(cli));
    const missing = MATRIX[cli].map(runId).filter((id) => !recorded.has(id));
    expect(missing, `not recorded for ${cli}`).toEqual([]);
    const stale = fixtureIds(cli).filter((id) => readFixture(cli, id)?.run.cliVersion !== CLI_PINS[cli].version);
    expect(stale, `recorded with another version than ${CLI_PINS[cli].version}`).toEqual([]);
    const unknown = fixtureIds(cli).filter((id) => !MATRIX[cli].some((s) => runId(s) === id));
    expect(unknown, 'recorded but no longer in agents-real/matrix.ts').toEqual([]);
  });

  it('no file holds one of the made-up credentials (they are overwritten with X when recorded)', () => {
    const leaks = files(FIXTURES_DIR).filter((path) => containsSecret(readFileSync(path)) !== null);
    expect(leaks).toEqual([]);
  });

  it.each(CLIS)('%s: every OTLP body decodes, JSON and protobuf alike, by the harness and by the receiver', (cli) => {
    for (const id of fixtureIds(cli)) {
      const fixture = readFixture(cli, id);
      if (!fixture) continue;
      for (const capture of fixture.exports) {
        expect(capture.authorized, `${id} export ${capture.seq}`).toBe(true);
        if (capture.signal !== 'logs' && capture.signal !== 'traces') continue;
        const encoding = capture.encoding === 'json' ? 'json' : 'protobuf';
        expect(() => decodeOtlp(capture.signal as 'logs' | 'traces', encoding, capture.payload), `${id} export ${capture.seq}`).not.toThrow();
      }
      expect(fixture.run.apiRequestCount, id).toBe(fixture.run.apiRequests.length);
      expect(missingFrom(fixture.shape.required, fixture.shape.seen), `${id}: required is not within seen`).toEqual([]);
    }
  });

  it("the receiver's decoder names each recorded log record as the CLI meant it, but Codex's 'flushing OTEL metrics' record ''", () => {
    for (const cli of CLIS) {
      for (const id of fixtureIds(cli)) {
        const exports = readFixture(cli, id)?.exports.filter((e) => e.signal === 'logs') ?? [];
        const decoded = exports.flatMap((e) => decodeOtlp('logs', e.encoding === 'json' ? 'json' : 'protobuf', e.payload).map((r) => r.name));
        // claude_code.* from the body (its event.name is bare), codex.* from event.name (no body).
        const meant = logEntries(exports).map(logName);
        const prefix = cli === 'claude-code' ? 'claude_code.' : 'codex.';
        expect(decoded, `${cli} ${id}`).toEqual(meant.map((name) => (name.startsWith(prefix) ? name : '')));
        // The one record of another kind: Codex's metrics client, when it has metrics to send: [analytics] on (text with
        // the network defaults) or a metrics exporter configured (the subagent runs).
        const metricsOn = cli === 'codex-cli' && (id.endsWith('network-defaults') || id.startsWith('subagent'));
        expect([...new Set(meant.filter((name) => !name.startsWith(prefix)))], `${cli} ${id}`).toEqual(metricsOn ? ['flushing OTEL metrics'] : []);
      }
    }
  });

  it('a protobuf run carries the same log events as its JSON twin (Claude Code: every scenario; Codex: the turns that end well)', () => {
    const names = (cli: CliName, id: string): string[] => {
      const fixture = readFixture(cli, id);
      const timed = new Set(TIMED_EVENTS[cli]);
      return [...new Set(logEntries(fixture?.exports ?? []).map(logName))].filter((n) => !timed.has(n)).sort();
    };
    const twins: [CliName, string, string][] = [
      ...MATRIX['claude-code']
        .filter((s) => s.protocol === 'protobuf')
        .map((s): [CliName, string, string] => ['claude-code', runId(s), runId({ ...s, output: 'json', protocol: 'json' })]),
      ...['text', 'tool', 'rate-limit-then-ok'].map((scenario): [CliName, string, string] => [
        'codex-cli',
        `${scenario}.plain-out.otlp-protobuf.default-retries`,
        `${scenario}.json-out.otlp-json.default-retries`,
      ]),
    ];
    for (const [cli, protobuf, json] of twins) {
      expect(names(cli, protobuf), `${cli} ${protobuf} vs ${json}`).toEqual(names(cli, json));
      expect(names(cli, json).length, json).toBeGreaterThan(0);
    }
  });

  it('the README names every recorded run with the version that made it', () => {
    const readme = readFileSync(join(FIXTURES_DIR, 'README.md'), 'utf8');
    for (const cli of CLIS) {
      for (const id of fixtureIds(cli)) expect(readme, id).toContain(`| ${cli} ${CLI_PINS[cli].version} | \`${id}\` |`);
    }
  });
});
