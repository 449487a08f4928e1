import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from './temp-dirs.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tempDir = tempDirs();

// Lints files that do not exist (path and text given) at paths under the root, from a process whose
// working directory is elsewhere: the layer zones must hold however ESLint is started (an editor,
// `npx eslint` in a subfolder), not only from the root. Type-aware rules are off for the virtual
// files because the project service cannot find them; the layer rules need no types. One process
// answers every probe of this file, one JSON line in and one out each ("rule: message" lists):
// loading ESLint and the config takes seconds, a probe a few milliseconds.
const LINT_FROM_ELSEWHERE = `
const root = process.argv[1];
const fromRoot = require('node:module').createRequire(root + '/package.json');
const { ESLint } = fromRoot('eslint');
const tseslint = fromRoot('typescript-eslint');
const eslint = new ESLint({ cwd: root, overrideConfig: [{ files: ['**/*.ts', '**/*.tsx'], ...tseslint.configs.disableTypeChecked }] });
const layerRules = ['import-x/no-restricted-paths', 'no-restricted-imports', '@typescript-eslint/no-restricted-imports', 'import-x/no-nodejs-modules', 'no-restricted-globals', 'no-restricted-properties', 'no-restricted-syntax'];
let queue = Promise.resolve();
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const { file, text } = JSON.parse(line);
  queue = queue
    .then(async () => {
      const results = await eslint.lintText(text, { filePath: require('node:path').join(root, file) });
      const messages = results.flatMap((result) => result.messages).filter((m) => layerRules.includes(m.ruleId));
      return messages.map((m) => m.ruleId + ': ' + m.message);
    })
    .catch((error) => ({ failed: String(error && error.stack || error) }))
    .then((answer) => process.stdout.write(JSON.stringify(answer) + '\\n'));
});
`;

let linter: { child: ChildProcessWithoutNullStreams; answers: ((line: string) => void)[] } | null = null;

function zoneMessages(file: string, text: string): Promise<string[]> {
  if (!linter) {
    const child = spawn(process.execPath, ['-e', LINT_FROM_ELSEWHERE, ROOT], { cwd: tmpdir() });
    const started = { child, answers: [] as ((line: string) => void)[] };
    createInterface({ input: child.stdout }).on('line', (line) => started.answers.shift()?.(line));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('exit', (code) => {
      for (const answer of started.answers.splice(0)) answer(JSON.stringify({ failed: `the linter exited ${code}: ${stderr}` }));
    });
    linter = started;
  }
  const { child, answers } = linter;
  return new Promise((resolve, reject) => {
    answers.push((line) => {
      const answer = JSON.parse(line) as string[] | { failed: string };
      if (Array.isArray(answer)) resolve(answer);
      else reject(new Error(answer.failed));
    });
    child.stdin.write(`${JSON.stringify({ file, text })}\n`);
  });
}

afterAll(() => {
  linter?.child.kill();
  linter = null;
});

describe('the layer rules hold from any working directory', () => {
  it('refuses a store file that imports the service layer', async () => {
    const messages = await zoneMessages('core/store/layer-probe.ts', "import { x } from '../service/service.js';\nexport const y = x;\n");
    expect(messages).toEqual([expect.stringContaining('core/store imports only core/{base,common} and core/runtimes/process/process-identity.ts')]);
  }, 60_000);

  it('lets a store file import what its layer allows', async () => {
    expect(await zoneMessages('core/store/layer-probe.ts', "import { x } from '../base/events.js';\nexport const y = x;\n")).toEqual([]);
  }, 60_000);
});

describe("process control is not the store's", () => {
  it('refuses a store file that imports the signalling half of the runtimes', async () => {
    const messages = await zoneMessages(
      'core/store/layer-probe.ts',
      "import { signalGroupId } from '../runtimes/process/process-group.js';\nexport const y = signalGroupId;\n",
    );
    expect(messages).toEqual([
      expect.stringMatching(
        /^import-x\/no-restricted-paths: .*"\.\.\/runtimes\/process\/process-group\.js".* core\/store imports only core\/\{base,common\} and core\/runtimes\/process\/process-identity\.ts$/,
      ),
    ]);
  }, 60_000);

  it('refuses an error class outside the one hierarchy, in any layer', async () => {
    for (const [file, text] of [
      ['core/service/layer-probe.ts', 'export class Oops extends Error {}\n'],
      ['renderer/layer-probe.tsx', 'export const Oops = class extends TypeError {};\n'],
    ]) {
      expect(await zoneMessages(file as string, text as string)).toEqual([
        expect.stringMatching(/^no-restricted-syntax: an error class extends HivewatchError/),
      ]);
    }
  }, 60_000);

  it('lets an error class extend HivewatchError', async () => {
    const text = "import { HivewatchError } from '../base/errors/hivewatch-error.js';\nexport class Fine extends HivewatchError {}\n";
    expect(await zoneMessages('core/service/layer-probe.ts', text)).toEqual([]);
  }, 60_000);

  it('refuses process.kill in a store file', async () => {
    const messages = await zoneMessages('core/store/layer-probe.ts', "export const end = (pid: number): void => {\n  process.kill(pid, 'SIGKILL');\n};\n");
    expect(messages).toEqual([expect.stringMatching(/^no-restricted-properties: .*core\/store signals no process/)]);
  }, 60_000);

  it('lets a store file read which process a pid is', async () => {
    const text = "import { processStartTime } from '../runtimes/process/process-identity.js';\nexport const y = processStartTime;\n";
    expect(await zoneMessages('core/store/layer-probe.ts', text)).toEqual([]);
  }, 60_000);

  it('refuses a shell a bare openStore: it opens its store with process control', async () => {
    const messages = await zoneMessages('server/layer-probe.ts', "import { openStore } from '../core/store/index.js';\nexport const y = openStore;\n");
    expect(messages).toEqual([expect.stringContaining('a shell opens its store with openHostStore')]);
    const host = "import { openHostStore } from '../core/service/history/open.js';\nexport const y = openHostStore;\n";
    expect(await zoneMessages('electron/layer-probe.ts', host)).toEqual([]);
  }, 60_000);
});

describe('the CLI reads the history through the service, as the window does', () => {
  const CLI_LAYERS = 'core/cli imports only core/{base,common,flow,runtimes,otel,engine,workspace,service}';

  it('refuses a CLI file that imports the store', async () => {
    const messages = await zoneMessages('core/cli/layer-probe.ts', "import { openStore } from '../store/index.js';\nexport const y = openStore;\n");
    expect(messages).toContainEqual(expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\.\/store\/index\.js".* core\/cli imports only /));
    expect(messages.filter((m) => m.startsWith('import-x/no-restricted-paths'))).toEqual([expect.stringContaining(CLI_LAYERS)]);
  }, 60_000);

  it('refuses a CLI file that takes only a type from deep in the store', async () => {
    const messages = await zoneMessages('core/cli/layer-probe.ts', "import type { RunRow } from '../store/projection/schema.js';\nexport type Y = RunRow;\n");
    expect(messages).toEqual([expect.stringContaining(CLI_LAYERS)]);
  }, 60_000);

  it('refuses a CLI file what opens or takes the store through the service', async () => {
    for (const text of [
      "import { openHostStore } from '../service/history/open.js';\nexport const y = openHostStore;\n",
      "import { createHivewatchService } from '../service/service.js';\nexport const y = createHivewatchService;\n",
      "import type { HivewatchServiceOptions } from '../service/service-types.js';\nexport type Y = HivewatchServiceOptions['store'];\n",
    ]) {
      expect(await zoneMessages('core/cli/layer-probe.ts', text)).toEqual([expect.stringMatching(/^no-restricted-imports: .*the CLI holds a CommandHistory/)]);
    }
  }, 60_000);

  it('lets a CLI file open its history through the service', async () => {
    const text = "import { openHistory } from '../service/history/open.js';\nexport const y = openHistory;\n";
    expect(await zoneMessages('core/cli/layer-probe.ts', text)).toEqual([]);
  }, 60_000);

  it("holds in the CLI's rooms too: the store refused, the service's opener refused, the history allowed", async () => {
    const store = await zoneMessages('core/cli/history/layer-probe.ts', "import { openStore } from '../../store/index.js';\nexport const y = openStore;\n");
    expect(store.filter((m) => m.startsWith('import-x/no-restricted-paths'))).toEqual([expect.stringContaining(CLI_LAYERS)]);
    const opener = "import { openHostStore } from '../../service/history/open.js';\nexport const y = openHostStore;\n";
    expect(await zoneMessages('core/cli/run/layer-probe.ts', opener)).toEqual([
      expect.stringMatching(/^no-restricted-imports: .*the CLI holds a CommandHistory/),
    ]);
    const history = "import { openHistory } from '../../service/history/open.js';\nexport const y = openHistory;\n";
    expect(await zoneMessages('core/cli/admin/layer-probe.ts', history)).toEqual([]);
  }, 60_000);
});

describe('OTLP ingest classifies through core/base, never the runtimes', () => {
  it('refuses an otel file that imports a runtime', async () => {
    const messages = await zoneMessages(
      'core/otel/layer-probe.ts',
      "import { firstLine } from '../runtimes/presets/preset.js';\nexport const y = firstLine;\n",
    );
    expect(messages).toEqual([
      expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\.\/runtimes\/presets\/preset\.js".* core\/otel imports only core\/\{base,common,store\}$/),
    ]);
  }, 60_000);

  it('lets an otel file import the one classifier from core/base', async () => {
    const text = "import { classifyProviderFailure } from '../base/errors/provider-failure.js';\nexport const y = classifyProviderFailure;\n";
    expect(await zoneMessages('core/otel/layer-probe.ts', text)).toEqual([]);
  }, 60_000);
});

describe('the shared pure layer (core/common) is pure, and the only core code the window takes', () => {
  it('refuses a Node module in the shared layer', async () => {
    const messages = await zoneMessages('core/common/layer-probe.ts', "import { readFileSync } from 'node:fs';\nexport const y = readFileSync;\n");
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^import-x\/no-nodejs-modules: /),
        expect.stringContaining('core/common/ is pure: it imports only core/common/ and core/base/'),
      ]),
    );
  }, 60_000);

  it('refuses a package in the shared layer', async () => {
    const messages = await zoneMessages('core/common/layer-probe.ts', "import { z } from 'zod';\nexport const y = z;\n");
    expect(messages).toEqual([expect.stringContaining('core/common/ is pure: it imports only core/common/ and core/base/')]);
  }, 60_000);

  it("refuses either runtime's globals in the shared layer", async () => {
    const messages = await zoneMessages('core/common/layer-probe.ts', 'export const home = process.env.HOME;\nexport const title = document.title;\n');
    expect(messages).toEqual([
      expect.stringMatching(/^no-restricted-globals: Unexpected use of 'process'\. core\/common\/ is pure/),
      expect.stringMatching(/^no-restricted-globals: Unexpected use of 'document'\. core\/common\/ is pure/),
    ]);
  }, 60_000);

  it('refuses the store (or any layer above base) in the shared layer', async () => {
    const messages = await zoneMessages('core/common/layer-probe.ts', "import { openStore } from '../store/index.js';\nexport const y = openStore;\n");
    expect(messages).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\.\/store\/index\.js".* core\/common imports only core\/\{base\}$/)]);
  }, 60_000);

  it('lets the shared layer import core/base, and the store import the shared layer', async () => {
    expect(await zoneMessages('core/common/layer-probe.ts', "import { causeOf } from '../base/errors/envelope.js';\nexport const y = causeOf;\n")).toEqual([]);
    expect(await zoneMessages('core/store/layer-probe.ts', "import { formatUsd } from '../common/usage-format.js';\nexport const y = formatUsd;\n")).toEqual(
      [],
    );
  }, 60_000);

  it('lets the window import values from the shared layer', async () => {
    expect(
      await zoneMessages('renderer/runs/layer-probe.ts', "import { formatUsd } from '../../core/common/usage-format.js';\nexport const y = formatUsd;\n"),
    ).toEqual([]);
  }, 60_000);

  it('still refuses the window the store, and any value of the rest of core', async () => {
    const store = await zoneMessages('renderer/runs/layer-probe.ts', "import { openStore } from '../../core/store/index.js';\nexport const y = openStore;\n");
    expect(store).toEqual([expect.stringContaining('renderer/ imports core/common/ (the shared pure layer) and the types of core/service/api.ts')]);
    const base = await zoneMessages(
      'renderer/runs/layer-probe.ts',
      "import { causeOf } from '../../core/base/errors/envelope.js';\nexport const y = causeOf;\n",
    );
    expect(base).toEqual([expect.stringContaining('renderer/ imports core/common/ (the shared pure layer)')]);
  }, 60_000);
});

/**
 * Compiles `text` as a file of the shared layer would be (tsconfig.common.json: ES2023, no Node
 * or DOM types), from a temporary folder; answers tsc's exit status and output.
 */
function compileAsCommon(text: string): { status: number | null; output: string } {
  const dir = tempDir('hivewatch-common-probe-');
  const shared = relative(dir, join(ROOT, 'core/common/usage-format.js')).split('\\').join('/');
  writeFileSync(join(dir, 'probe.ts'), text.replace('SHARED', shared));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: join(ROOT, 'tsconfig.common.json'), include: ['probe.ts'] }));
  const result = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
  return { status: result.status, output: result.stdout + result.stderr };
}

describe('tsconfig.common.json compiles the shared layer without either runtime', () => {
  it('compiles pure code that imports the shared layer', () => {
    expect(compileAsCommon("import { formatUsd } from 'SHARED';\nexport const y: string = formatUsd(0.5);\n")).toEqual({ status: 0, output: '' });
  }, 60_000);

  it('fails any name of the DOM or of Node, also those lint does not list', () => {
    const { status, output } = compileAsCommon('export const y = new TextEncoder();\nexport const z = Buffer.from("x");\n');
    expect(status).not.toBe(0);
    expect(output).toContain("Cannot find name 'TextEncoder'");
    expect(output).toContain("Cannot find name 'Buffer'");
  }, 60_000);
});

// The CLI reads and acts through the service's CommandHistory; the lint zones keep core/store's
// imports out, and this keeps its type out however it is reached (a service opener's return type,
// an options type's member): no expression of a CLI file may be the store, or a promise or part of it.
const CLI_DIR = join(ROOT, 'core/cli');

function cliSources(): string[] {
  return readdirSync(CLI_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.split('/').includes('testing'))
    .map((file) => join(CLI_DIR, file));
}

/** The store's own types: an interface or class of core/store named …Store (HivewatchStore, SqliteStore, …). */
function isStoreType(type: ts.Type, checker: ts.TypeChecker, depth = 0): boolean {
  if (depth > 3) return false;
  for (const symbol of [type.getSymbol(), type.aliasSymbol]) {
    const declared = symbol?.declarations?.some((d) => relative(ROOT, d.getSourceFile().fileName).startsWith('core/store/'));
    if (symbol && declared && /Store$/.test(symbol.getName())) return true;
  }
  const parts = [
    ...(type.isUnionOrIntersection() ? type.types : []),
    ...(type.aliasTypeArguments ?? []),
    ...(type.flags & ts.TypeFlags.Object && (type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference
      ? checker.getTypeArguments(type as ts.TypeReference)
      : []),
  ];
  return parts.some((part) => isStoreType(part, checker, depth + 1));
}

/** Each place in `files` whose type is the store's, as "file:line: text"; `extra` are files that exist only here. */
function storeTypedExpressions(files: readonly string[], extra: Readonly<Record<string, string>> = {}): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('tsconfig.json does not parse');
  const host = ts.createCompilerHost(config.options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => name in extra || fileExists.call(host, name);
  host.readFile = (name) => extra[name] ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) =>
    name in extra ? ts.createSourceFile(name, extra[name] as string, language) : getSourceFile.call(host, name, language, ...rest);
  const roots = [...files, ...Object.keys(extra)];
  const program = ts.createProgram({ rootNames: roots, options: { ...config.options, noEmit: true }, host });
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const root of roots) {
    const source = program.getSourceFile(root);
    if (!source) throw new Error(`${root} is not in the program`);
    const visit = (node: ts.Node): void => {
      const typed = ts.isIdentifier(node) || ts.isCallExpression(node) || ts.isAwaitExpression(node) || ts.isParenthesizedExpression(node);
      if (typed && isStoreType(checker.getTypeAtLocation(node), checker)) {
        found.push(`${relative(ROOT, root)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText()}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("the CLI holds no value of the store's type", () => {
  it('finds none in core/cli, and finds the store however a probe reaches it', () => {
    const opener = join(CLI_DIR, 'store-probe-opener.ts');
    // One probe in a room: the check walks every room of the CLI, not only its root.
    const member = join(CLI_DIR, 'history', 'store-probe-member.ts');
    const found = storeTypedExpressions(cliSources(), {
      [opener]:
        "import { openHostStore } from '../service/history/open.js';\nexport const where = async (): Promise<string> => (await openHostStore({ path: 'x.db' })).location;\n",
      [member]:
        "import type { HivewatchServiceOptions } from '../../service/service-types.js';\nexport function where(held: HivewatchServiceOptions['store']): string {\n  return held.location;\n}\n",
    });
    expect(found.filter((line) => !line.includes('store-probe-'))).toEqual([]);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^core\/cli\/store-probe-opener\.ts:2: openHostStore\(/),
        'core/cli/history/store-probe-member.ts:3: held',
      ]),
    );
  }, 120_000);
});
