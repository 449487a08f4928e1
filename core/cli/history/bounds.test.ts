import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import type { CliIo } from '../io.js';
import { main } from '../main.js';

/**
 * Durations and counts the command line takes are bounded, on every engine (docs/triage.md
 * "Ignore conditions", README): past the bound a clear line and exit 64, nothing written; at the
 * bound the value is stored exactly (a whole number of ms or occurrences, on SQLite as on
 * PostgreSQL, where `--for 9999999999999d` once was a float and a raw stack trace).
 */

const harness = testEngines('cli-bounds');
beforeAll(() => harness.start(), 120_000);
afterAll(() => harness.stop());

const DAY = 86_400_000;
const CRASH = { code: 'RUNTIME_CRASHED' as const, message: 'runtime fake crashed', origin: 'runtime:fake' };

async function cli(location: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), stdout: new PassThrough(), env: {} };
  const code = await main([...argv, '--db', location], io);
  return { code, out, err };
}

for (const engine of harness.engines) {
  describe(`bounds on ${engine.name}`, () => {
    it('issues ignore: --for up to 365d and --until-count up to a billion, stored exactly; past them exit 64 and nothing journaled', async () => {
      const location = await engine.fresh();
      const store = await openStore({ path: location });
      let id = '';
      try {
        await store.appendEvents(
          new JournalBuilder('run-1', { start: Date.now() - 60_000 })
            .start()
            .runStep([{ attempts: [CRASH] }])
            .fail().events,
        );
        id = (await store.errorGroups())[0]!.fingerprint;
      } finally {
        await store.close();
      }
      const refusals: [string[], string][] = [
        [['--for', '9999999999999d'], '--for must be at most 365d (a year), got "9999999999999d"'],
        [['--for', '366d'], '--for must be at most 365d (a year), got "366d"'],
        [['--for', '59s'], '--for must be a duration of at least a minute like 30m, 24h or 7d, got "59s"'],
        [['--until-count', '99999999999999999999'], '--until-count must be a whole number from 1 to 1000000000, got 99999999999999999999'],
        [['--until-count', '1000000001'], '--until-count must be a whole number from 1 to 1000000000, got 1000000001'],
        [['--until-count', '2.5'], '--until-count must be a whole number from 1 to 1000000000, got 2.5'],
      ];
      for (const [flags, message] of refusals) {
        expect(await cli(location, 'issues', 'ignore', id, ...flags), flags.join(' ')).toEqual({ code: 64, out: '', err: `hivewatch issues: ${message}\n` });
      }
      const before = Date.now();
      expect((await cli(location, 'issues', 'ignore', id, '--for', '365d')).code).toBe(0);
      expect((await cli(location, 'issues', 'ignore', id, '--until-count', '1000000000')).code).toBe(0);
      const check = await openStore({ path: location, readonly: true });
      try {
        const ignores = (await check.issues.log(id)).filter((r) => r.kind === 'ignored');
        expect(ignores).toHaveLength(2);
        const [forYear, forCount] = ignores;
        expect(Number.isSafeInteger(forYear!.ignore!.until)).toBe(true);
        expect(forYear!.ignore!.until! - forYear!.at).toBe(365 * DAY);
        expect(forYear!.at).toBeGreaterThanOrEqual(before);
        expect(forCount!.ignore).toEqual({ until: null, count: 1_000_000_000, escalating: false });
      } finally {
        await check.close();
      }
    });

    it('time windows and list sizes: past the bound exit 64 with the bound in the line', async () => {
      const location = await engine.fresh();
      const cases: [string[], string][] = [
        [['runs', '--since', '3651d'], 'hivewatch runs: --since must be at most 3650d, got "3651d"'],
        [['cost', '--since', '9999999999999d'], 'hivewatch cost: --since must be at most 3650d, got "9999999999999d"'],
        [['prune', '--older-than', '99999999999w'], 'hivewatch prune: --older-than must be at most 3650d, got "99999999999w"'],
        [['runs', '--limit', '1001'], 'hivewatch runs: --limit must be a whole number from 1 to 1000, got 1001'],
        [['alerts', 'deliveries', '--limit', '0'], 'hivewatch alerts: --limit must be a whole number from 1 to 1000, got 0'],
        [
          ['alerts', 'add', '--when', 'running-longer-than=400d', '--webhook', 'https://example.com/h'],
          'hivewatch alerts: running-longer-than must be at most 365d (a year), got "running-longer-than=400d"',
        ],
      ];
      for (const [argv, message] of cases) expect(await cli(location, ...argv), argv.join(' ')).toEqual({ code: 64, out: '', err: `${message}\n` });
      expect((await cli(location, 'runs', '--since', '3650d', '--limit', '1000')).code).toBe(0);
    });
  });
}
