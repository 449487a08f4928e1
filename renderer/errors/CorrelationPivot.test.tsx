import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CorrelationPivot, PIVOT_OPEN_ALL_UP_TO, PIVOT_SIBLINGS_SHOWN } from './CorrelationPivot.js';
import type { PivotNode } from './pivot.js';

function node(level: PivotNode['level'], key: string, children: PivotNode[] = []): PivotNode {
  return { key, level, label: key, count: 1 + children.length, href: level === 'flow' ? null : `#/runs/${key}`, codes: ['E'], children };
}

/** One flow whose runs each hold one task with one attempt. */
function flowWithRuns(runs: number): PivotNode[] {
  const children = Array.from({ length: runs }, (_, i) =>
    node('run', `run_${String(i).padStart(3, '0')}`, [node('task', `task_${i}`, [node('attempt', `attempt_${i}`)])]),
  );
  return [node('flow', 'examples/flow.prose', children)];
}

const runLinks = (html: string): number => (html.match(/href="#\/runs\/run_/g) ?? []).length;

describe('CorrelationPivot', () => {
  it('draws the first siblings of a long level and offers the rest behind one button', () => {
    const html = renderToStaticMarkup(<CorrelationPivot nodes={flowWithRuns(40)} truncated />);
    expect(runLinks(html)).toBe(PIVOT_SIBLINGS_SHOWN);
    expect(html).toContain('run_000');
    expect(html).not.toContain(`run_0${PIVOT_SIBLINGS_SHOWN}`);
    expect(html).toContain(`Show ${Math.min(40 - PIVOT_SIBLINGS_SHOWN, PIVOT_SIBLINGS_SHOWN * 5)} more of 40 runs`);
    expect(html).toContain('Built from the newest 500 occurrences.');
  });

  it('draws a short level whole, with no button', () => {
    const html = renderToStaticMarkup(<CorrelationPivot nodes={flowWithRuns(PIVOT_SIBLINGS_SHOWN)} truncated={false} />);
    expect(runLinks(html)).toBe(PIVOT_SIBLINGS_SHOWN);
    expect(html).not.toContain('more of');
  });

  it('opens a large tree to its runs only: no task is drawn until its run is opened', () => {
    const nodes = flowWithRuns(20);
    const html = renderToStaticMarkup(<CorrelationPivot nodes={nodes} truncated={false} />);
    expect(1 + 20 * 3).toBeGreaterThan(PIVOT_OPEN_ALL_UP_TO);
    expect(runLinks(html)).toBe(PIVOT_SIBLINGS_SHOWN);
    expect(html).not.toContain('task_0');
    expect((html.match(/aria-expanded="true"/g) ?? []).length).toBe(1);
    expect((html.match(/aria-expanded="false"/g) ?? []).length).toBe(PIVOT_SIBLINGS_SHOWN);
  });

  it('opens a small tree all the way down to its attempts', () => {
    const html = renderToStaticMarkup(<CorrelationPivot nodes={flowWithRuns(2)} truncated={false} />);
    expect(html).toContain('task_1');
    expect(html).toContain('attempt_1');
    expect(html).not.toContain('aria-expanded="false"');
  });
});
