import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * What the folder-README test checks, as functions of a folder on disk, so the test can also run
 * them on a throwaway folder and show that each one fails when it should.
 */

/** The top folders that hold code; a README.md inside them describes its own folder. */
export const CODE_ROOTS = ['core', 'server', 'electron', 'renderer', 'e2e', 'agents-real', 'bench', 'shell-common', 'bin'];

const TEST_FILE = /\.(test|suite)\.tsx?$/;
/** A name with a code or page extension, or a path of such names: what a README means as a file. */
const FILE_PATH = /^(?:\.{1,2}\/)*(?:[\w.-]+\/)*[\w.-]+\.(?:ts|tsx|cts|js|mjs|css|json|html|sql)$/;
/** A folder written as a path ending in a slash (`queries/`, `core/store/`). */
const FOLDER_PATH = /^(?:\.{1,2}\/)*(?:[\w.-]+\/)+$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'fixtures']);

/** Every text between backticks in `text` (inline code spans; a span never crosses a line). */
function backticked(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!.trim());
}

/** Every README.md under `roots` (below `root`), fixtures and node_modules left out. */
export function codeReadmes(root: string, roots: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) walk(join(dir, entry.name));
      else if (entry.isFile() && entry.name === 'README.md') found.push(relative(root, join(dir, entry.name)));
    }
  };
  for (const top of roots) if (existsSync(join(root, top))) walk(join(root, top));
  return found.sort();
}

/**
 * The files (tests left out) and subfolders beside `readme` that it does not name in backticks,
 * as a name, or as a path ending in that name (`queries/`, `core/store/open.ts`).
 */
export function unnamedEntries(root: string, readme: string): string[] {
  const dir = dirname(join(root, readme));
  const named = new Set(backticked(readFileSync(join(root, readme), 'utf8')).map((span) => span.replace(/\/$/, '').split('/').pop()));
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.name !== 'README.md' && !TEST_FILE.test(entry.name) && !named.has(entry.name))
    .map((entry) => `${readme}: ${entry.name}${entry.isDirectory() ? '/' : ''}`);
}

/** Every file's base name under `dir`, for names a README cites from one of its subfolders. */
function namesBelow(dir: string, into = new Set<string>()): Set<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') namesBelow(join(dir, entry.name), into);
    } else into.add(entry.name);
  }
  return into;
}

/** Where `missingPaths` looks besides the doc's own folder and the root. */
interface PathBases {
  /** Folders the build makes (not in a fresh checkout): a span under one of them is not checked. */
  generated?: readonly string[];
  /** Further folders a path may be written from (a doc's table of `core/`'s rooms). */
  from?: readonly string[];
  /** Folders anywhere below which a bare file name may live (default: the doc's own folder). */
  namesUnder?: readonly string[];
}

/**
 * Paths in backticks in `doc` that name nothing: a path with a folder must exist from the doc's
 * folder, the root or one of `bases.from`; a bare file name must exist in the doc's folder or
 * anywhere below it (or below `bases.namesUnder`).
 */
export function missingPaths(root: string, doc: string, bases: PathBases = {}): string[] {
  const here = dirname(join(root, doc));
  const froms = [here, root, ...(bases.from ?? []).map((folder) => join(root, folder))];
  let below: Set<string> | undefined;
  const spans = [...new Set(backticked(readFileSync(join(root, doc), 'utf8')))];
  return spans
    .filter((span) => FILE_PATH.test(span) || FOLDER_PATH.test(span))
    .filter((span) => !(bases.generated ?? []).some((folder) => span.startsWith(folder)))
    .filter((span) => {
      if (froms.some((from) => existsSync(join(from, span)))) return false;
      if (span.includes('/')) return true;
      below ??= (bases.namesUnder?.map((folder) => join(root, folder)) ?? [here]).reduce((names, dir) => namesBelow(dir, names), new Set<string>());
      return !below.has(span);
    })
    .map((span) => `${doc}: ${span}`);
}

/** The CLI commands the architecture diagram lists: the words after `hivewatch` up to
 * the closing bracket, across lines, in its code block. */
export function diagramCommands(architecture: string): string[] {
  const diagram = architecture.split('```')[1] ?? '';
  const list = /hivewatch ([a-z|\s-]+)\)/.exec(diagram);
  return list ? list[1]!.split(/[\s|]+/).filter(Boolean) : [];
}

/** The folders the architecture diagram names (`core/store`, `renderer/api`, …), as paths from the root. */
export function diagramFolders(architecture: string): string[] {
  const diagram = architecture.split('```')[1] ?? '';
  const paths = [...diagram.matchAll(/(?<![\w/.])((?:[\w-]+\/)+[\w-]*)(?![\w/])/g)].map((match) => match[1]!.replace(/\/$/, ''));
  return [...new Set(paths)];
}
