import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { skipTitle } from './skip.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TEST_FOLDERS = ['core', 'server', 'electron', 'renderer', 'e2e', 'agents-real', 'bench'];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return /\.(test|suite)\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

// A skip whose title goes through skipTitle (or the live agents' liveTitle, which says the same)
// names its condition; a bare skip, skipIf, runIf or an argument-less ctx skip would not.
const SKIP_CALL = /\b(?:describe|it|test|suite)\.(?:skip|skipIf|runIf|todo)\b|\b(?:ctx|context)\.skip\(\s*\)/;
const NAMED = /skipTitle\(|liveTitle\(/;

describe('every skip names its condition', () => {
  it('skipTitle adds the reason only when there is one', () => {
    expect(skipTitle('migratePostgres', 'no PostgreSQL server')).toBe('migratePostgres (skipped: no PostgreSQL server)');
    expect(skipTitle('migratePostgres', '')).toBe('migratePostgres');
    expect(skipTitle('migratePostgres', null)).toBe('migratePostgres');
  });

  it('no test file skips without saying why in the test’s name', () => {
    const unnamed: string[] = [];
    for (const file of TEST_FOLDERS.flatMap((folder) => testFiles(join(ROOT, folder)))) {
      readFileSync(file, 'utf8').split('\n').forEach((line, index) => {
        if (SKIP_CALL.test(line) && !NAMED.test(line) && !line.includes('SKIP_CALL')) unnamed.push(`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(unnamed).toEqual([]);
  });
});
