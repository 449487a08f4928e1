import type { ErrorOccurrence } from '../../core/service/api.js';
import { formatHash } from '../app/router.js';

/**
 * The correlation pivot: occurrences grouped flow → run → task → attempt, each node with its
 * count, largest first; runs, tasks and attempts link to the run detail (task and attempt
 * selected on its retry timeline).
 */
export interface PivotNode {
  key: string;
  level: 'flow' | 'run' | 'task' | 'attempt';
  label: string;
  count: number;
  href: string | null;
  /** Codes seen under this node, most frequent first. */
  codes: string[];
  children: PivotNode[];
}

interface Draft {
  node: PivotNode;
  byKey: Map<string, Draft>;
  codes: Map<string, number>;
}

function draft(key: string, level: PivotNode['level'], label: string, href: string | null): Draft {
  return { node: { key, level, label, count: 0, href, codes: [], children: [] }, byKey: new Map(), codes: new Map() };
}

function finish(d: Draft): PivotNode {
  const children = [...d.byKey.values()].map(finish);
  children.sort((a, b) => b.count - a.count || a.label.localeCompare(b.label, 'en', { numeric: true }));
  const codes = [...d.codes].sort((a, b) => b[1] - a[1]).map(([c]) => c);
  return { ...d.node, children, codes };
}

export function buildPivot(occurrences: readonly ErrorOccurrence[]): PivotNode[] {
  const root = draft('', 'flow', '', null);
  for (const o of occurrences) {
    const c = o.correlation;
    const flow = o.flow ?? c.flow ?? '(unknown flow)';
    const run = c.run ?? o.runId;
    const task = c.task;
    const attempt = c.attempt;
    const path: Draft[] = [];
    let level: Draft = root;
    const step = (key: string, kind: PivotNode['level'], label: string, href: string | null): void => {
      let next = level.byKey.get(key);
      if (!next) level.byKey.set(key, (next = draft(key, kind, label, href)));
      path.push(next);
      level = next;
    };
    step(flow, 'flow', flow, null);
    if (run) {
      step(run, 'run', run, formatHash(['runs', run]));
      if (task) {
        step(task, 'task', `task ${task}`, formatHash(['runs', run], { task }));
        if (attempt !== null) step(String(attempt), 'attempt', `attempt ${attempt}`, formatHash(['runs', run], { task, attempt: String(attempt) }));
      }
    }
    for (const d of path) {
      d.node.count++;
      d.codes.set(o.code, (d.codes.get(o.code) ?? 0) + 1);
    }
  }
  return finish(root).children;
}
