/**
 * One change at a time to a repository's list of worktrees, within this process. `git worktree
 * add` reads every other worktree's metadata (is the branch checked out elsewhere?), and another
 * `add` writing its own at that moment makes it fail ("failed to read
 * .git/worktrees/<name>/commondir"). The tasks of a parallel step create theirs together, so the
 * adds, removes and prunes of one repository wait their turn here. Two hosts working in one
 * repository are not serialised; docs/decisions/0007-agent-work-in-worktrees.md says so.
 */
const queues = new Map<string, Promise<void>>();

export function oneAtATime<T>(repo: string, work: () => Promise<T>): Promise<T> {
  const before = queues.get(repo) ?? Promise.resolve();
  const run = before.then(work);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(repo, settled);
  void settled.then(() => {
    if (queues.get(repo) === settled) queues.delete(repo);
  });
  return run;
}
