import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { ApiError } from '../common/api-errors.js';
import { RunTakenError, StoreError } from '../store/store-error.js';
import { tempDirs } from '../testing/temp-dirs.js';
import { UsageError } from './args.js';
import { exitCodeOf } from './exit-codes.js';
import { ExitCode, type CliIo } from './io.js';
import { main } from './main.js';

/**
 * Every exit code of the command line is in README's "Exit codes" table, and
 * every row of the table is one the code can end with. The codes come from `ExitCode`; a number
 * written anywhere else on the way out (`process.exit(N)`, `return N`, `resolve(N)`) must be one
 * of them too, so a new code cannot slip in undocumented.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const tempDir = tempDirs();
const BIN = join(ROOT, 'bin', 'hivewatch.js');

function readmeTable(): Map<number, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Exit codes'));
  const rows = new Map<number, string>();
  for (const line of section.split('\n').slice(1)) {
    if (line.startsWith('#')) break;
    const cells = /^\| (\d+) \| (.+?) \| (.+?) \|$/.exec(line);
    if (cells) rows.set(Number(cells[1]), cells[2] as string);
  }
  return rows;
}

/** The sources a `hivewatch` process ends through: the launchers, the CLI, the shells' CLI. */
function exitSources(): { file: string; text: string }[] {
  const files = [
    join(ROOT, 'bin', 'hivewatch.js'),
    join(ROOT, 'bin', 'start.js'),
    join(ROOT, 'server', 'cli.ts'),
    ...readdirSync(join(ROOT, 'core', 'cli'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.split('/').includes('testing'))
      .map((f) => join(ROOT, 'core', 'cli', f)),
  ];
  return files.map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

describe('exit codes', () => {
  it('README lists exactly the codes the command line has, each explained', () => {
    const table = readmeTable();
    expect([...table.keys()].sort((a, b) => a - b)).toEqual(Object.values(ExitCode).sort((a, b) => a - b));
    for (const meaning of table.values()) expect(meaning.length).toBeGreaterThan(10);
  });

  it('no process ends with a number the table does not have', () => {
    const documented = new Set(readmeTable().keys());
    const literal = /process\.exit\((\d+)\)|process\.exitCode = (\d+)|\breturn (\d+);|\bresolve\((\d+)\)/g;
    const found: string[] = [];
    for (const { file, text } of exitSources()) {
      for (const match of text.matchAll(literal)) {
        const code = Number(match.slice(1).find((g) => g !== undefined));
        if (!documented.has(code)) found.push(`${file}: ${match[0]}`);
      }
    }
    expect(found).toEqual([]);
    // The one launcher that cannot import ExitCode writes its number: it is the table's.
    expect(readFileSync(BIN, 'utf8')).toContain(`process.exit(${ExitCode.notBuilt})`);
  });

  it('what the table says, the binary does: usage errors (an invalid --max-steps), help, an unknown run', () => {
    const run = (args: string[]): number | null => spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, HIVEWATCH_DB: ':memory:' } }).status;
    expect(run(['run', 'examples/01-happy-path.prose', '--max-steps', '0'])).toBe(ExitCode.usage);
    expect(run(['runs', '--since', '3x'])).toBe(ExitCode.usage);
    expect(run(['serve', '--port', '99999'])).toBe(ExitCode.usage);
    expect(run([])).toBe(ExitCode.usage);
    expect(run(['help'])).toBe(ExitCode.ok);
    expect(run(['replay', 'run_none'])).toBe(ExitCode.failed);
  });
});

describe('exitCodeOf: the one place a thrown error becomes an exit code', () => {
  it('a usage error exits 64 with its message', () => {
    expect(exitCodeOf(new UsageError('--since: expected a duration like 24h, got "3x"'))).toEqual({
      exitCode: 64,
      message: '--since: expected a duration like 24h, got "3x"',
    });
  });

  it("a user error and the store's refusals the operator fixes exit 1 with the message", () => {
    const cases: [Error, string][] = [
      [new StoreError('invalid_argument', 'postgres://host:x/db: the port is not a number'), 'postgres://host:x/db: the port is not a number'],
      [new StoreError('unavailable', 'the database server at 127.0.0.1:5432 is not answering'), 'the database server at 127.0.0.1:5432 is not answering'],
      [new StoreError('corrupt', 'the resumedFrom chain of run_a loops'), 'the resumedFrom chain of run_a loops'],
      [new ApiError('run_not_found', 'no run run_none'), 'no run run_none'],
      [new HivewatchError('USER_INVALID_INPUT', { message: '--limit: expected a whole number' }), '--limit: expected a whole number'],
    ];
    for (const [error, message] of cases) expect(exitCodeOf(error), message).toEqual({ exitCode: 1, message });
  });

  it('anything else is rethrown as it is, so its stack is printed', () => {
    const faults = [
      new Error('boom'),
      new ApiError('internal', 'boom'),
      new RunTakenError(['run_a']),
      new StoreError('invalid_event', 'event 3 of run_a is not a checkpoint'),
      new HivewatchError('SYSTEM_INVARIANT_VIOLATED', { message: 'boom' }),
      new HivewatchError('POLICY_UNAUTHORIZED', { message: 'no token' }),
    ];
    for (const fault of faults) expect(() => exitCodeOf(fault)).toThrow(fault);
    expect(() => exitCodeOf('a string')).toThrow('a string');
  });

  it('main says a database from a newer Hivewatch in one line and exits 1', async () => {
    const path = join(tempDir('hw-exit-'), 'future.db');
    const db = new Database(path);
    db.pragma('user_version = 9999');
    db.close();
    let err = '';
    const io: CliIo = { out: () => undefined, err: (t) => void (err += t), stdout: process.stdout, env: {} };
    expect(await main(['runs', '--db', path], io)).toBe(ExitCode.failed);
    expect(err).toMatch(/^hivewatch runs: database schema version 9999 is newer than this Hivewatch understands \(\d+\); upgrade Hivewatch\n$/);
  });

  it('main says a usage error in one line and exits 64', async () => {
    let err = '';
    const io: CliIo = { out: () => undefined, err: (t) => void (err += t), stdout: process.stdout, env: {} };
    expect(await main(['check'], io)).toBe(ExitCode.usage);
    expect(err).toBe('hivewatch check: expected exactly one flow file, got 0\n');
  });
});
