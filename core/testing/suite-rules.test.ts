import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { skipTitle } from './skip.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TEST_FOLDERS = ['core', 'server', 'electron', 'renderer', 'e2e', 'agents-real', 'bench'];

function filesIn(dir: string, name: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesIn(path, name);
    return name.test(entry.name) ? [path] : [];
  });
}

const testFiles = (dir: string): string[] => filesIn(dir, /\.(test|suite)\.tsx?$/);

/** The text of each `vi.waitFor(…)` and `expect.poll(…)` call in `text`, parentheses balanced. */
function waitCalls(text: string): { line: number; call: string }[] {
  const calls: { line: number; call: string }[] = [];
  for (const match of text.matchAll(/\b(?:vi\.waitFor|expect\.poll)\(/g)) {
    let depth = 1;
    let end = match.index + match[0].length;
    for (; depth > 0 && end < text.length; end++) {
      if ('([{'.includes(text[end]!)) depth++;
      else if (')]}'.includes(text[end]!)) depth--;
    }
    calls.push({ line: text.slice(0, match.index).split('\n').length, call: text.slice(match.index, end) });
  }
  return calls;
}

// A skip whose title goes through skipTitle (or the live agents' liveTitle, which says the same)
// names its condition; a bare skip, skipIf, runIf or an argument-less ctx skip would not.
const SKIP_CALL = /\b(?:describe|it|test|suite)\.(?:skip|skipIf|runIf|todo)\b|\b(?:ctx|context)\.skip\(\s*\)/;
const NAMED = /skipTitle\(|liveTitle\(/;

describe('the suite tells the truth', () => {
  it('skipTitle adds the reason only when there is one', () => {
    expect(skipTitle('migratePostgres', 'no PostgreSQL server')).toBe('migratePostgres (skipped: no PostgreSQL server)');
    expect(skipTitle('migratePostgres', '')).toBe('migratePostgres');
    expect(skipTitle('migratePostgres', null)).toBe('migratePostgres');
  });

  it('no test file skips without saying why in the test’s name', () => {
    const unnamed: string[] = [];
    for (const file of TEST_FOLDERS.flatMap((folder) => testFiles(join(ROOT, folder)))) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, index) => {
        // The formatter puts a long call's title on the line after its opening parenthesis.
        const call = line.trimEnd().endsWith('(') ? `${line} ${lines[index + 1] ?? ''}` : line;
        if (SKIP_CALL.test(line) && !NAMED.test(call) && !line.includes('SKIP_CALL')) unnamed.push(`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(unnamed).toEqual([]);
  });

  it("every vi.waitFor and expect.poll gives its own timeout (vitest's 1 s default is sized for a quiet machine)", () => {
    const self = fileURLToPath(import.meta.url);
    const files = TEST_FOLDERS.flatMap((folder) => filesIn(join(ROOT, folder), /\.tsx?$/)).filter((file) => file !== self);
    const bare = files.flatMap((file) =>
      waitCalls(readFileSync(file, 'utf8'))
        .filter(({ call }) => !/\btimeout\b/.test(call))
        .map(({ line, call }) => `${relative(ROOT, file)}:${line}: ${call.split('\n')[0]}`),
    );
    expect(bare).toEqual([]);
    expect(waitCalls('await vi.waitFor(() => f(g(1)), { timeout: 5 });\nexpect.poll(() => x).toBe(1)').map((c) => c.call)).toEqual([
      'vi.waitFor(() => f(g(1)), { timeout: 5 })',
      'expect.poll(() => x)',
    ]);
  });

  it('no test and no config retries a failing test (a flake is found and fixed, not hidden)', () => {
    const files = [...TEST_FOLDERS.flatMap((folder) => testFiles(join(ROOT, folder))), join(ROOT, 'vite.config.ts')];
    // Vitest's option in a suite's or a test's options object, or in the config's `test` block.
    const retrying = files.filter((file) => /[{,]\s*retry:\s*[1-9]\d*\s*[,}]/.test(readFileSync(file, 'utf8').replace(/\([^()\n]*\)/g, '')));
    expect(retrying.map((file) => relative(ROOT, file))).toEqual([]);
  });
});
