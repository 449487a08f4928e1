import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from './io.js';

/**
 * Every exit code of the command line is in README's "Exit codes" table, and
 * every row of the table is one the code can end with. The codes come from `ExitCode`; a number
 * written anywhere else on the way out (`process.exit(N)`, `return N`, `resolve(N)`) must be one
 * of them too, so a new code cannot slip in undocumented.
 */

const ROOT = join(import.meta.dirname, '..', '..');
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
    ...readdirSync(join(ROOT, 'core', 'cli'))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
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
