import { gitError, runGit, type GitOptions } from './git.js';

/**
 * One task's worktree. Every attempt starts from the task's base (the run head at the start of
 * its step): a failed attempt's changes are discarded, as rule 2 discards a failed attempt's
 * outputs. Changes are measured against the base, untracked files included; ignored files (what
 * `setup:` installs, build output) are neither measured nor committed.
 */

interface ChangedPath {
  path: string;
  /** git's letter: A added, M modified, D deleted, R renamed, … */
  status: string;
}

export interface Changes {
  changed: ChangedPath[];
  /** `git diff --stat` against the base. */
  diffStat: string;
}

export class TaskWorktree {
  /** `setup:` ran here already (once per worktree). */
  setupDone = false;

  constructor(
    readonly path: string,
    readonly branch: string,
    readonly base: string,
    private readonly git: GitOptions,
  ) {}

  /** Back to the base: tracked files restored, untracked ones removed (ignored ones kept). */
  async reset(to: string = this.base): Promise<void> {
    const reset = await runGit(['reset', '--hard', '--quiet', to], this.git);
    if (reset.code !== 0) throw gitError('GIT_CHECKOUT_FAILED', `could not reset the worktree ${this.path}`, reset);
    const clean = await runGit(['clean', '-fd', '--quiet'], this.git);
    if (clean.code !== 0) throw gitError('GIT_CHECKOUT_FAILED', `could not clean the worktree ${this.path}`, clean);
  }

  /** What the attempt changed against the base, staged so the commit takes exactly that. */
  async changes(): Promise<Changes> {
    const add = await runGit(['add', '--all'], this.git);
    if (add.code !== 0) throw gitError('GIT_COMMIT_FAILED', `could not stage the changes in ${this.path}`, add);
    const names = await runGit(['diff', '--cached', '--name-status', '--no-renames', this.base], this.git);
    const changed = names.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [status = '?', ...rest] = line.split('\t');
        return { status: status.slice(0, 1), path: rest.join('\t') };
      });
    const stat = await runGit(['diff', '--cached', '--stat=100', this.base], this.git);
    return { changed, diffStat: stat.stdout.trimEnd() };
  }

  /** Commits what is staged; the task branch moves to it. */
  async commit(message: string): Promise<string> {
    const commit = await runGit(['commit', '--quiet', '-m', message], this.git);
    if (commit.code !== 0) throw gitError('GIT_COMMIT_FAILED', `could not commit the task's changes in ${this.path}`, commit);
    return (await runGit(['rev-parse', 'HEAD'], this.git)).stdout.trim();
  }
}
