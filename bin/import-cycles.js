#!/usr/bin/env node
// `npm run lint` step: fails on any import circle between the project's own files, `import type`
// included. ESLint's import-x/no-cycle skips type-only imports (they vanish at run time), but a
// circle of types is still two rooms that cannot be read or moved apart.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
if (!config) throw new Error('cannot read tsconfig.json');
const files = new Set(config.fileNames.map((f) => resolve(f)));

/** The project's own files this file imports (static, dynamic, `import type`, re-exports). */
function importsOf(file) {
  const found = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles;
  const targets = [];
  for (const { fileName } of found) {
    if (!fileName.startsWith('.')) continue;
    const base = resolve(dirname(file), fileName);
    const stem = base.replace(/\.(c|m)?js$/, '');
    const suffix = base.endsWith('.cjs') ? ['.cts'] : ['.ts', '.tsx', '.d.ts'];
    const target = [base, ...suffix.map((s) => stem + s), join(base, 'index.ts')].find((c) => files.has(c));
    if (target) targets.push(target);
  }
  return targets;
}

// Tarjan's strongly connected components: every component of more than one file is a circle.
const graph = new Map([...files].map((f) => [f, importsOf(f)]));
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
let counter = 0;
function visit(file) {
  index.set(file, counter);
  low.set(file, counter++);
  stack.push(file);
  onStack.add(file);
  for (const next of graph.get(file) ?? []) {
    if (!index.has(next)) {
      visit(next);
      low.set(file, Math.min(low.get(file), low.get(next)));
    } else if (onStack.has(next)) low.set(file, Math.min(low.get(file), index.get(next)));
  }
  if (low.get(file) !== index.get(file)) return;
  const component = [];
  let member;
  do {
    member = stack.pop();
    onStack.delete(member);
    component.push(member);
  } while (member !== file);
  if (component.length > 1 || graph.get(file).includes(file)) circles.push(component);
}
for (const file of graph.keys()) if (!index.has(file)) visit(file);

if (circles.length === 0) {
  console.log(`import-cycles: ${graph.size} files, no import circle (type imports included)`);
} else {
  for (const circle of circles)
    console.error(
      `import circle: ${circle
        .map((f) => relative(root, f))
        .sort()
        .join(' ↔ ')}`,
    );
  console.error(`import-cycles: ${circles.length} circle(s) among ${graph.size} files`);
  process.exit(1);
}
