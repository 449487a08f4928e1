#!/usr/bin/env node
// Builds better-sqlite3 for the installed Electron's ABI into native/electron/better_sqlite3.node,
// where the desktop shell looks for it (electron/native.ts), and leaves node_modules/better-sqlite3
// (the Node build the CLI and the tests use) untouched. It works on a private copy of the sources:
// first a prebuilt binary for that Electron (prebuild-install, fast), else a build from source
// against Electron's headers (node-gyp, a few minutes).
//
//   node electron/build-sqlite.mjs [--electron <version>] [--from-source]
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(join(root, 'package.json'));
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const version = flag('--electron') ?? require('electron/package.json').version;
const fromSource = args.includes('--from-source');
const work = join(root, 'native', '.electron-build');
const copy = join(work, 'better-sqlite3');
const target = join(root, 'native', 'electron', 'better_sqlite3.node');

console.log(`building better-sqlite3 for Electron ${version} (${process.platform}-${process.arch})`);
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
cpSync(dirname(require.resolve('better-sqlite3/package.json')), copy, {
  recursive: true,
  filter: (path) => !path.includes(`${join('better-sqlite3', 'build')}`),
});

const run = (argv) => execFileSync(argv[0], argv.slice(1), { cwd: copy, stdio: 'inherit' });
let built = false;
if (!fromSource) {
  try {
    run([
      process.execPath,
      require.resolve('prebuild-install/bin.js'),
      '--runtime',
      'electron',
      '--target',
      version,
      '--arch',
      process.arch,
      '--platform',
      process.platform,
      '--verbose',
    ]);
    built = true;
  } catch {
    console.log('no prebuilt binary for this Electron; building from source');
  }
}
if (!built) {
  run(['npx', '--yes', 'node-gyp', 'rebuild', '--release', `--target=${version}`, `--arch=${process.arch}`, '--dist-url=https://electronjs.org/headers']);
}
const output = join(copy, 'build', 'Release', 'better_sqlite3.node');
if (!existsSync(output)) {
  console.error(`no ${output} was produced`);
  process.exit(1);
}
mkdirSync(dirname(target), { recursive: true });
copyFileSync(output, target);
rmSync(work, { recursive: true, force: true });
console.log(`wrote ${target}`);
