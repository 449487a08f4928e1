#!/usr/bin/env node
// `npm start`: build what is missing or stale, then open Hivewatch — the Electron window where
// Electron's binary is installed, else the browser shell in Chromium's app mode, else the URL
// with its token printed. Arguments pass through: npm start -- --demo --db /tmp/h.db --port 8080
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const say = (line) => process.stderr.write(`hivewatch: ${line}\n`);

/** Newest modification time of the files under `dir` whose names match `pattern` (0 if none). */
function newest(dir, pattern, skip = new Set(['node_modules', 'dist', 'renderer-dist'])) {
  let latest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (skip.has(entry.name) || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path, pattern, skip));
    else if (pattern.test(entry.name)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

function run(what, args) {
  say(what);
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  return result.status === 0;
}

// 1. dist/ (npm run build): absent, or older than any source it is compiled from.
const distEntry = join(root, 'dist', 'server', 'cli.js');
const sources = Math.max(
  ...['core', 'shell-common', 'server', 'electron'].map((d) => newest(join(root, d), /\.(c?ts|js)$/)),
  mtime(join(root, 'tsconfig.build.json')),
);
if (!existsSync(distEntry) || !existsSync(join(root, 'dist', 'electron', 'main.js')) || sources > mtime(distEntry)) {
  if (!run('building dist/ (tsc -p tsconfig.build.json)…', [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'])) {
    say('the build failed; fix the errors above and run `npm start` again');
    process.exit(1);
  }
}

// 2. renderer-dist/ (npx vite build): when renderer/ has a page and the build is absent or stale.
const rendererPage = join(root, 'renderer', 'index.html');
const rendererBuilt = join(root, 'renderer-dist', 'index.html');
if (existsSync(rendererPage) && (!existsSync(rendererBuilt) || newest(join(root, 'renderer'), /\.(tsx?|css|html|svg)$/) > mtime(rendererBuilt))) {
  if (!run('building the window into renderer-dist/ (vite build)…', [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'])) {
    say(existsSync(rendererBuilt) ? 'the renderer build failed; serving the previous build' : 'the renderer build failed; serving the built-in page instead');
  }
}

const { main } = await import(pathToFileURL(distEntry).href);
process.exitCode = await main(['start', ...process.argv.slice(2)]);
