import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it, vi } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import { DEFAULT_WORKTREE_ROOT } from './run-workspace.js';
import { makeRepo, writeFakeCoder } from './testing.js';
import { tempDirs } from '../testing/temp-dirs.js';

const tempDir = tempDirs();

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'hivewatch.js');

/** Processes whose command line names `path` (read from /proc: this suite runs on Linux). */
function processesNaming(path: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(path)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return found;
}

/** kill -9 of `hivewatch run` during agent work: the next start removes the worktrees, resume continues from the run branch. */
describe('agent work after a crash of the host', () => {
  it('kill -9 mid-attempt: the next start leaves no worktree behind and resume continues from the run branch head', async () => {
    const repo = makeRepo({ 'README.md': 'readme\n' }, tempDir);
    const dir = tempDir('hivewatch-crash-work-');
    const coder = writeFakeCoder(dir);
    const block = join(dir, 'block');
    writeFileSync(block, '');
    const flow = join(dir, 'flow.prose');
    writeFileSync(
      flow,
      `agent coder:\n  runtime: "command"\n  command: "sh ${coder.script}"\n  workspace: "worktree"\n  env: ["PROMPT_LOG=${coder.promptLog}", "BLOCK_FILE=${block}"]\n` +
        'session: coder\n  prompt: "write a.txt A"\nsession: coder\n  prompt: "block;write b.txt B"\n',
    );
    const db = join(dir, 'runs.db');
    // The CLI's own temp dir: its worktrees stay out of the temp dir other test runs share.
    const cliTmp = join(dir, 'tmp');
    mkdirSync(cliTmp);
    const env = { ...process.env, ...repo.gitEnv, TMPDIR: cliTmp };
    const child = spawn(process.execPath, [BIN, 'run', flow, '--json', '--db', db, '--repo', repo.root], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const printed: HivewatchEvent[] = [];
    try {
      await new Promise<void>((resolve) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          const event = JSON.parse(line) as HivewatchEvent;
          printed.push(event);
          if (event.type === 'attemptStarted' && event.step === 2) child.kill('SIGKILL');
        });
        child.on('close', () => resolve());
      });
      const runId = printed[0]?.runId as string;
      const worktrees = join(cliTmp, basename(DEFAULT_WORKTREE_ROOT), runId);
      // The kill lands on attemptStarted, while the host's `git worktree add` for that attempt may
      // still run: killed with its parent it is not, so it finishes on its own. Reading the repo
      // before it has ended raced its writes ("failed to read .git/worktrees/2-1/commondir").
      await vi.waitFor(() => expect(processesNaming(worktrees)).toEqual([]), { timeout: 30_000, interval: 50 });
      expect(existsSync(worktrees)).toBe(true);
      expect(repo.git('worktree', 'list')).toContain(worktrees);
      const firstHead = printed.find((e) => e.type === 'branchMerged');
      expect(firstHead).toBeDefined();
      rmSync(block);

      const resumed = spawnSync(process.execPath, [BIN, 'resume', runId, '--json', '--db', db], { env, encoding: 'utf8' });
      expect(resumed.status).toBe(0);
      const events = resumed.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as HivewatchEvent);
      const ready = events.find((e) => e.type === 'workspaceReady');
      expect(ready).toMatchObject({ repo: repo.root, base: firstHead?.type === 'branchMerged' ? firstHead.head : 'missing' });
      const newRun = events[0]?.runId as string;
      expect(existsSync(worktrees)).toBe(false);
      expect(repo.git('worktree', 'list').split('\n')).toHaveLength(1);
      expect(repo.git('show', `hivewatch/${newRun}:a.txt`)).toBe('A');
      expect(repo.git('show', `hivewatch/${newRun}:b.txt`)).toBe('B');
    } finally {
      rmSync(block, { force: true });
      child.kill('SIGKILL');
    }
  });
});
