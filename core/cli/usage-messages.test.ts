import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/index.js';
import { JournalBuilder } from '../store/testing/journal-builder.js';
import { ExitCode, type CliIo } from './io.js';
import { COMMAND_NAMES, main } from './main.js';

/**
 * The command line tried as a newcomer would (a QA pass over every command): `--help`
 * after a command, a stray argument, a bad `--status`, a filter that matches nothing, options a
 * command would silently drop. Each answer is pinned word for word with its exit code, in-process
 * through `main` on a real SQLite file holding one failed run.
 */

let dir: string;
let db: string;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), stdout: process.stdout, env: {} };
  const code = await main([...args, '--db', db], io);
  return { code, out, err };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-cli-usage-'));
  db = join(dir, 'history.db');
  const store = openSqliteStore({ path: db });
  const crash = { code: 'RUNTIME_CRASHED' as const, message: 'runtime fake was killed by SIGSEGV', origin: 'runtime:fake' };
  store.appendEvents(
    new JournalBuilder('run-failed', { start: Date.now() - 60_000, flowName: 'deploy' })
      .start()
      .runStep([{ attempts: [crash] }])
      .fail().events,
  );
  store.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--help after a command', () => {
  it("every command has lines in the full help, and README's command-line block shows each one", async () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const block = /## The command line\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(COMMAND_NAMES.length).toBeGreaterThan(10);
    for (const name of COMMAND_NAMES) {
      const { code, out } = await cli([name, '--help']);
      expect(code, name).toBe(ExitCode.ok);
      expect(out.split('\n').filter((l) => l.startsWith('  hivewatch')).length, `hivewatch ${name} --help`).toBeGreaterThan(0);
      // migrate has its own README section ("Moving history to a team database").
      if (name !== 'migrate') expect(block, `README's command list lacks hivewatch ${name}`).toContain(`hivewatch ${name}`);
    }
  });

  it('prints that command\'s usage lines from the full help and exits 0 (was: "unknown option --help", 64)', async () => {
    const cost = await cli(['cost', '--help']);
    expect(cost).toMatchObject({ code: ExitCode.ok, err: '' });
    expect(cost.out).toBe(
      'Usage:\n' +
        '  hivewatch cost [--since 7d] [--by flow|run] [--flow F] [--category C] [--origin O] [--code C] [--limit N] [--json]\n' +
        '                                                 what agents spent, split three ways: by runs that ended\n' +
        '                                                 failed, on retried attempts of runs that did not, by\n' +
        '                                                 successful work; per flow and per hour or day (or the\n' +
        "                                                 costliest runs); the filters are the Errors screen's\n" +
        '\nEvery command: hivewatch help\n',
    );
  });

  it('-h works too, and a command shared by a bulk entry (retry) gets both of its entries', async () => {
    const retry = await cli(['retry', '-h']);
    expect(retry.code).toBe(ExitCode.ok);
    expect(retry.out).toContain('  hivewatch retry <runId> [run options]');
    expect(retry.out).toContain("  hivewatch cancel|retry|resume --where 'status=running&flow=F' | --all | RUN_ID… [--yes] [--json]");
    expect(retry.out).not.toContain('hivewatch resume <runId>');
  });

  it('every sub-command line of issues and alerts is listed, and nothing of another command', async () => {
    const issues = await cli(['issues', 'resolve', '--help']);
    expect(issues.code).toBe(ExitCode.ok);
    expect(issues.out.split('\n').filter((l) => l.startsWith('  hivewatch'))).toEqual([
      '  hivewatch issues [--status unresolved|resolved|ignored|regressed|escalating|new|ongoing]',
      '  hivewatch issues show ID [--since 24h] [--json]',
      "  hivewatch issues resolve|reopen ID [--json]    ID: the issue's fingerprint, or the start of it",
      '  hivewatch issues ignore ID [--for 24h | --until-count N | --until-escalating] [--json]',
      '  hivewatch issues runs ID [--json]              the runs with any occurrence of the issue',
    ]);
    const alerts = await cli(['alerts', '--help']);
    expect(alerts.out).toContain('      CONDITION: run-failed | new-issue | regression | escalating');
    expect(alerts.out).not.toContain('hivewatch serve');
  });

  it('a --help after "--" is an argument, not a request for help', async () => {
    const { code, err } = await cli(['runs', '--', '--help']);
    expect(code).toBe(ExitCode.usage);
    expect(err).toBe('hivewatch runs: unexpected argument "--help": runs takes only options (see hivewatch runs --help)\n');
  });
});

describe('runs', () => {
  it('a stray argument (a run id) is a usage error, not silently the whole list', async () => {
    expect(await cli(['runs', 'run-failed'])).toEqual({
      code: ExitCode.usage,
      out: '',
      err: 'hivewatch runs: unexpected argument "run-failed": runs takes only options (see hivewatch runs --help)\n',
    });
  });

  it('an unknown --status is a usage error (64, was 1) that lists every status, waiting-limit included', async () => {
    expect(await cli(['runs', '--status', 'failed,bogus'])).toEqual({
      code: ExitCode.usage,
      out: '',
      err: 'hivewatch runs: --status must be one or more (comma-separated) of queued, running, cancelling, completed, failed, cancelled, interrupted, waiting-limit, waiting-approval, got "bogus"\n',
    });
  });

  it('filters that match nothing say so, instead of "no runs yet" over a history that has runs', async () => {
    expect(await cli(['runs', '--status', 'waiting-limit'])).toEqual({ code: ExitCode.ok, out: 'no run matches --status waiting-limit\n', err: '' });
    const failed = (await cli(['runs', '--status', 'failed'])).out.split('\n')[1] ?? '';
    // Step 1 reached (a journal without the flow's step count: the step alone), one attempt, one
    // error (1 is singular, "1 errors" before), the root cause and where it happened.
    expect(failed).toMatch(
      /^run-failed +failed +deploy +\S+ \S+ +1 +1 attempt +1 error +RUNTIME_CRASHED in task 1:0 attempt 1 · runtime fake was killed by SIGSEGV$/,
    );
  });
});

describe('options a command would drop', () => {
  it('cost: a stray argument, and --limit with --by flow (it only bounds --by run)', async () => {
    expect((await cli(['cost', 'deploy'])).err).toBe('hivewatch cost: unexpected argument "deploy": cost takes only options (see hivewatch cost --help)\n');
    expect(await cli(['cost', '--limit', '3'])).toEqual({
      code: ExitCode.usage,
      out: '',
      err: 'hivewatch cost: --limit applies to --by run (the costliest runs); --by flow lists every flow\n',
    });
    expect((await cli(['cost', '--by', 'run', '--limit', '3'])).code).toBe(ExitCode.ok);
    // The same words as runs' and errors' --since.
    expect((await cli(['cost', '--since', '7x'])).err).toBe('hivewatch cost: --since must be an age like 30m, 24h or 7d, got "7x"\n');
  });

  it('errors and prune refuse a stray argument too', async () => {
    expect((await cli(['errors', 'RUNTIME_CRASHED'])).err).toBe(
      'hivewatch errors: unexpected argument "RUNTIME_CRASHED": errors takes only options (see hivewatch errors --help)\n',
    );
    expect((await cli(['prune', '30d'])).code).toBe(ExitCode.usage);
  });

  it('bulk retry / resume refuse the single-run options they would ignore, naming the single-run form', async () => {
    expect(await cli(['retry', '--where', 'status=failed', '--yes', '--virtual-clock'])).toEqual({
      code: ExitCode.usage,
      out: '',
      err: "hivewatch retry: --virtual-clock applies to one run (hivewatch retry RUN_ID --virtual-clock …); the runs of a bulk retry keep their original's settings\n",
    });
    expect((await cli(['resume', 'run-a', 'run-b', '--agent', 'fake'])).err).toBe(
      "hivewatch resume: --agent applies to one run (hivewatch resume RUN_ID --agent …); the runs of a bulk resume keep their original's settings\n",
    );
  });
});
