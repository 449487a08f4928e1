import type { CompareGroup, CompareRow } from './compare-runs.js';

/**
 * What Compare shows of two large runs (unfolded, a 200-task run was a 47,000 px table).
 * A task "differs" when any fact but its time does: time in attempts differs between almost
 * any two real-clock runs and would make every task look changed; it is still shown, and
 * marked, inside a task that differs otherwise.
 */

/** Above this many tasks, tasks that are the same in both runs start collapsed to one line. */
export const COLLAPSE_ABOVE_TASKS = 20;

const isTimeRow = (row: CompareRow): boolean => row.key.endsWith('/time');

export function taskDiffers(group: CompareGroup): boolean {
  return group.rows.some((r) => r.differs && !isTimeRow(r));
}

export interface GroupView {
  group: CompareGroup;
  /** The rows to draw (all of them, or only those that differ). */
  rows: CompareRow[];
  /** Same in both runs and folded to one summary line (until the operator opens it). */
  collapsed: boolean;
  /** For a folded task: its outcome and attempts, "succeeded · attempts 1 of 3". */
  summary: string;
}

function summaryOf(group: CompareGroup): string {
  const status = group.rows.find((r) => r.key.endsWith('/status'));
  const attempts = group.rows.find((r) => r.key.endsWith('/attempts'));
  const left = (row: CompareRow | undefined): string | null => row?.left ?? row?.right ?? null;
  return [left(status), left(attempts) !== null ? `attempts ${left(attempts)}` : null].filter((s) => s !== null).join(' · ');
}

/**
 * The run group is always shown. `differencesOnly`: tasks the same in both are left out, and of
 * the rest only the rows that differ are drawn. Otherwise, past COLLAPSE_ABOVE_TASKS tasks, a
 * task the same in both is one line unless `opened` holds its key.
 */
export function viewGroups(groups: readonly CompareGroup[], options: { differencesOnly: boolean; opened: ReadonlySet<string> }): GroupView[] {
  const taskCount = groups.filter((g) => g.key !== 'run').length;
  const collapse = taskCount > COLLAPSE_ABOVE_TASKS;
  const out: GroupView[] = [];
  for (const group of groups) {
    const isRun = group.key === 'run';
    const differs = isRun || taskDiffers(group);
    if (options.differencesOnly) {
      if (!differs) continue;
      const rows = group.rows.filter((r) => r.differs);
      out.push({ group, rows, collapsed: false, summary: '' });
      continue;
    }
    const collapsed = !differs && collapse && !options.opened.has(group.key);
    out.push({ group, rows: collapsed ? [] : group.rows, collapsed, summary: collapsed ? summaryOf(group) : '' });
  }
  return out;
}

/** The runs' costs when they differ ("$1.72 vs $2.58"), for the toggle's label; null when they are the same. */
export function costDifference(groups: readonly CompareGroup[]): string | null {
  const cost = groups.find((g) => g.key === 'run')?.rows.find((r) => r.key === 'cost');
  if (!cost || !cost.differs) return null;
  const total = (text: string | null): string => (text ?? 'none reported').split(' · ')[0] as string;
  return `${total(cost.left)} vs ${total(cost.right)}`;
}

/** How many tasks differ, for the toggle's label: "12 of 200 tasks differ". */
export function differingTasks(groups: readonly CompareGroup[]): { differ: number; total: number } {
  const tasks = groups.filter((g) => g.key !== 'run');
  return { differ: tasks.filter(taskDiffers).length, total: tasks.length };
}
