import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CODE_ROOTS } from './folder-readmes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CODE_FILE = /\.(?:ts|tsx|cts|js|mjs)$/;
/** "issue #12", "issues 21–24", "part 3": history, which git keeps; a comment says why instead. */
const ISSUE_NUMBER = /\bissues? #?\d+|\bparts? \d+\b/i;
/** A comment line, or the text after `//` on a line of code. */
const COMMENT = /^\s*(?:\/\/|\/\*|\*)|\s\/\/\s/;
const TEST_TITLE = /\b(?:it|describe|test)(?:\.\w+)*\(\s*['"`]/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : files(path);
    return CODE_FILE.test(entry.name) || entry.name === 'README.md' || (dir.includes(`${ROOT}docs`) && entry.name.endsWith('.md')) ? [path] : [];
  });
}

/** Lines of `text` that carry an issue number in a comment, a test title or (for Markdown) anywhere. */
function numberedLines(text: string, markdown: boolean): number[] {
  return text.split('\n').flatMap((line, index) => (ISSUE_NUMBER.test(line) && (markdown || COMMENT.test(line) || TEST_TITLE.test(line)) ? [index + 1] : []));
}

describe('comments say why, not which issue', () => {
  it('no comment, test title, folder README or page of docs/ names an issue number', () => {
    const self = fileURLToPath(import.meta.url);
    const paths = [...[...CODE_ROOTS, 'docs'].flatMap((folder) => files(join(ROOT, folder))), join(ROOT, 'eslint.config.js')].filter((path) => path !== self);
    const found = paths.flatMap((path) => numberedLines(readFileSync(path, 'utf8'), path.endsWith('.md')).map((line) => `${relative(ROOT, path)}:${line}`));
    expect(found).toEqual([]);
  });

  it('the check finds a number in a comment, a test title and a README, and not in other code', () => {
    expect(numberedLines('// see issue #12\nconst x = 1;\n * as part 3 says\n', false)).toEqual([1, 3]);
    expect(numberedLines("it('keeps the order (issue 24)', () => {});\nconst label = 'issue #9';\n", false)).toEqual([1]);
    expect(numberedLines('a line\nIssue #13 made this\n', true)).toEqual([2]);
    expect(numberedLines('const part = parts[3]; // the third part\n', false)).toEqual([]);
  });
});
