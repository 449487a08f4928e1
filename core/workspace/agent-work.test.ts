import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ofType, planOf, runPlan, startRun } from '../engine/testing.js';
import { gitAgentWork } from './git-run-work.js';
import { createRuntimeRegistry } from '../runtimes/registry.js';
import { makeRepo, writeFakeCoder } from './testing.js';
import { tempDirs } from '../testing/temp-dirs.js';
import { waiting } from '../testing/waiting.js';
import { readProcStat } from '../runtimes/process/process-identity.js';

const tempDir = tempDirs();

/**
 * End to end through a fake command-line coder in real temporary git repositories. Every run
 * keeps its worktrees under its own temp folder, never the product's default in the shared temp
 * dir: every run here has the id run_test, and the default folder is shared with every other
 * test run on the machine.
 */

const CHECK = 'test "$(cat src/value.txt)" = right || (echo "expected right, got $(cat src/value.txt)"; exit 1)';

function setup() {
  const repo = makeRepo({ 'src/value.txt': 'start\n', 'README.md': 'readme\n' }, tempDir);
  const dir = tempDir('hivewatch-coder-');
  const coder = writeFakeCoder(dir);
  const agent = `agent coder:\n  runtime: "command"\n  command: "sh ${coder.script}"\n  workspace: "worktree"\n  env: ["PROMPT_LOG=${coder.promptLog}"]\n`;
  const worktreeRoot = join(dir, 'worktrees');
  const run = (flow: string) =>
    runPlan(planOf(`${agent}${flow}`), {
      registry: createRuntimeRegistry(),
      defaultAgent: 'coder',
      workspace: { agentWork: gitAgentWork, repo: repo.root, gitEnv: repo.gitEnv, worktreeRoot },
    });
  const prompts = (): string[] => (existsSync(coder.promptLog) ? readFileSync(coder.promptLog, 'utf8').split('\n=====\n').filter(Boolean) : []);
  return { repo, run, prompts, worktreeRoot };
}

describe('agent work in git worktrees', () => {
  it('commits a successful task on the run branch and removes the worktrees', async () => {
    const { repo, run, worktreeRoot } = setup();
    const { result, events } = await run('session: coder\n  prompt: "write src/value.txt right"\n  expect-changes: true\n');
    expect(result.status).toBe('completed');
    const ready = ofType(events, 'workspaceReady')[0];
    expect(ready?.branch).toBe('hivewatch/run_test');
    const merged = ofType(events, 'branchMerged');
    expect(merged).toHaveLength(1);
    expect(repo.git('rev-parse', 'hivewatch/run_test')).toBe(merged[0]?.head);
    expect(repo.git('show', 'hivewatch/run_test:src/value.txt')).toBe('right');
    expect(repo.git('show', 'main:src/value.txt')).toBe('start');
    // A machine with no git identity (this test's isolated config has none) commits as Hivewatch.
    expect(repo.git('log', '-1', '--format=%an <%ae>', 'hivewatch/run_test^2')).toBe('Hivewatch <hivewatch@localhost>');
    expect(ofType(events, 'attemptChanges')[0]).toMatchObject({ changed: [{ path: 'src/value.txt', status: 'M' }], outsideScope: [] });
    expect(existsSync(join(worktreeRoot, 'run_test'))).toBe(false);
    expect(repo.git('worktree', 'list').split('\n')).toHaveLength(1);
    expect(repo.git('branch', '--list', 'hivewatch-tasks/*')).toBe('');
  });

  it('a failed check fails the attempt; the retry starts clean and its prompt carries the check output', async () => {
    const { repo, run, prompts } = setup();
    const { result, events } = await run(
      `session: coder\n  prompt: "attempt1 write src/value.txt wrong;attempt2 write src/value.txt right"\n  retry: 2\n  backoff: "fixed"\n  delay: "1s"\n  verify:\n    tests: "${CHECK.replace(/"/g, '\\"')}"\n`,
    );
    expect(result.status).toBe('completed');
    const checks = ofType(events, 'checkFinished');
    expect(checks.map((c) => [c.attempt, c.name, c.ok])).toEqual([
      [1, 'tests', false],
      [2, 'tests', true],
    ]);
    expect(checks[0]?.outputTail).toContain('expected right, got wrong');
    const failed = ofType(events, 'attemptFailed')[0];
    expect(failed?.error).toMatchObject({ code: 'VERIFICATION_CHECK_FAILED', origin: 'check:tests', recoverable: true });
    const second = ofType(events, 'attemptStarted').find((e) => e.attempt === 2);
    expect(second?.feedback).toContain('VERIFICATION_CHECK_FAILED from check:tests');
    expect(second?.feedback).toContain('expected right, got wrong');
    const [first, retry] = prompts();
    expect(first).not.toContain('previous attempt');
    expect(retry).toContain('The previous attempt (1) failed: VERIFICATION_CHECK_FAILED');
    expect(retry).toContain('expected right, got wrong');
    expect(repo.git('show', 'hivewatch/run_test:src/value.txt')).toBe('right');
  });

  it('a change outside the scope is discarded and not retried', async () => {
    const { repo, run } = setup();
    const { result, events } = await run('session: coder\n  prompt: "write src/value.txt right;write README.md hacked"\n  retry: 3\n  scope: ["src/**"]\n');
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'SCOPE_VIOLATION_WRITE', origin: 'scope_enforcer', context: { outsideScope: ['README.md'] } });
    expect(ofType(events, 'attemptStarted')).toHaveLength(1);
    expect(ofType(events, 'branchMerged')).toEqual([]);
    expect(repo.git('show', 'hivewatch/run_test:README.md')).toBe('readme');
  });

  it('expect-changes with no change is AGENT_NO_CHANGES', async () => {
    const { run } = setup();
    const { result } = await run('session: coder\n  prompt: "nothing to do"\n  expect-changes: true\n');
    expect(result.error).toMatchObject({ code: 'AGENT_NO_CHANGES', origin: 'agent:coder' });
  });

  it('merges two parallel tasks in ordinal order; a later step sees the merged work', async () => {
    const { repo, run } = setup();
    const { result, events } = await run(
      'parallel:\n  a = session: coder\n    prompt: "write src/a.txt A"\n  b = session: coder\n    prompt: "write src/b.txt B"\nsession: coder\n  prompt: "write src/c.txt C"\n  verify:\n    both: "test -f src/a.txt && test -f src/b.txt"\n',
    );
    expect(result.status).toBe('completed');
    const merged = ofType(events, 'branchMerged');
    expect(merged.map((m) => m.merged.map((x) => x.taskId))).toEqual([['1:0', '1:1'], ['2:2']]);
    const subjects = repo.git('log', '--first-parent', '--format=%s', 'hivewatch/run_test').split('\n');
    expect(subjects.slice(0, 3)).toEqual(['hivewatch: 2:2 write src/c.txt C', 'hivewatch: 1:1 write src/b.txt B', 'hivewatch: 1:0 write src/a.txt A']);
  });

  it('a merge conflict fails the step with GIT_MERGE_CONFLICT and leaves the run branch where it was', async () => {
    const { repo, run } = setup();
    const before = repo.git('rev-parse', 'main');
    const { result, events } = await run(
      'parallel:\n  a = session: coder\n    prompt: "write src/value.txt one"\n  b = session: coder\n    prompt: "write src/value.txt two"\n',
    );
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'GIT_MERGE_CONFLICT', origin: 'git', recoverable: false, context: { conflicted: ['src/value.txt'] } });
    expect(ofType(events, 'stepFinished')).toEqual([]);
    expect(repo.git('rev-parse', 'hivewatch/run_test')).toBe(before);
  });

  it('a git failure is an error of the flow: a rejecting commit hook is GIT_COMMIT_FAILED, and try/catch catches it', async () => {
    const { repo, run, prompts } = setup();
    writeFileSync(join(repo.root, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\necho "hook says no" >&2\nexit 1\n', { mode: 0o755 });
    const { result, events } = await run(
      'try:\n  session: coder\n    prompt: "write src/value.txt right"\ncatch err:\n  session: coder\n    prompt: "report {err.code}"\n    workspace: "none"\n',
    );
    expect(result.status).toBe('completed');
    const failed = ofType(events, 'attemptFailed')[0];
    expect(failed?.error).toMatchObject({ code: 'GIT_COMMIT_FAILED', category: 'git', origin: 'git' });
    expect(ofType(events, 'errorOccurred')[0]).toMatchObject({ caught: true });
    // A task is named by the prompt it ran; the prompt as written is kept beside it.
    expect(ofType(events, 'taskStarted').map((t) => [t.name, t.template])).toEqual([
      ['write src/value.txt right', undefined],
      ['report GIT_COMMIT_FAILED', 'report {err.code}'],
    ]);
    expect(prompts().at(-1)?.trim()).toBe('report GIT_COMMIT_FAILED');
  });

  it('a cancel during a check stops the check and ends the run cancelled, committing nothing', async () => {
    const { repo, worktreeRoot } = setup();
    const dir = tempDir('hivewatch-check-cancel-');
    const pidFile = join(dir, 'check.pid');
    const coder = writeFakeCoder(dir);
    const agent = `agent coder:\n  runtime: "command"\n  command: "sh ${coder.script}"\n  env: ["PROMPT_LOG=${coder.promptLog}"]\n`;
    const { run, done, sink } = startRun(
      planOf(`${agent}session: coder\n  prompt: "write src/value.txt right"\n  verify:\n    slow: "echo $$ > ${pidFile}; exec sleep 300"\n`),
      {
        registry: createRuntimeRegistry({ killGraceMs: 200 }),
        defaultAgent: 'coder',
        workspace: { agentWork: gitAgentWork, repo: repo.root, gitEnv: repo.gitEnv, killGraceMs: 200, worktreeRoot },
      },
    );
    // Once the check is running, cancel.
    const pid = await vi.waitFor(() => Number(existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : '') || waiting('the check to write its pid'), {
      timeout: 30_000,
    });
    expect(alive(pid)).toBe(true);
    run.cancel({ reason: 'operator' });
    const result = await done;
    expect(result.status).toBe('cancelled');
    expect(alive(pid)).toBe(false);
    expect(ofType(sink.events, 'checkFinished')).toEqual([]);
    expect(ofType(sink.events, 'branchMerged')).toEqual([]);
    expect(repo.git('show', 'hivewatch/run_test:src/value.txt')).toBe('start');
  });
});

describe('verifier agents and setup', () => {
  function withReviewer(verdicts: string[]) {
    const { repo, worktreeRoot } = setup();
    const dir = tempDir('hivewatch-review-');
    const coder = writeFakeCoder(dir);
    const reviewer = join(dir, 'reviewer.sh');
    // Answers the n-th review with the n-th verdict (a counter file keeps n).
    writeFileSync(reviewer, `#!/bin/sh\nn=$(cat ${dir}/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${dir}/n\nsed -n "\${n}p" ${dir}/verdicts\n`);
    writeFileSync(join(dir, 'verdicts'), verdicts.join('\n') + '\n');
    const setupLog = join(dir, 'setup.log');
    const agents =
      `agent coder:\n  runtime: "command"\n  command: "sh ${coder.script}"\n  setup: "echo ran >> ${setupLog}"\n  env: ["PROMPT_LOG=${coder.promptLog}"]\n` +
      `agent reviewer:\n  runtime: "command"\n  command: "sh ${reviewer}"\n`;
    const run = (flow: string) =>
      runPlan(planOf(`${agents}${flow}`), {
        registry: createRuntimeRegistry(),
        defaultAgent: 'coder',
        workspace: { agentWork: gitAgentWork, repo: repo.root, gitEnv: repo.gitEnv, worktreeRoot },
      });
    const setups = (): number => (existsSync(setupLog) ? readFileSync(setupLog, 'utf8').split('\n').filter(Boolean).length : 0);
    return { run, setups, repo };
  }
  const session = 'session: coder\n  prompt: "write src/value.txt right"\n  retry: 2\n  backoff: "fixed"\n  delay: "1s"\n  verifier: reviewer\n';

  it('SOFT FAIL is a recoverable VERIFICATION_CHECK_FAILED from verifier whose text the retry is told; setup runs once per worktree', async () => {
    const { run, setups } = withReviewer(['SOFT FAIL: add a test for negative numbers', 'PASS']);
    const { result, events } = await run(session);
    expect(result.status).toBe('completed');
    expect(ofType(events, 'attemptFailed')[0]?.error).toMatchObject({ code: 'VERIFICATION_CHECK_FAILED', origin: 'verifier', recoverable: true });
    expect(ofType(events, 'attemptStarted')[1]?.feedback).toContain('add a test for negative numbers');
    expect(ofType(events, 'checkFinished').map((c) => [c.kind, c.name, c.ok])).toEqual([
      ['setup', 'setup', true],
      ['verifier', 'reviewer', false],
      ['verifier', 'reviewer', true],
    ]);
    expect(setups()).toBe(1);
  });

  it('HARD FAIL is VERIFICATION_AGENT_REJECTED: fatal, never retried', async () => {
    const { run, repo } = withReviewer(['HARD FAIL: it deletes the audit log']);
    const { result, events } = await run(session);
    expect(result.error).toMatchObject({ code: 'VERIFICATION_AGENT_REJECTED', origin: 'verifier', recoverable: false });
    expect(ofType(events, 'attemptStarted')).toHaveLength(1);
    expect(repo.git('show', 'hivewatch/run_test:src/value.txt')).toBe('start');
  });

  it('a failing setup fails the attempt as RUNTIME_CRASHED from runtime:setup', async () => {
    const { repo, worktreeRoot } = setup();
    const { result } = await runPlan(
      planOf('agent coder:\n  runtime: "fake"\n  workspace: "worktree"\n  setup: "echo missing tool >&2; exit 7"\nsession: coder\n  prompt: "x"\n'),
      {
        workspace: { agentWork: gitAgentWork, repo: repo.root, gitEnv: repo.gitEnv, worktreeRoot },
      },
    );
    expect(result.error).toMatchObject({ code: 'RUNTIME_CRASHED', origin: 'runtime:setup', context: { exitCode: 7, outputTail: 'missing tool' } });
  });
});

/** Runs: kill(0) finds it and /proc does not show a zombie (ended, only waiting for its parent to reap it). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = readProcStat(pid);
  return stat === null ? true : stat.state !== 'Z' && stat.state !== 'X';
}
