#!/usr/bin/env node
// The CLI is TypeScript compiled to dist/ by `npm run build` (run by `prepare` on install).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
// The shells (`serve`, `start`) live in server/, which core/ must never import: dispatch first.
const shell = process.argv[2] === 'serve' || process.argv[2] === 'start';
const entry = join(root, 'dist', shell ? 'server' : 'core', shell ? 'cli.js' : join('cli', 'main.js'));
if (!existsSync(entry)) {
  console.error('hivewatch: dist/ is missing; run `npm run build` in ' + root);
  process.exit(70);
}
// `hivewatch run --json | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
