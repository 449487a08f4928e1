import { cpSync, existsSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { resolveAgent } from '../engine/task/agents.js';
import type { FlowPlan, RepoSpec } from '../flow/plan/plan.js';
import { planNeedsWorkspace } from '../flow/plan/workspace-mode.js';
import { gitOrThrow, identityEnv, runGit } from './git.js';

/**
 * Which repository a run's agents work in: `--repo` when given; else the flow's own
 * `repo:` (a path relative to the flow's folder, or `template:<folder>`, a fresh repository made
 * from that folder for each run: demos and tests); else the git repository containing
 * `fallbackDir` (the CLI's current directory; the flow's folder for the app); else none, and a run
 * that needs one fails before step 0 saying how to give it.
 */

const TEMPLATE_REPO_ROOT = join(tmpdir(), 'hivewatch-repos');

export interface RepoChoice {
  explicit: string | null;
  flowRepo: RepoSpec | null;
  flowFile: string;
  fallbackDir: string;
  gitEnv?: Record<string, string> | undefined;
}

export async function resolveRunRepo(choice: RepoChoice): Promise<string | null> {
  if (choice.explicit !== null) return resolve(choice.explicit);
  const flowDir = dirname(resolve(choice.flowFile));
  if (choice.flowRepo?.kind === 'path') return isAbsolute(choice.flowRepo.path) ? choice.flowRepo.path : resolve(flowDir, choice.flowRepo.path);
  if (choice.flowRepo?.kind === 'template') return repositoryFromTemplate(resolve(flowDir, choice.flowRepo.path), choice.gitEnv);
  const probe = await runGit(['rev-parse', '--show-toplevel'], { cwd: choice.fallbackDir, env: choice.gitEnv });
  return probe.code === 0 ? probe.stdout.trim() : null;
}

/** A new repository holding a copy of `folder` as its first commit. */
async function repositoryFromTemplate(folder: string, gitEnv?: Record<string, string>): Promise<string> {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new HivewatchError('USER_INVALID_CONFIG', { message: `the flow's repo template ${folder} is not a folder`, origin: 'user', context: { folder } });
  }
  mkdirSync(TEMPLATE_REPO_ROOT, { recursive: true });
  const root = mkdtempSync(join(TEMPLATE_REPO_ROOT, 'repo-'));
  cpSync(folder, root, { recursive: true });
  const git = { cwd: root, env: gitEnv };
  const failure = { code: 'GIT_CHECKOUT_FAILED' as const, what: `could not make a repository from the template ${folder}` };
  await gitOrThrow(['init', '--quiet', '--initial-branch=main'], git, failure);
  const env = await identityEnv(root, gitEnv);
  await gitOrThrow(['add', '--all'], { cwd: root, env }, failure);
  await gitOrThrow(['commit', '--quiet', '--no-verify', '-m', `template ${folder}`], { cwd: root, env }, failure);
  return root;
}

/**
 * Where a flow's agent work would happen, in words, for the Start panel; null when no session of
 * the flow works in a worktree. Pure: it does not look at the disk.
 */
export function describeRunRepo(plan: FlowPlan | null, flowFile: string): string | null {
  if (plan === null) return null;
  // The run's own default agent and --workspace are not known here: a session's and its agent's say.
  if (!planNeedsWorkspace(plan, (spec) => resolveAgent(plan, spec.agent ?? 'fake'), null)) return null;
  const flowDir = dirname(resolve(flowFile));
  if (plan.repo?.kind === 'template') return `a fresh repository copied from ${resolve(flowDir, plan.repo.path)} for each run`;
  if (plan.repo?.kind === 'path') return isAbsolute(plan.repo.path) ? plan.repo.path : resolve(flowDir, plan.repo.path);
  return `the git repository containing ${flowDir}`;
}
