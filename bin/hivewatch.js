#!/usr/bin/env node
// The CLI is TypeScript compiled to dist/ by `npm run build` (run by `prepare` on install).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

// A database URL's password given on the command line (`--db postgres://user:secret@…`) can be
// read by every process of the machine, the agents this host starts among them, in
// /proc/<pid>/cmdline and `ps`. It is blanked from this process's command line before anything
// else runs (the arguments are kept); PGPASSWORD or ~/.pgpass keep it off the command line
// altogether (docs/postgres.md "The password").
const shown = process.argv.map((arg) => arg.replace(/(postgres(?:ql)?:\/\/[^/?#@\s:]*:)[^/?#@\s]+@/gi, '$1***@').replace(/([?&]password=)[^&#\s]+/gi, '$1***'));
if (shown.some((arg, i) => arg !== process.argv[i])) process.title = shown.join(' ');

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
