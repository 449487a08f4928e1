import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../cli/main.js';
import { CODE_ROOTS, codeReadmes, diagramCommands, diagramFolders, missingPaths, unnamedEntries } from './folder-readmes.js';
import { tempDirs } from './temp-dirs.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Folders the build and the journeys make (a fresh checkout has none); docs name them. */
const GENERATED = ['dist/', 'dist-dev/', 'renderer-dist/', 'artifacts/'];
/** The shells' commands, dispatched by bin/hivewatch.js before the CLI's own. */
const SHELL_COMMANDS = ['serve', 'start'];
const tempDir = tempDirs();

describe('folder READMEs and the architecture match the tree', () => {
  it("finds the code folders' READMEs (fixtures left out)", () => {
    const readmes = codeReadmes(ROOT, CODE_ROOTS);
    expect(readmes).toContain('core/store/README.md');
    expect(readmes).toContain('renderer/README.md');
    expect(readmes.filter((path) => path.includes('fixtures/'))).toEqual([]);
  });

  it('every code folder README names every file (tests aside) and subfolder at its level', () => {
    expect(codeReadmes(ROOT, CODE_ROOTS).flatMap((readme) => unnamedEntries(ROOT, readme))).toEqual([]);
  });

  it('every file or folder a code folder README names in backticks exists', () => {
    expect(codeReadmes(ROOT, CODE_ROOTS).flatMap((readme) => missingPaths(ROOT, readme, { generated: GENERATED }))).toEqual([]);
  });

  it('every path in backticks in docs/architecture.md exists (a bare file name somewhere in the code)', () => {
    // Its table of core's rooms writes them from core/, and names files of any room bare.
    expect(missingPaths(ROOT, 'docs/architecture.md', { generated: GENERATED, from: ['core'], namesUnder: CODE_ROOTS })).toEqual([]);
  });

  it('every path a how-to names in backticks exists (a bare file name somewhere in the code)', () => {
    const guides = readdirSync(join(ROOT, 'docs/howto')).filter((name) => name.endsWith('.md'));
    expect(guides.length).toBeGreaterThanOrEqual(5);
    expect(guides.flatMap((name) => missingPaths(ROOT, `docs/howto/${name}`, { namesUnder: CODE_ROOTS }))).toEqual([]);
  });

  it('every folder the architecture diagram names exists', () => {
    const folders = diagramFolders(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));
    expect(folders).toContain('core/store/postgres');
    expect(folders.filter((folder) => !existsSync(join(ROOT, folder)))).toEqual([]);
  });

  it('the architecture diagram lists every command of the CLI, and only those', () => {
    const listed = diagramCommands(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));
    expect([...listed].sort()).toEqual([...COMMAND_NAMES, ...SHELL_COMMANDS].sort());
  });

  it('the checks fail on a README that omits a file, names a missing one, and on a wrong path', () => {
    const root = tempDir('hivewatch-readmes-');
    mkdirSync(join(root, 'core', 'room', 'inner'), { recursive: true });
    for (const name of ['kept.ts', 'forgotten.ts', 'kept.test.ts']) writeFileSync(join(root, 'core', 'room', name), '');
    writeFileSync(join(root, 'core', 'room', 'inner', 'deep.ts'), '');
    writeFileSync(join(root, 'core', 'room', 'README.md'), '`kept.ts`, `inner/` with `deep.ts`, and `gone.ts`; `inner/nowhere.ts`.\n');
    expect(codeReadmes(root, ['core'])).toEqual(['core/room/README.md']);
    expect(unnamedEntries(root, 'core/room/README.md')).toEqual(['core/room/README.md: forgotten.ts']);
    expect(missingPaths(root, 'core/room/README.md')).toEqual(['core/room/README.md: gone.ts', 'core/room/README.md: inner/nowhere.ts']);
    const diagram = '```\nrenderer/ core/gone (hivewatch check | run\n  | runs)\n```\n';
    expect(diagramCommands(diagram)).toEqual(['check', 'run', 'runs']);
    expect(diagramFolders(diagram)).toEqual(['renderer', 'core/gone']);
  });
});
