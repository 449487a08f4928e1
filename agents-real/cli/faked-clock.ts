import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { shellQuote } from '../../core/runtimes/command-line.js';

/**
 * A real agent CLI on the suite's clock when the suite runs under libfaketime (the midnight and
 * month-end checks in docs/testing.md). libfaketime gives every process it preloads a semaphore
 * and a shared memory segment, and hands their names to its children in FAKETIME_SHARED.
 * Claude Code's binary (Bun, which brings its own malloc) cannot attach to an inherited
 * semaphore: libfaketime's constructor runs before that allocator is ready, glibc's sem_open
 * gets no memory, and libfaketime ends the CLI with exit code 1 before it starts ("sem_open
 * failed and recreation attempts failed"). Given the preload and the offset without that
 * variable, the CLI makes a semaphore of its own and sees the same faked time as the suite.
 * Outside libfaketime both helpers change nothing.
 */

type Env = Readonly<Record<string, string | undefined>>;

function underFaketime(env: Env): boolean {
  return env.FAKETIME !== undefined && (env.LD_PRELOAD ?? '').includes('libfaketime');
}

/** What an environment built from nothing adds to keep the suite's faked clock: the preload and its settings, never the inherited semaphore. */
export function fakedClockEnv(env: Env = process.env): Record<string, string> {
  if (!underFaketime(env)) return {};
  const kept = Object.entries(env).filter(
    ([name, value]) => value !== undefined && (name === 'LD_PRELOAD' || (name.startsWith('FAKETIME') && name !== 'FAKETIME_SHARED')),
  );
  return Object.fromEntries(kept) as Record<string, string>;
}

/**
 * The `command:` for a CLI the product starts with its own environment (a preset's agent), which
 * passes FAKETIME_SHARED on. A preset's `command:` names the CLI's executable alone, so under
 * libfaketime it names a wrapper of the same name, written into `folder`, that drops the variable
 * and execs the CLI (same pid, same arguments). Outside libfaketime it is the CLI itself.
 */
export function cliCommand(bin: string, folder: string, env: Env = process.env): string {
  if (!underFaketime(env) || env.FAKETIME_SHARED === undefined) return bin;
  const dir = join(folder, 'faked-clock');
  mkdirSync(dir, { recursive: true });
  const wrapper = join(dir, basename(bin));
  writeFileSync(wrapper, `#!/bin/sh\nunset FAKETIME_SHARED\nexec ${shellQuote(bin)} "$@"\n`, { mode: 0o755 });
  return wrapper;
}
