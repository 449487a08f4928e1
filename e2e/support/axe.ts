import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * axe-core (the npm package, not a copy) injected into a page with Playwright's `addScriptTag`
 * and run over the whole document. `serious` and `critical` are what the journeys fail on;
 * `describeViolations` prints each rule with its nodes so a failure says what to fix.
 */

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeNode {
  target: string[];
  html: string;
  failureSummary?: string;
}

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: AxeNode[];
}

interface AxeWindow {
  axe?: { run(context: Document, options: unknown): Promise<{ violations: AxeViolation[] }> };
}

export async function runAxe(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => (window as unknown as AxeWindow).axe !== undefined);
  if (!loaded) await page.addScriptTag({ path: AXE_PATH });
  return page.evaluate(async () => {
    const axe = (window as unknown as AxeWindow).axe;
    if (!axe) throw new Error('axe-core did not load into the page');
    const result = await axe.run(document, { resultTypes: ['violations'] });
    // Plain data only: axe's result objects hold DOM references.
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.map(String), html: n.html, ...(n.failureSummary ? { failureSummary: n.failureSummary } : {}) })),
    }));
  });
}

export function seriousOrCritical(violations: readonly AxeViolation[]): AxeViolation[] {
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Serious or critical, and `region` (content outside every landmark, moderate in axe): what the window allows none of. */
export function seriousOrOutsideLandmarks(violations: readonly AxeViolation[]): AxeViolation[] {
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical' || v.id === 'region');
}

export function describeViolations(where: string, violations: readonly AxeViolation[]): string {
  const lines = [`${where}: ${violations.length} axe rule(s) violated`];
  for (const v of violations) {
    lines.push(`- ${v.id} (${v.impact}): ${v.help} — ${v.nodes.length} node(s)`);
    for (const node of v.nodes.slice(0, 6)) {
      lines.push(`    ${node.target.join(' ')}  ${node.html.slice(0, 160)}`);
      if (node.failureSummary) lines.push(`      ${node.failureSummary.replace(/\n\s*/g, ' | ').slice(0, 300)}`);
    }
    if (v.nodes.length > 6) lines.push(`    … and ${v.nodes.length - 6} more`);
  }
  return lines.join('\n');
}
