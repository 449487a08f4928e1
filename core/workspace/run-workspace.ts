import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { gitError, gitOrThrow, identityEnv, runGit, runGitSync, type GitOptions } from './git.js';
import { oneAtATime } from './repo-lock.js';
import { TaskWorktree } from './task-worktree.js';

/**
 * A run's place in a repository (docs/rules.md §5b): the branch `hivewatch/<runId>` that collects the
 * run's work, a worktree per task on a branch of its own, and a detached worktree where each
 * step's successful tasks are merged in ordinal order. The journal is the truth of the run's
 * head: `branchMerged` records it, and the branch ref follows (updated inside the synchronous
 * commit, so a cancel cannot land between the two).
 */

export const DEFAULT_WORKTREE_ROOT = join(tmpdir(), 'hivewatch-worktrees');

export interface RunWorkspaceOptions {
  runId: string;
  /** A folder inside the repository. */
  repo: string;
  /** Where the run branch starts: the repository's HEAD, or a resumed run's source head. */
  baseCommit?: string | null | undefined;
  /** Default DEFAULT_WORKTREE_ROOT; worktrees go to `<root>/<runId>/`. */
  worktreeRoot?: string | undefined;
  /** Extra environment for git (tests point it at an empty global config). */
  gitEnv?: Record<string, string> | undefined;
}

export interface MergeCandidate {
  taskId: string;
  ordinal: number;
  name: string;
  commit: string;
}

export type MergeResult = { ok: true; head: string; merged: MergeCandidate[] } | { ok: false; error: HivewatchError };

const safeName = (taskId: string): string => taskId.replace(/[^A-Za-z0-9_.-]/g, '-');

export class RunWorkspace {
  private readonly tasks = new Map<string, TaskWorktree>();
  private mergeTree: string | null = null;
  /** The run branch's head as journaled. */
  head: string;

  private constructor(
    readonly runId: string,
    readonly root: string,
    readonly branch: string,
    readonly baseCommit: string,
    readonly worktreeDir: string,
    private readonly git: GitOptions,
  ) {
    this.head = baseCommit;
  }

  static async open(options: RunWorkspaceOptions): Promise<RunWorkspace> {
    const probe = await runGit(['rev-parse', '--show-toplevel'], { cwd: options.repo, env: options.gitEnv });
    if (probe.code !== 0) {
      throw new HivewatchError('USER_INVALID_CONFIG', {
        message: `agent work needs a git repository, and ${options.repo} is not inside one: pass --repo PATH, or give the flow a repo:`,
        origin: 'user',
        context: { repo: options.repo },
      });
    }
    const root = probe.stdout.trim();
    const env = await identityEnv(root, options.gitEnv);
    const git: GitOptions = { cwd: root, env };
    const base =
      options.baseCommit ??
      (
        await gitOrThrow(['rev-parse', '--verify', 'HEAD^{commit}'], git, {
          code: 'GIT_CHECKOUT_FAILED',
          what: `the repository ${root} has no commit to start from`,
        })
      ).trim();
    const branch = `hivewatch/${options.runId}`;
    await gitOrThrow(['branch', '--force', branch, base], git, { code: 'GIT_CHECKOUT_FAILED', what: `could not create the run branch ${branch}` });
    const worktreeDir = join(options.worktreeRoot ?? DEFAULT_WORKTREE_ROOT, options.runId);
    mkdirSync(worktreeDir, { recursive: true });
    return new RunWorkspace(options.runId, root, branch, base, worktreeDir, git);
  }

  get gitOptions(): GitOptions {
    return this.git;
  }

  /** Where the task's worktree goes; journaled before it is made, so recovery can find it. */
  pathFor(taskId: string): string {
    return join(this.worktreeDir, safeName(taskId));
  }

  /** Not under the run branch: git cannot hold both `a/b` and `a/b/c` as branches. */
  taskBranch(taskId: string): string {
    return `hivewatch-tasks/${this.runId}/${safeName(taskId)}`;
  }

  /** The task's worktree, on a branch from the run's head now (the start of its step). */
  async taskWorktree(taskId: string): Promise<TaskWorktree> {
    const existing = this.tasks.get(taskId);
    if (existing) return existing;
    const path = this.pathFor(taskId);
    const branch = this.taskBranch(taskId);
    const add = await oneAtATime(this.root, () => runGit(['worktree', 'add', '--force', '-B', branch, path, this.head], this.git));
    if (add.code !== 0) throw gitError('GIT_WORKTREE_FAILED', `could not create the worktree of task ${taskId}`, add, { path, branch });
    const worktree = new TaskWorktree(path, branch, this.head, { cwd: path, env: this.git.env });
    this.tasks.set(taskId, worktree);
    return worktree;
  }

  /**
   * Merges the step's successful tasks into the run's head, in ordinal order, in a detached
   * worktree: nothing moves the run branch yet. A conflict is GIT_MERGE_CONFLICT (it needs a
   * person) and leaves the head where it was.
   */
  async merge(candidates: readonly MergeCandidate[]): Promise<MergeResult> {
    if (candidates.length === 0) return { ok: true, head: this.head, merged: [] };
    const tree = await this.mergeWorktree();
    const git = { cwd: tree, env: this.git.env };
    const reset = await runGit(['checkout', '--force', '--detach', this.head], git);
    if (reset.code !== 0) return { ok: false, error: gitError('GIT_CHECKOUT_FAILED', `could not check out the run head ${this.head}`, reset) };
    for (const task of [...candidates].sort((a, b) => a.ordinal - b.ordinal)) {
      const merged = await runGit(['merge', '--no-ff', '--no-edit', '-m', `hivewatch: ${task.taskId} ${task.name}`, task.commit], git);
      if (merged.code !== 0) {
        const conflicted = (await runGit(['diff', '--name-only', '--diff-filter=U'], git)).stdout.split('\n').filter(Boolean);
        await runGit(['merge', '--abort'], git);
        return {
          ok: false,
          error: new HivewatchError('GIT_MERGE_CONFLICT', {
            message: `merging task ${task.taskId} ("${task.name}") into ${this.branch} conflicts${conflicted.length ? ` in ${conflicted.join(', ')}` : ''}: resolve it by hand`,
            origin: 'git',
            context: { taskId: task.taskId, ordinal: task.ordinal, commit: task.commit, branch: this.branch, conflicted, stderr: merged.stdout.slice(-2000) },
          }),
        };
      }
    }
    const head = (await runGit(['rev-parse', 'HEAD'], git)).stdout.trim();
    return { ok: true, head, merged: [...candidates] };
  }

  /** Moves the run branch to a journaled head: synchronous, for the commit's one uninterrupted stretch. */
  advance(head: string): void {
    this.head = head;
    runGitSync(['update-ref', `refs/heads/${this.branch}`, head], this.git);
  }

  private async mergeWorktree(): Promise<string> {
    if (this.mergeTree) return this.mergeTree;
    const path = join(this.worktreeDir, '_merge');
    const add = await oneAtATime(this.root, () => runGit(['worktree', 'add', '--force', '--detach', path, this.head], this.git));
    if (add.code !== 0) throw gitError('GIT_WORKTREE_FAILED', 'could not create the merge worktree', add, { path });
    this.mergeTree = path;
    return path;
  }

  /** Removes every worktree and task branch of the run; the run branch stays (it holds the work). */
  async close(): Promise<void> {
    await removeRunWorktrees(this.root, this.runId, this.worktreeDir, this.git.env);
    this.tasks.clear();
    this.mergeTree = null;
  }
}

/**
 * Removes a run's worktrees and task branches: at the run's end, and at start-up for runs a dead
 * host left behind (their journals name the repository and the folder). Safe to repeat.
 */
export function removeRunWorktrees(repoRoot: string, runId: string, worktreeDir: string, env?: Record<string, string>): Promise<void> {
  return oneAtATime(repoRoot, () => removeWorktreesNow({ cwd: repoRoot, env }, runId, worktreeDir));
}

async function removeWorktreesNow(git: GitOptions, runId: string, worktreeDir: string): Promise<void> {
  const list = await runGit(['worktree', 'list', '--porcelain'], git);
  for (const line of list.stdout.split('\n')) {
    if (!line.startsWith('worktree ')) continue;
    const path = line.slice('worktree '.length);
    if (path === worktreeDir || path.startsWith(`${worktreeDir}/`)) await runGit(['worktree', 'remove', '--force', '--force', path], git);
  }
  rmSync(worktreeDir, { recursive: true, force: true });
  await runGit(['worktree', 'prune'], git);
  const branches = await runGit(['for-each-ref', '--format=%(refname:short)', `refs/heads/hivewatch-tasks/${runId}/`], git);
  for (const branch of branches.stdout.split('\n').filter(Boolean)) await runGit(['branch', '-D', branch], git);
}
