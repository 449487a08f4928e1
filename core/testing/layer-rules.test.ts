import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// Lints a file that does not exist (its text given) at a path under the root, from a process whose
// working directory is elsewhere: the layer zones must hold however ESLint is started (an editor,
// `npx eslint` in a subfolder), not only from the root. Type-aware rules are off for the virtual
// file because the project service cannot find it; the zone rule needs no types.
const LINT_FROM_ELSEWHERE = `
const [root, file, text] = process.argv.slice(1);
const fromRoot = require('node:module').createRequire(root + '/package.json');
const { ESLint } = fromRoot('eslint');
const tseslint = fromRoot('typescript-eslint');
const eslint = new ESLint({ cwd: root, overrideConfig: [{ files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked }] });
eslint.lintText(text, { filePath: require('node:path').join(root, file) }).then((results) => {
  const messages = results.flatMap((result) => result.messages).filter((m) => m.ruleId === 'import-x/no-restricted-paths');
  process.stdout.write(JSON.stringify(messages.map((m) => m.message)));
});
`;

function zoneMessages(file: string, text: string): string[] {
  const out = execFileSync(process.execPath, ['-e', LINT_FROM_ELSEWHERE, ROOT, file, text], { cwd: tmpdir(), encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

describe('the layer rules hold from any working directory', () => {
  it('refuses a store file that imports the service layer', () => {
    const messages = zoneMessages('core/store/layer-probe.ts', "import { x } from '../service/service.js';\nexport const y = x;\n");
    expect(messages).toEqual([expect.stringContaining('core/store imports only core/{base,runtimes}')]);
  }, 60_000);

  it('lets a store file import what its layer allows', () => {
    expect(zoneMessages('core/store/layer-probe.ts', "import { x } from '../base/events.js';\nexport const y = x;\n")).toEqual([]);
  }, 60_000);
});
